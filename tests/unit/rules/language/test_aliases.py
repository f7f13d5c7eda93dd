"""burn re-exports an item in several places (`burn_std::Slice` is `burn::tensor::Slice` and
`burn::backend::Slice`; `burn_dataset::InMemDataset` is `burn::data::dataset::InMemDataset`).
The guards index keeps one public key per item and every other path as an alias: a `[[where]]`
written with any of them (the deriver writes the key) matches a call written with any other,
and a look-alike of the user's own stays silent."""

from __future__ import annotations

from collections.abc import Callable

from panic_lens.engine import analyze
from panic_lens.rules.language import api
from panic_lens.rules.meta import RuleInfo
from panic_lens.rust import burn_api

AddRule = Callable[[str], RuleInfo]

STEP_RULE = """\
id = "alias-step"
title = "step zero"
summary = "A slice's step of zero."
severity = "error"

[[panic_site]]
file = "crates/burn-std/src/tensor/slice.rs"
guard = "step != 0"
message = "Step cannot be zero"
line = 462

[[where]]
call = "burn::backend::Slice::new"
args = ["start", "end", "step"]

[when]
condition = "step == 0"
message = "step is zero"
"""


def _lines(src: str, rule: str) -> list[int]:
    return sorted(f.span.start.row + 1 for f in analyze(src, "src/lib.rs").findings
                  if f.rule == rule)  # fmt: skip


def _marked(src: str, mark: str) -> list[int]:
    return [i + 1 for i, line in enumerate(src.splitlines()) if line.rstrip().endswith(mark)]


def test_the_shipped_index_knows_each_items_other_paths() -> None:
    slice_paths = api.aliases_of("burn::tensor::Slice")
    assert {"burn::backend::Slice", "burn::tensor::Slice", "burn_std::Slice"} <= slice_paths
    assert api.aliases_of("burn::backend::Slice") == slice_paths
    assert "burn::data::dataset::InMemDataset" in api.aliases_of("burn_dataset::InMemDataset")
    assert api.aliases_of("my_crate::Slice") == frozenset()


def test_a_path_in_another_burn_crate_resolves_as_written() -> None:
    assert burn_api.canonical(["burn_dataset", "InMemDataset"]) == "burn_dataset::InMemDataset"
    assert burn_api.canonical(["burn_tensor", "Slice"]) == "burn::tensor::Slice"
    assert burn_api.canonical(["serde", "Serialize"]) is None
    assert burn_api.canonical(["burn_dataset"]) is None


def test_a_where_on_the_key_matches_every_path_users_write(add_rule: AddRule) -> None:
    add_rule(STEP_RULE)
    src = """\
use burn::tensor::Slice;

mod local {
    pub struct Slice;
    impl Slice {
        pub fn new(_a: isize, _b: Option<isize>, _c: isize) -> Self { Slice }
    }
}

fn f(stride: isize) {
    let _a = Slice::new(0, Some(4), 0); // bad
    let _b = burn::backend::Slice::new(0, None, 0); // bad
    let _c = burn_std::Slice::new(1, None, 0); // bad
    let _d = burn::prelude::Slice::new(0, None, 0); // fine (no such path)
    let _e = Slice::new(0, Some(4), 2); // fine
    let _f = Slice::new(0, Some(4), stride); // fine
    let _g = local::Slice::new(0, Some(4), 0); // fine
}
"""
    assert _lines(src, "alias-step") == _marked(src, "// bad")


def test_a_where_on_another_path_matches_the_key(add_rule: AddRule) -> None:
    add_rule(STEP_RULE.replace("burn::backend::Slice::new", "burn_std::Slice::new"))
    src = """\
use burn::backend::Slice;
fn f() {
    let _a = Slice::new(0, Some(4), 0); // bad
    let _b = burn::tensor::Slice::new(0, Some(4), 0); // bad
}
"""
    assert _lines(src, "alias-step") == _marked(src, "// bad")
