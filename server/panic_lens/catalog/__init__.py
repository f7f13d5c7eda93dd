"""The records catalog: load and validate records, bind each half to a rule, explain panics."""

from __future__ import annotations

from panic_lens.catalog.catalog import Catalog, LoadResult, load_catalog
from panic_lens.catalog.explain import ExplainResult
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
