"""The rule detectors: each rule's module (`RuleInfo.module`) exposes `INFO` and `detect(facts)`."""

from __future__ import annotations

from importlib import import_module
from types import ModuleType

from panic_lens.rules.meta import rules


def rule_modules() -> tuple[ModuleType, ...]:
    """Every registered rule's module, imported on first use (so `meta` stays importable
    without tree-sitter)."""
    return tuple(import_module(info.module) for info in rules())
