"""Fixtures for the unit tests: record files written as data (see records_factory.py)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from records_factory import envelope


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
