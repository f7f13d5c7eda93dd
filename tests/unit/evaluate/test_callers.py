"""evaluate.callers: a call inside a function is asked about once per call of that function in
the file whose arguments are known; a finding names the call. Config rules see values from a
loop's element or a caller too. A frame's values get no edit (one edit would change them all)."""

from __future__ import annotations

from panic_lens.engine import analyze

HEAD = "use burn::prelude::*;\nuse burn::nn::{GroupNorm, GroupNormConfig};\n"


def found(src: str, rule: str) -> list[tuple[int, str]]:
    """(line in `src`, message) of each finding of `rule`; messages quote lines of the file,
    which has HEAD's two lines above `src`."""
    analysis = analyze(HEAD + src, "src/lib.rs")
    return [(f.span.start.row + 1 - 2, f.message) for f in analysis.findings if f.rule == rule]


NARROW = """
fn crop(x: Tensor<2>, width: usize) -> Tensor<2> {
    x.narrow(1, 0, width)
}
pub fn run(d: &Device, n: usize) {
    let t = Tensor::<2>::zeros([4, 10], d);
    let _a = crop(t.clone(), 8);
    let _b = crop(t.clone(), n);
    let _c = crop(t, CALL);
}
"""


def test_a_caller_with_a_value_that_panics_is_named() -> None:
    (hit,) = found(NARROW.replace("CALL", "12"), "narrow-out-of-range")
    assert hit[0] == 3
    assert hit[1].endswith("(when called as crop(t, 12) at line 11)")


def test_callers_whose_values_fit_or_are_unknown_give_nothing() -> None:
    assert found(NARROW.replace("CALL", "10"), "narrow-out-of-range") == []


def test_a_function_nobody_calls_and_recursion_give_nothing() -> None:
    src = """
pub fn crop(x: Tensor<2>, width: usize) -> Tensor<2> {
    if width > 100 { return crop(x, 12); }
    x.narrow(1, 0, width)
}
"""
    assert found(src, "narrow-out-of-range") == []


METHOD = """
pub struct Blocks;
impl Blocks {
    fn norm(&self, groups: usize, d: &Device) -> GroupNorm {
        GroupNormConfig::new(groups, 40).init(d)
    }
    pub fn build(&self, d: &Device) {
        let _ok = self.norm(8, d);
        let _bad = self.norm(3, d);
    }
}
"""


def test_a_methods_caller_gives_a_config_its_value() -> None:
    (hit,) = found(METHOD, "group-norm-groups-divide-channels")
    assert hit[0] == 5 and hit[1].endswith("(when called as self.norm(3, d) at line 11)")


def test_a_loop_inside_a_function_its_callers_give_values() -> None:
    """A value that needs both a loop's element and a caller's argument: the loop's frames
    inside each caller's, the finding naming both."""
    src = """
fn norms(base: usize, d: &Device) -> Vec<GroupNorm> {
    let mut out = Vec::new();
    for mult in [1, 2] {
        out.push(GroupNormConfig::new(32, base * mult).init(d));
    }
    out
}
pub fn build(d: &Device) {
    let _a = norms(64, d);
    let _b = norms(BASE, d);
}
"""
    (hit,) = found(src.replace("BASE", "48"), "group-norm-groups-divide-channels")
    assert hit[0] == 5
    assert hit[1].endswith("(when called as norms(48, d) at line 13, for mult = 1)")
    assert found(src.replace("BASE", "96"), "group-norm-groups-divide-channels") == []


def test_a_hand_written_config_gives_its_methods_self() -> None:
    """A struct of plain values (no derive; `impl Default` and constructors of its own) is a
    config too: its methods see `self` as each caller's receiver builds it; a struct that
    holds a module is not."""
    src = """
pub struct NormCfg { groups: usize, channels: usize }
impl Default for NormCfg { fn default() -> Self { Self { groups: 8, channels: 64 } } }
impl NormCfg {
    pub fn odd() -> Self { Self { groups: 7, ..Default::default() } }
    pub fn build(&self, d: &Device) -> GroupNorm {
        GroupNormConfig::new(self.groups, self.channels).init(d)
    }
}
pub fn run(d: &Device) {
    let _a = NormCfg::default().build(d);
    let _b = NormCfg::odd().build(d);
}
"""
    (hit,) = found(src, "group-norm-groups-divide-channels")
    assert hit[0] == 7 and "when called as NormCfg::odd().build(d)" in hit[1]
    holds_module = src.replace("channels: usize }", "channels: usize, norm: GroupNorm }")
    assert found(holds_module, "group-norm-groups-divide-channels") == []
    # a field of an enum of the file whose variants hold nothing is a plain value too
    with_enum = "pub enum Size { Small, Large }\n" + src.replace(
        "channels: usize }", "channels: usize, size: Size }"
    ).replace("groups: 8, channels: 64 }", "groups: 8, channels: 64, size: Size::Small }")
    assert [line for line, _ in found(with_enum, "group-norm-groups-divide-channels")] == [8]


def test_a_config_a_function_of_the_file_builds() -> None:
    """`fn norm_config(g) -> GroupNormConfig { GroupNormConfig::new(g, 48) }` then
    `norm_config(5).init(d)`: the config its one exit builds, with the call's arguments; a
    run-time argument or a function with two exits gives nothing."""
    src = """
fn norm_config(g: usize) -> GroupNormConfig {
    GroupNormConfig::new(g, 48)
}
fn two_ways(g: usize) -> GroupNormConfig {
    if g > 100 { return GroupNormConfig::new(5, 48); }
    GroupNormConfig::new(g, 48)
}
pub fn build(d: &Device, n: usize) {
    let _a = norm_config(8).init(d);
    let _b = norm_config(n).init(d);
    let _c = norm_config(CALL).init(d);
    let _d = two_ways(5).init(d);
}
"""
    (hit,) = found(src.replace("CALL", "5"), "group-norm-groups-divide-channels")
    assert hit[0] == 12 and "num_groups = 5" in hit[1]
    assert found(src.replace("CALL", "6"), "group-norm-groups-divide-channels") == []


def test_a_config_a_from_impl_of_the_file_builds() -> None:
    """`impl From<&Spec> for GroupNormConfig` (a trait impl of the file for burn's config), then
    `GroupNormConfig::from(&spec).init(d)`: the config its `from` builds, with the call's
    argument. Two `From` impls (which one runs is the argument's type) give nothing, and so
    does a `from` of another type's impl."""
    src = """
pub struct Spec { pub groups: usize }
pub struct Other { pub groups: usize }
impl From<&Spec> for GroupNormConfig {
    fn from(spec: &Spec) -> Self {
        GroupNormConfig::new(spec.groups, 48)
    }
}
SECOND
pub fn build(d: &Device) {
    let bad = Spec { groups: 5 };
    let good = Spec { groups: 8 };
    let _a = GroupNormConfig::from(&bad).init(d);
    let _b = GroupNormConfig::from(&good).init(d);
}
"""
    (hit,) = found(src.replace("SECOND", ""), "group-norm-groups-divide-channels")
    assert hit[0] == 13 and "num_groups = 5" in hit[1]
    second = (
        "impl From<&Other> for GroupNormConfig {\n"
        "    fn from(o: &Other) -> Self { GroupNormConfig::new(o.groups, 48) }\n}"
    )
    assert found(src.replace("SECOND", second), "group-norm-groups-divide-channels") == []
    elsewhere = src.replace("SECOND", "").replace("for GroupNormConfig", "for Other")
    assert found(elsewhere, "group-norm-groups-divide-channels") == []


def test_no_edit_inside_a_function_other_calls_share() -> None:
    """The finding at `norm_config(5).init(d)` offers no edit of `GroupNormConfig::new(g, ..)`
    in `norm_config`: every other call of it would build the new value too."""
    src = """
fn norm_config(g: usize) -> GroupNormConfig {
    GroupNormConfig::new(g, 48)
}
pub fn build(d: &Device) {
    let _a = norm_config(5).init(d);
    let _b = norm_config(8).init(d);
}
"""
    analysis = analyze(HEAD + src, "src/lib.rs")
    (hit,) = [f for f in analysis.findings if f.rule == "group-norm-groups-divide-channels"]
    assert hit.fixes == ()


def test_a_config_in_a_loop_is_checked_per_element_without_an_edit() -> None:
    src = """
pub fn sweep(d: &Device) -> Vec<GroupNorm> {
    let mut out = Vec::new();
    for groups in [2, 4, 6] {
        out.push(GroupNormConfig::new(groups, 20).init(d));
    }
    out
}
"""
    analysis = analyze(HEAD + src, "src/lib.rs")
    (hit,) = [f for f in analysis.findings if f.rule == "group-norm-groups-divide-channels"]
    assert hit.message.endswith("(for groups = 6)")
    assert all(not fix.edits for fix in hit.fixes)  # `groups` is 2 and 4 too


def test_a_callers_in_test_code_do_not_flag_the_code_they_call() -> None:
    src = NARROW.replace("pub fn run", "#[test]\nfn run").replace("CALL", "12")
    assert found(src, "narrow-out-of-range") == []
    # a test helper called by a test is test code itself: it is flagged, as test code is
    helper = src.replace("fn crop", "#[cfg(test)]\nfn crop")
    assert [line for line, _ in found(helper, "narrow-out-of-range")] == [4]


def test_an_array_of_unknown_items_has_no_known_rank() -> None:
    src = """
pub fn f(d: &Device, v: f32) {
    let mut image = [[1.0; 3]; 3];
    image[1][1] = 0.0;
    let t = Tensor::<4>::from_data([[image]], d);
    let _a = t.clone().narrow(3, 2, 2);
    let u = Tensor::<2>::from_data([[v, -v], [1.0, 2.0]], d);
    let _b = u.narrow(1, 1, 2);
}
"""
    assert [line for line, _ in found(src, "narrow-out-of-range")] == [8]


FIELDS = """
struct Dims { groups: usize, channels: usize }
pub fn f(d: &Device, n: usize, flag: bool) {
    let a = Dims { groups: 5, channels: 48 };
    let _ = GroupNormConfig::new(a.groups, a.channels).init(d);
    let b = Dims { channels: 50, ..Dims { groups: 6, channels: 48 } };
    let _ = GroupNormConfig::new(b.groups, b.channels).init(d);
    let groups = 7;
    let c = Dims { groups, channels: 48 };
    let _ = GroupNormConfig::new(c.groups, c.channels).init(d);
    let e = Dims { groups: n, channels: 48 };
    let _ = GroupNormConfig::new(e.groups, e.channels).init(d);
    let mut m = Dims { groups: 5, channels: 48 };
    if flag { m.groups = 6; }
    let _ = GroupNormConfig::new(m.groups, m.channels).init(d);
    let ok = Dims { groups: 6, channels: 48 };
    let _ = GroupNormConfig::new(ok.groups, ok.channels).init(d);
}
"""


def test_a_field_of_a_struct_literal_in_the_function() -> None:
    """Set by the literal (or its `..rest`, or a shorthand); unknown when set at run time or
    changed since (then no finding)."""
    lines = [line for line, _ in found(FIELDS, "group-norm-groups-divide-channels")]
    assert lines == [5, 7, 10]


def test_a_tensor_in_a_struct_literals_field_and_a_tuple_structs_field() -> None:
    src = """
struct Batch { images: Tensor<4>, labels: Tensor<1> }
struct Width(usize);
fn width(n: usize) -> usize { n }
pub fn f(d: &Device, n: usize) {
    let batch = Batch { images: Tensor::zeros([8, 3, 32, 32], d), labels: Tensor::zeros([8], d) };
    let _a = batch.images.clone().narrow(1, 2, 2);
    let _b = batch.images.narrow(1, 1, 2);
    let x = Tensor::<2>::zeros([2, 10], d);
    let w = Width(11);
    let _c = x.clone().narrow(1, 0, w.0);
    let v = Width(n);
    let _d = x.clone().narrow(1, 0, v.0);
    let pair = (11, 3);
    let _e = x.narrow(1, 0, pair.0);
}
"""
    assert [line for line, _ in found(src, "narrow-out-of-range")] == [7, 11, 15]


def test_a_shape_every_branch_agrees_on() -> None:
    src = """
pub fn f(d: &Device, flag: bool, mode: u8) {
    let x = Tensor::<2>::zeros([4, 8], d);
    let a = if flag { x.clone() } else { x.clone().exp() };
    let _a = a.narrow(1, 5, 4);
    let b = match mode { 0 => x.clone(), 1 => x.clone() * 2.0, _ => panic!("mode") };
    let _b = b.narrow(0, 3, 2);
    let c = if flag { x.clone() } else { x.clone().transpose() };
    let _c = c.narrow(0, 3, 2);
    let e = if true { x.clone().transpose() } else { x.clone() };
    let _e = e.narrow(0, 7, 2);
    let g = { let y = x.clone(); y.exp() };
    let _g = g.narrow(1, 7, 2);
}
"""
    assert [line for line, _ in found(src, "narrow-out-of-range")] == [5, 7, 11, 13]


def test_closures_called_by_name_and_mapped_over_known_elements() -> None:
    src = """
pub fn f(d: &Device, w: usize, xs: Vec<usize>) {
    let x = Tensor::<2>::zeros([4, 6], d);
    let crop = |t: Tensor<2>, n: usize| t.narrow(1, 0, n);
    let _a = crop(x.clone(), 4);
    let _b = crop(x.clone(), 9);
    let fine = |t: Tensor<2>, n: usize| t.narrow(1, 0, n);
    let _c = fine(x.clone(), 2);
    let late = |t: Tensor<2>| t.narrow(1, 0, w);
    let _d = late(x.clone());
    let _e: Vec<Tensor<2>> = [2, 7].into_iter().map(|k| x.clone().narrow(1, 0, k)).collect();
    let _f: Vec<Tensor<2>> = [2, 6].iter().map(|&k| x.clone().narrow(1, 0, k)).collect();
    let _g: Vec<Tensor<2>> = xs.into_iter().map(|k| x.clone().narrow(1, 0, k)).collect();
}
"""
    hits = found(src, "narrow-out-of-range")
    assert [line for line, _ in hits] == [4, 11]
    assert hits[0][1].endswith("(when called as crop(x.clone(), 9) at line 8)")
    assert hits[1][1].endswith("(map with k = 7)")


def test_a_module_built_with_an_explicit_padding_or_a_default_naming_a_field() -> None:
    src = """
use burn::nn::conv::Conv2dConfig;
use burn::nn::pool::MaxPool2dConfig;
use burn::nn::PaddingConfig2d;
pub fn f(d: &Device) {
    let x = Tensor::<4>::zeros([2, 3, 32, 32], d);
    let conv = Conv2dConfig::new([3, 8], [3, 3])
        .with_padding(PaddingConfig2d::Explicit(1, 1, 1, 1))
        .init(d);
    let _a = conv.forward(x.clone()).narrow(3, 31, 2);
    let pool = MaxPool2dConfig::new([2, 2]).init();
    let _b = pool.forward(x.clone()).narrow(3, 15, 2);
    let wide = MaxPool2dConfig::new([2, 2]).with_strides([1, 1]).init();
    let _c = wide.forward(x).narrow(3, 15, 2);
}
"""
    assert [line for line, _ in found(src, "narrow-out-of-range")] == [10, 12]


def test_a_field_of_a_struct_a_constructor_of_the_file_returns() -> None:
    src = """
struct Dims { groups: usize, channels: usize }
impl Default for Dims {
    fn default() -> Self { Self { groups: 5, channels: 48 } }
}
impl Dims {
    fn with_groups(groups: usize) -> Self { Self { groups, channels: 48 } }
    fn fine() -> Self { Dims { groups: 6, ..Default::default() } }
}
pub fn f(d: &Device) {
    let a = Dims::default();
    let _ = GroupNormConfig::new(a.groups, a.channels).init(d);
    let b = Dims::with_groups(5);
    let _ = GroupNormConfig::new(b.groups, b.channels).init(d);
    let c = Dims::fine();
    let _ = GroupNormConfig::new(c.groups, c.channels).init(d);
    let e = Dims { channels: 50, ..Dims::fine() };
    let _ = GroupNormConfig::new(e.groups, e.channels).init(d);
}
"""
    # `with_groups` sets `groups` from its parameter: unknown where the literal is written
    lines = [line for line, _ in found(src, "group-norm-groups-divide-channels")]
    assert lines == [12, 18]


NESTED = """
#[derive(Config, Debug)]
pub struct BlockConfig {
    pub channels: usize,
    #[config(default = 8)]
    pub groups: usize,
}

impl BlockConfig {
    pub fn init(&self, d: &Device) -> GroupNorm {
        GroupNormConfig::new(self.groups, self.channels).init(d)
    }
}

#[derive(Config, Debug)]
pub struct NetConfig {
    #[config(default = 16)]
    pub base: usize,
}

impl NetConfig {
    pub fn init(&self, d: &Device) -> Vec<GroupNorm> {
        let wide = 3 * self.base;
        vec![
            BlockConfig::new(self.base).init(d),
            BlockConfig::new(wide).with_groups(GROUPS).init(d),
        ]
    }
}

pub fn build(d: &Device) -> Vec<GroupNorm> {
    NetConfig::new().with_base(BASE).init(d)
}
"""


def test_a_config_built_by_another_configs_init_two_levels_up() -> None:
    src = NESTED.replace("GROUPS", "5").replace("BASE", "16")
    (hit,) = found(src, "group-norm-groups-divide-channels")
    assert hit[0] == 11
    assert "num_groups = 5 does not divide num_channels = 48" in hit[1]
    assert "when called as BlockConfig::new(wide).with_groups(5).init(d) at line 28" in hit[1]
    assert "when called as NetConfig::new().with_base(16).init(d) at line 34" in hit[1]


def test_two_levels_up_look_alikes() -> None:
    # the outer values make every count divide (48 / 6), or the outer value is a parameter
    assert found(NESTED.replace("GROUPS", "6").replace("BASE", "16"),
                 "group-norm-groups-divide-channels") == []  # fmt: skip
    runtime = NESTED.replace("GROUPS", "5").replace(
        "pub fn build(d: &Device)", "pub fn build(d: &Device, BASE: usize)"
    )
    assert found(runtime, "group-norm-groups-divide-channels") == []
    # three levels: the outermost call is not read
    three = (
        NESTED.replace("GROUPS", "5").replace(
            "pub fn build(d: &Device) -> Vec<GroupNorm> {\n    NetConfig::new().with_base(BASE)",
            "pub fn build(d: &Device, b: usize) -> Vec<GroupNorm> {\n"
            "    NetConfig::new().with_base(b)",
        )
        + "pub fn top(d: &Device) { let _n = build(d, 16); }\n"
    )
    assert found(three, "group-norm-groups-divide-channels") == []


def test_a_test_calling_the_outer_function_flags_nothing_outside_tests() -> None:
    src = (
        NESTED.replace("GROUPS", "5")
        .replace(
            "pub fn build(d: &Device)",
            "#[cfg(test)]\nmod tests {\n    use super::*;\n    #[test]\n    fn build(d: &Device)",
        )
        .replace("init(d)\n}\n", "init(d);\n}\n}\n")
    )
    assert "mod tests" in src
    assert found(src, "group-norm-groups-divide-channels") == []


def test_a_let_and_a_closure_between_the_call_and_the_parameters() -> None:
    src = """
pub fn norms(d: &Device, channels: usize) -> Vec<GroupNorm> {
    let groups = channels / 8;
    (0..2).map(|_| GroupNormConfig::new(groups, 20).init(d)).collect()
}
pub fn run(d: &Device) {
    let _a = norms(d, 24);
    let _b = norms(d, 40);
}
"""
    hits = found(src, "group-norm-groups-divide-channels")
    assert [line for line, _ in hits] == [4]
    assert "when called as norms(d, 24) at line 9" in hits[0][1]


def test_a_guard_that_returns_first_with_a_callers_values() -> None:
    """`if len > x.dims()[1] { return x; }` before `x.narrow(1, 0, len)`: the caller's 40 on
    a 12-wide tensor returns first, so that frame is not flagged; its 20 on a 24-wide one is
    guarded alike, but a caller whose value passes the guard and panics still is."""
    src = """
fn crop_or_keep(x: Tensor<2>, len: usize) -> Tensor<2> {
    if len > x.dims()[1] {
        return x;
    }
    x.narrow(1, START, len)
}
pub fn crops(d: &Device) -> [Tensor<2>; 2] {
    let x = Tensor::<2>::zeros([4, 12], d);
    [crop_or_keep(x.clone(), 8), crop_or_keep(x, 40)]
}
"""
    assert found(src.replace("START", "0"), "narrow-out-of-range") == []
    (hit,) = found(src.replace("START", "6"), "narrow-out-of-range")
    assert hit[0] == 6 and "crop_or_keep(x.clone(), 8)" in hit[1]
