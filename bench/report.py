"""The benchmark's Markdown report: check table with ratios to ast-grep, server, explain, and
the targets, checked against the baseline (the first ast-grep row: one rule for the call shapes
of every shipped rule)."""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import subprocess
from dataclasses import dataclass

from bench.corpus import CorpusStats
from bench.lsp_bench import LspFigures
from bench.measure import Summary


@dataclass(frozen=True, slots=True)
class CheckRow:
    tree: str
    tool: str
    command: str
    summary: Summary
    results: int


@dataclass(frozen=True, slots=True)
class ExplainRow:
    records: int
    log_bytes: int
    command: str
    summary: Summary
    matched: bool


def render(
    stats: CorpusStats,
    rows: list[CheckRow],
    lsp: LspFigures | None,
    explain: ExplainRow | None,
    args: argparse.Namespace,
    loads: list[float],
) -> str:
    out = ["# panic-lens benchmark", "", *_machine(args, loads, stats), ""]
    out += ["## check: whole tree", "", *_check_table(rows), ""]
    if lsp is not None:
        out += ["## Language server (stdio, pygls LanguageClient)", "", *_lsp_table(lsp), ""]
    if explain is not None:
        out += ["## explain", "", *_explain_table(explain), ""]
    out += ["## Targets (issues 6 and 35)", "", *_targets(rows, lsp, explain), ""]
    return "\n".join(out)


def _machine(args: argparse.Namespace, loads: list[float], stats: CorpusStats) -> list[str]:
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    sg = _version(["ast-grep", "--version"])
    return [
        f"- run: {when}; `python -m bench.run {' '.join(_argv(args))}`".rstrip(),
        f"- machine: {os.cpu_count()} cores, Python {platform.python_version()}, {sg}",
        f"- load average (1 min) before / after: {loads[0]:.2f} / {loads[-1]:.2f}; while "
        f"running: median {statistics.median(loads):.2f}, max {max(loads):.2f} "
        "(a shared machine inflates wall times; CPU seconds are steadier)",
        f"- generated workspace: {stats.files} files, {stats.lines} lines, "
        f"{stats.bytes / 1e6:.1f} MB; {stats.rule_files} files use a rule's call shape "
        f"({stats.risky_shapes} risky)",
        f"- figures are medians of {args.repeat} run(s); each turn runs the ast-grep projects "
        "and the cold check, the baseline and A next to the check (each after it on one turn, "
        "before it on the next); peak MB sums the process tree",
    ]


def _argv(args: argparse.Namespace) -> list[str]:
    out = ["--quick"] if args.quick else []
    out += [f"--files {args.files}", f"--repeat {args.repeat}"]
    out += [f"--target .../{t.name}" for t in args.target]  # no machine paths in the file
    out += ["--baseline"] if args.baseline else []
    return out + (["--per-rule-astgrep"] if args.per_rule_astgrep else [])


def _version(cmd: list[str]) -> str:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, check=False).stdout.strip()
    except OSError:
        return f"{cmd[0]} not found"


def _astgreps(rows: list[CheckRow]) -> list[str]:
    """The ast-grep configurations timed, in the order of the table: the baseline, A, B..."""
    return [t for t in dict.fromkeys(r.tool for r in rows) if t.startswith("ast-grep scan")]


def _name(i: int) -> str:
    """The short name of the i-th ast-grep configuration: the first is the baseline."""
    return "baseline" if i == 0 else chr(ord("A") + i - 1)


def _legend(bases: list[str]) -> list[str]:
    return [f"ast-grep {_name(i)}: {tool}." for i, tool in enumerate(bases)]


def _astgrep(rows: list[CheckRow], tree: str, tool: str) -> Summary | None:
    return next((r.summary for r in rows if r.tree == tree and r.tool == tool), None)


def _check_table(rows: list[CheckRow]) -> list[str]:
    bases = _astgreps(rows)
    names = [_name(i) for i in range(len(bases))]
    ratios = [f"{kind} / ast-grep {name}" for name in names for kind in ("wall", "CPU")]
    out = [
        "| tree | tool | wall s | CPU s | peak MB | results | " + " | ".join(ratios) + " |",
        "|---|---|---:|---:|---:|---:|" + "---:|" * len(ratios),
    ]
    for row in rows:
        s = row.summary
        cells = []
        for tool in bases:
            base = _astgrep(rows, row.tree, tool)
            cells.append(f"{s.wall / base.wall:.2f}x" if base and base.wall else "-")
            cells.append(f"{s.cpu / base.cpu:.2f}x" if base and base.cpu else "-")
        out.append(
            f"| {row.tree} | {row.tool} | {s.wall:.2f} | {s.cpu:.2f} | {s.peak_mb:.0f} | "
            f"{row.results} | " + " | ".join(cells) + " |"
        )
    out += ["", *_legend(bases)]
    out += ["", "Commands (TREE is the tree of the row):", ""]
    seen = []
    for row in rows:
        if row.command not in seen:
            seen.append(row.command)
            out.append(f"- {row.tool}: `{row.command}`")
    return out


def _lsp_table(lsp: LspFigures) -> list[str]:
    rows = [
        (f"server start -> first publishDiagnostics (median of {lsp.start_runs} starts)",
         f"{lsp.start_to_first_ms:.0f} ms"),
        (f"workspace scan of {lsp.scan_files} files (start -> progress end)",
         f"{lsp.scan_ms:.0f} ms"),
        ("didOpen -> publish, 5,000-line file, p50 / p95",
         f"{lsp.open_p50_ms:.0f} / {lsp.open_p95_ms:.0f} ms"),
        ("didChange -> publish, 5,000-line file, typing a statement key by key, p50 / p95",
         f"{lsp.change_p50_ms:.1f} / {lsp.change_p95_ms:.1f} ms"),
        ("didChange -> publish, 5,000-line file, commenting out a `}` line, p50 / p95",
         f"{lsp.structural_p50_ms:.0f} / {lsp.structural_p95_ms:.0f} ms"),
        ("RSS after the scan, nothing open", f"{lsp.rss_idle_mb:.0f} MB"),
        (f"RSS with {lsp.open_files} files open", f"{lsp.rss_open_mb:.0f} MB"),
    ]  # fmt: skip
    return [
        "| figure | value |",
        "|---|---:|",
        *(f"| {name} | {value} |" for name, value in rows),
        "",
        "Measured by `bench/lsp_bench.py` (`python -m bench.run`): a real stdio client, "
        "push diagnostics with version support, one edit per didChange, each sent when the "
        "previous one's diagnostics arrived. Typing: Enter at the end of a `let` line in a "
        "function body in the middle of the file, `let scaled = values.len() * 2;` key by key "
        "(brackets closed by the editor; half-typed lines are syntax errors), then Backspace "
        "key by key (`bench.lsp_bench.keystrokes`). Commenting out a `}` changes the file's "
        "structure: the whole file is analysed again, as on didOpen.",
    ]


def _explain_table(row: ExplainRow) -> list[str]:
    s = row.summary
    return [
        "| records | log | wall s | CPU s | peak MB | found the panic's record |",
        "|---:|---:|---:|---:|---:|---|",
        f"| {row.records} | {row.log_bytes / 1e6:.1f} MB | {s.wall:.2f} | {s.cpu:.2f} | "
        f"{s.peak_mb:.0f} | {'yes' if row.matched else 'NO'} |",
        "",
        f"Command: `{row.command}` (whole process: start, loading the records, matching).",
    ]


# Issue 35's targets (ratios to the baseline, the server's latency and memory) and issue 6's
# (start, explain)
COLD_LIMIT, WARM_LIMIT = 0.6, 0.1
KEYSTROKE_P95_MS, RSS_OPEN_MB, START_MS, EXPLAIN_S = 6.0, 100.0, 500.0, 2.0


def _targets(rows: list[CheckRow], lsp: LspFigures | None, explain: ExplainRow | None) -> list[str]:
    """Each target met or not; a check's ratio is to the baseline, by wall and by CPU time
    (CPU is steadier on a shared machine)."""
    out = ["| figure | target | measured | met |", "|---|---|---:|---|"]
    bases = _astgreps(rows)
    for tree in dict.fromkeys(r.tree for r in rows):
        base = _astgrep(rows, tree, bases[0]) if bases else None
        for tool, limit in (("cold, no cache", COLD_LIMIT), ("warm cache", WARM_LIMIT)):
            row = next((r for r in rows if r.tree == tree and r.tool.endswith(tool)), None)
            if base is None or row is None:
                continue
            for kind, mine, theirs in (("wall", row.summary.wall, base.wall),
                                       ("CPU", row.summary.cpu, base.cpu)):  # fmt: skip
                if theirs:
                    ratio = mine / theirs
                    out.append(_target(f"check {tool}, {tree}",
                                       f"<= {limit}x ast-grep baseline {kind}",
                                       f"{ratio:.2f}x", ratio <= limit))  # fmt: skip
    if lsp is not None:
        p95 = lsp.change_p95_ms
        out.append(_target("didChange -> publish p95, typing, 5,000 lines",
                           f"<= {KEYSTROKE_P95_MS:.0f} ms", f"{p95:.1f} ms",
                           p95 <= KEYSTROKE_P95_MS))  # fmt: skip
        out.append(_target(f"server RSS, {lsp.open_files} files open",
                           f"<= {RSS_OPEN_MB:.0f} MB", f"{lsp.rss_open_mb:.0f} MB",
                           lsp.rss_open_mb <= RSS_OPEN_MB))  # fmt: skip
        first = lsp.start_to_first_ms
        out.append(_target("start -> first diagnostics", f"<= {START_MS:.0f} ms",
                           f"{first:.0f} ms", first <= START_MS))  # fmt: skip
    if explain is not None:
        wall = explain.summary.wall
        out.append(_target(f"explain, {explain.records} records x {explain.log_bytes / 1e6:.0f} MB",
                           f"<= {EXPLAIN_S:.0f} s", f"{wall:.2f} s",
                           wall <= EXPLAIN_S and explain.matched))  # fmt: skip
    return [*out, "", *_legend(bases[:1])] if bases else out


def _target(name: str, target: str, measured: str, met: bool) -> str:
    return f"| {name} | {target} | {measured} | {'yes' if met else 'no'} |"
