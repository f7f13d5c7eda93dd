"""How `check` scales with the number of rules: the four seed rules, the shipped rules, and
the shipped rules plus generated variants up to 100 (`make bench` prints the table).

    python -m bench.rule_scale [--rules 100] [--repeat 5] TREE...

Each configuration runs `panic-lens check` cold (no cache) in a child process; the runs of
the three configurations take turns, so the ratios compare runs made in the same state of a
shared machine. The variants are rule files in the rule language over burn's own configs
(`XConfig::init`, from the shipped config table) and tensor methods, whose conditions are never
true: they cost what a real rule costs (its calls found, bound and evaluated) and find nothing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench import measure

# Tensor methods a variant may look at (a condition over the receiver's shape).
TENSOR_METHODS = (
    "slice", "select", "gather", "repeat", "expand", "swap_dims", "unsqueeze_dim", "chunk",
    "sum_dim", "mean_dim", "max_dim", "min_dim", "argmax", "argmin", "transpose", "mask_fill",
    "scatter", "sort", "cumsum", "pad", "tril", "triu", "prod_dim", "var", "powf_scalar",
)  # fmt: skip
SITE = (
    '[[panic_site]]\nfile = "crates/burn-tensor/src/tensor/api/check.rs"\n'
    'guard = "bench variant"\nmessage = "bench variant"\n'
)


def variant_rules(folder: Path, total: int) -> int:
    """Write rule files so that shipped + written == `total`; returns how many it wrote."""
    from panic_lens.rules.language.configs import table
    from panic_lens.rules.meta import SHIPPED

    used = {w.owner for r in SHIPPED if r.spec for w in r.spec.wheres}
    wanted = max(0, total - len(SHIPPED))
    configs = [c for c, info in sorted(table().configs.items()) if info.init and c not in used]
    written = 0
    for config in configs[:wanted]:
        text = (
            f'id = "bench-variant-{written:03d}"\ntitle = "variant"\nsummary = "variant"\n'
            f'{SITE}[[where]]\ncall = "{config}::init"\n'
            '[when]\ncondition = "size(config) == 1000"\n'
        )
        (folder / f"bench-variant-{written:03d}.toml").write_text(text)
        written += 1
    for method in TENSOR_METHODS[: max(0, wanted - written)]:
        text = (
            f'id = "bench-variant-{written:03d}"\ntitle = "variant"\nsummary = "variant"\n'
            f'{SITE}[[where]]\ncall = "burn::tensor::Tensor::{method}"\nargs = ["a"]\n'
            '[when]\ncondition = "receiver.dims[0] == 123456789 && a == 123456789"\n'
        )
        (folder / f"bench-variant-{written:03d}.toml").write_text(text)
        written += 1
    return written


def run_check(mode: str, variants: str, trees: list[str]) -> int:
    """The child process: set up the registry for `mode` (`MODE/every-file`: with the
    prefilter off, so that every configuration analyses every file), then `panic-lens check`."""
    from panic_lens import cli
    from panic_lens.rules import meta

    mode, _, every = mode.partition("/")
    if every:
        from panic_lens import prefilter

        prefilter.Prefilter.keeps = lambda self, path, data: True  # type: ignore[method-assign]
        prefilter.Prefilter.rules_for = lambda self, path, data: None  # type: ignore[method-assign]

    if mode == "seed":  # the four seed rules: the hook rules of the first version
        meta.SHIPPED = tuple(r for r in meta.SHIPPED if r.spec and r.spec.hook)
        meta._generation[0] += 1
    elif mode == "variants":
        from panic_lens.rules.language.load import load_rule_folders

        loaded = load_rule_folders([variants])
        assert not loaded.errors, loaded.errors
        meta.set_added_rules(loaded.rules)
    print(f"rules: {len(meta.rules())}", file=sys.stderr)
    # without the shipped records: with four rules, the records the other rules cover would
    # become derived checks of the same panics, and the baseline would not be four rules
    return cli.main(["check", "--format", "json", "--no-default-records", *trees])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("trees", nargs="+", type=Path)
    p.add_argument("--rules", type=int, default=100, help="rules with the variants (100)")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--every-file", action="store_true", help="with the prefilter off")
    p.add_argument("--child", nargs=2, metavar=("MODE", "VARIANTS"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    trees = [str(t.resolve()) for t in args.trees]
    if args.child:
        return run_check(args.child[0], args.child[1], trees)
    results = measure_modes(trees, args.rules, args.repeat, args.every_file)
    print(render(results, args.rules, trees, args.every_file))
    return 0


def measure_modes(
    trees: list[str], total: int, repeat: int, every_file: bool = False
) -> dict[str, measure.Summary]:
    """The three configurations' cold checks; `every_file`: with the prefilter off, which
    leaves what the rules themselves cost (every configuration analyses the same files)."""
    from panic_lens.rules.meta import SHIPPED

    with tempfile.TemporaryDirectory(prefix="panic-lens-rules-") as tmp:
        variants = Path(tmp)
        count = variant_rules(variants, total)
        modes = {
            "seed": "the four seed rules",
            "shipped": f"the {len(SHIPPED)} shipped rules",
            "variants": f"the shipped rules + {count} variants",
        }
        env = {"PANIC_LENS_NO_CACHE": "1", "PYTHONDONTWRITEBYTECODE": ""}
        samples: dict[str, list[measure.Sample]] = {m: [] for m in modes}
        for turn in range(repeat):
            order = list(modes) if turn % 2 == 0 else list(reversed(modes))
            for mode in order:
                child = f"{mode}/every-file" if every_file else mode
                cmd = [sys.executable, "-m", "bench.rule_scale", "--child", child, tmp, *trees]
                samples[mode].append(measure.run(cmd, env))
        return {modes[m]: measure.summarize(s) for m, s in samples.items()}


def render(
    results: dict[str, measure.Summary], total: int, trees: list[str], every_file: bool = False
) -> str:
    base = next(iter(results.values()))
    names = ", ".join(Path(t).name for t in trees)
    how = "prefilter off: every file analysed" if every_file else "cold, no cache"
    lines = [
        f"## check with more rules ({names}; {how}; medians of {base.runs})",
        "",
        "| rules | wall s | CPU s | wall / seed | CPU / seed |",
        "|---|---|---|---|---|",
    ]
    for name, s in results.items():
        lines.append(
            f"| {name} | {s.wall:.2f} | {s.cpu:.2f} | {s.wall / base.wall:.2f}x "
            f"| {s.cpu / base.cpu:.2f}x |"
        )
    spread = statistics.pstdev([s.wall for s in results.values()])
    lines += ["", f"(target: {total} rules at most 1.3x the seed rules; spread {spread:.2f} s)"]
    return "\n".join(lines)


def render_lsp(base: Any, more: Any, variants: int) -> str:
    """The server's keystroke figures with the shipped rules and with `variants` more."""
    lines = [
        "## Language server with more rules (didChange -> publish, 5,000-line file)",
        "",
        "| rules | p50 ms | p95 ms | structural p95 ms | start -> first ms |",
        "|---|---|---|---|---|",
    ]
    for name, f in (("shipped", base), (f"shipped + {variants} variants", more)):
        lines.append(
            f"| {name} | {f.change_p50_ms:.1f} | {f.change_p95_ms:.1f} | "
            f"{f.structural_p95_ms:.0f} | {f.start_to_first_ms:.0f} |"
        )
    lines += ["", "(target: p95 <= 5 ms with 100 rules)"]
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
