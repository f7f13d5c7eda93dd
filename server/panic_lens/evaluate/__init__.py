"""The evaluator of values and shapes: what a Rust expression of the user's code holds at one
point (ints, floats, bools, strings, variants, lists, configs, modules, tensors with partial
shapes), following scopes, functions, fields, loops and closures, with burn's tensor ops read
from a table (docs/architecture.md). It reads `rust/` facts and knows no rule."""
