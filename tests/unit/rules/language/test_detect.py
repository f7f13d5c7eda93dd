"""Rules in the language over real call shapes: configs built every way a user builds them,
free functions, tensor methods; look-alikes and unknown values stay silent."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from panic_lens.engine import analyze
from panic_lens.model import Analysis, Severity
from panic_lens.rules import meta
from panic_lens.rules.meta import RuleInfo

RESHAPE = "reshape-incompatible-shape"

SITE = """
[[panic_site]]
file = "crates/burn-nn/src/modules/conv/checks.rs"
guard = "channels_in.is_multiple_of(groups)"
message = "Both channels must be divisible by the number of groups"
"""
GROUPS = (
    'id = "t-groups"\ntitle = "groups"\nsummary = "groups must divide the channels"\n'
    + SITE
    + """
[[where]]
call = "burn::nn::conv::Conv2dConfig::init"
[[where]]
call = "burn::nn::conv::Conv2d::forward"
[when]
condition = "config.channels[0] % config.groups != 0 || config.channels[1] % config.groups != 0"
message = "groups = {config.groups} does not divide {config.channels}"
[[severity_when]]
when = "context.test"
severity = "hint"
[[fix]]
title = "One group"
replace = "config.groups"
with = "1"
changes_behaviour = true
"""
)
HEAD = "use burn::nn::conv::{Conv2d, Conv2dConfig};\nuse burn::prelude::*;\n"


def one_call_rule(head: tuple[str, str, str], where: str, condition: str, message: str = "") -> str:
    """A rule file (`head`: its id, title and summary) with one `[[where]]` (its lines) and the
    condition and message of its `[when]`."""
    rule_id, title, summary = head
    lines = [f'id = "{rule_id}"', f'title = "{title}"', f'summary = "{summary}"', SITE]
    lines += ["[[where]]", where, "[when]", f'condition = "{condition}"']
    if message:
        lines.append('message = "' + message + '"')
    return "\n".join(lines) + "\n"


AddRule = Callable[[str], RuleInfo]


def flagged(src: str, rule: str = "t-groups") -> list[int]:
    """1-based lines of the rule's findings."""
    return [f.span.start.row + 1 for f in analyze(HEAD + src, "src/lib.rs").findings
            if f.rule == rule]  # fmt: skip


def lines_of(src: str, marker: str) -> list[int]:
    return [i + 3 for i, line in enumerate(src.splitlines()) if line.endswith(marker)]


def test_configs_built_every_way(add_rule: AddRule) -> None:
    add_rule(GROUPS)
    src = """\
const CARD: usize = 5;
fn f(device: &Device, n: usize) {
    Conv2dConfig::new([3, 64], [3, 3]).with_groups(2).init(device); // bad
    Conv2dConfig::new([64, 64], [1, 1]).with_groups(CARD).init(device); // bad
    Conv2dConfig { groups: 3, ..Conv2dConfig::new([16, 16], [3, 3]) }.init(device); // bad
    let cfg = Conv2dConfig::new([48, 30], [4, 4]).with_groups(4);
    let _m = cfg.init(device); // bad
    Conv2dConfig::init(&Conv2dConfig::new([3, 6], [1, 1]).with_groups(2), device); // bad
    let conv = Conv2dConfig::new([3, 6], [1, 1]).with_groups(3).with_groups(2).init(device); // bad
    Conv2dConfig::new([32, 32], [3, 3]).with_groups(32).init(device); // fine
    Conv2dConfig::new([3, 64], [3, 3]).init(device); // fine
    Conv2dConfig::new([3, 64], [3, 3]).with_groups(n).init(device); // fine
    Conv2dConfig::new([3, 64], [3, 3]).with_groups(2).with_groups(1).init(device); // fine
    let mut later = Conv2dConfig::new([3, 64], [3, 3]);
    later.groups = 1;
    later.init(device); // fine
}
"""
    assert flagged(src) == lines_of(src, "// bad")


def test_the_module_an_init_made_carries_its_config(add_rule: AddRule) -> None:
    add_rule(GROUPS)
    src = """\
fn f(device: &Device, x: Tensor<4>, given: Conv2d) {
    let conv = Conv2dConfig::new([3, 6], [1, 1]).with_groups(2).init(device); // bad
    let y = conv.forward(x.clone()); // bad
    given.forward(x); // fine
}
"""
    assert flagged(src) == lines_of(src, "// bad")


def test_look_alikes_are_silent(add_rule: AddRule) -> None:
    add_rule(GROUPS)
    src = """\
mod local {
    pub struct Conv2dConfig { pub groups: usize }
    impl Conv2dConfig {
        pub fn new(_c: [usize; 2], _k: [usize; 2]) -> Self { Self { groups: 1 } }
        pub fn with_groups(self, groups: usize) -> Self { Self { groups } }
        pub fn init(&self) -> usize { self.groups }
    }
}
fn f() {
    local::Conv2dConfig::new([3, 64], [3, 3]).with_groups(2).init(); // fine
}
"""
    assert flagged(src) == []
    shadowed = "struct Conv2dConfig;\n" + src.replace("local::", "")
    assert [f for f in analyze(shadowed, "src/lib.rs").findings if f.rule == "t-groups"] == []


def test_message_evidence_fix_and_severity(add_rule: AddRule) -> None:
    add_rule(GROUPS)
    src = (
        "fn f(device: &Device) {\n"
        "    Conv2dConfig::new([3, 64], [3, 3]).with_groups(2).init(device);\n"
        "}\n"
        "#[cfg(test)]\nmod tests {\n    use super::*;\n"
        "    fn t(d: &Device) { Conv2dConfig::new([3, 64], [3, 3]).with_groups(2).init(d); }\n"
        "}\n"
    )
    found = [f for f in analyze(HEAD + src, "src/lib.rs").findings if f.rule == "t-groups"]
    assert [f.severity for f in found] == [Severity.ERROR, Severity.HINT]
    first = found[0]
    assert first.message == "groups = 2 does not divide [3, 64]"
    assert [e.message for e in first.evidence][-1] == "config.groups = 2: set here"
    (fix,) = first.fixes
    assert fix.behavior_change and not fix.preferred
    (edit,) = fix.edits
    text = (HEAD + src).encode()
    assert text[edit.span.start_byte : edit.span.end_byte] == b"2" and edit.new_text == "1"


def test_defaults_and_options(add_rule: AddRule) -> None:
    add_rule(
        'id = "t-smoothing"\ntitle = "s"\nsummary = "s"\n'
        + SITE
        + """
[[where]]
call = "burn::nn::loss::CrossEntropyLossConfig::init"
[when]
condition = "config.smoothing != null && (config.smoothing < 0.0 || config.smoothing > 1.0)"
"""
    )
    src = """\
use burn::nn::loss::CrossEntropyLossConfig;
fn f(device: &Device, s: f32) {
    CrossEntropyLossConfig::new().with_smoothing(Some(1.5)).init(device); // bad
    CrossEntropyLossConfig::new().with_smoothing(Some(-0.1)).init(device); // bad
    CrossEntropyLossConfig::new().init(device); // fine
    CrossEntropyLossConfig::new().with_smoothing(Some(0.1)).init(device); // fine
    CrossEntropyLossConfig::new().with_smoothing(None).init(device); // fine
    CrossEntropyLossConfig::new().with_smoothing(Some(s)).init(device); // fine
}
"""
    assert flagged(src, "t-smoothing") == lines_of(src, "// bad")


def test_free_functions_and_tensor_methods(add_rule: AddRule) -> None:
    add_rule(
        'id = "t-narrow"\ntitle = "n"\nsummary = "n"\n'
        + SITE
        + """
[[where]]
call = "burn::tensor::Tensor::narrow"
args = ["dim", "start", "length"]
[when]
condition = "start + length > receiver.dims[dim]"
message = "narrow({dim}, {start}, {length}) on {receiver}"
"""
    )
    src = """\
fn f(device: &Device, n: usize) {
    let t = Tensor::<2>::zeros([4, 8], device);
    t.clone().narrow(1, 6, 4); // bad
    t.clone().narrow(0, 0, 4); // fine
    t.clone().narrow(1, n, 4); // fine
    Tensor::narrow(t.clone(), 0, 3, 2); // bad
}
"""
    assert flagged(src, "t-narrow") == lines_of(src, "// bad")
    found = [f for f in analyze(HEAD + src, "src/lib.rs").findings if f.rule == "t-narrow"]
    assert found[0].message == "narrow(1, 6, 4) on shape [4, 8]"


def test_rules_limited_to_burn_versions(add_rule: AddRule, tmp_path) -> None:  # type: ignore[no-untyped-def]
    add_rule(GROUPS.replace('summary = "', 'burn = "<0.22"\nsummary = "'))
    crate = tmp_path / "app"
    (crate / "src").mkdir(parents=True)
    (crate / "Cargo.toml").write_text('[package]\nname = "app"\nversion = "0.1.0"\n'
                                      '[dependencies]\nburn = "0.22.0-pre.2"\n')  # fmt: skip
    (crate / "Cargo.lock").write_text(
        'version = 3\n[[package]]\nname = "burn"\nversion = "0.22.0-pre.2"\n'
    )
    src = HEAD + "fn f(d: &Device) { Conv2dConfig::new([3, 64], [3, 3]).with_groups(2).init(d); }\n"
    assert [
        f for f in analyze(src, str(crate / "src" / "lib.rs")).findings if f.rule == "t-groups"
    ] == []
    assert "t-groups" in [f.rule for f in analyze(src, "lib.rs").findings]  # version unknown


def test_trait_qualified_calls(add_rule: AddRule) -> None:
    add_rule(
        'id = "t-frob"\ntitle = "f"\nsummary = "f"\n'
        + SITE
        + """
[[where]]
call = "burn::tensor::ops::ModuleOps::frob"
external = true
args = ["x"]
[when]
condition = "x > 3"
"""
    )
    src = """\
use burn::tensor::ops::ModuleOps;
fn f<B: Backend>() {
    <B as ModuleOps<B>>::frob(5); // bad
    <B as ModuleOps<B>>::frob(2); // fine
    <B as Other<B>>::frob(5); // fine
}
"""
    assert flagged(src, "t-frob") == lines_of(src, "// bad")


def test_should_panic_tests_expect_the_panic(add_rule: AddRule) -> None:
    add_rule(GROUPS)
    src = """\
#[test]
#[should_panic = "Both channels must be divisible"]
fn groups_must_divide() {
    Conv2dConfig::new([3, 64], [3, 3]).with_groups(2).init(&Default::default()); // fine
}
#[test]
fn plain_test() {
    Conv2dConfig::new([3, 64], [3, 3]).with_groups(2).init(&Default::default()); // bad
}
"""
    assert flagged(src) == lines_of(src, "// bad")


def test_a_crate_locking_another_burn_gets_a_note(add_rule: AddRule, tmp_path: Path) -> None:
    add_rule(GROUPS)
    crate = tmp_path / "app"
    (crate / "src").mkdir(parents=True)
    (crate / "Cargo.toml").write_text('[package]\nname = "app"\nversion = "0.1.0"\n')
    (crate / "Cargo.lock").write_text(
        'version = 3\n[[package]]\nname = "burn"\nversion = "0.21.0"\n'
    )
    src = HEAD + "fn f(d: &Device) { Conv2dConfig::new([3, 64], [3, 3]).with_groups(2).init(d); }\n"
    found = analyze(src, str(crate / "src" / "lib.rs"))
    assert [n for n in found.notes if "Cargo.lock has burn 0.21.0" in n]
    fine = HEAD + "fn f(d: &Device) { Conv2dConfig::new([3, 64], [3, 3]).init(d); }\n"
    assert analyze(fine, str(crate / "src" / "lib.rs")).notes == ()  # nothing found: no note


EMPTY_STACK = one_call_rule(
    ("t-empty-stack", "empty stack", "stack of no tensors"),
    'call = "burn::tensor::Tensor::stack"\nargs = ["tensors", "dim"]',
    "size(tensors) == 0",
)


def test_a_let_mut_list_is_unknown_after_its_let(add_rule: AddRule) -> None:
    """`let mut xs = vec![]` filled by `push` in a loop is not the empty list it starts as;
    nor is one an assignment gives a value (its variable is mutable, so it may change)."""
    add_rule(EMPTY_STACK)
    src = """\
fn f(x: Tensor<2>, n: usize) {
    let mut outs = vec![];
    for _ in 0..n {
        outs.push(x.clone());
    }
    let _a = Tensor::stack::<3>(outs, 1); // fine
    let mut later = vec![x.clone()];
    later = vec![];
    later.push(x.clone());
    let _b = Tensor::stack::<3>(later, 1); // fine
    let (mut c, d) = (vec![], 1);
    c.push(x.clone());
    let _c = Tensor::stack::<3>(c, d); // fine
    let empty: Vec<Tensor<2>> = vec![];
    let _d = Tensor::stack::<3>(empty, 1); // bad
}
"""
    assert flagged(src, "t-empty-stack") == lines_of(src, "// bad")


LOW_RANK = one_call_rule(
    ("t-low-rank", "low rank", "a rank under 3"),
    'call = "burn::tensor::Tensor::sum_dim"\nargs = ["dim"]',
    "receiver.rank < 3",
    "{receiver} is of rank {receiver.rank}",
)


def test_a_tensors_rank_comes_from_its_type_when_its_shape_is_unknown(add_rule: AddRule) -> None:
    """`x: Tensor<B, 2>`, `let y: Tensor<2> = ..`, `Tensor::<2>::zeros(shape, ..)`, through
    the methods that return `Self` (`matmul`, `detach`); a rank named by a generic, or
    changed by `reshape`, is not known."""
    add_rule(LOW_RANK)
    src = """\
fn f<B: Backend, const D: usize>(x: Tensor<B, 2>, w: Tensor<B, 2>, g: Tensor<B, D>, s: Shape) {
    let _a = x.clone().sum_dim(1); // bad
    let _b = x.clone().matmul(w.clone()).detach().sum_dim(0); // bad
    let y: Tensor<2> = make();
    let _c = y.sum_dim(1); // bad
    let z = Tensor::<2>::zeros(s, &device);
    let _d = z.sum_dim(1); // bad
    let _e = g.sum_dim(1); // fine
    let _f = x.clone().reshape::<3, _>([1, 2, 3]).sum_dim(1); // fine
    let t: Tensor<B, 3> = make();
    let _g = t.sum_dim(1); // fine
}
"""
    assert flagged(src, "t-low-rank") == lines_of(src, "// bad")


RANK_MISMATCH = one_call_rule(
    ("t-shape-rank", "shape rank", "a shape of another rank"),
    'call = "burn::tensor::Tensor::zeros"\nargs = ["shape", "device"]',
    "size(shape) != result.rank",
    "{size(shape)} dims for a tensor of rank {result.rank}",
)


def test_the_rank_of_what_a_call_returns_is_the_one_the_code_states(add_rule: AddRule) -> None:
    """`result`: the rank of the tensor the call returns, from the constructor's turbofish or
    the type of the `let` its value goes to or of the function returning it (also through
    methods that return `Self`); a shape written as an array is a list (known when its items
    are; its `size()` when its length is), never a tensor."""
    add_rule(RANK_MISMATCH)
    src = """\
fn f<B: Backend, const D: usize>(device: &B::Device, n: usize) {
    let _a = Tensor::<B, 2>::zeros([2, 3, 4], device); // bad
    let _b: Tensor<B, 3> = Tensor::zeros([2, 3], device); // bad
    let _c: Tensor<B, 3> = Tensor::zeros([2, 3], device).detach(); // bad
    let _d = Tensor::<B, 2>::zeros([2, 3], device); // fine
    let _e = Tensor::<B, 2>::zeros([1, n], device); // fine: two dims, one unknown
    let _f = Tensor::<B, 2>::zeros([1, n, 2], device); // bad
    let dims = [n, n, n];
    let _l = Tensor::<B, 2>::zeros(dims, device); // bad
    let _m = Tensor::<B, 3>::zeros(dims, device); // fine
    let mut grown = vec![n];
    grown.push(n);
    let _n = Tensor::<B, 1>::zeros(grown, device); // fine: a `let mut` may change
    let _g: Tensor<B, D> = Tensor::zeros([2, 3], device); // fine: D unknown
    let _h = Tensor::zeros([2, 3], device); // fine: no rank stated
    let _i: Tensor<B, 3> = Tensor::zeros([2, 3], device).sum(); // fine: not the let's value
    let _j = || -> Tensor<B, 2> { Tensor::zeros([2, 3, 4], device) }; // fine: a closure
}
fn g<B: Backend>(device: &B::Device, early: bool) -> Tensor<B, 2> {
    if early {
        return Tensor::zeros([2, 3, 4], device); // bad
    }
    let _k = { Tensor::zeros([2, 3, 4], device) }; // fine: a block's value, no type
    Tensor::zeros([2, 3, 4], device) // bad
}
"""
    assert flagged(src, "t-shape-rank") == lines_of(src, "// bad")
    found = [f for f in analyze(HEAD + src, "src/lib.rs").findings if f.rule == "t-shape-rank"]
    assert found[0].message == "3 dims for a tensor of rank 2"
    assert found[3].message == "3 dims for a tensor of rank 2"  # `[1, n, 2]`: its length


UNSQUEEZE = one_call_rule(
    ("t-unsqueeze", "unsqueeze", "unsqueeze to a lower rank"),
    'call = "burn::tensor::Tensor::unsqueeze"\nresult_generic = 0',
    "result.rank < receiver.rank",
    "rank {result.rank} < {receiver.rank}",
)


def test_the_turbofish_a_where_names_states_the_rank_of_what_the_call_returns(
    add_rule: AddRule,
) -> None:
    """`result_generic = 0`: the call's first turbofish argument is the returned rank (a
    number or a const); without one, the `let`'s type still states it."""
    add_rule(UNSQUEEZE)
    src = """\
const TWO: usize = 2;
fn f<B: Backend>(x: Tensor<B, 3>) {
    let _a = x.clone().unsqueeze::<2>(); // bad
    let _b = x.clone().unsqueeze::<4>(); // fine
    let _c: Tensor<B, 1> = x.clone().unsqueeze(); // bad
    let _d = x.clone().unsqueeze::<TWO>(); // bad
    let _e = x.clone().unsqueeze(); // fine: no rank stated
}
"""
    assert flagged(src, "t-unsqueeze") == lines_of(src, "// bad")


def test_ranges_and_the_slice_macro_read_as_burns_slices() -> None:
    """A range is the `Slice` burn converts it to (an inclusive end is one more; `..=-1` and
    an open end: no end); `s![..]` is the list of its parts, `;k` giving the step and a bare
    index `i` being `i..=i`; what the text does not show is left out."""
    from panic_lens.evaluate import value_of as fold
    from panic_lens.rust.facts import FileFacts
    from panic_lens.rust.syntax import walk

    src = b"""const K: isize = 3;
fn f(n: usize) {
    a(0..2); a(1..=3); a(2..); a(..5); a(..); a(0..n);
    b(s![0..4;2, .., 3, -1..;K, 1..=-1]);
}
"""
    facts = FileFacts.build(src, "src/lib.rs")
    values = [
        fold(n.child_by_field_name("arguments").named_children[0], facts)
        for n in walk(facts.tree.root_node)
        if n.type == "call_expression"
    ]
    assert [v.value if v else None for v in values] == [
        {"start": 0, "end": 2, "step": 1}, {"start": 1, "end": 4, "step": 1},
        {"start": 2, "end": None, "step": 1}, {"start": 0, "end": 5, "step": 1},
        {"start": 0, "end": None, "step": 1}, {"start": 0, "step": 1},
        [{"start": 0, "end": 4, "step": 2}, {"start": 0, "end": None, "step": 1},
         {"start": 3, "end": 4, "step": 1}, {"start": -1, "end": None, "step": 3},
         {"start": 1, "end": None, "step": 1}],
    ]  # fmt: skip


def test_an_array_stays_a_list_through_clone() -> None:
    """`xs.clone()` of an array is the array: its length is known (also past the 64 items a
    list value holds), and it is never read as a tensor (whose `size()` would count keys)."""
    from panic_lens.evaluate import value_of as fold
    from panic_lens.rules.language.values import list_length, tensor_value
    from panic_lens.rust.facts import FileFacts
    from panic_lens.rust.syntax import walk

    src = b"fn f() {\n    let xs = vec![0.0f32; 784];\n    g(xs.clone());\n}\n"
    facts = FileFacts.build(src, "src/lib.rs")
    arg = next(
        n.child_by_field_name("arguments").named_children[0]
        for n in walk(facts.tree.root_node)
        if n.type == "call_expression" and facts.text(n).startswith("g(")
    )
    assert list_length(arg, facts) == 784
    assert tensor_value(arg, facts) is None and fold(arg, facts) is None


def test_branches_of_lists_are_a_list_of_their_common_length() -> None:
    """`if flag { vec![1.0, 0.0] } else { vec![0.0, 1.0] }` (and a `match`) is a list of two
    values whatever the branch: never read as a tensor (the size of whose value would count
    its keys); branches of different lengths have no length."""
    from panic_lens.rules.language.values import list_length, tensor_value
    from panic_lens.rust.facts import FileFacts
    from panic_lens.rust.syntax import walk

    def arg(body: str) -> tuple[object, FileFacts]:
        src = f"fn f(flag: bool, k: u8) {{\n    let xs = {body};\n    g(xs);\n}}\n".encode()
        facts = FileFacts.build(src, "src/lib.rs")
        call = next(n for n in walk(facts.tree.root_node)
                    if n.type == "call_expression" and facts.text(n).startswith("g("))  # fmt: skip
        return call.child_by_field_name("arguments").named_children[0], facts

    for body, length in [
        ("if flag { vec![1.0, 0.0] } else { vec![0.0, 1.0] }", 2),
        ("match k { 0 => vec![1.0; 6], 1 => { vec![2.0; 6] } _ => vec![0.0; 6] }", 6),
        ("if flag { vec![1.0, 0.0] } else if k > 2 { vec![3.0, 4.0] } else { vec![0.0, 1.0] }", 2),
        ("if flag { vec![1.0, 0.0, 2.0] } else { vec![0.0, 1.0] }", None),
        ("if flag { vec![1.0, 0.0] } else { other() }", None),
    ]:
        node, facts = arg(body)
        assert list_length(node, facts) == length, body  # type: ignore[arg-type]
        if length is not None:
            assert tensor_value(node, facts) is None, body  # type: ignore[arg-type]


def test_an_argument_the_rule_takes_the_size_of_is_never_a_tensor(add_rule: AddRule) -> None:
    """A tensor's value is a map of its rank and dims: `size()` of it would count its keys. An
    argument a rule takes the `size()` of is a list; a tensor there gives the rule nothing."""
    add_rule(
        'id = "t-size"\ntitle = "s"\nsummary = "s"\n'
        + SITE
        + """
[[where]]
call = "burn::tensor::Tensor::matmul"
args = ["other"]
[when]
condition = "size(other) == 4"
"""
    )
    src = """\
fn f(device: &Device) {
    let a = Tensor::<2>::zeros([2, 3], device);
    let b = Tensor::<2>::zeros([3, 2], device);
    a.matmul(b); // fine
}
"""
    assert flagged(src, "t-size") == []


def test_check_skips_a_call_whose_arguments_already_rule_the_condition_out() -> None:
    """`findings_only` (what `check` asks): a call whose arguments make a conjunct of the
    condition unknown or false gets no finding whatever its receiver is, so its receiver's
    shape is never worked out; and a call that gives no finding gets no hover text at all
    (`check` reads none); the findings are the same."""
    src = """use burn::prelude::*;
fn f<B: Backend>(d: &B::Device, n: usize) {
    let t = Tensor::<B, 2>::zeros([2, 3], d);
    let a = t.clone().reshape([n, 2]);
    let b = t.clone().reshape([7]);
    let c = t.reshape([3, 2]);
}
"""
    full = analyze(src, "src/lib.rs")
    quick = analyze(src, "src/lib.rs", findings_only=True)
    assert quick.findings == full.findings
    assert [f.span.start.row + 1 for f in full.findings if f.rule == RESHAPE] == [5]

    def hovered(analysis: Analysis) -> list[int]:
        return sorted(h.span.start.row + 1 for h in analysis.hovers if h.rule == RESHAPE)

    assert hovered(full) == [4, 5, 6]
    assert hovered(quick) == [5]  # the one finding's; `[n, 2]` and `[3, 2]` give none


def test_check_works_out_only_the_arguments_a_conjunct_needs_first() -> None:
    """A path call too: `TensorData::new(values, shape)` with a shape not known is ruled out
    by `type(shape) == list` before its values (a long `vec!`) are folded."""
    src = """use burn::tensor::TensorData;
fn f(shape: Vec<usize>) {
    let a = TensorData::new(vec![1.0, 2.0, 3.0], shape);
    let b = TensorData::new(vec![1.0, 2.0, 3.0], [2, 2]);
}
"""
    rule = "tensor-data-shape-mismatch"
    full = analyze(src, "src/lib.rs")
    quick = analyze(src, "src/lib.rs", findings_only=True)
    assert quick.findings == full.findings
    assert [f.span.start.row + 1 for f in full.findings if f.rule == rule] == [4]
    assert sorted(h.span.start.row + 1 for h in full.hovers if h.rule == rule) == [3, 4]
    assert [h.span.start.row + 1 for h in quick.hovers if h.rule == rule] == [4]


def test_findings_only_finds_what_the_full_analysis_finds_in_every_rule_example() -> None:
    """Over each shipped rule's examples (look-alikes, unknowns and panics), `check`'s
    shortcut changes no finding."""
    examples = sorted((Path(meta.__file__).parent / "defs").glob("*.rs"))
    assert len(examples) >= 40
    for example in examples:
        src = example.read_text()
        full = analyze(src, "src/lib.rs").findings
        assert analyze(src, "src/lib.rs", findings_only=True).findings == full, example.name


def test_the_config_path_of_a_receiver_is_its_config_values_path() -> None:
    """A receiver's config is matched by its path before its values are folded: wherever
    `config_value` (or `module_config`) finds a config, `config_path` (`module_config_path`)
    gives its path. Checked on every method call's receiver of every shipped rule example
    (configs built every way: `new`, `with_`, struct literals, `let`s, modules from `init`)."""
    from panic_lens.rules.language import config_values as V
    from panic_lens.rust.facts import FileFacts

    examples = sorted((Path(meta.__file__).parent / "defs").glob("*.rs"))
    configs = modules = 0
    for example in examples:
        facts = FileFacts.build(example.read_bytes(), "src/lib.rs")
        for site in facts.calls():
            if site.kind != "method":
                continue
            config = V.config_value(site.receiver, facts)
            if config is not None:
                configs += 1
                assert V.config_path(site.receiver, facts) == config.info.path, example.name
            module = V.module_config(site.receiver, facts)
            if module is not None:
                modules += 1
                assert V.module_config_path(site.receiver, facts) == module.info.path
    assert configs >= 50 and modules >= 5


def test_a_check_run_looks_only_for_the_calls_of_the_rules_that_may_fire() -> None:
    """`may_fire` (the prefilter's verdict) narrows the call search to those rules' names; a
    call written with another rule's name that a `use .. as` also binds is classified as
    before, so the findings are the full analysis's. Here `reshape` names the rfft function
    and, for the reshape rule, a tensor method: a call written with a rule's own call name is
    that rule's to judge, so the renamed rfft call is not followed (a known miss, the same on
    every path)."""
    src = """use burn::prelude::*;
use burn::tensor::signal::rfft as reshape;
fn f<B: Backend>(x: Tensor<B, 2>, d: &B::Device) {
    let a = reshape(x.clone(), 1, Some(100));
    let t = Tensor::<B, 2>::zeros([2, 3], d);
    let b = t.reshape([7]);
}
"""
    rules = {"rfft-n-not-power-of-two", RESHAPE}
    full = [(f.rule, f.span.start.row + 1) for f in analyze(src, "src/lib.rs").findings]
    for may_fire in ({"rfft-n-not-power-of-two"}, {RESHAPE}, rules):
        quick = analyze(src, "src/lib.rs", may_fire=frozenset(may_fire), findings_only=True)
        found = [(f.rule, f.span.start.row + 1) for f in quick.findings]
        assert found == [item for item in full if item[0] in may_fire], may_fire
    assert full == [(RESHAPE, 6)]


def test_a_call_by_path_that_no_rule_can_bind_is_dropped_once() -> None:
    """A path call written with a rule's call name whose path resolves to no rule's `where`
    (`Vec::new`, a local type's `new`) is dropped once for all rules; one that resolves to a
    rule's function, written any way (an alias, a full path), is kept, with its finding."""
    from panic_lens.rules.language.call_sites import sites
    from panic_lens.rust.facts import FileFacts

    src = """use burn::tensor::TensorData;
use burn::tensor::TensorData as Td;
struct Local;
impl Local { fn new(a: Vec<f32>, b: [usize; 1]) -> Self { Local } }
fn f() {
    let v: Vec<u8> = Vec::new();
    let l = Local::new(vec![1.0], [2]);
    let a = TensorData::new(vec![1.0, 2.0, 3.0], [2, 2]);
    let b = Td::new(vec![1.0, 2.0, 3.0], [2, 2]);
    let c = burn::tensor::TensorData::new(vec![1.0], [1]);
}
"""
    facts = FileFacts.build(src.encode(), "src/lib.rs")
    by_name, _ = sites(facts)
    kept = sorted(s.node.start_point[0] + 1 for s in by_name.get("new", ()) if s.kind == "path")
    assert kept == [8, 9, 10]
    rule = "tensor-data-shape-mismatch"
    assert [f.span.start.row + 1 for f in analyze(src, "src/lib.rs").findings
            if f.rule == rule] == [8, 9]  # fmt: skip
