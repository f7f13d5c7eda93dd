"""Property tests: random edits of the golden fixtures never break the engine.

Each example picks a golden file and applies a few random edits (emoji, CJK, CRLF, lone CR,
NUL, unbalanced delimiters, half-typed burn calls). After every edit the engine must not raise
or note a failure, every range must lie inside the edited text, and analysing with the
incrementally re-parsed tree must give exactly the from-scratch result.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rel_support import BOUNDED, golden_files, range_problems, reparse_after_edit, same_tree

from panic_lens.engine import analyze
from panic_lens.model import Analysis
from panic_lens.rust.syntax import parse_code

FILES = golden_files()
FRAGMENTS = [
    "🦀", "中文字", "e\u0301", "\r\n", "\r", "\n", "\0", "(", ")", "{", "}", "[", "]", "<",
    ">", '"', "'", "/*", "*/", "//", 'r#"', "::", "\t", "\ufeff", "\u2028", "ctc_loss(",
    "AsyncPolicy::new(4, p)", ".load_record(r)", "[1, 5000]", "InterpolateMode::Bilinear",
    "// panic-lens: allow(ctc-target-capacity) reason\n", "fn f() {", "let t = ", ";",
    "impl<B: Backend> X<B> {", "#[cfg(test)]", "use burn::tensor::module::*;",
]  # fmt: skip
INSERTS = st.one_of(
    st.sampled_from(FRAGMENTS),
    st.lists(st.sampled_from(FRAGMENTS), min_size=2, max_size=6).map("".join),
    st.text(max_size=16),
)


@st.composite
def edit_of(draw: st.DrawFn, text: str) -> tuple[int, int, str]:
    """(start, end, replacement) in code points: insert, delete or replace a short run."""
    start = draw(st.integers(0, len(text)))
    end = draw(st.integers(start, min(len(text), start + 60)))
    return start, end, draw(INSERTS)


def failures(analysis: Analysis) -> list[str]:
    """Notes that mean something inside the engine raised (it turned into a note)."""
    return [n for n in analysis.notes if "failed" in n]


def check(text: str, path: Path, tree_from: tuple[object, bytes, int, int] | None) -> Analysis:
    """Analyse `text` from scratch (and incrementally when `tree_from` is given); compare."""
    src = text.encode("utf-8")
    scratch = analyze(text, path)
    assert failures(scratch) == []
    assert range_problems(scratch, src, str(path)) == []
    if tree_from is not None:
        tree, old, start, old_end = tree_from
        incremental = reparse_after_edit(tree, old, start, old_end, src)  # type: ignore[arg-type]
        from_incremental = analyze(text, path, tree=incremental)
        assert failures(from_incremental) == []
        # With syntax errors, tree-sitter's incremental recovery sometimes builds another tree
        # than a fresh parse (about 1 edit in 8,000 here; the server parses afresh once typing
        # pauses): the same tree must give the same analysis, another tree may not.
        if same_tree(incremental, parse_code(src)):
            assert from_incremental == scratch
    return scratch


@settings(BOUNDED, max_examples=200)
@given(data=st.data(), file=st.sampled_from(FILES))
def test_random_edits_keep_the_engine_whole(data: st.DataObject, file: Path) -> None:
    text = file.read_text(encoding="utf-8")
    for _ in range(data.draw(st.integers(1, 4), label="edits")):
        start, end, new = data.draw(edit_of(text), label="edit")
        old = text.encode("utf-8")
        tree = parse_code(old)
        byte_start, byte_end = len(text[:start].encode()), len(text[:end].encode())
        text = text[:start] + new + text[end:]
        check(text, file, (tree, old, byte_start, byte_end))


@BOUNDED
@given(data=st.data(), file=st.sampled_from(FILES))
def test_truncation_at_any_byte(data: st.DataObject, file: Path) -> None:
    """Cut anywhere, even inside a multi-byte character: no failure, ranges inside."""
    src = file.read_bytes()
    cut = src[: data.draw(st.integers(0, len(src)), label="cut")]
    result = analyze(cut, file)
    assert failures(result) == []
    assert range_problems(result, cut, str(file)) == []


@pytest.mark.parametrize("file", FILES[:3], ids=lambda p: p.parent.parent.name + "/" + p.name)
def test_every_prefix_of_a_small_file(file: Path) -> None:
    """Exhaustively: every byte prefix (what a slow typist's editor sends) of small files."""
    src = file.read_bytes()
    for cut in range(0, len(src) + 1, max(1, len(src) // 400)):
        result = analyze(src[:cut], file)
        assert failures(result) == [], cut
        assert range_problems(result, src[:cut], str(file)) == [], cut


def rows(analysis: Analysis) -> list[tuple[str, int, str]]:
    return sorted((f.rule, f.span.start.row, f.severity.value) for f in analysis.findings)


@pytest.mark.parametrize("file", FILES, ids=lambda p: p.parent.parent.name + "/" + p.name)
def test_line_endings_do_not_change_findings(file: Path) -> None:
    """CRLF gives the same findings on the same rows. A lone CR ends no `//` comment in Rust,
    so findings may differ there; the ranges must still lie inside the text."""
    text = file.read_text(encoding="utf-8").replace("\r\n", "\n")
    lf = analyze(text, file)
    crlf_text = text.replace("\n", "\r\n")
    crlf = analyze(crlf_text, file)
    assert rows(crlf) == rows(lf)
    assert range_problems(crlf, crlf_text.encode(), str(file)) == []
    cr_text = text.replace("\n", "\r")
    cr = analyze(cr_text, file)
    assert failures(cr) == []
    assert range_problems(cr, cr_text.encode(), str(file)) == []


@pytest.mark.parametrize(
    "junk", ["\0", "\0" * 5000, "\udcff", "\ufffe\uffff", "\x1b[31m", "🦀" * 3000, "中" * 9000]
)
def test_odd_content_is_analysed_or_skipped_with_a_note(junk: str) -> None:
    """NUL or invalid UTF-8 (a lone surrogate) on the first line skips the file with a note;
    other junk after the code leaves the findings above it alone."""
    file = FILES[0]
    text = file.read_text(encoding="utf-8")
    clean = analyze(text, file)
    binary = "\0" in junk or "\udcff" in junk
    result = analyze(junk + text if binary else text + "\n" + junk + "\n", file)
    assert failures(result) == []
    if binary:
        assert result.findings == () and any("skipped" in n for n in result.notes)
    else:
        assert clean.findings and rows(result) == rows(clean)
