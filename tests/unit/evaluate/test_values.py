"""evaluate: values of expressions (ints as Rust computes them, floats, casts, lists, ranges),
through locals (`let`, `let mut` up to a change), and what stays unknown."""

from __future__ import annotations

from pathlib import Path

import pytest
from evaluate_helpers import crate, marked, value_at

from panic_lens import evaluate
from panic_lens.evaluate.literals import parse_int_literal


@pytest.mark.parametrize(
    ("text", "value"),
    [("4096", 4096), ("5_000usize", 5000), ("0x1F", 31), ("0b101", 5), ("0o17", 15),
     ("1_0_0i64", 100), ("0xffu8", 255), ("7u32", 7), ("1.5", None), ("abc", None)],
)  # fmt: skip
def test_int_literals(text: str, value: int | None) -> None:
    assert parse_int_literal(text) == value


def at(body: str, items: str = "") -> object:
    return value_at(f"{items}\nfn f(v: Vec<usize>, o: Option<usize>, n: usize) {{ {body} }}")


@pytest.mark.parametrize(
    ("body", "items", "value"),
    [
        ("let x = /*here*/ 2048 * 2;", "", 4096),
        ("let x = /*here*/ (4000 + 100) - 4;", "", 4096),
        ("let x = /*here*/ 5000 as usize;", "", 5000),
        ("let x = /*here*/ -3;", "", -3),
        ("let x = /*here*/ W + 1;", "const A: usize = 2000; const W: usize = A * 2;", 4001),
        ("let x = /*here*/ crate::limits::W;", "mod limits { pub const W: usize = 77; }", 77),
        ("let s = 300; let x = /*here*/ s * 2;", "", 600),
        ("let s = 300; let s = s + 1; let x = /*here*/ s;", "", 301),
        ("let x = /*here*/ 10 / 3;", "", 3),
        ("let x = /*here*/ -7 / 2;", "", -3),  # truncates toward zero, as Rust
        ("let x = /*here*/ -7 % 3;", "", -1),  # the sign of the dividend, as Rust
        ("let x = /*here*/ 1 << 10;", "", 1024),
        ("let x = /*here*/ 0.1 - 0.3;", "", 0.1 - 0.3),
        ("let x = /*here*/ -0.0;", "", -0.0),
        ("let x = /*here*/ 7 as f32 / 2.0;", "", 3.5),
        ("let x = /*here*/ 2.9 as usize;", "", 2),
        ("let x = /*here*/ [1, 2, 3];", "", [1, 2, 3]),
        ("let x = /*here*/ [0; 3];", "", [0, 0, 0]),
        ("let x = /*here*/ (1, 2.5);", "", [1, 2.5]),
        ("let x = /*here*/ Some(3);", "", 3),
        ("let x = /*here*/ None;", "", None),
        ("let x = /*here*/ Reduction::Mean;", "", "Mean"),
        ("let x = /*here*/ if true { 2 } else { 3 };", "", 2),
        ("let x = /*here*/ if n > 2 { 4 } else { 4 };", "", 4),  # every branch agrees
        ("let x = /*here*/ { let a = 2; a * 3 };", "", 6),
        # run-time values stay unknown
        ("let x = /*here*/ v.len();", "", None),
        ("let x = /*here*/ W;", "const W: usize = compute();", None),
        ("let x = /*here*/ A;", "const A: usize = B; const B: usize = A;", None),
        ("let x = /*here*/ usize::MAX;", "", None),
        ("let x = /*here*/ 10 / 0;", "", None),
        ("let x = /*here*/ 1 + 2.0;", "", None),  # Rust mixes no ints with floats
        ("let x = /*here*/ if n > 2 { 4 } else { 5 };", "", None),
        ("let x = /*here*/ [1, n];", "", None),
        # an empty Vec, as `vec![]`
        ("let x = /*here*/ Vec::new();", "", []),
        ("let x = /*here*/ Vec::<f32>::new();", "", []),
        ("let x = /*here*/ std::vec::Vec::with_capacity(n);", "", []),
        ("let mut x = Vec::new(); x.push(1); let y = /*here*/ x;", "", [1]),  # (`mutations`)
        ("let mut x = Vec::new(); for i in 0..2 { x.push(i); } let y = /*here*/ x;", "", None),
        ("let x = /*here*/ Vec::from([1, 2]);", "", None),
    ],
)
def test_values(body: str, items: str, value: object) -> None:
    assert at(body, items) == value


@pytest.mark.parametrize(
    "body",
    [
        "let s = 5000; for s in 0..n { let x = /*here*/ s; }",
        "let s = 5000; let f = |s: usize| /*here*/ s;",
        "let s = 5000; if let Some(s) = o { let x = /*here*/ s; }",
        "let s = 5000; match o { Some(s) => { let x = /*here*/ s; } _ => {} }",
        "let mut s = 5000; if n > 1 { s = 64; } let x = /*here*/ s;",
        "let (s, ..) = (5000, 1); let x = /*here*/ s;",  # `..`: the places are not followed
        "let (s, t) = (n, 1); let x = /*here*/ s;",
        "let (s, t) = (5000, 1); let s = n; let x = /*here*/ s;",
        "let Some((s, t)) = o else { return; }; let x = /*here*/ s;",
        "let (mut s, t) = (5000, 1); s += 1; let x = /*here*/ s;",
        "let (mut s, t) = (vec![1], 1); s.push(2); let x = /*here*/ s;",
        "let mut s = 5000; if n > 2 { s += 1; } let x = /*here*/ s;",
        # a field changed in place after the let: the struct's value is not read any more
        "let mut c = Hp { s: 10.0 }; c.s /= 100.0; let x = /*here*/ c.s;",
        "let mut c = Hp { s: 10.0 }; c.s <<= 1; let x = /*here*/ c.s;",
        "let mut c = Hp { s: Some(10.0) }; let _p = c.s.take(); let x = /*here*/ c.s;",
        "let mut c = Hp { s: vec![1] }; c.s.push(2); let x = /*here*/ c.s;",
        "let mut c = Hp { s: vec![1] }; c.s[0] = 2; let x = /*here*/ c.s;",
        "let mut s = vec![1]; if t { s.push(2); } let x = /*here*/ s;",
        "let mut s = 3; g(&mut s); let x = /*here*/ s;",
        "let mut s = 3; for i in 0..n { let x = /*here*/ s; s = i; }",
        "let mut s = 3; while n > 0 { let x = /*here*/ s; s *= 2; }",
    ],
)
def test_patterns_branches_and_changes_hide_a_value(body: str) -> None:
    assert at(body) is None


def test_a_tuple_pattern_gives_each_name_its_element() -> None:
    """`let (a, (b, c)) = ..;` of a tuple literal, or of the tuples a function of the crate
    returns at every exit; `mut` names too, up to their first change."""
    assert at("let (s, t) = (5000, 1); let x = /*here*/ s;") == 5000
    assert at("let (s, t) = (5000, 1); let x = /*here*/ t;") == 1
    assert at("let (a, (b, c)) = (1, (2, 3)); let x = /*here*/ c;") == 3
    assert at("let (_, t) = (5000, 1); let x = /*here*/ t;") == 1  # `_` holds a place
    assert at("let (_, (_, c)) = (1, (2, 3)); let x = /*here*/ c;") == 3
    assert at("let (mut a, b) = (4, 5); let x = /*here*/ a;") == 4
    assert at("let (mut a, b) = (4, 5); a = 7; let x = /*here*/ a;") == 7
    assert (
        at("let (w, h) = size(); let x = /*here*/ w * h;", "fn size() -> (usize, usize) { (3, 7) }")
        == 21
    )
    two_exits = "fn size(n: usize) -> (usize, usize) { if n > 0 { return (3, 7); } (3, 9) }"
    assert at("let (w, h) = size(n); let x = /*here*/ w;", two_exits) == 3
    assert at("let (w, h) = size(n); let x = /*here*/ h;", two_exits) is None


MATCH_ITEMS = """
enum Res { Hourly, Daily, Weekly }
const L: usize = 48;
fn steps(r: Res) -> usize {
    match r {
        Res::Hourly => L,
        Res::Daily | Res::Weekly => L / 24,
    }
}
fn pick(n: usize) -> (bool, f64) {
    match n { 0 => (true, 0.0), _ => (true, 1.0) }
}
fn early(n: usize) -> (bool, f64) {
    if n > 3 { return (false, 1e-5); }
    match n { 0 => (true, 0.0), _ => (true, 1.0) }
}
"""


def test_a_match_takes_the_arm_its_known_value_picks() -> None:
    """The arm a known scrutinee matches (a variant by name, `A | B`, a literal, `_`), also as
    a function's tail written without `;`; with the value unknown, every arm must agree; an
    arm that binds a name or has a guard is not read."""
    assert at("let x = /*here*/ steps(Res::Hourly);", MATCH_ITEMS) == 48
    assert at("let x = /*here*/ steps(Res::Weekly);", MATCH_ITEMS) == 2
    assert at("let (a, b) = pick(0); let x = /*here*/ b;", MATCH_ITEMS) == 0.0
    assert at("let (a, b) = pick(2); let x = /*here*/ b;", MATCH_ITEMS) == 1.0
    assert at("let (a, b) = pick(n); let x = /*here*/ a;", MATCH_ITEMS) is True  # arms agree
    assert at("let (a, b) = early(0); let x = /*here*/ b;", MATCH_ITEMS) is None  # exits differ
    assert at("let x = /*here*/ match n { 0 => 4, _ => 4 };") == 4
    assert at("let x = /*here*/ match n { 0 => 4, _ => 5 };") is None
    assert at("let x = /*here*/ match 3 { k if k > 2 => 4, _ => 5 };") is None
    assert at("let x = /*here*/ match 3 { k => k };") is None
    assert at("let x = /*here*/ match o { None => 1, Some(_) => 2 };") is None
    assert at("let o = None; let x = /*here*/ match o { None => 1, Some(_) => 2 };") == 1


def test_a_method_of_an_enum_sees_the_variant_it_is_called_on() -> None:
    items = """
enum Task { Digits, Imagenet }
impl Task {
    fn classes(&self) -> usize { match self { Task::Digits => 10, Self::Imagenet => 1000 } }
}
fn k(task: Task) -> usize { task.classes() / 100 }
"""
    assert at("let x = /*here*/ k(Task::Digits);", items) == 0
    assert at("let x = /*here*/ k(Task::Imagenet);", items) == 10


def test_a_struct_pattern_gives_each_name_its_field() -> None:
    items = """
struct Dims { d_model: usize, heads: usize }
fn dims(n: usize) -> Dims { Dims { d_model: 384, heads: n } }
"""
    assert at("let Dims { d_model, .. } = dims(6); let x = /*here*/ d_model;", items) == 384
    assert at("let Dims { heads: h, .. } = dims(6); let x = /*here*/ h;", items) == 6
    assert at("let Dims { heads: h, .. } = dims(n); let x = /*here*/ h;", items) is None
    assert (
        at("let Dims { mut heads, .. } = dims(6); heads += 1; let x = /*here*/ heads;", items)
        is None
    )
    # a shorthand field binds its name: the outer `heads` is shadowed
    assert (
        at("let heads = 3; let Dims { heads, .. } = dims(n); let x = /*here*/ heads;", items)
        is None
    )


def test_len_into_and_methods_on_a_variant() -> None:
    """A known list's `len()` (a const array's too); `let d: Dims = size.into()` through the
    type's one `from`; a method called on a variant path (`Task::Imagenet.classes()`)."""
    items = """
mod shortlist { pub const PINNED: [usize; 3] = [4, 8, 15]; }
enum Task { Digits, Imagenet }
impl Task {
    fn classes(&self) -> usize { match self { Task::Digits => 10, Task::Imagenet => 1000 } }
}
struct Dims { d_model: usize }
impl From<Task> for Dims {
    fn from(task: Task) -> Self { Dims { d_model: task.classes() * 2 } }
}
"""
    assert at("let x = /*here*/ shortlist::PINNED.len();", items) == 3
    assert at("let x = /*here*/ v.len();", items) is None
    assert at("let x = /*here*/ Task::Imagenet.classes();", items) == 1000
    assert at("let d: Dims = Task::Digits.into(); let x = /*here*/ d.d_model;", items) == 20
    assert at("let d: Dims = task.into(); let x = /*here*/ d.d_model;", items) is None


def test_unwrap_or_and_to_vec() -> None:
    assert at("let x = /*here*/ None.unwrap_or(10.0);") == 10.0
    assert at("let x = /*here*/ Some(3).unwrap_or(10);") == 3
    assert at("let x = /*here*/ o.unwrap_or(10);") is None
    assert at("let x = /*here*/ [1, 2].to_vec();") == [1, 2]


def test_let_mut_is_known_up_to_the_first_change() -> None:
    assert at("let mut s = 5000; let x = /*here*/ s;") == 5000
    assert at("let mut s = 5000; let y = s + 1; let x = /*here*/ s;") == 5000
    assert at("let mut s = 5000; s = 64; let x = /*here*/ s;") == 64
    assert at("let s; s = 5000; let x = /*here*/ s;") == 5000
    assert at("let s = 1; { let s = 5000; } let x = /*here*/ s;") == 1


def test_the_origin_and_note_of_a_const() -> None:
    facts, node = marked("const WIDTH: usize = 5_000;\nfn f() { let x = /*here*/ WIDTH; }")
    found = evaluate.value_of(node, facts)
    assert found is not None and found.note == "const WIDTH"
    assert found.origin is not None and (found.origin.start.row, found.origin.start.col) == (0, 21)
    assert found.steps == ("const WIDTH at line 1",)


@pytest.mark.parametrize(
    ("body", "value"),
    [
        ("let x = /*here*/ s![0..4;2, .., 3];", [{"start": 0, "end": 4, "step": 2},
         {"start": 0, "end": None, "step": 1}, {"start": 3, "end": 4, "step": 1}]),
        ("let k = 2; let x = /*here*/ s![0..k];", [{"start": 0, "end": 2, "step": 1}]),
        ("let k = K / 8; let x = /*here*/ s![..;k as isize, 1..K as i64];",
         [{"start": 0, "end": None, "step": 0}, {"start": 1, "end": 4, "step": 1}]),
        ("let x = /*here*/ s![..;n as isize];", [{"start": 0, "end": None}]),
        ("let x = /*here*/ 1..=3;", {"start": 1, "end": 4, "step": 1}),
        ("let x = /*here*/ 0..n;", {"start": 0, "step": 1}),
        ("let x = /*here*/ vec![1.5, 2.0];", [1.5, 2.0]),
        ("let x = /*here*/ vec![K; 3];", [4, 4, 4]),
    ],
)  # fmt: skip
def test_ranges_and_macros(body: str, value: object) -> None:
    assert at(body, "const K: usize = 4;") == value


def test_a_value_computed_here_from_another_files_consts_is_set_here(tmp_path: Path) -> None:
    """`hp::H / hp::K` with both consts from another file: the value is set at the division,
    in this file (its origin and its path agree), not in the consts' file."""
    lib = crate(
        tmp_path,
        {
            "lib.rs": "mod hp;\nfn f() { let x = /*here*/ hp::H / hp::K; }\n",
            "hp.rs": "pub const H: usize = 36;\npub const K: usize = 3;\n",
        },
    )
    facts, node = marked(lib.read_text(), str(lib))
    found = evaluate.value_of(node, facts)
    assert found is not None and found.value == 12
    assert found.path == str(lib)
    assert found.origin is not None and found.origin.start.row == 1


@pytest.mark.parametrize(
    ("expr", "value"),
    [
        ("D.min(3)", 3), ("(D + 2).max(20)", 20), ("D.clamp(1, 5)", 5), ("D.pow(2)", 100),
        ("D.div_ceil(3)", 4), ("D.next_multiple_of(4)", 12), ("D.next_power_of_two()", 16),
        ("D.ilog2()", 3), ("D.isqrt()", 3), ("D.saturating_sub(4)", 6),
        ("D.is_power_of_two()", False), ("(D as f32).sqrt()", 10**0.5),
        ("(D as f32 / 4.0).round()", 3.0), ("(2.5f32).round()", 3.0), ("(-2.5f64).round()", -3.0),
        ("(D as f64 / 4.0).floor()", 2.0), ("(D as f64 / 4.0).ceil()", 3.0),
        ("(D as f32).powi(2)", 100.0), ("((D as f32).sqrt()).recip() * 10.0", 10**0.5),
        # Rust's answer needs the exact type, or Rust panics, or the types differ: unknown
        # an unsigned type the code shows saturates at 0 (a literal's suffix, a declared type)
        ("10usize.saturating_sub(12)", 0), ("{ let h: u32 = 3; h.saturating_sub(5) }", 0),
        ("{ let h: i64 = 3; h.saturating_sub(5) }", None),
        ("D.saturating_sub(12)", 0), ("D.clamp(5, 1)", None), ("(D as f32).min(3)", None),
        ("(-1.0f32).sqrt()", None), ("D.pow(200)", None), ("N.min(3)", None), ("D.min(N)", None),
    ],
)  # fmt: skip
def test_number_methods_rust_computes(expr: str, value: object) -> None:
    src = f"const D: usize = 10;\nfn f(N: usize) {{\n    g(/*here*/{expr});\n}}\n"
    found = value_at(src)
    assert found == pytest.approx(value) if isinstance(value, float) else found == value
