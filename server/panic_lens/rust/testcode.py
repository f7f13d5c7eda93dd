"""Test code: files under a crate's tests/ or benches/, `#[test]` functions, `#[cfg(test)]`
modules, and `#[should_panic]` tests (which panic on purpose)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from panic_lens.rust.syntax import Node

if TYPE_CHECKING:
    from panic_lens.rust.facts import FileFacts

TEST_ATTRIBUTE = re.compile(r"#\[(?:\w+::)*test\b|(?m:^(?:(?!cfg\().)*+cfg\(.*\btest\b)|\bbench\b")
_SHOULD_PANIC = re.compile(r"#\[\s*should_panic\b")


def in_test_code(node: Node, facts: FileFacts) -> bool:
    """A file under the crate's tests/ or benches/, or code in a #[test] fn / #[cfg(test)] mod."""
    if _in_test_folder(facts):
        return True
    cur = node.parent
    while cur is not None:
        if cur.type in ("function_item", "mod_item") and has_attribute(cur, facts, TEST_ATTRIBUTE):
            return True
        cur = cur.parent
    return False


def _in_test_folder(facts: FileFacts) -> bool:
    """The file is under its crate's tests/ or benches/ (looked up once per file)."""
    key = ("testcode", "folder")
    if key not in facts.memo:
        manifest = facts.crate.manifest
        if manifest is None or facts.path is None:
            facts.memo[key] = False
        else:
            parts = Path(facts.path).resolve().parts
            root = Path(manifest).resolve().parent.parts
            inside = parts[: len(root)] == root and len(parts) > len(root) + 1
            facts.memo[key] = inside and parts[len(root)] in ("tests", "benches")
    return bool(facts.memo[key])


def in_should_panic_test(node: Node, facts: FileFacts) -> bool:
    """Inside a `#[should_panic]` function: the panic is what the test expects."""
    cur = node.parent
    while cur is not None:
        if cur.type == "function_item":
            return has_attribute(cur, facts, _SHOULD_PANIC)
        cur = cur.parent
    return False


def has_attribute(item: Node, facts: FileFacts, pattern: re.Pattern[str]) -> bool:
    """Whether one of the attributes written just before `item` matches `pattern`."""
    prev = item.prev_named_sibling
    while prev is not None and prev.type in ("attribute_item", "line_comment", "block_comment"):
        if prev.type == "attribute_item" and pattern.search(facts.text(prev)):
            return True
        prev = prev.prev_named_sibling
    return False
