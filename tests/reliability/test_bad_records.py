"""Bad records: each is a clear error naming its file and field, is skipped, never fatal.

One folder holds a good record next to every kind of broken one (malformed JSON, wrong types,
missing fields, duplicate ids, 10 MB strings, 100,000-deep JSON, an invalid regex, a
catastrophic one). Loading, `records check` and `explain` must stay correct and bounded.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from panic_lens.catalog import RecordError, load_catalog

GOOD_TEXT = "widget 7 exploded"


def record(rid: str, **fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "id": rid,
        "schemaVersion": 2,
        "errorMessage": "widget {} exploded",
        "messagePattern": r"widget (\d+) exploded",
        "solutions": ["do not explode widgets"],
    }
    base.update(fields)
    return {"record": {k: v for k, v in base.items() if v is not None}, "datasetVersion": "x"}


# file name -> (content, field the error must name or None for whole-file errors)
BAD: dict[str, tuple[str, str | None]] = {
    "malformed.json": ('{"record": {"id": "m1", "schemaVersion": 2,', None),
    "truncated.json": (json.dumps(record("t1"))[:-7], None),
    "not-an-object.json": ('{"record": [1, 2, 3]}', "record"),
    "no-envelope.json": ('{"id": "n1"}', "record"),
    "wrong-line-type.json": (json.dumps(record("w1", lineNumber="seven")), "lineNumber"),
    "wrong-list-type.json": (json.dumps(record("w2", solutions="just one")), "solutions"),
    "bool-as-int.json": (json.dumps(record("w3", schemaVersion=True)), "schemaVersion"),
    "missing-message.json": (json.dumps(record("m2", errorMessage=None)), "errorMessage"),
    "missing-id.json": (json.dumps(record(None, messagePattern="x")), "id"),  # type: ignore[arg-type]
    "null-pattern.json": (json.dumps(record("m3", messagePattern=None)), "messagePattern"),
    "huge-string.json": (json.dumps(record("h1", documentation="x" * 10_000_000)), "documentation"),
    "huge-list.json": (json.dumps(record("h2", tags=["y" * 1000] * 11_000)), "tags"),
    "invalid-regex.json": (json.dumps(record("r1", messagePattern="w ([0-9 x")), "messagePattern"),
    "huge-regex.json": (json.dumps(record("r2", messagePattern="a" * 100_000)), "messagePattern"),
    "deep.json": ('{"record": ' + "[" * 100_000 + "]" * 100_000 + "}", None),
    "deep-record.json": ('{"record": ' + '{"a": ' * 50_000 + "1" + "}" * 50_001, None),
    "duplicate.json": (json.dumps(record("good", errorMessage="second copy {}")), "id"),
}  # fmt: skip
CATASTROPHIC = record("slow", messagePattern="(a|aa)+$", errorMessage="aaa")


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("records")
    (root / "a-good.json").write_text(json.dumps(record("good")), encoding="utf-8")
    (root / "slow.json").write_text(json.dumps(CATASTROPHIC), encoding="utf-8")
    for name, (content, _) in BAD.items():
        (root / name).write_text(content, encoding="utf-8")
    lines = [json.dumps(record("j1")), "{oops", json.dumps(record("j2", tags=[1]))]
    (root / "dump.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def errors_by_file(errors: tuple[RecordError, ...] | list[RecordError]) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}
    for error in errors:
        out.setdefault(Path(error.path).name, []).append(error)
    return out


def test_every_bad_file_is_one_clear_error_and_the_good_records_load(folder: Path) -> None:
    started = time.monotonic()
    loaded = load_catalog([folder], include_default=False)
    assert time.monotonic() - started < 20
    assert sorted(r.id for r in loaded.catalog.records) == ["good", "j1", "slow"]
    assert loaded.catalog.get("good").panic.error_message == "widget {} exploded"  # type: ignore[union-attr]
    found = errors_by_file(loaded.errors)
    for name, (_, field) in BAD.items():
        assert name in found, f"{name}: no error"
        assert all(e.reason for e in found[name])
        assert field is None or field in [e.field for e in found[name]], (name, found[name])
    assert [(e.line, e.field) for e in found["dump.jsonl"]] == [(2, None), (3, "tags")]


@pytest.mark.parametrize("content", ["[1, 2, 3]", "[" * 100_000, "\ufeff{}", "null", ""])
def test_a_named_file_that_is_not_an_object_is_an_error(tmp_path: Path, content: str) -> None:
    """In a folder only files starting with `{` are read; a file named explicitly always is."""
    path = tmp_path / "named.json"
    path.write_text(content, encoding="utf-8")
    loaded = load_catalog([path], include_default=False)
    assert loaded.catalog.records == () or list(loaded.catalog.records) == []
    assert [Path(e.path).name for e in loaded.errors] == ["named.json"]


def test_errors_print_with_file_and_field(folder: Path) -> None:
    loaded = load_catalog([folder], include_default=False)
    for error in loaded.errors:
        text = str(error)
        assert Path(error.path).name in text and len(text) < 500, text
        if error.field:
            assert error.field in text


def test_records_check_lists_each_error_and_fails(folder: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "panic_lens", "records", "check", str(folder)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode != 0, done.stdout[-2000:]
    output = done.stdout + done.stderr
    assert "Traceback" not in output
    for name in BAD:
        assert name in output, name


def test_explain_is_bounded_by_the_pattern_timeout(folder: Path) -> None:
    catalog = load_catalog([folder], include_default=False).catalog
    log = "\n".join(["a" * 100 + "!"] * 200 + [GOOD_TEXT] + ["x" * 1_000_000])
    started = time.monotonic()
    result = catalog.explain_patterns(log, timeout=0.05)
    assert time.monotonic() - started < 15
    assert sorted(m.record_id for m in result.matches) == ["good", "j1"]
    assert "slow" in result.timed_out
