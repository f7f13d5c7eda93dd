"""The user's own `#[derive(Config)]` structs as values (rules/language/own_configs.py with the
evaluator): `X::new(..)` takes the required fields in order, defaults and `Option`s start as
burn's derive sets them, setters and literals change them, `cfg.field` reads them, and `self`
in the config's own methods is the receiver of each call in the file. Look-alikes (no derive,
another crate's derive, a hand-written `new`) get none of it."""

from __future__ import annotations

from panic_lens.engine import analyze
from panic_lens.evaluate import value_of
from panic_lens.rules.language import own_configs  # noqa: F401 (registers the configs)
from panic_lens.rust.facts import FileFacts
from panic_lens.rust.syntax import walk

HEAD = "use burn::prelude::*;\nuse burn::nn::{GroupNorm, GroupNormConfig};\n"
RULE = "group-norm-groups-divide-channels"

CONFIG = """
#[derive(Config, Debug)]
pub struct ModelConfig {
    channels: usize,
    #[config(default = "5")]
    groups: usize,
    dropout: Option<f64>,
    #[config(default = 2)]
    heads: usize,
    #[config(default = "channels / 4")]
    hidden: usize,
}
"""


def found(src: str, config: str = CONFIG) -> list[tuple[int, str]]:
    """(line in `config + src`, message) of each finding of the rule (HEAD's two lines come
    first)."""
    analysis = analyze(HEAD + config + src, "src/lib.rs")
    return [(f.span.start.row + 1 - 2, f.message) for f in analysis.findings if f.rule == RULE]


def values(src: str, *names: str, config: str = CONFIG) -> list[object]:
    """The values of the `let probe_x = <expr>;` initialisers `names` in `config + src`."""
    facts = FileFacts.build((HEAD + config + src).encode(), "src/lib.rs")
    out: dict[str, object] = {}
    for node in walk(facts.tree.root_node):
        if node.type == "let_declaration":
            pattern = node.child_by_field_name("pattern")
            value = node.child_by_field_name("value")
            name = facts.text(pattern) if pattern is not None else ""
            if name.startswith("probe_") and value is not None:
                known = value_of(value, facts)
                out[name] = known.value if known is not None else "unknown"
    return [out.get(name, "missing") for name in names]


def test_new_takes_the_required_fields_and_the_others_start_at_their_defaults() -> None:
    src = """
pub fn f() {
    let cfg = ModelConfig::new(32);
    let probe_c = cfg.channels;
    let probe_g = cfg.groups;
    let probe_d = cfg.dropout;
    let probe_h = cfg.heads;
    let probe_x = cfg.hidden;
}
"""
    assert values(src, "probe_c", "probe_g", "probe_d", "probe_h", "probe_x") == [
        32, 5, None, 2, 8,
    ]  # fmt: skip


def test_setters_literals_and_clones_change_the_fields() -> None:
    src = """
pub fn f(n: usize) {
    let a = ModelConfig::new(32).with_groups(3).with_dropout(Some(0.1));
    let probe_a = a.groups;
    let probe_p = a.dropout;
    let b = ModelConfig { groups: 7, ..ModelConfig::new(48) };
    let probe_b = b.groups;
    let probe_bc = b.clone().channels;
    let c = ModelConfig::new(n).with_groups(n);
    let probe_c = c.groups;
    let probe_cc = c.heads;
}
"""
    assert values(src, "probe_a", "probe_p", "probe_b", "probe_bc", "probe_c", "probe_cc") == [
        3, 0.1, 7, 48, "unknown", 2,
    ]  # fmt: skip


def test_a_changed_or_loaded_config_is_unknown() -> None:
    src = """
pub fn f(flag: bool) {
    let mut m = ModelConfig::new(32);
    m.groups = 4;
    let probe_m = m.groups;
    let l = ModelConfig::load("config.json").unwrap();
    let probe_l = l.groups;
    let mut k = ModelConfig::new(32);
    if flag { k = ModelConfig::new(30); }
    let probe_k = k.channels;
}
"""
    assert values(src, "probe_m", "probe_l", "probe_k") == ["unknown"] * 3


def test_a_setter_of_a_required_field_is_no_derived_setter() -> None:
    src = """
pub fn f() {
    let probe_w = ModelConfig::new(32).with_channels(30).channels;
}
"""
    assert values(src, "probe_w") == ["unknown"]


PROBE_G = """
pub fn f() {
    let probe_g = ModelConfig::new(32).groups;
    let probe_s = ModelConfig::new(32).with_groups(3).groups;
}
"""


def test_derive_forms_and_attribute_order() -> None:
    for derive in (
        "#[derive(Config, Debug)]",
        "#[derive(Debug, Config)]",
        "#[derive(burn::config::Config)]",
        "#[derive(Debug)]\n/// doc\n#[derive(Config)]",
    ):
        config = CONFIG.replace("#[derive(Config, Debug)]", derive)
        assert values(PROBE_G, "probe_g", config=config) == [5], derive


LOOKALIKES = {
    "no derive": CONFIG.replace("#[derive(Config, Debug)]", "#[derive(Debug)]"),
    "another crate's derive": CONFIG.replace("Config, Debug", "confique::Config, Debug"),
    "a hand-written new": CONFIG.replace("#[derive(Config, Debug)]", "#[derive(Debug)]")
    + "impl ModelConfig { pub fn new(channels: usize) -> Self { todo!() } }\n",
}


def test_look_alikes_get_no_derive_semantics() -> None:
    for what, config in LOOKALIKES.items():
        assert values(PROBE_G, "probe_g", "probe_s", config=config) == ["unknown"] * 2, what


METHOD = """
impl ModelConfig {
    pub fn init(&self, device: &Device) -> GroupNorm {
        GroupNormConfig::new(self.groups, self.channels).init(device)
    }
}
pub fn build(device: &Device) {
    let _a = ModelConfig::new(40).init(device);
    let cfg = ModelConfig::new(32);
    let _b = cfg.init(device);
}
"""


def test_self_in_the_configs_method_is_each_callers_receiver() -> None:
    (hit,) = found(METHOD)
    assert hit[0] == 16
    assert hit[1].startswith("num_groups = 5 does not divide num_channels = 32")
    assert hit[1].endswith("(when called as cfg.init(device) at line 24)")


def test_self_with_fitting_or_unknown_receivers_gives_nothing() -> None:
    fits = METHOD.replace("ModelConfig::new(32)", "ModelConfig::new(30)")
    assert found(fits) == []
    unknown = METHOD.replace(
        "let cfg = ModelConfig::new(32);", 'let cfg = ModelConfig::load("c.json").unwrap();'
    )
    assert found(unknown) == []
    no_derive = CONFIG.replace("#[derive(Config, Debug)]", "#[derive(Debug)]")
    assert found(METHOD, no_derive) == []


def test_self_through_a_helper_and_a_parameter() -> None:
    src = """
impl ModelConfig {
    fn norm(&self, device: &Device) -> GroupNorm {
        GroupNormConfig::new(self.groups, self.channels).init(device)
    }
    pub fn init(&self, device: &Device) -> GroupNorm {
        self.norm(device)
    }
}
fn layer(cfg: &ModelConfig, device: &Device) -> GroupNorm {
    GroupNormConfig::new(cfg.groups, cfg.channels).init(device)
}
pub fn build(device: &Device) {
    let _a = ModelConfig::new(32).norm(device);
    let _b = layer(&ModelConfig::new(34).with_groups(3), device);
    let _c = layer(&ModelConfig::new(32).with_groups(4), device);
}
"""
    hits = found(src)
    assert [line for line, _ in hits] == [16, 23]
    assert hits[0][1].endswith("(when called as ModelConfig::new(32).norm(device) at line 28)")
    assert "num_groups = 3 does not divide num_channels = 34" in hits[1][1]


def test_a_test_calling_the_configs_method_does_not_flag_it() -> None:
    src = METHOD.replace("pub fn build", "#[test]\nfn build")
    assert found(src) == []


def test_a_literal_of_a_config_does_not_pin_self_fields() -> None:
    """`self.field` of a config is not what its literals set: `new` builds it too."""
    src = """
impl ModelConfig {
    pub fn init(&self, device: &Device) -> GroupNorm {
        GroupNormConfig::new(self.groups, 32).init(device)
    }
}
pub fn make() -> ModelConfig {
    ModelConfig { channels: 32, groups: 5, dropout: None, heads: 2, hidden: 8 }
}
"""
    assert found(src) == []
