"""Command line: `panic-lens serve | check | explain | records`.

Logging goes to stderr: in `serve`, stdout is the LSP channel. Each subcommand lives in
`panic_lens.commands`; this module only builds the parser and dispatches.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from panic_lens import __version__
from panic_lens.commands import check, explain, records


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="panic-lens", description="Find burn calls that will panic at run time."
    )
    parser.add_argument("--version", action="version", version=f"panic-lens {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="run the language server (stdio by default)")
    serve.add_argument("--stdio", action="store_true", help="talk LSP over stdin/stdout")
    serve.add_argument("--tcp", metavar="[HOST:]PORT", help="listen on TCP (loopback by default)")
    serve.add_argument("--log-level", default=None, help="error, warning, info or debug")
    check.add_parser(sub)
    records.add_parser(sub)
    explain.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "serve":
        from panic_lens.lsp.server import run

        return run(tcp=args.tcp, log_level=args.log_level)
    if hasattr(args, "run"):
        return int(args.run(args))
    parser.error(f"unknown command {args.command}")
    return 2


if __name__ == "__main__":
    sys.exit(main())
