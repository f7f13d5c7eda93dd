"""Per-function re-analysis gives exactly the from-scratch Analysis, and falls back when the edit
touches file-level facts (a `use`, a const, a training signal in another function)."""

from __future__ import annotations

import dataclasses
import gc
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench import corpus
from panic_lens.engine import analyze
from panic_lens.function_merge import LINE_QUOTE
from panic_lens.function_reanalysis import Snapshot, analyze_edit, analyze_full
from panic_lens.rust.incremental import reparse

REPO = Path(__file__).resolve().parents[2]
FILES = sorted(
    [*(REPO / "tests" / "golden").glob("*/src/**/*.rs"), *(REPO / "examples").glob("*/src/*.rs")]
)
SNIPPETS = ("x", " ", "// c", "1", "let q = 2;", "}", "{", "(", "\n", "InterpolateMode::Bilinear",
            "5000", ".backward()", "use burn::tensor::Tensor;", "panic-lens", "burn_rl", "é", "",
            "const W: usize = 3;", "ctc_loss(a, b, c, d, 0)", "AsyncPolicy::new(4, p)",
            "crate::ops::ctc(a, b, c, d, 0)", "super::x()", "crat")  # fmt: skip


def start(path: Path) -> Snapshot:
    analysis, snap = analyze_full(path.read_bytes(), str(path), settings=None, catalog=None)
    assert snap is not None and analysis == analyze(path.read_bytes(), str(path))
    return snap


def step(snap: Snapshot, src: bytes) -> tuple[Snapshot | None, bool]:
    """One edit: the result equals a from-scratch analysis of the same tree, exactly.

    The tree is tree-sitter's incremental re-parse, as in the server. Without syntax errors it
    is the tree a fresh parse gives; with errors, tree-sitter's recovery may differ from a fresh
    parse (rarely: 2 of 1,313 random erroneous edits), which the server reconciles with a fresh
    parse once typing pauses (tests/lsp).
    """
    path = snap.facts.path
    tree = reparse(snap.facts.src, snap.facts.tree, src)
    got, new_snap, partial = analyze_edit(snap, src, path, settings=None, catalog=None, tree=tree)
    assert got == analyze(src, path, tree=tree)
    if not tree.root_node.has_error:
        assert got == analyze(src, path)
    return new_snap, partial


def _burn_crate(root: Path, src: bytes) -> Path:
    """A crate at `root` that depends on burn 0.22, `src` its `src/lib.rs` (returned)."""
    lib = root / "src" / "lib.rs"
    lib.parent.mkdir()
    (root / "Cargo.toml").write_text(
        '[package]\nname = "c"\nversion = "0.1.0"\n\n[dependencies]\nburn = "0.22"\n'
    )
    lib.write_bytes(src)
    return lib


def edit_at(src: bytes, at: int, cut: int, snippet: str) -> bytes:
    at = min(at, len(src))
    while at and (src[at] & 0xC0) == 0x80 if at < len(src) else False:
        at -= 1  # never split a UTF-8 character
    end = min(at + cut, len(src))
    while end < len(src) and (src[end] & 0xC0) == 0x80:
        end += 1
    return src[:at] + snippet.encode() + src[end:]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    file=st.sampled_from(FILES),
    edits=st.lists(
        st.tuples(st.floats(0, 1), st.sampled_from((0, 0, 1, 3, 8)), st.sampled_from(SNIPPETS)),
        min_size=1,
        max_size=6,
    ),
)
def test_random_edits_equal_a_fresh_analysis(
    file: Path, edits: list[tuple[float, int, str]]
) -> None:
    snap: Snapshot | None = start(file)
    src = file.read_bytes()
    for where, cut, snippet in edits:
        src = edit_at(src, int(where * len(src)), cut, snippet)
        assert snap is not None
        snap, _ = step(snap, src)
        if snap is None:  # a text that cannot be reused (rule failure): start again from it
            snap = analyze_full(src, str(file), settings=None, catalog=None)[1]
            if snap is None:
                return


def test_the_golden_files_have_function_bodies_to_edit() -> None:
    assert len(FILES) >= 20


RL = REPO / "examples" / "burn-app" / "src" / "rl.rs"
TRAIN = REPO / "examples" / "burn-app" / "src" / "train.rs"


def inside_first_body(src: bytes, marker: bytes = b"fn ") -> int:
    """A byte just after the first `{` of the first function that no other function calls:
    inside its body (an edit in a function whose value its callers read is analysed in
    full, as other functions' findings may change with it)."""
    at = src.index(marker)
    while True:
        name = re.match(rb"\w+", src[at + len(marker) :])
        called = name is not None and len(re.findall(rb"\b" + name.group() + rb"\s*\(", src)) > 1
        if not called or marker != b"fn ":
            return src.index(b"{", at) + 1
        at = src.index(marker, at + 1)


@pytest.mark.parametrize("file", [RL, TRAIN], ids=["rl", "train"])
def test_an_edit_inside_a_body_is_reanalysed_per_function(file: Path) -> None:
    src = file.read_bytes()
    at = inside_first_body(src)
    _, partial = step(start(file), src[:at] + b" let _unused = 1;" + src[at:])
    assert partial


@pytest.mark.parametrize(
    ("name", "snippet"),
    [
        ("a use inside the body", b" use burn::tensor::Tensor;"),
        ("a const inside the body", b" const W: usize = 3;"),
        ("a training signal", b" let _ = loss.backward();"),
        ("a word a prefilter looks for", b" // RouterChannel"),
        ("an unbalanced brace", b" }"),
    ],
)
def test_edits_that_change_file_level_facts_fall_back(name: str, snippet: bytes) -> None:
    src = RL.read_bytes()
    at = inside_first_body(src)
    _, partial = step(start(RL), src[:at] + snippet + src[at:])
    assert not partial, name


def quotes(snap: Snapshot) -> list[list[str]]:
    """The line numbers each finding's strings quote, in order."""
    return [LINE_QUOTE.findall(repr(f)) for f in snap.analysis.findings]


@pytest.mark.parametrize("typed", [b"\n", b"\n\n    let _unused = 1;\n"])
def test_an_edit_adding_lines_is_reanalysed_per_function_and_requotes_moved_lines(
    typed: bytes,
) -> None:
    """A later function's finding quotes a line below the edit: its number moves with it (the
    function is re-run), while the edited function alone is analysed again."""
    src = RL.read_bytes()
    snap = start(RL)
    before = quotes(snap)
    assert any(before), "rl.rs has a finding that quotes a line"
    at = inside_first_body(src)
    assert src[:at].count(b"\n") + 1 < min(int(n) for q in before for n in q)
    after, partial = step(snap, src[:at] + typed + src[at:])
    assert partial and after is not None
    moved = typed.count(b"\n")
    assert quotes(after) == [[str(int(n) + moved) for n in q] for q in before]
    back, partial = step(after, src)  # and the lines removed again
    assert partial and back is not None and back.analysis == snap.analysis


NESTED = b"""use burn::prelude::*;
use burn::tensor::module::ctc_loss;

fn edited() {
    let a = 1;
}

fn outer(log_probs: Tensor<3>, il: Tensor<1, Int>, tl: Tensor<1, Int>, device: &Device) {
    fn inner(log_probs: Tensor<3>, il: Tensor<1, Int>, tl: Tensor<1, Int>, device: &Device) {
        let labels = Tensor::<1, Int>::from_data([3i64; 4200], device);
        let targets = labels.unsqueeze::<2>();
        ctc_loss(log_probs, targets, il, tl, 0);
    }
    let labels = Tensor::<1, Int>::from_data([3i64; 5000], device);
    let targets = labels.unsqueeze::<2>();
    ctc_loss(log_probs, targets, il, tl, 0);
}
"""


def test_a_line_added_above_nested_functions_requotes_each_finding_once() -> None:
    """Both functions' findings quote a line below the edit; the inner function lies inside
    the outer one's body, so re-running both would report the inner call twice."""
    snap = start_text(NESTED, "lib.rs")
    assert len(quotes(snap)) == 2 and all(quotes(snap))
    at = NESTED.index(b"let a = 1;")
    after, partial = step(snap, NESTED[:at] + b"\n    " + NESTED[at:])
    assert partial and after is not None
    assert len(after.analysis.findings) == 2


def test_every_line_a_message_quotes_is_written_as_line_quote_matches() -> None:
    """The re-analysis finds the quotes that an added line moves by LINE_QUOTE: a line added at
    the top of each file changes its findings' and hovers' strings only in those numbers."""
    checked = 0
    for file in FILES:
        src = file.read_bytes()
        plain, shifted = analyze(src, str(file)), analyze(b"\n" + src, str(file))
        for old, new in zip((*plain.findings, *plain.hovers), (*shifted.findings, *shifted.hovers),
                            strict=True):  # fmt: skip
            for a, b in zip(strings(old), strings(new), strict=True):
                assert LINE_QUOTE.sub("#", a) == LINE_QUOTE.sub("#", b), (file, a, b)
                pairs = zip(LINE_QUOTE.findall(a), LINE_QUOTE.findall(b), strict=True)
                moves = {int(m) - int(n) for n, m in pairs}
                assert moves <= {0, 1}, (file, a, b)  # another file's lines stay
                checked += 1 in moves
    assert checked >= 20  # quotes were there to check


def strings(item: object) -> list[str]:
    if isinstance(item, str):
        return [item]
    if isinstance(item, tuple):
        return [s for x in item for s in strings(x)]
    if dataclasses.is_dataclass(item) and not isinstance(item, type):
        return [s for f in dataclasses.fields(item) for s in strings(getattr(item, f.name))]
    return []


def test_enter_and_a_line_joined_in_a_large_file_stay_per_function() -> None:
    """The bench's keystrokes: Enter at the end of a `let` line, a statement typed, deleted,
    and the line joined again; every step re-analyses one function (or a few, for quotes)."""
    src, snap = BIG, start_text(BIG, "big.rs")
    at = src.index(b";\n", src.index(b"let ", len(src) // 2)) + 1
    texts = [src[:at] + b"\n        " + src[at:]]
    texts += [src[:at] + b"\n        " + t + src[at:] for t in keystrokes("let z = 1;")]
    texts += [src]
    for text in texts:
        new, partial = step(snap, text)
        assert partial and new is not None
        snap = new


def test_an_edit_outside_any_function_falls_back() -> None:
    src = RL.read_bytes()
    new = b"const EXTRA: usize = 4;\n" + src
    _, partial = step(start(RL), new)
    assert not partial


GOLDEN = REPO / "tests" / "golden"


def test_changing_a_const_falls_back_and_changes_the_finding() -> None:
    file = GOLDEN / "ctc-free-fn-wgpu" / "src" / "lib.rs"
    src = file.read_bytes()
    snap = start(file)
    new = src.replace(b"const NARROW: usize = 4_095;", b"const NARROW: usize = 4_097;")
    assert new != src
    after, partial = step(snap, new)
    assert not partial
    assert after is not None and after.analysis != snap.analysis  # NARROW is now too wide


def test_a_backward_call_in_another_function_falls_back() -> None:
    file = GOLDEN / "interpolate-forward-only" / "src" / "lib.rs"
    src = file.read_bytes()
    snap = start(file)
    at = inside_first_body(src, b"fn preprocess_nearest")
    after, partial = step(snap, src[:at] + b" let _ = frame.backward();" + src[at:])
    assert not partial and after is not None
    before = [f.severity for f in snap.analysis.findings if f.rule == "interpolate-backward-mode"]
    now = [f.severity for f in after.analysis.findings if f.rule == "interpolate-backward-mode"]
    assert before != now  # `preprocess`'s hint became an error


def test_an_impl_block_elsewhere_does_not_stop_per_function_reanalysis() -> None:
    """The facts of the rest of the file (impls, items, scopes) are carried over, moved."""
    src = b"""use burn::router::RouterChannel;
struct Chan;
impl RouterChannel for Chan {}
fn work(x: u32) -> u32 {
    let y = x + 1;
    y
}
mod later { pub fn g() {} }
"""
    snap = start_text(src, "lib.rs")
    assert any(f.rule == "router-unsupported-dtype" for f in snap.analysis.findings)
    new = src.replace(b"x + 1", b"x + 100")
    after, partial = step(snap, new)
    assert partial and after is not None
    assert after.analysis.findings == analyze(new, "lib.rs").findings


def start_text(src: bytes, path: str) -> Snapshot:
    analysis, snap = analyze_full(src, path, settings=None, catalog=None)
    assert snap is not None and analysis == analyze(src, path)
    return snap


BIG = corpus.big_file(400, seed=3).encode()
NEAR = (b"let ", b"(", b".", b"::", b"with_mode", b"to_device", b"load_record", b"ctc_loss")
TYPED = (
    *("x", "1", " ", "", "5000", "4096", "InterpolateMode::Bicubic", "DType::U32"),
    *(".backward()", "Autodiff", "impl A {}", "fn f() {}", "use a::b;", '"', "/*", "// c"),
    "RouterChannel",
)
EDITS = st.tuples(
    st.floats(0, 1), st.sampled_from(NEAR), st.sampled_from((0, 0, 1, 4)), st.sampled_from(TYPED)
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(EDITS, min_size=1, max_size=8))
def test_typing_next_to_calls_in_a_large_file_equals_a_fresh_analysis(
    edits: list[tuple[float, bytes, int, str]],
) -> None:
    """Keystrokes next to the rules' call shapes in a generated 400-line file with every rule's
    shape, risky and safe: each result equals a from-scratch analysis."""
    src, snap = BIG, start_text(BIG, "big.rs")
    for where, near, cut, typed in edits:
        found = src.find(near, int(where * len(src)))
        src = edit_at(src, found + 1 if found >= 0 else int(where * len(src)), cut, typed)
        new, _ = step(snap, src)
        snap = new if new is not None else start_text(src, "big.rs")


def test_most_keystrokes_in_a_large_file_reanalyse_one_function() -> None:
    """Typing inside function bodies of the generated file stays on the per-function path."""
    src, snap = BIG, start_text(BIG, "big.rs")
    partial = 0
    at = src.index(b" =", src.index(b"let ", len(src) // 2))  # typing a variable's name
    for _ in range(20):
        src = src[:at] + b"x" + src[at:]
        new, was_partial = step(snap, src)
        assert new is not None
        snap, partial = new, partial + was_partial
    assert partial == 20


def keystrokes(statement: str) -> list[bytes]:
    """The texts an editor that closes brackets as they are typed shows, key by key."""
    texts = []
    for n in range(1, len(statement) + 1):
        typed = statement[:n]
        if typed.endswith(")") and statement[n - 2] == "(":
            continue  # typing over the closing bracket the editor inserted
        texts.append((typed + ")" if typed.endswith("(") else typed).encode())
    return texts


@pytest.mark.parametrize("file", [RL, TRAIN], ids=["rl", "train"])
def test_typing_a_statement_key_by_key_stays_per_function(file: Path) -> None:
    """Half-typed lines are syntax errors: they stay inside the body, and the findings with
    fixes elsewhere in the file are kept as they were (each step equals a fresh analysis)."""
    src = file.read_bytes()
    snap = start(file)
    at = inside_first_body(src)
    texts = keystrokes(" let scaled = values.len() * 2;")
    partial = 0
    for typed in texts:
        new, was_partial = step(snap, src[:at] + typed + src[at:])
        assert new is not None
        snap, partial = new, partial + was_partial
    assert partial == len(texts) == 30


def test_the_file_with_fixes_keeps_them_while_a_line_is_half_typed() -> None:
    """A syntax error in one function: the other functions' findings keep their fixes."""
    src = RL.read_bytes()
    snap = start(RL)
    before = [(f.rule, [x.id for x in f.fixes]) for f in snap.analysis.findings]
    assert any(ids for _, ids in before)
    at = inside_first_body(src)
    after, partial = step(snap, src[:at] + b" let y = x +" + src[at:])
    assert partial and after is not None
    assert [(f.rule, [x.id for x in f.fixes]) for f in after.analysis.findings] == before


def test_a_fault_in_the_reuse_falls_back_to_a_full_analysis(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from panic_lens import function_reanalysis

    def broken(*args: object) -> None:
        raise RuntimeError("a bug in moving the facts")

    monkeypatch.setattr(function_reanalysis, "_relocated", broken)
    src = RL.read_bytes()
    at = inside_first_body(src)
    after, partial = step(start(RL), src[:at] + b" let _unused = 1;" + src[at:])
    assert not partial and after is not None


def test_names_resolved_after_many_keystrokes_are_a_fresh_analysis() -> None:
    """The scopes and items of the names move with each keystroke by byte range only; typing
    a call that resolves through the file's `use .. as` and a const, after a run of keystrokes
    that resolved nothing, finds them in the newest tree: a new finding, as a fresh analysis."""
    file = REPO / "tests" / "golden" / "ctc-free-fn-wgpu" / "src" / "lib.rs"
    src = file.read_bytes()
    snap = start(file)
    before = [f.rule for f in snap.analysis.findings].count("ctc-target-capacity")
    at = src.index(b"ctc_loss(log_probs, targets, il, tl, 0)")
    typed = b""
    for key in b"let q = 2; ":
        typed += bytes([key])
        new, partial = step(snap, src[:at] + typed + src[at:])
        assert partial and new is not None
        snap = new
    call = typed + b"let _ = ctc(log_probs.clone(), "
    call += b"Tensor::<2, Int>::zeros([BATCH, WIDE], device), il.clone(), tl.clone(), 0); "
    new, partial = step(snap, src[:at] + call + src[at:])
    assert partial and new is not None
    assert [f.rule for f in new.analysis.findings].count("ctc-target-capacity") == before + 1


def test_a_scope_missing_from_the_new_tree_falls_back_to_a_full_analysis(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Were a moved scope not in the new tree when a name is resolved, the names are wrong:
    the re-analysis is not used, the full one is."""
    from panic_lens.rust import names

    file = REPO / "tests" / "golden" / "ctc-free-fn-wgpu" / "src" / "lib.rs"
    src = file.read_bytes()
    snap = start(file)
    at = src.index(b"ctc_loss(log_probs, targets, il, tl, 0)")
    after, partial = step(snap, src[:at] + b"let q = 2; " + src[at:])
    assert partial and after is not None  # nothing resolved: the scopes were not looked up
    monkeypatch.setattr(names, "node_at", lambda *args: None)
    call = b"let _ = ctc(log_probs.clone(), Tensor::<2, Int>::zeros([BATCH, WIDE], device), "
    after, partial = step(after, src[:at] + b"let q = 2; " + call + b"il, tl, 0); " + src[at:])
    assert not partial and after is not None


def test_typing_crate_in_a_self_contained_file_turns_its_gate_off(tmp_path: Path) -> None:
    """A file that reached no other file has its calls found by name; once `crate::` is typed
    in a body, another file may rename a name: the re-analysis resolves every call again."""
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "x"\n', encoding="utf-8")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "lib.rs").write_text("pub mod a;\npub mod ops;\n", encoding="utf-8")
    (tmp_path / "src" / "ops.rs").write_text(
        "pub use burn::tensor::module::ctc_loss as ctc;\n", encoding="utf-8"
    )
    file = tmp_path / "src" / "a.rs"
    file.write_text("fn f(a: A) {\n    let x = 1;\n}\n", encoding="utf-8")
    snap = start(file)
    assert snap.facts.renames == frozenset()
    src = file.read_bytes()
    at = src.index(b"let x")
    for typed, renames in ((b"crat", frozenset()), (b"crate::ops::ctc(a, b, c, d, 0); ", None)):
        new_snap, partial = step(snap, src[:at] + typed + src[at:])
        assert partial and new_snap is not None
        assert new_snap.facts.renames == renames
        if renames is None:  # resolved through ops.rs: a ctc hover, as a fresh analysis gives
            assert [h.api for h in new_snap.analysis.hovers] == ["burn::tensor::module::ctc_loss"]


def test_crate_completed_key_by_key_turns_the_gate_off(tmp_path: Path) -> None:
    """Each keystroke's facts come from the last one's: `crat`, then `e` completes the word
    (and a deletion joins `su` and `per`): the renames become unknown, as a fresh build says."""
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "x"\n', encoding="utf-8")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "lib.rs").write_text("pub mod a;\n", encoding="utf-8")
    file = tmp_path / "src" / "a.rs"
    file.write_text("fn f(a: A) {\n    let x = 1;\n}\n", encoding="utf-8")
    src = file.read_bytes()
    at = src.index(b"let x")
    for texts in ((b"crat", b"crate"), (b"suXper", b"super")):
        snap = start(file)
        for typed, renames in zip(texts, (frozenset(), None), strict=True):
            new_snap, partial = step(snap, src[:at] + typed + src[at:])
            assert partial and new_snap is not None
            assert new_snap.facts.renames == renames, typed
            snap = new_snap


def test_analyses_and_edits_leave_no_cyclic_garbage() -> None:
    """An analysis's facts, call sites, imports and tree are freed as soon as nothing refers
    to them: a cycle among them made every keystroke's old facts garbage that only the cycle
    collector could free, in pauses of up to tens of ms (a full collection while typing)."""
    src = corpus.big_file(400).encode()
    edited = src.replace(b"let ", b"let  ", 1)
    gc.collect()
    gc.disable()
    try:
        for path in FILES:
            analyze(path.read_bytes(), str(path))
        analysis, snap = analyze_full(src, "big.rs", settings=None, catalog=None)
        assert snap is not None and analysis.findings
        tree = reparse(src, snap.facts.tree, edited)
        _, snap, per_function = analyze_edit(
            snap, edited, "big.rs", settings=None, catalog=None, tree=tree
        )
        assert per_function
        del snap, tree
        assert gc.collect() == 0
    finally:
        gc.enable()


def _rule_words() -> list[str]:
    from panic_lens.rules.meta import CALL_MARK, rules

    return sorted(
        {w.removesuffix(CALL_MARK) for rule in rules() for group in rule.prefilter_groups
         for w in group}
    )  # fmt: skip


@pytest.mark.parametrize("word", _rule_words())
def test_the_first_mention_of_any_rule_word_falls_back(word: str, tmp_path: Path) -> None:
    """Every word of every rule's prefilter is a file-level word, whatever the rule: a rule
    added to rules/meta.py is covered without a list to update here."""
    path = tmp_path / "plain.rs"
    src = b"fn a() {\n    let x = 1;\n}\n\nfn b() {\n    let y = 2;\n}\n"
    path.write_bytes(src)
    at = src.index(b"let y")
    _, partial = step(start(path), src[:at] + f"// {word}\n    ".encode() + src[at:])
    assert not partial, word
    _, partial = step(start(path), src[:at] + b"// unrelated\n    " + src[at:])
    assert partial  # the same edit without a rule's word stays per function


QUOTING_RULE = """id = "t-quoting"
title = "quoting"
summary = "a message that quotes a line"
[[panic_site]]
file = "crates/burn-tensor/src/tensor/api/check.rs"
guard = "dim check"
message = "dim check"
[[where]]
call = "burn::tensor::Tensor::sum_dim"
args = ["dim"]
[when]
condition = "dim == 7"
message = "dim 7, as on line 9"
"""


def test_a_rule_language_finding_in_a_requoted_function_is_found_again(tmp_path: Path) -> None:
    """Lines added in one function re-run another whose finding quotes a line below: the rules
    in the language find that function's calls afresh (the calls found for the first function
    re-run are not the second's)."""
    from panic_lens.rules import meta
    from panic_lens.rules.language.spec import read_rule_file

    rule_file = tmp_path / "quoting.toml"
    rule_file.write_text(QUOTING_RULE, encoding="utf-8")
    meta.add_rule(meta.info_from_spec(read_rule_file(rule_file)))
    try:
        path = tmp_path / "lib.rs"
        src = b"use burn::tensor::Tensor;\n\nfn a() {\n    let x = 1;\n}\n\n"
        src += b"fn b<B: Backend>(t: Tensor<B, 2>) {\n    let y = t.sum_dim(7);\n}\n"
        path.write_bytes(src)
        snap = start(path)
        assert [f.rule for f in snap.analysis.findings] == ["t-quoting"]
        at = src.index(b"let x = 1;") + len(b"let x = 1;")
        after, partial = step(snap, src[:at] + b"\n    let z = 2;" + src[at:])
        assert partial and after is not None
        assert [(f.rule, f.span.start.row) for f in after.analysis.findings] == [("t-quoting", 8)]
    finally:
        meta.remove_rule("t-quoting")


def test_only_quotes_of_this_files_lines_move() -> None:
    """A finding quoting a line of another file (a derived rule's burn panic site,
    `base.rs:243`) keeps its text when this file's lines move: its function is not re-run."""
    from panic_lens.function_merge import quotes_from

    burn_site = "panics in burn (crates/burn-tensor/src/base.rs:243)"
    assert quotes_from(burn_site, 10, "lib.rs") is False
    assert quotes_from("set at lib.rs:243", 10, "lib.rs") is True
    assert quotes_from("set on line 243", 10, "lib.rs") is True
    assert quotes_from(("x", "base.rs:9, lib.rs:12"), 10, "lib.rs") is True
    assert quotes_from("set at lib.rs:9", 10, "lib.rs") is False  # above the edit
    assert quotes_from("base.rs:243", 10, None) is False  # an unsaved text: no file of its own


def test_an_edit_in_a_function_others_read_is_analysed_in_full() -> None:
    """The evaluator reads a function's value at its callers and the fields a struct literal
    sets in the struct's methods: an edit in `forward_ctc` (called by both `step`s) or inside
    the literal `AcousticModelConfig::init` writes is analysed in full, and equals a fresh
    analysis (an edit inside the literal once kept `forward`'s old shapes)."""
    src = TRAIN.read_bytes()
    at = src.index(b"{", src.index(b"fn forward_ctc")) + 1
    _, partial = step(start(TRAIN), src[:at] + b" let _unused = 1;" + src[at:])
    assert not partial
    model = REPO / "examples" / "burn-app" / "src" / "model.rs"
    src = model.read_bytes()
    at = int(0.3984375 * len(src))  # inside the struct literal of `init`
    _, partial = step(start(model), src[:at] + b"let q = 2;" + src[at:])
    assert not partial


def test_an_edit_in_a_caller_runs_the_rules_of_the_functions_it_calls_again(
    tmp_path: Path,
) -> None:
    """The evaluator checks a function's body once per call of it with known arguments
    (`evaluate.callers`): an edit in a caller re-runs the rules in the functions it calls
    (still per function), and the finding in `crop` comes and goes with the argument."""
    src = (
        b"use burn::prelude::*;\n"
        b"fn crop(x: Tensor<2>, width: usize) -> Tensor<2> {\n    x.narrow(1, 0, width)\n}\n"
        b"pub fn run(d: &Device) -> Tensor<2> {\n"
        b"    let t = Tensor::<2>::zeros([4, 10], d);\n    let w = 8;\n    crop(t, w)\n}\n"
    )
    lib = _burn_crate(tmp_path, src)
    snap = start(lib)
    assert not [f for f in snap.analysis.findings if f.rule == "narrow-out-of-range"]
    after, partial = step(snap, src.replace(b"let w = 8;", b"let w = 12;"))
    assert partial and after is not None
    (found,) = [f for f in after.analysis.findings if f.rule == "narrow-out-of-range"]
    assert found.span.start.row == 2 and "when called as crop(t, w)" in found.message
    back, partial = step(after, src)
    assert partial and back is not None
    assert not [f for f in back.analysis.findings if f.rule == "narrow-out-of-range"]


def test_an_edit_two_calls_up_runs_the_rules_of_the_function_it_reaches_again(
    tmp_path: Path,
) -> None:
    """A finding read in the frame of a caller's caller (`evaluate.callers`, two levels): an
    edit of the outermost call re-runs the rules in the function two calls down (through the
    function between them), and the finding comes and goes with the value."""
    src = (
        b"use burn::prelude::*;\nuse burn::nn::{GroupNorm, GroupNormConfig};\n"
        b"#[derive(Config, Debug)]\npub struct BlockConfig {\n    pub channels: usize,\n}\n"
        b"impl BlockConfig {\n    pub fn make(&self, d: &Device) -> GroupNorm {\n"
        b"        GroupNormConfig::new(8, self.channels).init(d)\n    }\n}\n"
        b"#[derive(Config, Debug)]\npub struct NetConfig {\n    pub base: usize,\n}\n"
        b"impl NetConfig {\n    pub fn build_block(&self, d: &Device) -> GroupNorm {\n"
        b"        let wide = 2 * self.base;\n        BlockConfig::new(wide).make(d)\n    }\n}\n"
        b"pub fn run(d: &Device) -> GroupNorm {\n    NetConfig::new(16).build_block(d)\n}\n"
    )
    lib = _burn_crate(tmp_path, src)
    snap = start(lib)
    rule = "group-norm-groups-divide-channels"
    assert not [f for f in snap.analysis.findings if f.rule == rule]
    after, partial = step(snap, src.replace(b"NetConfig::new(16)", b"NetConfig::new(13)"))
    assert partial and after is not None
    (found,) = [f for f in after.analysis.findings if f.rule == rule]
    assert found.span.start.row == 8 and "NetConfig::new(13).build_block(d)" in found.message
    back, partial = step(after, src)
    assert partial and back is not None
    assert not [f for f in back.analysis.findings if f.rule == rule]
