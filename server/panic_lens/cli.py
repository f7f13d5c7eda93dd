"""Command line: `panic-lens serve | check | explain | records | rules | index`.

Logging goes to stderr: in `serve`, stdout is the LSP channel. Each subcommand lives in
`panic_lens.commands`; this module only builds the parser and dispatches, and imports a
command only when it runs (`serve` imports none of the others).
"""

from __future__ import annotations

import sys

from panic_lens import __version__

TYPE_CHECKING = False  # typing itself is not imported
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

# Cycle-collector thresholds while a command imports much and frees little: the youngest
# generation every 50,000 allocations instead of 700 (check's whole run).
START_UP_GC_THRESHOLDS = (50_000, 20, 100)


SUPPRESSIONS = """\
suppressions:
  // panic-lens: allow(<rule-id>) <reason>
      at the end of a line, silences that rule's finding on the line; on a line of its
      own, on the next line. `check --severity RULE=off` (or `severity` in Cargo.toml's
      [package.metadata.panic-lens]) turns a rule off everywhere.
"""
EXIT_CODES = """\
exit codes:
  0  check: nothing at or above --fail-on; explain: something matched;
     rules test: every expectation holds; records check: every record is valid
  1  check: a finding at or above --fail-on (default warning); check --diff: something to
     fix; explain: nothing matched; rules test: an expectation fails; records check: a
     record is invalid
  2  a usage error, an unreadable path, a broken rule file, a file check --fix could not
     write (it changed on disk), or, with check --strict, a record error
"""


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole parser; with `command="serve"` the `serve` subcommand only (the server's
    start imports none of the other commands)."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="panic-lens",
        description="Find burn calls that will panic at run time.",
        epilog=SUPPRESSIONS + "\n" + EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"panic-lens {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="run the language server (stdio by default)")
    serve.add_argument("--stdio", action="store_true", help="talk LSP over stdin/stdout")
    serve.add_argument("--tcp", metavar="[HOST:]PORT", help="listen on TCP (loopback by default)")
    serve.add_argument("--log-level", default=None, help="error, warning, info or debug")
    if command == "serve":
        return parser
    from panic_lens.commands import check, explain, index, records, rules

    check.add_parser(sub)
    checking = sub.choices["check"]  # its own --help says the same
    checking.epilog = SUPPRESSIONS + "\n" + EXIT_CODES
    checking.formatter_class = argparse.RawDescriptionHelpFormatter
    records.add_parser(sub)
    rules.add_parser(sub)
    explain.add_parser(sub)
    index.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["serve"]:
        import gc

        # `serve` starts with the cycle collector off: until its first publish it only imports
        # and builds objects that live as long as the server, so each pass is wasted. The
        # server turns it on again (PanicLensServer.start_collector), unless it was off already.
        collector_off = gc.isenabled()
        if collector_off:
            gc.disable()
        return _dispatch(argv, collector_off=collector_off)
    if argv[:1] != ["check"]:
        return _dispatch(argv)
    import gc

    # A short run that allocates much (imports) and frees little until it ends: with higher
    # thresholds the collector does not traverse what lives until the end anyway. Forked
    # analysis workers go back to the defaults (batch_workers._init_worker).
    before = gc.get_threshold()
    gc.set_threshold(*START_UP_GC_THRESHOLDS)
    try:
        return _dispatch(argv)
    finally:
        gc.set_threshold(*before)


def _dispatch(argv: list[str], collector_off: bool = False) -> int:
    """Run the command `argv` names; `collector_off`: `main` turned the cycle collector off
    for `serve`, which turns it on after its first publish."""
    parser = build_parser(argv[0] if argv[:1] == ["serve"] else None)
    args = parser.parse_args(argv)
    if args.command == "serve":
        handover = None
        if args.tcp is None:  # first diagnostics before pygls is loaded (quickstart.py)
            from panic_lens.quickstart import quick_start

            handover = quick_start()
        from panic_lens.lsp.server import run

        return run(
            tcp=args.tcp, log_level=args.log_level, handover=handover, collector_off=collector_off
        )
    if hasattr(args, "handler"):
        return int(args.handler(args))
    parser.error(f"unknown command {args.command}")
    return 2


def entry() -> None:
    """The `panic-lens` command: `main`, then, after any command but `serve`, out through
    `os._exit` once the output is flushed. Tearing the interpreter down (every module, the
    catalog, the rules' tables; nothing a user sees) is a measurable part of a short `check`. Work
    that must finish (cache entries, worker processes) is done before
    `main` returns; a command that raises ends the usual way."""
    import contextlib
    import os

    argv = sys.argv[1:]
    if argv[:1] == ["serve"]:
        sys.exit(main(argv))
    code = 0
    try:  # a reader that goes away (`| head`) ends a command that prints while it works too
        code = main(argv)
        sys.stdout.flush()
    except BrokenPipeError:  # what it did not read is lost
        code = code or 1
    with contextlib.suppress(BrokenPipeError):
        sys.stderr.flush()
    if "logging" in sys.modules:
        sys.modules["logging"].shutdown()
    os._exit(code)


if __name__ == "__main__":
    entry()
