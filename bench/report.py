"""The benchmark's Markdown report: check table with ratios to ast-grep, server, explain."""

from __future__ import annotations

import argparse
import datetime
import os
import platform
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
    loads: tuple[tuple[float, ...], tuple[float, ...]],
) -> str:
    out = ["# panic-lens benchmark", "", *_machine(args, loads, stats), ""]
    out += ["## check: whole tree", "", *_check_table(rows), ""]
    if lsp is not None:
        out += ["## Language server (stdio, pygls LanguageClient)", "", *_lsp_table(lsp), ""]
    if explain is not None:
        out += ["## explain", "", *_explain_table(explain), ""]
    out += ["## Targets (issue 6)", "", *_targets(rows, lsp, explain), ""]
    return "\n".join(out)


def _machine(
    args: argparse.Namespace, loads: tuple[tuple[float, ...], ...], stats: CorpusStats
) -> list[str]:
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    sg = _version(["ast-grep", "--version"])
    return [
        f"- run: {when}; `python -m bench.run {' '.join(_argv(args))}`".rstrip(),
        f"- machine: {os.cpu_count()} cores, Python {platform.python_version()}, {sg}",
        f"- load average before / after: {loads[0][0]:.2f} / {loads[1][0]:.2f} "
        "(a shared machine inflates wall times; CPU seconds are steadier)",
        f"- generated workspace: {stats.files} files, {stats.lines} lines, "
        f"{stats.bytes / 1e6:.1f} MB; {stats.rule_files} files use a rule's call shape "
        f"({stats.risky_shapes} risky)",
        f"- figures are medians of {args.repeat} run(s); the cold check runs between the two "
        "ast-grep runs of each turn (which ast-grep goes first alternates); peak MB sums the "
        "process tree",
    ]


def _argv(args: argparse.Namespace) -> list[str]:
    out = ["--quick"] if args.quick else []
    out += [f"--files {args.files}", f"--repeat {args.repeat}"]
    out += [f"--target .../{t.name}" for t in args.target]  # no machine paths in the file
    return out + (["--baseline"] if args.baseline else [])


def _version(cmd: list[str]) -> str:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, check=False).stdout.strip()
    except OSError:
        return f"{cmd[0]} not found"


def _astgreps(rows: list[CheckRow]) -> list[str]:
    """The ast-grep configurations timed, in the order of the table (A, B, ...)."""
    return [t for t in dict.fromkeys(r.tool for r in rows) if t.startswith("ast-grep scan")]


def _letter(i: int) -> str:
    return chr(ord("A") + i)


def _legend(bases: list[str]) -> list[str]:
    return [f"ast-grep {_letter(i)}: {tool}." for i, tool in enumerate(bases)]


def _astgrep(rows: list[CheckRow], tree: str, tool: str) -> Summary | None:
    return next((r.summary for r in rows if r.tree == tree and r.tool == tool), None)


def _check_table(rows: list[CheckRow]) -> list[str]:
    bases = _astgreps(rows)
    letters = [_letter(i) for i in range(len(bases))]
    ratios = [f"{kind} / ast-grep {letter}" for letter in letters for kind in ("wall", "CPU")]
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


def _targets(rows: list[CheckRow], lsp: LspFigures | None, explain: ExplainRow | None) -> list[str]:
    out = ["| figure | target | measured | met |", "|---|---|---:|---|"]
    bases = _astgreps(rows)
    for tree in dict.fromkeys(r.tree for r in rows):
        for tool, limit in (("cold, no cache", 0.5), ("warm cache", 0.1)):
            row = next((r for r in rows if r.tree == tree and r.tool.endswith(tool)), None)
            for i, sg in enumerate(bases):
                base = _astgrep(rows, tree, sg)
                if base and row:
                    ratio = row.summary.wall / base.wall
                    out.append(_target(f"check {tool}, {tree}",
                                       f"<= {limit}x ast-grep {_letter(i)} wall",
                                       f"{ratio:.2f}x", ratio <= limit))  # fmt: skip
    if lsp is not None:
        out.append(_target("didChange -> publish p95", "<= 10 ms", f"{lsp.change_p95_ms:.1f} ms",
                           lsp.change_p95_ms <= 10))  # fmt: skip
        first = lsp.start_to_first_ms
        out.append(_target("start -> first diagnostics", "<= 500 ms", f"{first:.0f} ms",
                           first <= 500))  # fmt: skip
        out.append(_target(f"RSS, {lsp.open_files} files open", "<= 150 MB",
                           f"{lsp.rss_open_mb:.0f} MB", lsp.rss_open_mb <= 150))  # fmt: skip
    if explain is not None:
        wall = explain.summary.wall
        out.append(_target(f"explain, {explain.records} records x {explain.log_bytes / 1e6:.0f} MB",
                           "<= 2 s", f"{wall:.2f} s", wall <= 2 and explain.matched))  # fmt: skip
    return [*out, "", *_legend(bases)] if bases else out


def _target(name: str, target: str, measured: str, met: bool) -> str:
    return f"| {name} | {target} | {measured} | {'yes' if met else 'no'} |"
