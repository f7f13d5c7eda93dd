"""A check run's CrateMemo: the rename gate (calls that cannot be a rule's are never resolved),
calls found by name and the per-folder crate lookups give exactly the analysis without it,
renames across module files included."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from panic_lens.engine import analyze
from panic_lens.rust import modules, names
from panic_lens.rust.facts import FileFacts
from panic_lens.rust.memo import CrateMemo
from panic_lens.rust.modules import RenameIndex, use_renames
from panic_lens.rust.names import Imports
from panic_lens.rust.syntax import parse

REPO = Path(__file__).resolve().parents[3]
MANIFEST = """[package]
name = "app"
version = "0.1.0"

[dependencies]
burn = { version = "0.21", features = ["wgpu", "train"] }
"""
LIB = "pub mod ops;\npub mod train;\n"
# Every rule's API under another name, declared in a module file other than the caller's.
OPS = """pub use burn::tensor::module::ctc_loss as ctc;
pub use burn::tensor::module::interpolate as resize;
pub use burn::rl::AsyncPolicy as Ap;
pub use burn::nn::interpolate::Interpolate2dConfig as Up;
pub use burn::nn::interpolate::InterpolateMode as Mode;
"""
TRAIN = """use burn::prelude::*;
use burn::tensor::ops::{InterpolateMode, InterpolateOptions};
use crate::ops::*;

const WIDTH: usize = 5000;

pub fn by_glob(log_probs: Tensor<3>, device: &Device) -> Tensor<1> {
    let targets = Tensor::<2, Int>::ones([4, WIDTH], device);
    let il = Tensor::<1, Int>::full([4], 10, device);
    let tl = Tensor::<1, Int>::full([4], WIDTH as i64, device);
    ctc(log_probs, targets, il, tl, 0)
}

pub fn by_path(log_probs: Tensor<3>, device: &Device) -> Tensor<1> {
    let targets = Tensor::<2, Int>::ones([4, WIDTH], device);
    let il = Tensor::<1, Int>::full([4], 10, device);
    let tl = Tensor::<1, Int>::full([4], WIDTH as i64, device);
    crate::ops::ctc(log_probs, targets, il, tl, 0)
}

pub fn policy<P, R>(inner: P, r: R) {
    let p = Ap::new(4, inner);
    p.load_record(r);
}

pub fn upsample(x: Tensor<4>) -> Tensor<4> {
    let up = Up::new().with_mode(Mode::Linear).init();
    let y = resize(x, [8, 8], InterpolateOptions::new(InterpolateMode::Bicubic));
    y.backward();
    up.forward(y)
}

pub fn unrelated(x: Tensor<2>) -> Tensor<2> {
    helpers::scale(x.clone(), 2) + helpers::shift::apply(x)
}
"""


def crate(root: Path) -> Path:
    files = {"Cargo.toml": MANIFEST, "src/lib.rs": LIB, "src/ops.rs": OPS, "src/train.rs": TRAIN}
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root / "src" / "train.rs"


def test_renamed_apis_in_another_module_are_found_with_the_gate(tmp_path: Path) -> None:
    file = crate(tmp_path)
    data = file.read_bytes()
    gated = analyze(data, file, memo=CrateMemo())
    assert gated == analyze(data, file)  # findings, hovers and notes
    lines = {(f.rule, f.span.start.row + 1) for f in gated.findings}
    assert ("ctc-target-capacity", 11) in lines  # ctc(..) through the glob
    assert ("ctc-target-capacity", 18) in lines  # crate::ops::ctc(..)
    assert ("async-policy-load-record", 23) in lines  # Ap::new(..).load_record
    assert ("interpolate-backward-mode", 27) in lines  # Up::new().with_mode(Mode::Linear)
    assert ("interpolate-backward-mode", 28) in lines  # resize(.., Bicubic)


def test_calls_no_rule_can_own_are_never_resolved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    file = crate(tmp_path)
    asked: list[str] = []
    resolve = names.Imports.resolve

    def counting(self: names.Imports, path: object, at: object = None) -> str | None:
        asked.append(path if isinstance(path, str) else self.src[path.start_byte : path.end_byte]
                     .decode())  # type: ignore[attr-defined]  # fmt: skip
        return resolve(self, path, at)  # type: ignore[arg-type]

    monkeypatch.setattr(names.Imports, "resolve", counting)
    analyze(file.read_bytes(), file)
    assert "helpers::scale" in asked  # resolving every call: nobody's are resolved too
    asked.clear()
    analyze(file.read_bytes(), file, memo=CrateMemo())
    assert not [a for a in asked if a.startswith("helpers::")]
    assert "ctc" in asked and "crate::ops::ctc" in asked


def test_an_unrelated_crate_file_is_not_parsed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Resolving `helpers::..` would read the crate root; with the gate nothing reads it."""
    (tmp_path / "Cargo.toml").write_text(MANIFEST, encoding="utf-8")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "lib.rs").write_text("pub mod a;\nuse helpers::*;\n", encoding="utf-8")
    file = tmp_path / "src" / "a.rs"
    file.write_text("use crate::*;\nfn f() { helpers::go(1); compute(2); }\n", encoding="utf-8")
    read: list[Path] = []
    load = modules._imports_of
    monkeypatch.setattr(
        modules, "_imports_of", lambda f, t, p, ld: (read.append(f), load(f, t, p, ld))[1]
    )
    modules._cache.clear()
    analyze(file.read_bytes(), file, memo=CrateMemo())
    assert read == []
    analyze(file.read_bytes(), file)
    assert tmp_path / "src" / "lib.rs" in read


def test_use_renames_reads_use_statements_whole() -> None:
    src = (
        b"use a::{b as c, // a comment; with a semicolon\n d::e as\n  f};\n"
        b"pub(crate) use g::{h /* nested /* ; */ ; */ as i};\n"
        b"extern crate burn_rl as rl;\nlet n = x as usize; // as well\nfn reuse() { y as z }\n"
    )
    assert use_renames(src) == {"c", "f", "i"}


def test_use_renames_skips_line_comments_and_underscore() -> None:
    # a doc comment's `use .. as` would otherwise read on to the next `;`, through code
    src = (
        b"/// will be initialized to use Vulkan as the graphics API.\n"
        b"fn f() { let n = x as usize; }\n"
        b"use burn::tensor::backend::Backend as _;\n"
        b'let s = "a // string"; use k as l;\n'
        b'  // "quoted" then use m as n;\n'
    )
    assert use_renames(src) == {"l", "n"}


USE_PIECES = (
    "use a::{b as c};\n",
    "use a::{",
    "use x as y",
    "/* use q as r; */\n",
    "// use s as t\n",
    'let v = "use u as w;";\n',
    "use m::{n::{o as p}};\n",
    "mod z { use k as l; }\n",
    "}",
    ";",
    "use d::{e, f as g, /* ; */ h as i};\n",
    "fn reuse() {}\n",
    "use j as\n",
    "/// use Vulkan as the API\n",
    "use t as _;\n",
)


def resolver_renames(src: bytes) -> set[str]:
    imports = Imports.from_tree(parse(src), src)
    return {name for scope in imports._scopes.values() for name, path in scope.uses.items()
            if path[-1:] != (name,)}  # fmt: skip


use_texts = st.lists(st.sampled_from(USE_PIECES), max_size=10).map(lambda p: "".join(p).encode())


@settings(max_examples=300, deadline=None)
@given(use_texts)
def test_use_renames_holds_every_rename_of_a_file_that_parses(src: bytes) -> None:
    """Every name a `use` binds to a path ending in another name is among the names found
    without parsing (what the gate reads from the crate's other files)."""
    assume(not parse(src).root_node.has_error)
    assert resolver_renames(src) <= use_renames(src)


@settings(max_examples=300, deadline=None)
@given(use_texts)
def test_a_files_gate_holds_every_rename_its_parse_binds(src: bytes) -> None:
    """Half-typed text too: error recovery may bind a name across a comment or a brace
    (`use j as` + `}fn reuse() {}` binds `reuse`), and the file's own parse says so."""
    renames = FileFacts.build(src).renames
    assert renames is not None and resolver_renames(src) <= renames


def test_the_index_reads_each_crate_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    crate(tmp_path)
    index = RenameIndex()
    walks: list[Path] = []
    scan = modules._crate_renames
    monkeypatch.setattr(
        modules, "_crate_renames", lambda root, read: (walks.append(root), scan(root, read))[1]
    )
    first = index.for_file(b"", tmp_path / "src")
    second = index.for_file(b"use x as own;", tmp_path / "src")
    assert walks == [tmp_path / "src"]
    assert {"ctc", "resize", "Ap", "Up", "Mode"} <= first
    assert second == first | {"own"}
    assert index.for_file(b"use y as z;", None) == {"z"}  # not a module of a crate: its own


def test_the_index_reads_through_the_runs_store(tmp_path: Path) -> None:
    """A run that keeps the bytes it read hands them to the index: no file is read again, and
    the names are those read from disk."""
    crate(tmp_path)
    store: dict[str, bytes] = {}

    def read(path: str) -> bytes:
        if path not in store:
            store[path] = Path(path).read_bytes()
        return store[path]

    through_store = RenameIndex(read).for_file(b"", tmp_path / "src")
    assert through_store == RenameIndex().for_file(b"", tmp_path / "src")
    assert sorted(store) == sorted(str(p) for p in (tmp_path / "src").rglob("*.rs"))


@pytest.mark.parametrize(
    "file",
    sorted((REPO / "tests" / "golden").rglob("*.rs")) + sorted((REPO / "examples").rglob("*.rs")),
    ids=lambda p: str(p.relative_to(REPO)),
)
def test_golden_and_example_files_analyse_the_same_with_the_gate(file: Path) -> None:
    data = file.read_bytes()
    assert analyze(data, file, memo=CrateMemo()) == analyze(data, file)


def test_run_memo_answers_like_the_uncached_lookups(tmp_path: Path) -> None:
    """Per folder, except a symlinked file: its crate and module path are those of its target."""
    from panic_lens.rust.crate import crate_context
    from panic_lens.rust.modules import module_path

    crate(tmp_path / "a")
    crate(tmp_path / "b")
    link = tmp_path / "a" / "src" / "linked.rs"
    link.symlink_to(tmp_path / "b" / "src" / "train.rs")
    memo = CrateMemo()
    src_a = tmp_path / "a" / "src"
    for file in (src_a / "train.rs", link, src_a / "ops.rs", link):
        assert memo.crate_context(str(file)) == crate_context(file)
        assert memo.module_path(str(file), src_a) == module_path(file, src_a)
    assert memo.crate_context(str(link)).manifest == (tmp_path / "b" / "Cargo.toml").resolve()
    assert memo.module_path(str(link), src_a) is None  # its target is not under a/src


def test_a_file_that_reaches_no_other_file_is_gated_without_a_run(tmp_path: Path) -> None:
    """The server has no crate-wide index: it gates a file only when no name of it can resolve
    in another file (outside `src/`, or no `crate`, `super` or `mod x;` in it)."""
    from panic_lens.rust.facts import FileFacts

    crate(tmp_path)
    inside = FileFacts.build(b"use a::b as c;\nfn f() { c(1); }\n", str(tmp_path / "src/x.rs"))
    assert inside.renames == {"c"}
    for text in (b"use crate::ops::*;\n", b"fn f() { super::g(); }\n", b"mod m;\n"):
        assert FileFacts.build(text, str(tmp_path / "src" / "x.rs")).renames is None
    outside = FileFacts.build(b"use crate::x as y;\n", str(tmp_path / "examples" / "e.rs"))
    assert outside.renames == {"y"}  # no module loader: `crate::` cannot leave the file


@pytest.mark.parametrize(
    "file",
    sorted((REPO / "tests" / "golden").rglob("*.rs")) + sorted((REPO / "examples").rglob("*.rs")),
    ids=lambda p: str(p.relative_to(REPO)),
)
def test_the_servers_gate_changes_no_analysis(file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from panic_lens.rust import facts as facts_module

    data = file.read_bytes()
    gated = analyze(data, file)
    monkeypatch.setattr(facts_module, "self_contained_renames", lambda *args: None)
    assert analyze(data, file) == gated
