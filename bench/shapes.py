"""Rust snippets for the benchmark corpus: the four rules' call shapes, risky and safe, and filler.

Every snippet is a function of a seeded `random.Random`, so a corpus is reproducible byte for byte.
Risky shapes are the ones the rules flag; safe shapes are look-alikes a linter must not flag.
"""

from __future__ import annotations

import random

WORDS = (
    "frame",
    "encoder",
    "decoder",
    "token",
    "batch",
    "layer",
    "block",
    "head",
    "mask",
    "score",
    "step",
    "epoch",
    "chunk",
    "window",
    "sample",
    "feature",
    "weight",
    "state",
    "cache",
    "buffer",
    "signal",
    "stream",
    "anchor",
    "query",
    "value",
    "gate",
)


def ident(rng: random.Random, parts: int = 2) -> str:
    return "_".join(rng.choice(WORDS) for _ in range(parts))


def type_name(rng: random.Random) -> str:
    return "".join(w.capitalize() for w in (rng.choice(WORDS), rng.choice(WORDS)))


# --- the four rules' call shapes ---------------------------------------------------------------


def ctc_shape(rng: random.Random, risky: bool) -> str:
    width = rng.choice((4096, 5000, 6000)) if risky else rng.choice((128, 512, 1024))
    name = ident(rng)
    return f"""
/// CTC loss over {"chapter" if risky else "sentence"}-length targets.
pub fn {name}_ctc(log_probs: Tensor<3>, device: &Device) -> Tensor<1> {{
    let [frames, batch, _] = log_probs.dims();
    let targets = Tensor::<2, Int>::ones([batch, {width}], device);
    let input_lengths = Tensor::<1, Int>::full([batch], frames as i64, device);
    let target_lengths = Tensor::<1, Int>::full([batch], {width} as i64, device);
    ctc_loss(log_probs, targets, input_lengths, target_lengths, 0)
}}
"""


def async_policy_shape(rng: random.Random, risky: bool) -> str:
    name = ident(rng)
    if risky:
        body = "    let actors = AsyncPolicy::new(8, policy);\n    actors.load_record(record)"
    else:
        body = "    let policy = policy.load_record(record);\n    AsyncPolicy::new(8, policy)"
    return f"""
/// Resume the {name} actors from a checkpoint.
pub fn resume_{name}<P: Policy + Clone>(policy: P, record: P::Record) -> AsyncPolicy<P> {{
{body}
}}
"""


def router_shape(rng: random.Random, risky: bool) -> str:
    name = ident(rng)
    if risky:
        return f"""
/// Moves a tensor between router clients (generic: any dtype can reach the default body).
pub fn migrate_{name}<C: RouterChannel>(
    tensor: RouterTensor<C::Client>,
    device: &C::Device,
) -> RouterTensor<C::Client> {{
    C::change_client_backend(tensor, device)
}}
"""
    return f"""
/// Moves signed positions to another device: a supported dtype.
pub fn move_{name}(positions: Tensor<1, Int>, device: &Device) -> Tensor<1, Int> {{
    positions.to_device(device)
}}
"""


def interpolate_shape(rng: random.Random, risky: bool) -> str:
    mode = rng.choice(("Bilinear", "Bicubic")) if risky else rng.choice(("Nearest", "NearestExact"))
    name = ident(rng)
    return f"""
/// Resizes {name} maps before the encoder.
pub fn resize_{name}(x: Tensor<4>, height: usize, width: usize) -> Tensor<4> {{
    let options = InterpolateOptions::new(InterpolateMode::{mode});
    interpolate(x, [height, width], options)
}}
"""


RULE_SHAPES = (ctc_shape, async_policy_shape, router_shape, interpolate_shape)
RULE_IMPORTS = """use burn::prelude::*;
use burn::rl::{AsyncPolicy, Policy};
use burn::router::{RouterChannel, RouterTensor};
use burn::tensor::module::{ctc_loss, interpolate};
use burn::tensor::ops::{InterpolateMode, InterpolateOptions};
"""
PLAIN_IMPORTS = """use std::collections::HashMap;
use std::fmt;
"""


# --- ordinary Rust --------------------------------------------------------------------------


def struct_and_impl(rng: random.Random) -> str:
    ty = type_name(rng)
    fields = [ident(rng) for _ in range(rng.randint(2, 6))]
    decl = "".join(f"    pub {f}_{i}: usize,\n" for i, f in enumerate(fields))
    sums = " + ".join(f"self.{f}_{i}" for i, f in enumerate(fields))
    return f"""
#[derive(Clone, Debug, Default)]
pub struct {ty} {{
{decl}}}

impl {ty} {{
    pub fn total(&self) -> usize {{
        {sums}
    }}

    pub fn scaled<T: Into<f64> + Copy>(&self, factor: T) -> f64 {{
        self.total() as f64 * factor.into()
    }}
}}

impl fmt::Display for {ty} {{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {{
        write!(f, "{ty}({{}})", self.total())
    }}
}}
"""


def generic_trait(rng: random.Random) -> str:
    tr = type_name(rng)
    return f"""
pub trait {tr}<T: Clone> {{
    fn apply(&self, input: &[T]) -> Vec<T>;

    fn apply_twice(&self, input: &[T]) -> Vec<T> {{
        let once = self.apply(input);
        self.apply(&once)
    }}
}}

impl<T: Clone + PartialOrd> {tr}<T> for Vec<T> {{
    fn apply(&self, input: &[T]) -> Vec<T> {{
        let mut out: Vec<T> = input.iter().chain(self.iter()).cloned().collect();
        out.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
        out
    }}
}}
"""


def long_function(rng: random.Random) -> str:
    name = ident(rng, 3)
    lines = []
    for i in range(rng.randint(10, 40)):
        var = f"{rng.choice(WORDS)}_{i}"
        kind = rng.random()
        if kind < 0.3:
            lines.append(
                f"    let {var} = values.get({i}).copied().unwrap_or({i}) * {rng.randint(1, 9)};"
            )
            lines.append(f"    acc += {var};")
        elif kind < 0.55:
            lines.append(f"    for {var} in 0..values.len().min({rng.randint(2, 64)}) {{")
            lines.append(
                f"        if values[{var}] % {rng.randint(2, 7)} == 0 {{ acc += values[{var}]; }}"
            )
            lines.append("    }")
        elif kind < 0.8:
            lines.append(f"    match acc % {rng.randint(3, 5)} {{")
            lines.append(f'        0 => table.insert("{var}".to_string(), acc),')
            lines.append(f'        1 => table.insert("{var}_odd".to_string(), acc / 2),')
            lines.append("        _ => None,")
            lines.append("    };")
        else:
            lines.append(
                f"    // {rng.choice(WORDS)} {rng.choice(WORDS)}: keep the running total bounded."
            )
            lines.append(f"    acc = acc.wrapping_mul({rng.randint(3, 31)}) % 1_000_003;")
    body = "\n".join(lines)
    return f"""
/// Folds the {name} statistics into one number (long on purpose: real code has these).
pub fn {name}(values: &[usize]) -> (usize, HashMap<String, usize>) {{
    let mut acc = 0usize;
    let mut table = HashMap::new();
{body}
    (acc, table)
}}
"""


def test_module(rng: random.Random) -> str:
    return f"""
#[cfg(test)]
mod tests {{
    use super::*;

    #[test]
    fn {ident(rng)}_is_stable() {{
        let values: Vec<usize> = (0..{rng.randint(8, 64)}).collect();
        assert_eq!(values.len(), values.iter().count());
    }}
}}
"""


FILLERS = (struct_and_impl, generic_trait, long_function, long_function)
