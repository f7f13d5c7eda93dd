"""`make bench`: panic-lens against ast-grep and a regex scan, the server, explain; one table.

    python -m bench.run [--quick] [--files N] [--target DIR]... [--out bench/RESULTS.md]
    python -m bench.run --only-lsp   # the language-server figures alone, while iterating

Every figure of one run is measured in that run, on the same trees, so ratios are fair.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from bench import astgrep_config, corpus, derive_scale, explain_data, measure, rule_scale
from bench.lsp_bench import run_lsp
from bench.report import CheckRow, ExplainRow, render
from panic_lens.rules.meta import SHIPPED, RuleInfo

BENCH = Path(__file__).resolve().parent
BIN = Path(sys.executable).parent
SGCONFIG = BENCH / "astgrep" / "sgconfig.yml"
TOUCHED = "panic-lens check, warm cache, one file touched"
ENGINE_SCRIPT = (
    "import sys; from panic_lens.engine import check_paths; "
    "r = check_paths(sys.argv[1:]); print(len(r.findings))"
)


def python_path() -> str:
    """The commands' PYTHONPATH: the repository root (for `bench.regex_scan`), then the
    caller's, so `PYTHONPATH=server python -m bench.run` times the working copy's code like the
    language-server figures do, not whatever copy is installed."""
    caller = os.environ.get("PYTHONPATH", "")
    return os.pathsep.join([str(BENCH.parent), *([caller] if caller else [])])


def tool(name: str) -> str:
    found = BIN / name
    return str(found) if found.exists() else (shutil.which(name) or name)


SEED_SG = "ast-grep scan, the four seed rules' call shapes"
COLD = "panic-lens check, cold, no cache"


def baseline_sg() -> str:
    """The row of the baseline: one ast-grep rule generated from the shipped rule files."""
    return f"ast-grep scan, one rule: the call shapes of all {len(SHIPPED)} shipped rules"


def every_rule_sg(rules: tuple[RuleInfo, ...]) -> str:
    """The row of the like-for-like ast-grep project: the call shapes of every rule `check`
    runs, the derived ones too (the baseline has the rule files' alone)."""
    derived = len(rules) - len(SHIPPED)
    return (f"ast-grep scan, one rule: the call shapes of all {len(rules)} rules check runs "
            f"({len(SHIPPED)} shipped + {derived} derived from the shipped records)")  # fmt: skip


def per_rule_sg() -> str:
    """The row of the per-rule ast-grep project (`--per-rule-astgrep`)."""
    return f"ast-grep scan, one rule file per shipped rule ({len(SHIPPED)} files)"


def check_rows(
    tree: Path, label: str, work: Path, reps: int, baseline: bool, per_rule: bool = False
) -> list[CheckRow]:
    """Every tool on `tree`; the cache rows use a fresh cache folder under `work`, the
    generated ast-grep projects are written to `work/astgrep-one-rule` (and, with `per_rule`,
    `work/astgrep-per-rule`)."""
    cache = work / f"cache-{label}"
    one_rule = astgrep_config.write_one_rule(work / "astgrep-one-rule")
    every = astgrep_config.checked_rules()
    every_rule = astgrep_config.write_one_rule(work / "astgrep-every-rule", every)
    pl = [tool("panic-lens"), "check", "--format", "json", str(tree)]

    def sg(config: Path) -> list[str]:
        return [tool("ast-grep"), "scan", "-c", str(config), "--json=stream", str(tree)]

    # ast-grep's projects (the baseline first: the table's first ratio columns; then the
    # like-for-like one, with the derived rules' shapes), then the cold check; these take
    # turns below
    paired: list[tuple[str, list[str], dict[str, str], str, int]] = [
        (baseline_sg(), sg(one_rule), {},
         "(GENERATED = python -m bench.astgrep_config GENERATED) "
         "ast-grep scan -c GENERATED/sgconfig.yml --json=stream TREE", reps),
        (every_rule_sg(every), sg(every_rule), {},
         "(GENERATED = python -m bench.astgrep_config --with-derived GENERATED) "
         "ast-grep scan -c GENERATED/sgconfig.yml --json=stream TREE", reps),
        (SEED_SG, sg(SGCONFIG), {},
         "ast-grep scan -c bench/astgrep/sgconfig.yml --json=stream TREE", reps),
    ]  # fmt: skip
    if per_rule:
        per_rule_config = astgrep_config.write_config(work / "astgrep-per-rule")
        shown = ("(GENERATED = python -m bench.astgrep_config --per-rule GENERATED) "
                 "ast-grep scan -c GENERATED/sgconfig.yml --json=stream TREE")  # fmt: skip
        paired.append((per_rule_sg(), sg(per_rule_config), {}, shown, reps))
    paired.append((COLD, pl, {"PANIC_LENS_NO_CACHE": "1"},
                   "PANIC_LENS_NO_CACHE=1 panic-lens check --format json TREE", reps))  # fmt: skip
    rest: list[tuple[str, list[str], dict[str, str], str, int]] = [
        ("panic-lens check, cold, filling the cache", pl, {"PANIC_LENS_CACHE_DIR": str(cache)},
         "(empty cache) panic-lens check --format json TREE", 1),
        ("panic-lens check, warm cache", pl, {"PANIC_LENS_CACHE_DIR": str(cache)},
         "(same cache, nothing changed) panic-lens check --format json TREE", reps),
        (TOUCHED, pl, {"PANIC_LENS_CACHE_DIR": str(cache)},
         "(same cache, one file's ctime changed) panic-lens check --format json TREE", reps),
        ("regex scan (naive)", [sys.executable, "-m", "bench.regex_scan", str(tree)], {},
         "python -m bench.regex_scan TREE", reps),
    ]  # fmt: skip
    if baseline:
        rest.append(("engine.check_paths, serial (before)", [sys.executable, "-c", ENGINE_SCRIPT,
                     str(tree)], {}, "python -c 'engine.check_paths(TREE)'", 1))  # fmt: skip
    # As installed (pip compiles bytecode): a session's PYTHONDONTWRITEBYTECODE would make
    # every run recompile the package; one untimed run first writes the bytecode.
    base = {"PYTHONPATH": python_path(), "PYTHONDONTWRITEBYTECODE": ""}
    measure.run([*pl[:-1], str(BENCH / "astgrep")], {**base, "PANIC_LENS_NO_CACHE": "1"})
    # The ast-grep projects take turns with the cold check, the two it is compared with most
    # always next to it: [(per-rule,) seed, like-for-like, cold check, baseline], reversed on
    # every other turn, so each runs right after the cold check on one turn and right before
    # it on the next, in the same state of a shared machine; the cache rows follow in order
    # (filling, then warm)
    turns = [*paired[1:-1][::-1], paired[-1], paired[0]]
    samples: dict[str, list[measure.Sample]] = {name: [] for name, *_ in paired}
    for turn in range(reps):
        for name, cmd, env, _, _ in turns if turn % 2 == 0 else turns[::-1]:
            samples[name].append(measure.run(cmd, {**base, **env}))
    rows: list[CheckRow] = []
    for name, _, _, shown, _ in paired:
        summary = measure.summarize(samples[name])
        rows.append(CheckRow(label, name, shown, summary, _results(name, summary.last.stdout)))
    for name, cmd, env, shown, times in rest:
        before = _touch(tree, rows[-1].summary.last.stdout) if name == TOUCHED else None
        summary = measure.repeat(cmd, times, {**base, **env}, before)
        rows.append(CheckRow(label, name, shown, summary, _results(name, summary.last.stdout)))
    return rows


def _touch(tree: Path, report: str) -> Callable[[], None]:
    """Change the ctime (only) of the first file with a finding, or of the tree's first .rs
    file: that file's content must be hashed again,
    while every other file comes from the cache (the path of a warm run after an edit)."""
    findings = json.loads(report or "{}").get("findings", [])
    file = Path(findings[0]["path"]) if findings else next(tree.rglob("*.rs"))

    def touch() -> None:
        st = file.stat()
        os.utime(file, ns=(st.st_atime_ns, st.st_mtime_ns))  # same times; the kernel sets ctime

    return touch


def _results(name: str, stdout: str) -> int:
    if name.startswith("panic-lens"):
        return len(json.loads(stdout or "{}").get("findings", []))
    if name.startswith("engine"):
        return int(stdout.strip() or 0)
    return sum(1 for line in stdout.splitlines() if line.strip())


def explain_row(work: Path, records: int, log_mb: float, reps: int) -> ExplainRow:
    recs, log = work / "records.jsonl", work / "panic.log"
    panic = explain_data.write_records(recs, records)
    explain_data.write_log(log, int(log_mb * 1_000_000), panic)
    cmd = [tool("panic-lens"), "explain", str(log), "--records", str(recs), "--no-default-records"]
    summary = measure.repeat(cmd, reps)
    shown = "panic-lens explain LOG --records RECORDS.jsonl --no-default-records"
    return ExplainRow(records, log.stat().st_size, shown, summary, "bench" in summary.last.stdout)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--quick", action="store_true", help="tiny sizes, one repetition (tests)")
    p.add_argument("--files", type=int, help="generated workspace size (default 1500)")
    p.add_argument("--target", action="append", default=[], type=Path, help="also check DIR")
    p.add_argument("--repeat", type=int, help="runs per figure; medians are shown (default 3)")
    p.add_argument("--out", type=Path, help="write the Markdown report here too")
    p.add_argument("--baseline", action="store_true", help="also time the serial engine")
    p.add_argument("--per-rule-astgrep", action="store_true",
                   help="also time ast-grep with one rule file per shipped rule")  # fmt: skip
    p.add_argument("--skip-lsp", action="store_true")
    p.add_argument("--skip-explain", action="store_true")
    p.add_argument("--skip-rules", action="store_true", help="skip check with 100 rules")
    p.add_argument("--skip-derive", action="store_true", help="skip loading derived records")
    p.add_argument("--only-lsp", action="store_true", help="only the language-server figures")
    args = p.parse_args(argv)
    args.files = args.files or (40 if args.quick else 1500)
    args.repeat = args.repeat or (1 if args.quick else 3)
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    with (
        measure.LoadSampler() as load,
        tempfile.TemporaryDirectory(prefix="panic-lens-bench-") as tmp,
    ):
        work = Path(tmp)
        stats = corpus.generate(work / "corpus", 0 if args.only_lsp else args.files)
        rows = [] if args.only_lsp else check_rows(work / "corpus", "generated", work,
                                                   args.repeat, args.baseline,
                                                   args.per_rule_astgrep)  # fmt: skip
        for target in [] if args.only_lsp else args.target:
            rows += check_rows(target.resolve(), target.name, work, args.repeat, args.baseline,
                               args.per_rule_astgrep)  # fmt: skip
        lsp = None if args.skip_lsp else _lsp(work, args.quick)
        explain = None
        if not (args.skip_explain or args.only_lsp):
            sizes = (200, 0.2) if args.quick else (10_000, 10.0)
            explain = explain_row(work, sizes[0], sizes[1], args.repeat)
        scale = ""
        if not args.skip_rules:
            trees = [str(t.resolve()) for t in args.target] or [str(work / "corpus")]
            if not args.only_lsp:
                results = rule_scale.measure_modes(trees, 100, args.repeat)
                scale = rule_scale.render(results, 100, trees)
                every = rule_scale.measure_modes(trees, 100, args.repeat, every_file=True)
                scale += "\n\n" + rule_scale.render(every, 100, trees, every_file=True)
            if lsp is not None:
                variants = work / "variants"
                variants.mkdir()
                count = rule_scale.variant_rules(variants, 100)
                more = _lsp(work, args.quick, variants)
                scale += "\n\n" + rule_scale.render_lsp(lsp, more, count)
        if not (args.skip_derive or args.only_lsp):
            count = 400 if args.quick else 10_000
            for distinct in (False, True):
                derived = derive_scale.measure_derivation(count, args.repeat, distinct)
                scale += "\n\n" + derive_scale.render(derived, count, distinct)
    text = render(stats, rows, lsp, explain, args, load.samples)
    text = f"{text}\n\n{scale.strip()}\n" if scale else text
    print(text)
    if args.out:
        args.out.write_text(text)
    return 0


def _lsp(work: Path, quick: bool, rules: Path | None = None):  # type: ignore[no-untyped-def]
    """The server's figures; with `rules`, that rule folder is in use too (the workspace's
    Cargo.toml names it, as a user's would)."""
    files, lines = (20, 400) if quick else (500, 5000)
    root = work / ("lsp" if rules is None else "lsp-rules")
    corpus.generate(root, files, seed=7)
    if rules is not None:
        with (root / "Cargo.toml").open("a") as manifest:
            manifest.write(f'\n[workspace.metadata.panic-lens]\nrules = ["{rules}"]\n')
    paths = sorted(p for p in root.rglob("*.rs") if p.name != "lib.rs")[:files]
    # 180 keystrokes: the statement typed and deleted three times (60 changes each), so the
    # nearest-rank p95 is the 10th slowest, not the 4th of 60; the start: median of 5 starts
    opens, changes, starts = (3, 6, 1) if quick else (20, 180, 5)
    return asyncio.run(run_lsp(root, corpus.big_file(lines), paths, opens, changes, starts))


if __name__ == "__main__":
    raise SystemExit(main())
