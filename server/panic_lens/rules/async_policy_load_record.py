"""Placeholder until the rule lands: detects nothing."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from panic_lens.rules.base import Finding, HoverFact
from panic_lens.rules.meta import ASYNC_POLICY as INFO

__all__ = ["INFO", "detect"]


def detect(facts: Any) -> Iterable[Finding | HoverFact]:
    return ()
