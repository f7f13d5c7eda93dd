"""A record for every panic of burn that carries a message, to measure the deriver's reach and
precision beyond the records anyone wrote.

    python -m bench.every_site RECORDS.jsonl [--crates burn-tensor,burn-nn,..]

writes one record per panic site of the shipped guards index (`rules/data/*.guards.json.gz`)
whose message is a literal (the `TensorCheck` functions' own are left out: they are reached
through the ops that call them), marked `writtenBy: panic-lens`, and prints how many derive
and, for the others, the deriver's reasons by kind. Then

    python -m bench.precision --records RECORDS.jsonl TREE...

runs `check` with a derived rule for each of them over real code: every finding at warning or
above there is a false positive of the deriver (or a real panic, which reading tells).
A dev script: the hidden judges of reach are records written from burn's source like these.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from panic_lens.catalog.derive import derive, shipped_guards
from panic_lens.catalog.derive.model import Derived
from panic_lens.catalog.load import read_records
from panic_lens.catalog.model import Record
from panic_lens.rules.language import configs

HOLE = re.compile(r"\{[^{}]*\}")


def site_records(guards: dict[str, Any], crates: list[str] | None) -> list[dict[str, Any]]:
    """One record (the dataset's JSON form) per panic site with a literal message."""
    out = []
    for fn in guards.get("functions", {}).values():
        if fn["owner"] == "TensorCheck":
            continue
        if crates and not any(f"crates/{c}/" in fn["file"] for c in crates):
            continue
        for panic in fn["panics"]:
            message = panic.get("message")
            if not message:
                continue
            key = f"{fn['file']}:{panic['line']}:{message}"
            pattern = HOLE.sub(".*", re.sub(r"\\([{}])", r"\1", re.escape(message)))
            out.append(
                {
                    "id": hashlib.sha256(key.encode()).hexdigest()[:16],
                    "schemaVersion": 2,
                    "repo": "tracel-ai/burn",
                    "errorMessage": HOLE.sub("X", message),
                    "messagePattern": pattern,
                    "errorType": "panic",
                    "filePath": fn["file"],
                    "lineNumber": panic["line"],
                    "writtenBy": "panic-lens",
                }
            )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.every_site", description=__doc__)
    parser.add_argument("out", type=Path, help="the .jsonl file to write")
    parser.add_argument("--crates", help="only these crates of burn (comma-separated)")
    args = parser.parse_args(argv)
    guards = shipped_guards()
    crates = args.crates.split(",") if args.crates else None
    rows = site_records(guards, crates)
    lines = (json.dumps({"record": r, "datasetVersion": "panic-lens"}) + "\n" for r in rows)
    args.out.write_text("".join(lines), encoding="utf-8")
    records = [r for r in read_records(args.out) if isinstance(r, Record)]
    table = configs.table()
    kinds: Counter[str] = Counter()
    reasons: Counter[tuple[str, str]] = Counter()
    for record in records:
        outcome = derive(record, guards, table)
        if isinstance(outcome, Derived):
            kinds["derived"] += 1
            continue
        kinds[outcome.kind] += 1
        reason = re.sub(r"crates/\S+:\d+: ", "", outcome.reason)
        reasons[(outcome.kind, re.sub(r"`[^`]*`", "`..`", reason)[:100])] += 1
    print(f"{len(rows)} records written to {args.out}, {len(records)} read")
    for kind, count in kinds.most_common():
        print(f"  {kind}: {count}")
    print("most frequent reasons:")
    for (kind, reason), count in reasons.most_common(12):
        print(f"  {count:4}  {kind}: {reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
