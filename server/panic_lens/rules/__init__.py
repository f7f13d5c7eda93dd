"""The rule registry: one module per rule, each exposing `INFO` (RuleInfo) and `detect(facts)`."""

from __future__ import annotations

from importlib import import_module
from types import ModuleType

RULE_MODULES = (
    "ctc_target_capacity",
    "async_policy_load_record",
    "router_unsupported_dtype",
    "interpolate_backward_mode",
)


def rule_modules() -> tuple[ModuleType, ...]:
    """Import the four rule modules (lazily, so `meta` stays importable without tree-sitter)."""
    return tuple(import_module(f"{__name__}.{name}") for name in RULE_MODULES)
