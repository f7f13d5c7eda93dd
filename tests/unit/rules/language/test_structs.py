"""burn's plain option structs as an argument's value (`rules/language/structs.py`): what a
struct literal, its `..base` and burn's constructors set, as the shipped table says, read from
burn 0.22.0-pre.2's `StftOptions`, `PaddedConvOptions` and `ConvOptions`."""

from __future__ import annotations

import re
import tomllib
from typing import Any

import pytest
from burn_tree import BURN

from panic_lens.evaluate import value_of
from panic_lens.rules.language import structs
from panic_lens.rust.facts import FileFacts
from panic_lens.rust.syntax import walk

HEAD = """use burn::tensor::signal::StftOptions;
use burn::tensor::ops::{ConvOptions, PaddedConvOptions};
mod local { pub struct StftOptions { pub n_fft: usize } }
"""


def values(body: str) -> list[Any]:
    """The struct value of the argument of each `g(..)` call in `body` (None: not known)."""
    facts = FileFacts.build((HEAD + body).encode(), "src/lib.rs")
    found = []
    for node in walk(facts.tree.root_node):
        if node.type == "call_expression" and facts.text(node).startswith("g("):
            arg = node.child_by_field_name("arguments").named_children[0]
            value = value_of(arg, facts)
            found.append(value.value if value is not None else None)
    return found


def test_stft_options_new_sets_burns_defaults() -> None:
    """`StftOptions::new(n_fft)`: hop_length = max(n_fft / 4, 1), win_length None, center and
    onesided true (stft.rs); `default()` is `new(400)`."""
    src = "fn f() { g(StftOptions::new(512)); g(StftOptions::new(2)); g(StftOptions::default()); }"
    assert values(src) == [
        {"n_fft": 512, "hop_length": 128, "win_length": None, "center": True, "onesided": True},
        {"n_fft": 2, "hop_length": 1, "win_length": None, "center": True, "onesided": True},
        {"n_fft": 400, "hop_length": 100, "win_length": None, "center": True, "onesided": True},
    ]  # fmt: skip


def test_a_literal_writes_over_its_base_and_unknowns_are_absent() -> None:
    src = """const W: usize = 1200;
fn f(n: usize, hop: usize) {
    g(StftOptions { win_length: Some(W), ..StftOptions::new(1024) });
    g(StftOptions { hop_length: 0, ..StftOptions::new(n) });
    g(StftOptions { hop_length: hop, ..StftOptions::new(512) });
    g(StftOptions { n_fft: 300, ..Default::default() });
}
"""
    new_1024 = {"n_fft": 1024, "hop_length": 256, "center": True, "onesided": True}
    assert values(src) == [
        {**new_1024, "win_length": 1200},
        {"hop_length": 0, "win_length": None, "center": True, "onesided": True},
        {"n_fft": 512, "win_length": None, "center": True, "onesided": True},
        {"n_fft": 300, "hop_length": 100, "win_length": None, "center": True, "onesided": True},
    ]


def test_lets_and_clone_are_followed_and_a_changed_local_is_not() -> None:
    src = """fn f() {
    let a = StftOptions::new(256);
    let b = a.clone();
    g(b);
    let mut c = StftOptions::new(256);
    c.n_fft = 512;
    g(c);
}
"""
    assert values(src) == [
        {"n_fft": 256, "hop_length": 64, "win_length": None, "center": True, "onesided": True},
        None,
    ]


def test_a_struct_flows_through_the_crates_own_helpers() -> None:
    """A helper of the crate called with known arguments builds the struct in its frame."""
    src = """fn opts(n_fft: usize, hop_length: usize) -> StftOptions {
    StftOptions { n_fft, hop_length, win_length: None, center: false, onesided: true }
}
fn f(k: usize) {
    g(opts(5, 1));
    g(opts(k, 0));
}
"""
    assert values(src) == [
        {"n_fft": 5, "hop_length": 1, "win_length": None, "center": False, "onesided": True},
        {"hop_length": 0, "win_length": None, "center": False, "onesided": True},
    ]


def test_padded_conv_options_keep_padding_end_only_when_it_differs() -> None:
    """`PaddedConvOptions::asymmetric` drops padding_end equal to padding_start (ops.rs)."""
    src = """fn f(p: [usize; 3]) {
    g(PaddedConvOptions::asymmetric([1, 1, 1], [0, 0, 0], [1, 1, 1], [1, 1, 1], 1));
    g(PaddedConvOptions::asymmetric([1, 1, 1], [1, 1, 1], [1, 1, 1], [1, 1, 1], 1));
    g(PaddedConvOptions::asymmetric([1, 1, 1], [1, 1, 1], p, [1, 1, 1], 1));
    g(PaddedConvOptions {
        options: ConvOptions::new([2, 2, 2], [1, 1, 1], [1, 1, 1], 1),
        padding_end: Some([1, 1, 1]),
    });
}
"""
    conv = {"stride": [1, 1, 1], "dilation": [1, 1, 1], "groups": 1}
    assert values(src) == [
        {"options": {**conv, "padding": [0, 0, 0]}, "padding_end": [1, 1, 1]},
        {"options": {**conv, "padding": [1, 1, 1]}, "padding_end": None},
        {"options": {**conv, "padding": [1, 1, 1]}},  # padding_end reads `p`: not known
        {"options": {**conv, "stride": [2, 2, 2], "padding": [1, 1, 1]},
         "padding_end": [1, 1, 1]},
    ]  # fmt: skip


def test_other_types_are_not_read() -> None:
    """A project type of the same name, a type outside the table, a parameter, a constructor
    with other arguments: no value."""
    src = """struct Opts { n_fft: usize }
fn f(o: StftOptions) {
    g(local::StftOptions { n_fft: 400 });
    g(Opts { n_fft: 400 });
    g(o);
    g(StftOptions::new(1, 2));
}
"""
    assert values(src) == [None, None, None, None]


@pytest.mark.parametrize(
    ("entry", "reason"),
    [
        ({"src": "x.rs"}, "struct[0]: path: missing"),
        ({"path": "burn::X"}, "struct[0] (burn::X): src: missing"),
        ({"path": "burn::X", "src": "x.rs", "fields": ["a"],
          "constructor": [{"name": "new", "params": ["a"], "sets": {"b": "a"}}]},
         "constructor new: b is no field"),
        ({"path": "burn::X", "src": "x.rs", "fields": ["a"],
          "constructor": [{"name": "new", "params": ["a"], "sets": {"a": "a +"}}]},
         "constructor new: a:"),
    ],
)  # fmt: skip
def test_a_bad_table_entry_names_the_file_and_entry(entry: dict[str, Any], reason: str) -> None:
    with pytest.raises(structs.StructTableError) as caught:
        structs.table_from_data({"struct": [entry]}, "t.structs.toml")
    assert str(caught.value).startswith("t.structs.toml: ")
    assert reason in str(caught.value)


def test_the_shipped_table_reads() -> None:
    table = structs.table()
    assert table["burn::tensor::signal::StftOptions"].constructors["new"].params == ("n_fft",)
    assert (
        table["burn::backend::ops::PaddedConvOptions"]
        is table["burn::tensor::ops::PaddedConvOptions"]
    )


@pytest.mark.skipif(not (BURN / "crates").is_dir(), reason="no burn checkout (set BURN_CHECKOUT)")
def test_every_struct_and_constructor_is_in_burns_source() -> None:
    """Each struct of the table is a `pub struct` of its `src` with exactly those public
    fields, and each constructor is a `pub fn` of it with those parameters (`default` an
    `impl Default`)."""
    for info in {id(i): i for i in structs.table().values()}.values():
        src = next(e for e in _entries() if e["path"] == info.path)["src"]
        text = (BURN / src).read_text(encoding="utf-8")
        name = info.path.rsplit("::", 1)[-1]
        body = re.search(rf"pub struct {name}\b[^{{]*\{{(.*?)\n\}}", text, re.S)
        assert body is not None, info.path
        assert tuple(re.findall(r"^\s*pub (\w+):", body.group(1), re.M)) == info.fields
        for maker in info.constructors.values():
            if maker.name == "default":
                assert re.search(rf"impl Default for {name}\b", text), info.path
                continue
            impl = re.search(rf"\nimpl(?:<[^>]*>)? {name}\b[^{{]*\{{", text)
            assert impl is not None, info.path
            found = re.compile(rf"pub fn {maker.name}\((.*?)\)", re.S).search(text, impl.end())
            assert found is not None, (info.path, maker.name)
            params = tuple(re.findall(r"(\w+):", found.group(1)))
            assert params == maker.params, (info.path, maker.name)


def _entries() -> list[dict[str, Any]]:
    files = sorted(structs.DATA_DIR.glob("burn-*.structs.toml"))
    return list(tomllib.loads(files[-1].read_text(encoding="utf-8"))["struct"])
