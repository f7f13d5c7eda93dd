"""explain at dataset scale: 10,000 records against a 10 MB log finds exactly the right record.

The same generator feeds `make bench` (bench/explain_data.py), which measures the time; this
test checks only the answer, so it holds on a loaded machine.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from bench.explain_data import write_log, write_records

from panic_lens.catalog import load_catalog


@pytest.mark.slow
def test_ten_thousand_records_against_ten_megabytes(tmp_path: Path) -> None:
    records, log = tmp_path / "records.jsonl", tmp_path / "test.log"
    panic = write_records(records, 10_000)
    write_log(log, 10_000_000, panic)
    loaded = load_catalog([records], include_default=False)
    assert not loaded.errors
    assert len(loaded.catalog) == 10_000
    matches = loaded.catalog.explain(log.read_text())
    assert [m.record_id for m in matches] == ["bench05000"]
    assert matches[0].line == panic.splitlines()[1]
