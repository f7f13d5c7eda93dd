"""Benchmark corpus: a cargo workspace of crates whose files look like burn user code.

`python -m bench.corpus OUT --files 1500` writes it. A `hit_ratio` share of the files uses one to
three of the rules' call shapes (half risky, half safe); the rest is ordinary Rust.
"""

from __future__ import annotations

import argparse
import random
from dataclasses import dataclass
from pathlib import Path

from bench import shapes

FILES_PER_CRATE = 100
CRATE_MANIFEST = """[package]
name = "{name}"
version = "0.1.0"
edition = "2021"

[dependencies]
burn = {{ version = "0.22.0", features = ["wgpu", "train", "rl"] }}
burn-router = "0.22.0"
"""
WORKSPACE_MANIFEST = """[workspace]
resolver = "2"
members = [{members}]
"""


@dataclass(frozen=True, slots=True)
class CorpusStats:
    """What was written: file and line counts, and how many files use a rule's shape."""

    files: int
    lines: int
    bytes: int
    rule_files: int
    risky_shapes: int


def rust_file(rng: random.Random, *, with_rules: bool, target_lines: int = 0) -> tuple[str, int]:
    """One source file and its number of risky shapes; `target_lines` pads with filler."""
    parts = [f"//! {shapes.ident(rng, 3).replace('_', ' ')}: generated benchmark code.\n"]
    parts.append(shapes.RULE_IMPORTS if with_rules else "")
    parts.append(shapes.PLAIN_IMPORTS)
    risky = 0
    for _ in range(rng.randint(2, 6)):
        parts.append(rng.choice(shapes.FILLERS)(rng))
    if with_rules:
        for shape in rng.sample(shapes.RULE_SHAPES, rng.randint(1, 3)):
            is_risky = rng.random() < 0.5
            risky += is_risky
            parts.insert(rng.randint(3, len(parts)), shape(rng, is_risky))
    while target_lines and sum(p.count("\n") for p in parts) < target_lines:
        parts.append(rng.choice(shapes.FILLERS)(rng))
    if rng.random() < 0.3:
        parts.append(shapes.test_module(rng))
    return "".join(parts), risky


def generate(root: Path, files: int, *, seed: int = 6, hit_ratio: float = 0.2) -> CorpusStats:
    """Write a workspace of `files` .rs files (plus lib.rs files) under `root`."""
    rng = random.Random(seed)
    crates = max(1, -(-files // FILES_PER_CRATE))
    names = [f"app_{i:03d}" for i in range(crates)]
    root.mkdir(parents=True, exist_ok=True)
    members = ", ".join(f'"crates/{n}"' for n in names)
    (root / "Cargo.toml").write_text(WORKSPACE_MANIFEST.format(members=members))
    stats = [0, 0, 0, 0, 0]
    for index, name in enumerate(names):
        count = min(FILES_PER_CRATE, files - index * FILES_PER_CRATE)
        _write_crate(root / "crates" / name, name, count, rng, hit_ratio, stats)
    return CorpusStats(*stats)


def _write_crate(
    folder: Path, name: str, count: int, rng: random.Random, ratio: float, stats: list[int]
) -> None:
    src = folder / "src"
    src.mkdir(parents=True, exist_ok=True)
    (folder / "Cargo.toml").write_text(CRATE_MANIFEST.format(name=name))
    modules = []
    for i in range(count):
        with_rules = rng.random() < ratio
        text, risky = rust_file(rng, with_rules=with_rules)
        module = f"m{i:03d}_{shapes.ident(rng)}"
        modules.append(module)
        sub = src / f"part{i // 25}"
        sub.mkdir(exist_ok=True)
        (sub / f"{module}.rs").write_text(text)
        _count(stats, text, with_rules, risky)
    lib = "".join(
        f'#[path = "part{i // 25}/{m}.rs"]\npub mod {m};\n' for i, m in enumerate(modules)
    )
    (src / "lib.rs").write_text(lib)
    _count(stats, lib, False, 0)


def _count(stats: list[int], text: str, with_rules: bool, risky: int) -> None:
    stats[0] += 1
    stats[1] += text.count("\n")
    stats[2] += len(text.encode())
    stats[3] += with_rules
    stats[4] += risky


def big_file(lines: int, *, seed: int = 6) -> str:
    """One file of about `lines` lines with every rule's shape (the LSP latency benchmark)."""
    rng = random.Random(seed)
    text, _ = rust_file(rng, with_rules=True, target_lines=lines)
    for shape in shapes.RULE_SHAPES:
        text += shape(rng, True) + shape(rng, False)
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", type=Path)
    parser.add_argument("--files", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=6)
    parser.add_argument("--hit-ratio", type=float, default=0.2)
    args = parser.parse_args(argv)
    stats = generate(args.out, args.files, seed=args.seed, hit_ratio=args.hit_ratio)
    print(f"{stats.files} files, {stats.lines} lines, {stats.bytes / 1e6:.1f} MB, "
          f"{stats.rule_files} with rule shapes ({stats.risky_shapes} risky)")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
