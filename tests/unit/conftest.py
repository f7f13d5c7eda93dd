"""Shared helpers for the unit tests: build records and record files as data."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
SEEDS = REPO / "records"


def record(rid: str = "r1", **fields: Any) -> dict[str, Any]:
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


@pytest.fixture
def write_records(tmp_path: Path) -> Callable[..., Path]:
    """write_records("a.json", rec) writes one object; a list of records writes JSONL."""

    def write(name: str, content: dict[str, Any] | list[Any] | str) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            path.write_text(content, encoding="utf-8")
        elif isinstance(content, list):
            lines = [c if isinstance(c, str) else json.dumps(envelope(c)) for c in content]
            path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        else:
            path.write_text(json.dumps(envelope(content), indent=2), encoding="utf-8")
        return path

    return write
