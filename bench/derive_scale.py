"""What loading many records costs once their checks are derived (`make bench` prints it).

    python -m bench.derive_scale [--records 10000]

N records are made from the project's records of burn panics (tests/corpus/panics), each a
copy with its own id, so every record needs deriving; the hand-written rules are left out
(the registry holds the hook rules only), so that no record is covered by one. Each figure is
a fresh process, as a user's `check` or editor start: `cold` derives with an empty cache,
`warm` answers from the derivation cache, and `baseline` loads the same records with the
derivation turned off (no records loaded at all costs less still; that is the first row).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from bench import measure

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "corpus" / "panics"


def write_records(path: Path, count: int, distinct: bool = False) -> int:
    """`count` records (JSON lines) cycling through the corpus, each with its own id;
    `distinct`: each with its own panic half too (its line moved by up to 3, which the
    deriver tolerates), so that no two records share a panic half."""
    records = [json.loads(p.read_text())["record"] for p in sorted(CORPUS.glob("*/record.json"))]
    with path.open("w", encoding="utf-8") as out:
        for i in range(count):
            record = dict(records[i % len(records)])
            record["id"] = f"{i:016x}"
            if distinct:  # one of 7 line shifts and the copy number in the message's tail
                record["lineNumber"] = (record.get("lineNumber") or 1) + i % 7 - 3
                record["errorMessage"] = f"{record['errorMessage']} [{i}]"
            out.write(json.dumps({"record": record}) + "\n")
    return len(records)


CHILD = """
import sys, time
from panic_lens.rules import meta
meta.SHIPPED = tuple(r for r in meta.SHIPPED if r.spec and r.spec.hook)
meta._generation[0] += 1
from panic_lens.catalog import load_catalog
mode, path = sys.argv[1], sys.argv[2]
loaded = load_catalog([path], include_default=False)
catalog = loaded.catalog
if mode != "baseline":  # as `check` and the server do (commands.common.load_records)
    from panic_lens.catalog.derive import register_derived
    register_derived(catalog.records, loaded.files_print)
if mode == "finding":  # a finding cites its rule's records: every record is bound once
    from panic_lens.batch import check_paths
    found = check_paths([sys.argv[3]], catalog=catalog, jobs=1).findings
    assert found and all(f.records for f in found), found
print(len(catalog), len(meta.derived_rules()))
"""
# A crate whose one file has a finding of a hook rule (hook rules stay in the registry above).
FINDING_CRATE = Path(__file__).resolve().parent.parent / "tests" / "golden" / "ctc-module-cuda"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--records", type=int, default=10_000)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--distinct", action="store_true", help="no two records share a panic half")
    args = p.parse_args(argv)
    results = measure_derivation(args.records, args.repeat, args.distinct)
    print(render(results, args.records, args.distinct))
    return 0


def measure_derivation(
    count: int, repeat: int, distinct: bool = False
) -> dict[str, measure.Summary]:
    with tempfile.TemporaryDirectory(prefix="panic-lens-derive-") as tmp:
        records = Path(tmp) / "records.jsonl"
        write_records(records, count, distinct)
        cache = Path(tmp) / "cache"
        env = {"PANIC_LENS_CACHE_DIR": str(cache), "PYTHONDONTWRITEBYTECODE": ""}
        run = [sys.executable, "-c", CHILD]
        out = {"no derivation (records loaded)": measure.repeat([*run, "baseline", str(records)],
                                                                repeat, env)}  # fmt: skip
        out["cold: deriving, empty cache"] = measure.repeat([*run, "cold", str(records)], 1, env)
        out["warm: from the derivation cache"] = measure.repeat(
            [*run, "warm", str(records)], repeat, env
        )
        out["warm, then `check` of a crate with a finding (every record bound)"] = measure.repeat(
            [*run, "finding", str(records), str(FINDING_CRATE)], repeat, env
        )
        return out


def render(results: dict[str, measure.Summary], count: int, distinct: bool = False) -> str:
    base = next(iter(results.values()))
    halves = "each its own panic half" if distinct else "copies of 47 records"
    lines = [
        f"## Loading {count:,} records with derived checks ({halves}; fresh process each)",
        "",
        "| run | wall s | added to loading the records |",
        "|---|---|---|",
    ]
    for name, s in results.items():
        added = "" if s is base else f"{s.wall - base.wall:+.2f} s"
        lines.append(f"| {name} | {s.wall:.2f} | {added} |")
    lines += ["", "(target: at most +1 s cold and +0.05 s warm for 10,000 records)"]
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
