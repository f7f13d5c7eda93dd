"""rust/burn_guards.py on small burn-like sources: panic sites with their guards, messages and
path conditions, TensorCheck registers, calls kept for following, test code skipped."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path
from typing import Any

import pytest
from records_factory import REPO

from panic_lens.rust.burn_guards import (
    build_guards,
    callee_key,
    dumps_guards,
    guards_of_source,
    module_of,
    split_args,
)

CHECKS = b"""
pub(crate) fn checks_channels_div_groups(channels_in: usize, channels_out: usize, groups: usize) {
    let in_ok = channels_in.is_multiple_of(groups);
    if !in_ok || !channels_out.is_multiple_of(groups) {
        panic!("Both channels must be divisible by the number of groups. Got \\
             channels_in={channels_in}, groups={groups}");
    }
}

pub(crate) fn check_same_padding_support(kernel_size: &[usize]) {
    for k in kernel_size.iter() {
        if k % 2 == 0 {
            unimplemented!("Same padding with an even kernel size is not supported");
        }
    }
}
"""

CONV = b"""
use super::checks;

impl ConvConfig {
    pub fn init(&self, device: &Device) -> Conv {
        checks::checks_channels_div_groups(self.channels[0], self.channels[1], self.groups);
        if self.padding == PaddingConfig2d::Same {
            checks::check_same_padding_support(&self.kernel_size);
        }
        debug_assert!(self.stride > 0, "stride");
        assert_eq!(self.a % self.b, 0, "a must divide b");
        self.helper(3)
    }

    fn helper(&self, n: usize) -> usize {
        match self.mode {
            Mode::A | Mode::B => n,
            other => panic!("{other:?} is not supported"),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn t() { assert!(false, "never indexed"); }
}
"""

CHECK_RS = b"""
impl TensorCheck {
    pub(crate) fn narrow<const D: usize>(tensor: &Tensor<D>, dim: usize, start: usize) -> Self {
        let mut check = Self::Ok;
        if start >= tensor.shape()[dim] {
            check = check.register(
                "Narrow",
                TensorError::new(format!("Can't narrow at dimension {dim}, start exceeds")),
            );
        }
        check
    }
}
"""

BASE_RS = b"""
impl<const D: usize> Tensor<D> {
    pub fn narrow(self, dim: usize, start: usize) -> Self {
        check!(TensorCheck::narrow::<D>(&self, dim, start));
        self
    }
    pub fn early(self, n: usize) -> usize {
        if n == 0 {
            return 1;
        }
        let size = NonZeroUsize::new(n).expect("n must be non-zero");
        size.get()
    }
}
"""


def fns(src: bytes, rel: str = "crates/burn-nn/src/modules/conv/conv.rs") -> dict[str, Any]:
    return {k.split(" ", 1)[1]: v for k, v in guards_of_source(src, rel).items()}


def test_panic_in_an_if_records_the_condition_and_the_message() -> None:
    found = fns(CHECKS, "crates/burn-nn/src/modules/conv/checks.rs")
    fn = found["checks_channels_div_groups"]
    assert fn["vis"] == "pub(crate)"
    assert fn["params"] == [
        ["channels_in", "usize"],
        ["channels_out", "usize"],
        ["groups", "usize"],
    ]
    (site,) = fn["panics"]
    assert site["kind"] == "panic" and site["guard"] is None
    assert site["path"] == [["if", "!in_ok || !channels_out.is_multiple_of(groups)"]]
    assert site["message"].startswith("Both channels must be divisible")
    assert "channels_in={channels_in}" in site["message"]  # the `\\` line continuation joined
    assert fn["lets"] == {"in_ok": [[3, "channels_in.is_multiple_of(groups)"]]}


def test_loops_are_path_items() -> None:
    fn = fns(CHECKS)["check_same_padding_support"]
    (site,) = fn["panics"]
    assert site["kind"] == "unimplemented"
    assert site["path"] == [["for", "k", "kernel_size.iter()"], ["if", "k % 2 == 0"]]


def test_asserts_calls_match_arms_and_test_code() -> None:
    found = fns(CONV)
    init = found["ConvConfig::init"]
    kinds = {p["kind"]: p for p in init["panics"]}
    assert kinds["assert"]["guard"] == "!(self.stride > 0)" and kinds["assert"]["debug"] is True
    assert kinds["assert_eq"]["guard"] == "(self.a % self.b) != (0)"
    assert kinds["assert_eq"]["message"] == "a must divide b"
    calls = {c["callee"]: c for c in init["calls"]}
    assert calls["checks::checks_channels_div_groups"]["args"] == [
        "self.channels[0]", "self.channels[1]", "self.groups",
    ]  # fmt: skip
    assert calls["checks::check_same_padding_support"]["path"] == [
        ["if", "self.padding == PaddingConfig2d::Same"]
    ]
    assert calls["self.helper"]["args"] == ["3"]
    helper = found["ConvConfig::helper"]
    (arm,) = helper["panics"]
    assert arm["path"] == [["arm", "self.mode", "other", "Mode::A | Mode::B"]]
    assert not any("never indexed" in (p.get("message") or "") for f in found.values()
                   for p in f["panics"])  # fmt: skip


def test_items_only_in_builds_without_std_are_left_out() -> None:
    """burn's no_std twins (`#[cfg(not(feature = "std"))] mod threading { fn id() { panic!
    } }`) are not what a user's (std) build runs; a `cfg_attr` does not gate its item."""
    src = b"""
#[cfg(feature = "std")]
mod threading {
    pub(super) fn current_id() -> u64 { 1 }
}
#[cfg(not(feature = "std"))]
mod threading {
    pub(super) fn current_id() -> u64 { panic!("no thread id without std") }
}
#[cfg(all(not(feature = "std"), target_has_atomic = "64"))]
pub fn atomic() { panic!("no std, atomics") }
#[cfg_attr(not(feature = "std"), allow(dead_code))]
pub fn kept(n: usize) { assert!(n > 0, "kept with std") }
"""
    messages = {p["message"] for f in fns(src).values() for p in f["panics"]}
    assert messages == {"kept with std"}


def test_only_a_tensor_checks_register_is_a_panic() -> None:
    src = b"""
impl Learner {
    pub fn metrics<M: Registration>(self, metrics: M) -> Self {
        metrics.register(self, "a registry")
    }
}
impl TensorCheck {
    pub(crate) fn positive(ops: &str, n: usize) -> Self {
        let mut check = Self::Ok;
        if n == 0 {
            check = check.register(ops, TensorError::new("n must be positive"));
        }
        check
    }
}
"""
    found = fns(src)
    assert found.get("Learner::metrics", {"panics": []})["panics"] == []
    (site,) = found["TensorCheck::positive"]["panics"]
    assert site["kind"] == "register" and site["message"] == "n must be positive"


def test_tensor_checks_and_registers() -> None:
    check = fns(CHECK_RS, "crates/burn-tensor/src/tensor/api/check.rs")["TensorCheck::narrow"]
    (reg,) = check["panics"]
    assert reg["kind"] == "register" and reg["op"] == "Narrow"
    assert reg["message"] == "Can't narrow at dimension {dim}, start exceeds"
    assert reg["path"] == [["if", "start >= tensor.shape()[dim]"]]
    base = fns(BASE_RS, "crates/burn-tensor/src/tensor/api/base.rs")
    (site,) = base["Tensor::narrow"]["panics"]
    assert site["kind"] == "check" and site["check"] == "narrow"
    assert site["args"] == ["&self", "dim", "start"]


def test_early_return_and_expect() -> None:
    base = fns(BASE_RS, "crates/burn-tensor/src/tensor/api/base.rs")
    (site,) = base["Tensor::early"]["panics"]
    assert site["kind"] == "expect" and site["guard"] == "NonZeroUsize::new(n) fails"
    assert site["path"] == [["else", "n == 0"]]  # after `if n == 0 { return ..; }`


def test_split_args_and_callee_keys() -> None:
    assert split_args('a, f(b, c), "x, y", [1, 2]') == ["a", "f(b, c)", '"x, y"', "[1, 2]"]
    caller = {"owner": "ConvConfig"}
    assert callee_key({"callee": "self.helper"}, caller) == ("ConvConfig", "helper")
    assert callee_key({"callee": "Self::helper"}, caller) == ("ConvConfig", "helper")
    assert callee_key({"callee": "checks::f"}, caller) == (None, "f")
    assert callee_key({"callee": "TensorCheck::narrow"}, caller) == ("TensorCheck", "narrow")
    assert module_of("crates/burn-nn/src/modules/mod.rs") == "burn_nn::modules"
    assert module_of("crates/burn-nn/src/lib.rs") == "burn_nn"


def _tree(root: Path) -> None:
    for rel, text in {
        "Cargo.toml": b'[workspace.package]\nversion = "0.9.0"\n',
        "crates/burn-nn/Cargo.toml": b'[package]\nname = "burn-nn"\n',
        "crates/burn-nn/src/lib.rs": b"pub mod modules;\npub use modules::*;\n",
        "crates/burn-nn/src/modules/mod.rs": b"pub mod conv;\npub mod linalg;\npub use conv::*;\n",
        "crates/burn-nn/src/modules/conv/mod.rs": b"mod checks;\nmod conv;\npub use conv::*;\n",
        "crates/burn-nn/src/modules/conv/checks.rs": CHECKS,
        "crates/burn-nn/src/modules/conv/conv.rs": b"pub struct ConvConfig;\n" + CONV,
        "crates/burn-nn/src/tests/mod.rs": b'fn f() { assert!(false, "test dir"); }\n',
        "crates/burn-nn/src/unrelated.rs": b"pub fn quiet(a: usize) -> usize { a + 1 }\n",
        # a function named as its private module, brought up by a glob; one by a named `use`
        "crates/burn-nn/src/modules/linalg/mod.rs": (
            b"mod matvec;\nmod outer;\npub use matvec::*;\npub use outer::outer as outer_product;\n"
        ),
        "crates/burn-nn/src/modules/linalg/matvec.rs": (
            b'pub fn matvec(rank: usize) { assert!(rank >= 2, "rank"); }\n'
        ),
        "crates/burn-nn/src/modules/linalg/outer.rs": (
            b'pub fn outer(rank: usize) { assert!(rank == 1, "rank"); }\n'
        ),
    }.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text)


def test_build_guards_over_a_tree(tmp_path: Path) -> None:
    _tree(tmp_path)
    guards = build_guards(tmp_path)
    names = {k.split(" ", 1)[1] for k in guards["functions"]}
    assert names == {
        "checks_channels_div_groups", "check_same_padding_support", "ConvConfig::init",
        "ConvConfig::helper", "matvec", "outer",
    }  # fmt: skip  # no test dir, no function that cannot panic
    init = next(f for k, f in guards["functions"].items() if k.endswith("ConvConfig::init"))
    assert init["public"] == "burn::nn::ConvConfig"  # through `pub use` as users name it
    matvec = next(f for k, f in guards["functions"].items() if k.endswith(" matvec"))
    assert matvec["public"] == "burn::nn::linalg::matvec"  # not hidden by its module's name
    outer = next(f for k, f in guards["functions"].items() if k.endswith(" outer"))
    assert outer["public"] == "burn::nn::linalg::outer_product"
    helper = next(f for k, f in guards["functions"].items() if k.endswith("helper"))
    assert "public" not in helper
    again = build_guards(tmp_path)
    assert dumps_guards(guards) == dumps_guards(again)  # deterministic bytes
    assert json.loads(gzip.decompress(dumps_guards(guards))) == guards


def test_bodies_that_may_not_run_are_opaque() -> None:
    src = b"""
pub fn f(items: &[usize], k: usize) {
    let mut i = 0;
    while i < items.len() {
        assert!(k > 0, "in a while");
        i += 1;
    }
    items.iter().for_each(|x| assert!(k > 1, "in a closure"));
}
"""
    (fn,) = fns(src).values()
    paths = {p["message"]: p["path"] for p in fn["panics"]}
    assert paths["in a while"] == [["opaque", "a while loop"]]
    assert paths["in a closure"] == [["opaque", "a closure"]]


BURN = Path(os.environ.get("BURN_CHECKOUT", REPO.parent / "burn-checkout"))


@pytest.mark.skipif(not (BURN / "crates").is_dir(), reason="no burn checkout (set BURN_CHECKOUT)")
def test_the_shipped_guards_index_is_a_fresh_build_of_its_burn() -> None:
    from panic_lens.catalog.derive import guards_files
    from panic_lens.rust.burn_guards import burn_version

    shipped = [p for p in guards_files() if p.name == f"burn-{burn_version(BURN)}.guards.json.gz"]
    if not shipped:
        pytest.skip("the checkout's burn version has no shipped guards index")
    assert shipped[0].read_bytes() == dumps_guards(build_guards(BURN))


def test_continue_and_break_before_a_panic() -> None:
    src = b"""
pub fn f(ks: &[usize]) {
    for k in ks.iter() {
        if *k == 0 {
            continue;
        }
        if k % 2 == 0 {
            panic!("even");
        }
    }
    for k in ks.iter() {
        if *k > 9 {
            break;
        }
        assert!(*k != 3, "three");
    }
}
"""
    (fn,) = fns(src).values()
    paths = {p["message"]: p["path"] for p in fn["panics"]}
    assert paths["even"] == [
        ["for", "k", "ks.iter()"], ["else", "*k == 0"], ["if", "k % 2 == 0"]
    ]  # fmt: skip
    assert paths["three"] == [["for", "k", "ks.iter()"], ["opaque", "a loop after a break"]]


def test_array_destructuring_lets_and_lets_read_by_lets() -> None:
    src = b"""
pub fn f(x: Tensor<3>, blank: usize) {
    let [_, batch, classes] = x.dims();
    let unused = 3;
    let limit = classes;
    assert!(blank < limit, "blank");
}
"""
    found = guards_of_source(src, "crates/burn-nn/src/loss/ctc.rs")
    assert found  # unpruned: every let of the body
    (fn,) = found.values()
    assert fn["lets"]["classes"] == [[3, "(x.dims())[2]"]]
    assert fn["lets"]["batch"] == [[3, "(x.dims())[1]"]]
    from panic_lens.rust.burn_guards import prune

    (kept,) = prune(found).values()
    assert set(kept["lets"]) == {"limit", "classes"}  # `classes` is read by `limit` only


def test_return_types_generics_and_check_turbofish_are_kept() -> None:
    src = b"""
impl<const D: usize> Tensor<D> {
    pub fn unsqueeze<'a, const D2: usize, S: Into<Shape>>(self, s: S) -> Tensor<D2> {
        check!(TensorCheck::unsqueeze::<D, D2>());
        self
    }
    pub fn plain(self) {
        assert!(D > 0, "rank");
    }
}
"""
    by_name = {f["name"]: f for f in fns(src).values()}
    unsqueeze, plain = by_name["unsqueeze"], by_name["plain"]
    assert unsqueeze["returns"] == "Tensor<D2>" and unsqueeze["generics"] == ["D2", "S"]
    assert unsqueeze["panics"][0]["generics"] == ["D", "D2"]
    assert plain["returns"] is None and plain["generics"] == []
    assert "generics" not in plain["panics"][0]


def test_a_field_type_is_read_through_its_wrapper() -> None:
    from panic_lens.rust.burn_types import strip_type

    assert strip_type("Ignored<PaddingConfig2d>") == "PaddingConfig2d"
    assert strip_type("Linear<B>") == "Linear"
    assert strip_type("&'a mut burn::nn::Dropout") == "Dropout"
    assert strip_type("(usize, usize)") is None


def test_let_chains_array_maps_and_message_parameters() -> None:
    src = b"""
fn check_nonzero(value: usize, msg: &str) -> usize {
    NonZeroUsize::new(value).expect(msg);
    value
}
pub fn f(w: Option<Vec<usize>>, d: usize, stride: [usize; 2], items: Vec<usize>) {
    if let Some(w) = &w && d > 1 {
        assert!(w.len() == d, "one weight per class");
    } else {
        panic!("never certain");
    }
    let s = stride.map(|s| check_nonzero(s, "stride must be non-zero"));
    let t = items.iter().map(|i| check_nonzero(*i, "lazy"));
}
"""
    found = fns(src)
    (expect,) = found["check_nonzero"]["panics"]
    assert expect["message"] is None and expect["message_param"] == 1
    chained, other = found["f"]["panics"]
    assert chained["path"] == [["iflet", "Some(w)", "&w"], ["if", "d > 1"]]
    assert other["path"] == [["opaque", "the else of a let chain"]]
    each, lazy = [c for c in found["f"]["calls"] if c["callee"] == "check_nonzero"]
    assert each["path"] == [["for", "s", "stride"]]  # an array's map runs on every item
    assert lazy["path"] == [["opaque", "a closure"]]  # an iterator's may not run


def test_a_method_called_on_a_parameter_of_a_named_type_is_a_call_of_that_type() -> None:
    src = b"""
pub fn stft(signal: Tensor<2>, options: StftOptions, pad: &mut PadConfig<B>, n: usize) {
    options.assert_valid("stft");
    pad.check();
    n.max(1);
}
pub fn generic<P: IntoPadding>(padding: P) {
    padding.into_padding();
}
"""
    found = fns(src)
    calls = {c["callee"]: c for c in found["stft"]["calls"]}
    assert set(calls) == {"StftOptions::assert_valid", "PadConfig::check"}
    assert calls["StftOptions::assert_valid"]["via"] == "options"  # the method's `self`
    assert calls["StftOptions::assert_valid"]["args"] == ['"stft"']
    assert calls["PadConfig::check"]["via"] == "pad"
    assert found["generic"]["calls"] == []  # a generic's method: whose impl is not known


def test_code_compiled_only_without_a_cargo_feature_is_left_out() -> None:
    src = b"""
#[cfg(not(feature = "autodiff"))]
impl AutodiffBackend for Dispatch {
    fn backward(t: T) -> G { unimplemented!("Requires `autodiff` feature") }
}
#[cfg(feature = "autodiff")]
impl AutodiffBackend for Other {
    fn backward(t: T) -> G { assert!(t.ok(), "real"); }
}
impl Default for RemoteDevice {
    fn default() -> Self {
        #[cfg(feature = "websocket")]
        {
            assert!(ready(), "on");
        }
        #[cfg(not(feature = "websocket"))]
        panic!("needs websocket")
    }
}
"""
    found = {(f["owner"], f["name"]): f for f in fns(src).values()}
    assert ("Dispatch", "backward") not in found  # a stand-in for the feature's code
    assert found[("Other", "backward")]["panics"][0]["path"] == []
    on, off = found[("RemoteDevice", "default")]["panics"]
    assert on["path"] == []
    assert off["path"] == [["opaque", "code compiled only without a cargo feature"]]
