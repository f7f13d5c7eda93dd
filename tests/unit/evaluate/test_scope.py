"""Rust's scopes for the names the evaluator reads: block items shadow in their block only, a
`let` from its statement on, `use` inside a function, consts of every primitive type from any
module of the crate, `Self::C` and trait consts. Look-alikes in both directions."""

from __future__ import annotations

from pathlib import Path

import pytest
from evaluate_helpers import crate, value_at

from panic_lens import evaluate
from panic_lens.rust.facts import FileFacts
from panic_lens.rust.syntax import walk


@pytest.mark.parametrize(
    ("src", "value"),
    [
        # a const in a function body is that body's, in the whole body (even before it)
        ("const N: usize = 4;\nfn a() { const N: usize = 8; let x = /*here*/ N; }", 8),
        ("const N: usize = 4;\nfn a() { let x = /*here*/ N; const N: usize = 8; }", 8),
        # ... and not another function's
        ("const N: usize = 4;\nfn a() { const N: usize = 8; }\nfn b() { let x = /*here*/ N; }", 4),
        ("fn a() { const N: usize = 8; }\nfn b() { let x = /*here*/ N; }", None),
        # an inner block's const is the inner block's only
        ("const N: usize = 4;\nfn a() { { const N: usize = 9; } let x = /*here*/ N; }", 4),
        ("fn a() { const N: usize = 4; { const N: usize = 9; let x = /*here*/ N; } }", 9),
        # a const in a closure's block, in a `mod`, in an impl's method
        ("const N: i32 = 1;\n"
         "fn a() { let f = || { const N: i32 = 2; N }; let x = /*here*/ N; }", 1),
        ("mod m { pub const N: usize = 2; }\n"
         "const N: usize = 3;\nfn a() { let x = /*here*/ N; }", 3),
        ("const N: usize = 3;\nmod m { fn a() { let x = /*here*/ N; } }", None),  # mods are closed
        ("const N: usize = 3;\nmod m { use super::*; fn a() { let x = /*here*/ N; } }", 3),
        ("const N: usize = 3;\nmod m { use super::N; fn a() { let x = /*here*/ N; } }", 3),
        # `let` shadows a const from its statement on, and only there
        ("const N: usize = 3;\nfn a(n: usize) { let x = /*here*/ N; let N = n; }", 3),
        ("const W: usize = 3;\nfn a(w: usize) { let W = w; let x = /*here*/ W; }", None),
        ("const W: usize = 3;\nfn a(W: usize) { let x = /*here*/ W; }", None),
        # `use` inside a function
        ("mod m { pub const K: f32 = 0.5; }\nfn a() { use m::K; let x = /*here*/ K; }", 0.5),
        ("mod m { pub const K: f32 = 0.5; }\nfn a() { use m::K; }\nfn b() { let x = /*here*/ K; }",
         None),
        ("mod m { pub const K: f32 = 0.5; }\nfn a() { use m::K as Q; let x = /*here*/ Q; }", 0.5),
        # every primitive type
        ("const F: f64 = 1e-5;\nfn a() { let x = /*here*/ F; }", 1e-5),
        ("const B: bool = false;\nfn a() { let x = /*here*/ B; }", False),
        ('const S: &str = "mean";\nfn a() { let x = /*here*/ S; }', "mean"),
        ("static S: u32 = 9;\nfn a() { let x = /*here*/ S; }", 9),
        ("const A: f32 = 0.5;\nconst B: f32 = A * 2.0;\nfn a() { let x = /*here*/ B; }", 1.0),
        ("const D: usize = 512;\nconst H: usize = 8;\nfn a() { let x = /*here*/ D / H; }", 64),
        # associated consts
        ("struct M;\n"
         "impl M { const W: usize = 12; fn f(&self) { let x = /*here*/ Self::W; } }", 12),
        ("struct M;\nimpl M { const W: usize = 12; }\nfn f() { let x = /*here*/ M::W; }", 12),
        ("struct M;\ntrait T { const W: usize = 3; }\nimpl T for M {}\n"
         "impl M { fn f(&self) { let x = /*here*/ Self::W; } }", 3),
        ("struct M;\ntrait T { const W: usize = 3; }\nimpl T for M { const W: usize = 7; }\n"
         "impl M { fn f(&self) { let x = /*here*/ Self::W; } }", 7),
        # look-alikes: another type's const of the same name, a trait const with no default
        ("struct M;\nstruct P;\nimpl P { const W: usize = 5; }\n"
         "impl M { fn f(&self) { let x = /*here*/ Self::W; } }", None),
        ("struct M;\ntrait T { const W: usize; }\nimpl T for M {}\n"
         "impl M { fn f(&self) { let x = /*here*/ Self::W; } }", None),
        ("mod a { pub const W: u8 = 1; }\nmod b { pub const W: u8 = 2; }\n"
         "fn f() { let x = /*here*/ W; }", None),
        ("use other_crate::W;\nconst V: usize = 1;\nfn f() { let x = /*here*/ W; }", None),
        # a type declared in a fn body has the consts of that body's impls, not the module's
        ("struct M;\nimpl M { const W: usize = 12; }\n"
         "fn f() { struct M;\nimpl M { const W: usize = 5; }\nlet x = /*here*/ M::W; }", 5),
        ("struct M;\nimpl M { const WIDTH: usize = 12; }\n"
         "fn f() { struct M;\nlet x = /*here*/ M::WIDTH; }", None),
        ("fn g() { struct M;\nimpl M { const W: usize = 5; } }\n"
         "struct M;\nimpl M { const W: usize = 12; }\nfn f() { let x = /*here*/ M::W; }", 12),
    ],
)  # fmt: skip
def test_names_resolve_as_rust_scopes_them(src: str, value: object) -> None:
    assert value_at(src) == value


def test_an_f32_const_imported_from_another_module_file(tmp_path: Path) -> None:
    main = crate(
        tmp_path,
        {
            "main.rs": "mod config;\nuse crate::config::limits::{EPS, MAX};\n"
            "fn f() { let x = EPS; let y = MAX; }\n",
            "config/mod.rs": "pub mod limits;\n",
            "config/limits.rs": "pub const EPS: f32 = 1e-3;\npub const MAX: usize = BASE * 2;\n"
            "const BASE: usize = 3000;\n",
        },
    )
    facts = FileFacts.build(main.read_bytes(), str(main))
    names = {facts.text(n): n for n in walk(facts.tree.root_node) if n.type == "identifier"}
    eps = evaluate.value_of(names["EPS"], facts)
    big = evaluate.value_of(names["MAX"], facts)
    assert eps is not None and eps.value == pytest.approx(1e-3)
    assert eps.path == str(tmp_path / "src" / "config" / "limits.rs")
    assert big is not None and big.value == 6000 and big.note == "const MAX"


def test_a_glob_of_a_sibling_module_and_a_look_alike_in_a_third(tmp_path: Path) -> None:
    main = crate(
        tmp_path,
        {
            "lib.rs": "mod consts;\nmod other;\nuse consts::*;\nfn f() { let x = N; }\n",
            "consts.rs": "pub const N: usize = 4;\n",
            "other.rs": "pub const N: usize = 99;\n",
        },
    )
    facts = FileFacts.build(main.read_bytes(), str(main))
    ident = [n for n in walk(facts.tree.root_node) if facts.text(n) == "N"][-1]
    found = evaluate.value_of(ident, facts)
    assert found is not None and found.value == 4


def test_a_const_the_file_does_not_import_is_unknown(tmp_path: Path) -> None:
    """Another module's const of that name is no guess: without a `use`, it is not in scope."""
    main = crate(
        tmp_path,
        {"lib.rs": "mod other;\nfn f() { let x = N; }\n", "other.rs": "pub const N: usize = 4;\n"},
    )
    facts = FileFacts.build(main.read_bytes(), str(main))
    ident = [n for n in walk(facts.tree.root_node) if facts.text(n) == "N"][-1]
    assert evaluate.value_of(ident, facts) is None
