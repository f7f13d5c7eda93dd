"""names: `use` resolution to canonical burn paths, scopes, shadowing, other crates."""

from __future__ import annotations

import pytest

from panic_lens.rust.names import Imports
from panic_lens.rust.syntax import node_text, parse, walk


def resolve_marked(src: str) -> str | None:
    """Resolve the path of the call whose callee path is written right before `(/*here*/`."""
    data = src.encode()
    tree = parse(data)
    imports = Imports.from_tree(tree, data)
    target = data.index(b"(/*here*/")
    for node in walk(tree.root_node):
        if (
            node.type == "call_expression"
            and node.child_by_field_name("arguments").start_byte == target
        ):
            callee = node.child_by_field_name("function")
            if callee.type == "scoped_identifier" and node_text(callee, data).endswith("::new"):
                callee = callee.child_by_field_name("path")
            return imports.resolve(callee)
    raise AssertionError("no marked call")


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        (
            "use burn::rl::AsyncPolicy; fn f() { AsyncPolicy::new(/*here*/); }",
            "burn::rl::AsyncPolicy",
        ),
        (
            "use burn_rl::policy::AsyncPolicy as B; fn f() { B::new(/*here*/); }",
            "burn::rl::AsyncPolicy",
        ),
        (
            "use burn::{rl::{self, Policy}}; fn f() { rl::AsyncPolicy::new(/*here*/); }",
            "burn::rl::AsyncPolicy",
        ),
        ("use burn::rl::*; fn f() { AsyncPolicy::new(/*here*/); }", "burn::rl::AsyncPolicy"),
        ("use burn::prelude::*; fn f() { Tensor::new(/*here*/); }", "burn::tensor::Tensor"),
        (
            "use burn_tensor::module::ctc_loss; fn f() { ctc_loss(/*here*/); }",
            "burn::tensor::module::ctc_loss",
        ),
        (
            "use burn_core as bc; fn f() { bc::tensor::module::ctc_loss(/*here*/); }",
            "burn::tensor::module::ctc_loss",
        ),
        ("fn f() { ::burn_nn::loss::CTCLoss::new(/*here*/); }", "burn::nn::loss::CTCLoss"),
        (
            "fn f() { use burn::nn::interpolate::InterpolateMode as M; M::new(/*here*/); }",
            "burn::nn::interpolate::InterpolateMode",
        ),
        (
            "mod m { pub use burn::rl::AsyncPolicy; } use self::m::AsyncPolicy as A;"
            " fn f() { A::new(/*here*/); }",
            "burn::rl::AsyncPolicy",
        ),
        (
            "use burn::rl::AsyncPolicy;"
            " mod tests { use super::*; fn t() { AsyncPolicy::new(/*here*/); } }",
            "burn::rl::AsyncPolicy",
        ),
        (
            "use burn_router::RouterChannel; fn f() { RouterChannel::new(/*here*/); }",
            "burn::router::RouterChannel",
        ),
    ],
)
def test_resolves_to_canonical_burn_paths(src: str, expected: str) -> None:
    assert resolve_marked(src) == expected


@pytest.mark.parametrize(
    "src",
    [
        "struct AsyncPolicy; fn f() { AsyncPolicy::new(/*here*/); }",
        "use governor::AsyncPolicy; fn f() { AsyncPolicy::new(/*here*/); }",
        "use burn::rl::*; struct AsyncPolicy; fn f() { AsyncPolicy::new(/*here*/); }",
        "fn ctc_loss() {} use burn::tensor::module::*; fn f() { ctc_loss(/*here*/); }",
        "fn f() { AsyncPolicy::new(/*here*/); }",
        "mod m { use burn::rl::AsyncPolicy; } fn f() { AsyncPolicy::new(/*here*/); }",
        "fn g() { use burn::rl::AsyncPolicy; } fn f() { AsyncPolicy::new(/*here*/); }",
        "use burn::rl::AsyncPolicy; mod inner { fn t() { AsyncPolicy::new(/*here*/); } }",
        "use burn::tensor::Unknown::*; fn f() { AsyncPolicy::new(/*here*/); }",
    ],
)
def test_local_items_other_crates_and_closed_scopes_are_not_burn(src: str) -> None:
    assert resolve_marked(src) is None


def test_two_interpolate_modes_are_told_apart_by_import() -> None:
    ops = "use burn::tensor::ops::InterpolateMode; fn f() { InterpolateMode::new(/*here*/); }"
    nn = "use burn::nn::interpolate::InterpolateMode; fn f() { InterpolateMode::new(/*here*/); }"
    assert resolve_marked(ops) == "burn::tensor::ops::InterpolateMode"
    assert resolve_marked(nn) == "burn::nn::interpolate::InterpolateMode"


def test_extern_crate_alias() -> None:
    src = "extern crate burn_rl as rl; fn f() { rl::AsyncPolicy::new(/*here*/); }"
    assert resolve_marked(src) == "burn::rl::AsyncPolicy"


def test_enum_variant_globs() -> None:
    src = "use burn::tensor::ops::InterpolateMode::*; fn f() { Bilinear::new(/*here*/); }"
    assert resolve_marked(src) == "burn::tensor::ops::InterpolateMode::Bilinear"
    src = "use burn::tensor::DType::*; fn f() { U32::new(/*here*/); }"
    assert resolve_marked(src) == "burn::tensor::DType::U32"


def test_use_cycles_end_as_unknown() -> None:
    assert (
        resolve_marked("use self::B as A; use self::A as B; fn f() { A::new(/*here*/); }") is None
    )


def test_a_broken_glob_of_no_path_resolves_to_nothing() -> None:
    """`use super:X:*;` (a half-typed `::`) parses as a glob of no path: names looked up
    through it are unknown, and no rule fails on them."""
    from panic_lens.engine import analyze

    src = "mod t { use super:Autodiff:*; fn f(x: T) { interpolate(x); } }"
    assert resolve_marked(src.replace("interpolate(x)", "X::new(/*here*/)")) is None
    assert analyze(src).notes == ()
