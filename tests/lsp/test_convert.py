"""In-process checks of the converters: byte spans to LSP ranges, diagnostics, fixAll choice."""

from __future__ import annotations

from lsprotocol import types

from panic_lens.catalog import load_catalog
from panic_lens.lsp.actions import fix_all_edits, fix_title
from panic_lens.lsp.convert import LineIndex, diagnostic_json, lsp_diagnostic
from panic_lens.lsp.markdown import knowledge_markdown, lsp_hover, record_document
from panic_lens.model import Analysis, Edit, Finding, Fix, Point, Related, Severity, Span

LINE = 'let s = "🦀中"; ctc_loss(x);'
TEXT = f"fn main() {{\n    {LINE}\r\n}}\n"


def span_of(text: str, needle: str, row: int) -> Span:
    line = text.split("\n")[row]
    start_col = len(line[: line.index(needle)].encode())
    start = sum(len(x.encode()) + 1 for x in text.split("\n")[:row]) + start_col
    end = start + len(needle.encode())
    return Span(start, end, Point(row, start_col), Point(row, start_col + len(needle.encode())))


def test_ranges_in_each_encoding() -> None:
    span = span_of(TEXT, "ctc_loss", 1)
    prefix = "    " + LINE[: LINE.index("ctc_loss")]
    utf16 = LineIndex.of(TEXT, "utf-16").range(span)
    utf8 = LineIndex.of(TEXT, "utf-8").range(span)
    assert utf16.start == types.Position(1, len(prefix.encode("utf-16-le")) // 2)
    assert utf8.start == types.Position(1, len(prefix.encode()))
    assert utf16.end.character - utf16.start.character == len("ctc_loss")
    assert utf8.start.character - utf16.start.character == 4  # 🦀 4 bytes/2 units, 中 3/1


def test_client_positions_back_to_bytes() -> None:
    index = LineIndex.of(TEXT, "utf-16")
    span = span_of(TEXT, "ctc_loss", 1)
    assert index.point(index.range(span).start) == span.start


def test_diagnostic_carries_code_link_related_and_data() -> None:
    span = span_of(TEXT, "ctc_loss", 1)
    evidence = Related(span_of(TEXT, "🦀中", 1), "width from here")
    finding = Finding(
        "ctc-target-capacity",
        span,
        Severity.WARNING,
        "too wide",
        evidence=(evidence,),
        records=("r1",),
        fixes=(Fix("f1", "Narrow it", ()),),
    )
    index = LineIndex.of(TEXT, "utf-16")
    diag = lsp_diagnostic(finding, index, "file:///x.rs", lambda _: None)
    assert diag.code == "ctc-target-capacity" and diag.source == "panic-lens"
    assert diag.severity == types.DiagnosticSeverity.Warning
    assert diag.code_description and diag.code_description.href.startswith("file://")
    [rel] = diag.related_information or []
    assert rel.location.uri == "file:///x.rs" and rel.message == "width from here"
    assert diag.data == {
        "rule": "ctc-target-capacity",
        "key": f"ctc-target-capacity@{span.start_byte}",
        "records": ["r1"],
        "fixes": ["f1"],
    }


def _edit(start: int, end: int, text: str = "x") -> Edit:
    return Edit(Span(start, end, Point(0, start), Point(0, end)), text)


def test_diagnostic_json_is_what_pygls_would_send() -> None:
    """The push path builds the JSON of each Diagnostic directly: for every finding of the
    golden crates, the examples and the generated file, in both encodings, it is what
    lsprotocol's converter makes of `lsp_diagnostic`, keys in the same order (the same bytes
    on the wire)."""
    import json
    from pathlib import Path

    from lsprotocol.converters import get_converter

    from bench import corpus
    from panic_lens.engine import analyze

    repo = Path(__file__).resolve().parents[2]
    files = [
        *(repo / "tests" / "golden").glob("*/src/**/*.rs"),
        *(repo / "examples").glob("*/src/*.rs"),
    ]
    texts = [(str(f), f.read_text(encoding="utf-8")) for f in sorted(files)]
    texts.append((str(repo / "big.rs"), corpus.big_file(800, seed=2)))
    converter = get_converter()
    checked = related = 0
    for path, text in texts:
        for encoding in ("utf-16", "utf-8"):
            index = LineIndex.of(text, encoding)
            uri, lines = (
                Path(path).as_uri(),
                lambda other: LineIndex.of(Path(other).read_bytes(), "utf-16"),
            )
            for finding in analyze(text.encode(), path).findings:
                expected = converter.unstructure(lsp_diagnostic(finding, index, uri, lines))
                got = diagnostic_json(finding, index, uri, lines)
                assert json.dumps(got) == json.dumps(expected)
                checked += 1
                related += "relatedInformation" in got
    assert checked > 100 and related > 20


def test_fix_all_takes_safe_fixes_and_skips_overlaps() -> None:
    span = Span(0, 1, Point(0, 0), Point(0, 1))
    safe = Fix("a", "safe", (_edit(10, 20),), preferred=True)
    overlapping = Fix("b", "also safe", (_edit(15, 25),))
    changing = Fix("c", "Use Nearest", (_edit(40, 45),), behavior_change=True)
    findings = [
        Finding("r", span, Severity.ERROR, "m", fixes=f)
        for f in [(safe,), (overlapping,), (changing,)]
    ]
    assert [e.span.start_byte for e in fix_all_edits(findings)] == [10]
    assert fix_title(changing) == "Use Nearest (changes behaviour)"


def test_record_markdown_gives_each_advisory_once() -> None:
    catalog = load_catalog().catalog
    record = catalog.get("98e8605c71c1dd9c")
    assert record is not None
    page = record_document(record, catalog)
    unsigned = "Unsigned integer tensors (U8, U16, U32, U64) also reach"
    assert page.count(unsigned) == 1
    assert "(triggerScenarios): the same as the note on documentation above" in page
    hover_part = knowledge_markdown(record, catalog.advisories(record.id))
    assert "validationCode" not in hover_part  # a field the hover does not show


def test_record_view_marks_the_wrong_solution_and_gives_the_correction() -> None:
    catalog = load_catalog().catalog
    record = catalog.get("22a18ddf8713058a")
    assert record is not None
    page = record_document(record, catalog)
    listed = [line for line in page.splitlines() if line[:3] in {"1. ", "2. ", "3. ", "4. "}]
    wrong = [line for line in listed if "(wrong: see the note from panic-lens below)" in line]
    assert len(listed) == 4 and len(wrong) == 1 and "f32 is safest" in wrong[0]
    assert "> **Note from panic-lens** (solutions): The cause is the interpolation mode" in page


def test_hover_falls_back_to_a_finding_without_hover_fact() -> None:
    span = span_of(TEXT, "ctc_loss", 1)
    finding = Finding("ctc-target-capacity", span, Severity.ERROR, "too wide", facts=("S = 5000",))
    index = LineIndex.of(TEXT, "utf-8")
    hover = lsp_hover(Analysis(findings=(finding,)), index, index.range(span).start, None)
    assert hover is not None and hover.range == index.range(span)
    assert "**Will panic:** too wide" in hover.contents.value  # type: ignore[union-attr]
    assert "- S = 5000" in hover.contents.value  # type: ignore[union-attr]
    outside = types.Position(0, 0)
    assert lsp_hover(Analysis(findings=(finding,)), index, outside, None) is None
