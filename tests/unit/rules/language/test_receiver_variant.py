"""A method of a burn enum called on one of its variants: the condition reads the variant's
name (`receiver.variant`) and its literal's known fields (`receiver.fields`), through a `let`
or a `const` of the file; a parameter, a look-alike enum and an unknown field stay silent."""

from __future__ import annotations

from collections.abc import Callable

from panic_lens.engine import analyze
from panic_lens.rules.meta import RuleInfo

RULE = """
id = "t-fan"
title = "fan"
summary = "a Kaiming initializer needs the fan it reads"

[[panic_site]]
file = "crates/burn-core/src/module/initializer.rs"
guard = "let fan = fan.expect("
message = "Can't use Kaiming initialization without specifying fan"

[[where]]
call = "burn::module::Initializer::init_with"
args = ["_", "fan_in", "fan_out", "_"]
external = true

[when]
condition = '''
receiver.variant == "KaimingUniform" && receiver.fields.fan_out_only == true
&& fan_out == null'''
message = "{receiver.variant} reads fan_out"
"""

HEAD = "use burn::module::Initializer;\nuse burn::prelude::*;\n"


def flagged(src: str) -> list[int]:
    found = analyze(HEAD + src, "src/lib.rs").findings
    return [f.span.start.row + 1 for f in found if f.rule == "t-fan"]


def lines_of(src: str, marker: str) -> list[int]:
    return [i + 3 for i, line in enumerate(src.splitlines()) if line.endswith(marker)]


def test_the_variant_and_its_fields_are_read_from_the_literal_a_let_or_a_const(
    add_rule: Callable[[str], RuleInfo],
) -> None:
    add_rule(RULE)
    src = """\
const OUT: Initializer = Initializer::KaimingUniform { gain: 1.0, fan_out_only: true };
const IN: Initializer = Initializer::KaimingUniform { gain: 1.0, fan_out_only: false };
mod local {
    pub enum Initializer { KaimingUniform { gain: f64, fan_out_only: bool } }
    impl Initializer {
        pub fn init_with(&self, _s: [usize; 2], _i: Option<usize>, _o: Option<usize>, _d: usize) {}
    }
}
fn f(device: &Device, init: Initializer, flag: bool) {
    let _a = Initializer::KaimingUniform { gain: 1.0, fan_out_only: true }
        .init_with([4, 2], Some(4), None, device); // bad
    let _b = OUT.init_with([4, 2], Some(4), None, device); // bad
    let out = Initializer::KaimingUniform { gain: 2.0, fan_out_only: true };
    let _c = out.init_with([4, 2], Some(4), None, device); // bad
    let _d = OUT.init_with([4, 2], Some(4), Some(2), device); // fine
    let _e = IN.init_with([4, 2], Some(4), None, device); // fine
    let _f = init.init_with([4, 2], Some(4), None, device); // fine: not known
    let _g = Initializer::KaimingUniform { gain: 1.0, fan_out_only: flag }
        .init_with([4, 2], Some(4), None, device); // fine
    let _h = Initializer::Zeros.init_with([4, 2], Some(4), None, device); // fine
    let _i = local::Initializer::KaimingUniform { gain: 1.0, fan_out_only: true }
        .init_with([4, 2], Some(4), None, 0); // fine
}
"""
    assert flagged(src) == lines_of(src, "// bad")
    message = next(f for f in analyze(HEAD + src, "src/lib.rs").findings if f.rule == "t-fan")
    assert message.message.startswith("KaimingUniform reads fan_out")
