"""The records catalog: load and validate records, bind each half to a rule, explain panics."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from panic_lens.catalog.catalog import Catalog, LoadResult, load_catalog
from panic_lens.catalog.model import (
    Advisory,
    Binding,
    Knowledge,
    Match,
    Origin,
    PanicSite,
    Record,
    RecordError,
    RuleMatch,
)

if TYPE_CHECKING:
    from panic_lens.catalog.explain import ExplainResult


def __getattr__(name: str) -> Any:
    """ExplainResult on first use: explain's modules (ahocorasick_rs, regex) are for explain."""
    if name == "ExplainResult":
        from panic_lens.catalog.explain import ExplainResult

        return ExplainResult
    raise AttributeError(name)


__all__ = [
    "Advisory",
    "Binding",
    "Catalog",
    "ExplainResult",
    "Knowledge",
    "LoadResult",
    "Match",
    "Origin",
    "PanicSite",
    "Record",
    "RecordError",
    "RuleMatch",
    "load_catalog",
]
