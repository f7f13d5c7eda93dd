"""bench.every_site: a record for every burn panic with a literal message in the shipped guards
index, valid for the loader, marked as the project's, and read by the deriver."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bench import every_site
from panic_lens.catalog.derive import shipped_guards
from panic_lens.catalog.load import read_records
from panic_lens.catalog.model import Record


@pytest.mark.skipif(not shipped_guards()["functions"], reason="no guards index shipped")
def test_every_panic_with_a_message_becomes_a_valid_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "every.jsonl"
    assert every_site.main([str(out), "--crates", "burn-nn"]) == 0
    read = list(read_records(out))
    assert read and all(isinstance(r, Record) for r in read)
    records = [r for r in read if isinstance(r, Record)]
    assert {r.written_by for r in records} == {"panic-lens"}
    assert all(r.panic.file_path.startswith("crates/burn-nn/") for r in records)
    assert len({r.id for r in records}) == len(records)
    # `{}` holes are read as any text: the record's message matches its own pattern
    assert all(re.search(r.panic.message_pattern, r.panic.error_message) for r in records)
    printed = capsys.readouterr().out
    derived = int(printed.split("derived: ")[1].split()[0])
    assert 0 < derived < len(records)
