"""The README and the editors' and records' READMEs say what the program does (issue 37): how to
run `panic-lens` after `make run`, a CLI synopsis with exactly the real CLI's options, every
setting in the editors' settings table, and no rule count that the registry does not give."""

from __future__ import annotations

import argparse
import re

from records_factory import REPO

from panic_lens.cli import build_parser
from panic_lens.settings import _READERS

README = (REPO / "README.md").read_text(encoding="utf-8")
FLAG = re.compile(r"(?<![\w-])(--?[A-Za-z][\w-]*)")


def commands(parser: argparse.ArgumentParser, name: str = "") -> dict[str, list[set[str]]]:
    """Each (sub)command's options, each as the set of its spellings (`-o`, `--output`);
    `-h`/`--help` left out."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        options = [set(a.option_strings) for a in parser._actions if a.option_strings]
        return {name: [o for o in options if o != {"-h", "--help"}]}
    out: dict[str, list[set[str]]] = {}
    for sub_name, sub in subs[0].choices.items():
        out.update(commands(sub, f"{name} {sub_name}".strip()))
    return out


def synopsis() -> dict[str, str]:
    """The README's CLI synopsis: each command's text (continuation lines joined)."""
    block = README.split("## The CLI", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    found: dict[str, str] = {}
    current = ""
    for line in block.splitlines():
        if line.startswith("panic-lens "):
            words = line.split()[1:3]
            current = " ".join(w for w in words if re.fullmatch(r"[a-z]+", w))
            found[current] = line
        elif current:
            found[current] += " " + line.strip()
    return found


def test_the_synopsis_lists_every_command_with_exactly_its_options() -> None:
    shown = synopsis()
    for name, options in commands(build_parser()).items():
        assert name in shown, f"`panic-lens {name}` is missing from the README's synopsis"
        written = set(FLAG.findall(shown[name]))
        missing = [sorted(o) for o in options if not o & written]  # one spelling is enough
        assert not missing, (name, missing)
        unknown = written - set().union(*options)
        assert not unknown, (name, unknown)


def test_the_first_section_says_how_to_run_it_after_make_run() -> None:
    first = README.split("## What it is", 1)[0]
    assert "make run" in first
    assert ".venv/bin/panic-lens" in first
    assert "source .venv/bin/activate" in first


def test_no_rule_count_the_registry_does_not_give() -> None:
    for path in (REPO / "README.md", REPO / "records" / "README.md"):
        text = path.read_text(encoding="utf-8")
        assert "the four rules" not in text.lower(), path
        assert "for the four rules" not in text.lower(), path


def test_the_editors_settings_table_has_every_setting() -> None:
    text = (REPO / "editors" / "README.md").read_text(encoding="utf-8")
    table = text.split("## Settings", 1)[1].split("\n## ", 1)[0]
    rows = {m.group(1) for m in re.finditer(r"^\| `(\w+)` \|", table, re.MULTILINE)}
    assert set(_READERS) <= rows, set(_READERS) - rows


def test_help_says_something_of_suppressions_and_exit_codes() -> None:
    parser = build_parser()
    check = commands_parser(parser, "check")
    for text in (parser.format_help(), check.format_help()):
        assert "// panic-lens: allow(<rule-id>) <reason>" in text
        assert "exit codes:" in text
        for code in ("0  check:", "1  check:", "2  a usage error"):
            assert code in text


def commands_parser(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return sub.choices[name]
