"""`panic-lens index build`: the index of burn's configs, computed from a burn checkout.

With `-o FILE` the index is written there and a summary printed; without, the index goes to
stdout and the summary to stderr. `--into DIR` writes what the package ships for that burn
version into DIR: the configs index `burn-<version>.json` and the guards index
`burn-<version>.guards.json.gz` (burn's panic sites and the calls that reach them, which
derived checks read). Exit 2 when the checkout cannot be read.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from panic_lens.commands.common import EXIT_OK, EXIT_USAGE


def add_parser(sub: Any) -> None:
    p = sub.add_parser("index", help="build the index of burn's configs")
    inner = p.add_subparsers(dest="index_command", required=True)
    build = inner.add_parser(
        "build", help="index the #[derive(Config)] structs of a burn checkout (fields, paths)"
    )
    build.add_argument("checkout", metavar="BURN_CHECKOUT", help="a burn repository checkout")
    build.add_argument(
        "-o", "--output", metavar="FILE", help="write the index to FILE (default: stdout)"
    )
    build.add_argument(
        "--into", metavar="DIR",
        help="write the configs and the guards index for this burn version into DIR "
        "(server/panic_lens/rules/data is what the package ships)",
    )  # fmt: skip
    build.set_defaults(handler=index_build_command)


def index_build_command(args: argparse.Namespace) -> int:
    from panic_lens.rust.burn_index import BurnIndexError, build_index, dumps

    checkout = Path(args.checkout)
    if not checkout.is_dir():
        print(f"panic-lens index build: {checkout}: not a folder", file=sys.stderr)
        return EXIT_USAGE
    try:
        index = build_index(checkout)
    except BurnIndexError as err:
        print(f"panic-lens index build: {err}", file=sys.stderr)
        return EXIT_USAGE
    text = dumps(index)
    if args.into is not None:
        return _write_into(Path(args.into), checkout, index, text)
    if args.output is None:
        sys.stdout.write(text)
        print(summary(index, len(text.encode())), file=sys.stderr)
        return EXIT_OK
    output = Path(args.output)
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as err:
        print(f"panic-lens index build: {output}: cannot write: {err}", file=sys.stderr)
        return EXIT_USAGE
    print(f"{summary(index, len(text.encode()))} -> {output}")
    return EXIT_OK


def summary(index: dict[str, Any], size: int) -> str:
    configs = index["configs"]
    fields = sum(len(entry["fields"]) for entry in configs.values())
    inits = sum("init" in entry for entry in configs.values())
    return (
        f"burn {index['burn']}: {len(configs)} configs, {fields} fields, {inits} with an init, "
        f"{len(index['modules'])} modules; {size} bytes"
    )


def _write_into(folder: Path, checkout: Path, index: dict[str, Any], text: str) -> int:
    from panic_lens.rust.burn_guards import build_guards, dumps_guards

    guards = dumps_guards(build_guards(checkout))
    configs_file = folder / f"burn-{index['burn']}.json"
    guards_file = folder / f"burn-{index['burn']}.guards.json.gz"
    try:
        configs_file.write_text(text, encoding="utf-8")
        guards_file.write_bytes(guards)
    except OSError as err:
        print(f"panic-lens index build: {folder}: cannot write: {err}", file=sys.stderr)
        return EXIT_USAGE
    print(f"{summary(index, len(text.encode()))} -> {configs_file}")
    print(f"guards: {len(guards)} bytes gzipped -> {guards_file}")
    return EXIT_OK
