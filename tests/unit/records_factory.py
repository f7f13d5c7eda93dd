"""Records as data for the catalog, explain and CLI tests (imported by name, not via conftest:
several test folders have a conftest module, so `from conftest import` is ambiguous)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
SEEDS = REPO / "records"


def record(rid: str | None = "r1", **fields: Any) -> dict[str, Any]:
    """A valid schemaVersion 2 record object; `fields` override or add (None removes)."""
    base: dict[str, Any] = {
        "id": rid,
        "schemaVersion": 2,
        "errorMessage": "widget {} exploded",
        "messagePattern": r"widget (.+?) exploded",
        "filePath": "crates/widgets/src/lib.rs",
        "solutions": ["do not explode widgets"],
    }
    base.update(fields)
    return {k: v for k, v in base.items() if v is not None}


def envelope(rec: dict[str, Any]) -> dict[str, Any]:
    return {"record": rec, "datasetVersion": "2026-01-01T00:00:00Z"}
