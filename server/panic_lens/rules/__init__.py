"""The rule detectors: a hook rule's module (`RuleInfo.module`) exposes `detect(facts)`; a rule
in the rule language runs through `rules.language.detect` with its rule file."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial
from importlib import import_module
from typing import Any

from panic_lens.rules.meta import LANGUAGE_DETECTOR, RuleInfo, per_rule_set, rules

Detector = Callable[[Any], Iterable[Any]]


@per_rule_set
def rule_detectors() -> tuple[tuple[RuleInfo, Detector], ...]:
    """Every registered rule with its detector, imported on first use (so `meta` stays
    importable without tree-sitter)."""
    out: list[tuple[RuleInfo, Detector]] = []
    for info in rules():
        module = import_module(info.module)
        if info.module == LANGUAGE_DETECTOR and info.spec is not None:
            out.append((info, partial(module.detect, info)))
        else:
            out.append((info, module.detect))
    return tuple(out)
