"""rust/consts: integer evaluation and tensor shapes, straight from source snippets."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from panic_lens.rust.consts import eval_int, local_value, parse_int_literal, shape_of
from panic_lens.rust.syntax import Node, node_text, parse, walk


@dataclass
class _Crate:
    manifest: Path | None


@dataclass
class _Facts:
    """The three things consts reads from FileFacts."""

    src: bytes
    tree: Any
    path: str | None
    crate: _Crate | None = None


def _facts(src: str, path: str | None = None, manifest: Path | None = None) -> _Facts:
    data = src.encode()
    return _Facts(data, parse(data), path, _Crate(manifest))


def _marked(facts: _Facts, kind: str = "call_expression") -> Node:
    """The last expression of `kind` whose text follows a `/*here*/` marker."""
    mark = facts.src.index(b"/*here*/") + len(b"/*here*/")
    hits = [n for n in walk(facts.tree.root_node) if n.start_byte >= mark and n.type == kind]
    return hits[0]


def int_at(body: str, items: str = "") -> int | None:
    """Value of the expression after `/*here*/` in `fn f() { body }`."""
    facts = _facts(f"{items}\nfn f() {{ {body} }}")
    mark = facts.src.index(b"/*here*/") + len(b"/*here*/")
    node = next(n for n in walk(facts.tree.root_node) if n.start_byte >= mark and n.is_named)
    fact = eval_int(node, facts)
    return None if fact is None else fact.value


def width_at(body: str, items: str = "") -> tuple[int | None, ...] | None:
    facts = _facts(f"{items}\nfn f(d: &Device, n: usize) {{ {body} }}")
    mark = facts.src.index(b"/*here*/") + len(b"/*here*/")
    node = next(n for n in walk(facts.tree.root_node) if n.start_byte >= mark and n.is_named)
    shape = shape_of(node, facts)
    return None if shape is None else tuple(d.value if d else None for d in shape.dims)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("4096", 4096),
        ("5_000usize", 5000),
        ("0x1F", 31),
        ("0b101", 5),
        ("0o17", 15),
        ("1_0_0i64", 100),
        ("0xffu8", 255),
        ("7u32", 7),
        ("1.5", None),
        ("abc", None),
    ],
)
def test_int_literals(text: str, value: int | None) -> None:
    assert parse_int_literal(text) == value


@pytest.mark.parametrize(
    ("body", "items", "value"),
    [
        ("let x = /*here*/ 2048 * 2;", "", 4096),
        ("let x = /*here*/ (4000 + 100) - 4;", "", 4096),
        ("let x = /*here*/ 5000 as usize;", "", 5000),
        ("let x = /*here*/ -3;", "", -3),
        ("let x = /*here*/ W;", "const W: usize = 4_096;", 4096),
        ("let x = /*here*/ W + 1;", "const A: usize = 2000; const W: usize = A * 2;", 4001),
        ("let x = /*here*/ S;", "static S: u32 = 9;", 9),
        ("let x = /*here*/ crate::limits::W;", "mod limits { pub const W: usize = 77; }", 77),
        ("let x = /*here*/ Self::W;", "struct M; impl M { const W: usize = 12; }", 12),
        ("let s = 300; let x = /*here*/ s * 2;", "", 600),
        ("let s = 300; let s = s + 1; let x = /*here*/ s;", "", 301),
        ("const L: usize = 8; let x = /*here*/ L;", "", 8),
        # run-time values stay unknown
        ("let x = /*here*/ v.len();", "", None),
        ("let x = /*here*/ W;", "const W: usize = compute();", None),
        ("let x = /*here*/ A;", "const A: usize = B; const B: usize = A;", None),
        ("let x = /*here*/ usize::MAX;", "", None),
        ("let x = /*here*/ 10 / 0;", "", None),  # Rust rejects it; never a value
        (
            "let x = /*here*/ W;",
            "mod a { const W: u8 = 1; } mod b { const W: u8 = 2; }",
            None,
        ),
    ],
)
def test_eval_int(body: str, items: str, value: int | None) -> None:
    assert int_at(body, items) == value


@pytest.mark.parametrize(
    "body",
    [
        "let s = 5000; for s in 0..3 { let x = /*here*/ s; }",
        "let s = 5000; let f = |s: usize| /*here*/ s;",
        "let s = 5000; if let Some(s) = o { let x = /*here*/ s; }",
        "let s = 5000; match o { Some(s) => { let x = /*here*/ s; } _ => {} }",
        "let mut s = 5000; if o { s = 64; } let x = /*here*/ s;",
        "let (s, t) = (5000, 1); let x = /*here*/ s;",
    ],
)
def test_patterns_and_late_init_hide_a_let(body: str) -> None:
    assert int_at(body) is None


def test_parameter_shadows_a_const() -> None:
    facts = _facts("const n: usize = 5000;\nfn f(n: usize) { let x = n; }")
    ident = [n for n in walk(facts.tree.root_node) if node_text(n, facts.src) == "n"][-1]
    assert local_value(ident, facts.src) == (True, None)
    assert eval_int(ident, facts) is None


def test_assignment_replaces_the_let_value() -> None:
    assert int_at("let s; s = 5000; let x = /*here*/ s;") == 5000
    assert int_at("let mut s = 5000; s = 64; let x = /*here*/ s;") == 64


def test_let_in_inner_block_does_not_leak() -> None:
    assert int_at("let s = 1; { let s = 5000; } let x = /*here*/ s;") == 1


def test_origin_points_at_the_const_value() -> None:
    facts = _facts("const WIDTH: usize = 5_000;\nfn f() { let x = WIDTH; }")
    ident = [n for n in walk(facts.tree.root_node) if node_text(n, facts.src) == "WIDTH"][-1]
    fact = eval_int(ident, facts)
    assert fact is not None and fact.note == "const WIDTH"
    assert (fact.origin.start.row, fact.origin.start.col) == (0, 21)


def test_crate_const_in_another_file(tmp_path: Path) -> None:
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "x"\nversion = "0.1.0"\n')
    (tmp_path / "src" / "config").mkdir(parents=True)
    (tmp_path / "src" / "config" / "limits.rs").write_text("pub const MAX_LABELS: usize = 6000;\n")
    main = tmp_path / "src" / "main.rs"
    main.write_text("use crate::config::limits::MAX_LABELS;\nfn f() { let x = MAX_LABELS; }\n")
    facts = _facts(main.read_text(), str(main), tmp_path / "Cargo.toml")
    ident = [n for n in walk(facts.tree.root_node) if node_text(n, facts.src) == "MAX_LABELS"][-1]
    fact = eval_int(ident, facts)
    assert fact is not None and fact.value == 6000
    assert fact.path == str(tmp_path / "src" / "config" / "limits.rs")
    # edited on disk: the cache notices the change
    (tmp_path / "src" / "config" / "limits.rs").write_text("pub const MAX_LABELS: usize = 64000;\n")
    fact = eval_int(ident, facts)
    assert fact is not None and fact.value == 64000


def test_crate_lookup_needs_a_manifest(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "other.rs").write_text("pub const W: usize = 6000;\n")
    facts = _facts("fn f() { let x = W; }", str(tmp_path / "src" / "main.rs"), None)
    ident = [n for n in walk(facts.tree.root_node) if node_text(n, facts.src) == "W"][-1]
    assert eval_int(ident, facts) is None


@pytest.mark.parametrize(
    ("body", "dims"),
    [
        ("let t = /*here*/ Tensor::<2, Int>::zeros([4, 4096], d);", (4, 4096)),
        ("let t = /*here*/ Tensor::<B, 2, Int>::ones([n, 5_000], d);", (None, 5000)),
        ("let t = /*here*/ Tensor::<2, Int>::full([2, W], 0, d);", (2, 4100)),
        ("let t = /*here*/ Tensor::<2, Int>::empty(Shape::new([3, 64]), d);", (3, 64)),
        (
            "let t = /*here*/ Tensor::<2, Int>::from_data(TensorData::new(v, [n, 8192]), d);",
            (None, 8192),
        ),
        (
            "let data = TensorData::new(v, [2, 300]); "
            "let t = /*here*/ Tensor::<2, Int>::from_data(data, d);",
            (2, 300),
        ),
        ("let t = /*here*/ Tensor::<2, Int>::from_data([[1, 2, 3], [4, 5, 6]], d);", (2, 3)),
        ("let t = /*here*/ Tensor::<2, Int>::from_data([[0i64; 4096]; 2], d);", (2, 4096)),
        ("let t = /*here*/ Tensor::<2, Int>::from_data(TensorData::from([[1, 2]]), d);", (1, 2)),
        ("let t = /*here*/ labels.reshape([2, 5000]);", (2, 5000)),
        ("let t = /*here*/ labels.reshape([2, -1]);", (2, None)),
        ("let s = [2, 4096]; let t = /*here*/ Tensor::<2, Int>::zeros(s, d);", (2, 4096)),
        (
            "let t = Tensor::<2, Int>::zeros([2, 4096], d); "
            "let u = /*here*/ t.clone().to_device(d);",
            (2, 4096),
        ),
        (
            "let t = Tensor::<2, Int>::zeros([2, 4096], d); "
            "let t = t.reshape([4, 2048]); let u = /*here*/ t;",
            (4, 2048),
        ),
        ("let w = 2 * 2048; let t = /*here*/ Tensor::<2, Int>::zeros([2, w], d);", (2, 4096)),
        (
            "let t = /*here*/ Tensor::<1, Int>::from_data([7i64; 5000], d).unsqueeze::<2>();",
            (1, 5000),
        ),
        ("let t = /*here*/ Tensor::<1, Int>::zeros([5000], d).unsqueeze_dim(0);", (1, 5000)),
        ("let t = /*here*/ Tensor::<1, Int>::zeros([5000], d).unsqueeze_dim(1);", (5000, 1)),
        (
            "let data = TensorData::new(v, [2, 9]); "
            "let t = /*here*/ Tensor::<2, Int>::from_data(data.convert::<i32>(), d);",
            (2, 9),
        ),
    ],
)
def test_shape_of(body: str, dims: tuple[int | None, ...]) -> None:
    assert width_at(body, "const W: usize = 4100;") == dims


@pytest.mark.parametrize(
    "body",
    [
        "let t = /*here*/ batch.targets;",
        "let t = /*here*/ Tensor::<2, Int>::from_data(data, d);",
        "let t = /*here*/ Tensor::cat(vec![a, b], 1);",
        "let t = /*here*/ make_targets(4096);",
        "let t = /*here*/ x.unsqueeze_dim(0);",
        "let t = /*here*/ Tensor::<1, Int>::zeros([5], d).unsqueeze_dim(k);",
        "let t = /*here*/ Tensor::<1, Int>::zeros([5], d).unsqueeze_dim(3);",
        "let t = /*here*/ Tensor::<2, Int>::zeros([5, 5], d).unsqueeze::<1>();",
    ],
)
def test_unknown_shapes(body: str) -> None:
    assert width_at(body) is None


def test_shape_origin_is_the_constructor_call() -> None:
    facts = _facts(
        "fn f(d: &Device) {\n    let t = Tensor::<2, Int>::zeros([2, 4096], d);\n    t;\n}"
    )
    ident = [n for n in walk(facts.tree.root_node) if node_text(n, facts.src) == "t"][-1]
    shape = shape_of(ident, facts)
    assert shape is not None and shape.note == "Tensor::zeros"
    assert shape.origin.start.row == 1
    width = shape.dims[1]
    assert width is not None and width.value == 4096 and width.origin.start.row == 1


def test_deep_expression_does_not_recurse_forever() -> None:
    expr = "(" * 3000 + "1" + ")" * 3000
    assert int_at(f"let x = /*here*/ {expr};") is None  # past MAX_DEPTH: unknown, no crash


@pytest.mark.parametrize(
    ("body", "value"),
    [
        ("let x = /*here*/ 10 / 3;", 3),
        ("let x = /*here*/ -7 / 2;", -3),  # truncates toward zero, as Rust
        ("let x = /*here*/ -7 % 3;", -1),  # the sign of the dividend, as Rust
        ("let x = /*here*/ 96 / 5 * 5;", 95),
        ("let x = /*here*/ 1 << 10;", 1024),
    ],
)
def test_division_remainder_and_shift_fold_as_rust(body: str, value: int) -> None:
    assert int_at(body, "") == value
