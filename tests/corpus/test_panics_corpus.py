"""The panic corpus (tests/corpus/panics) with the rules a user runs: `panic-lens check` over
every example, the shipped hand-written rules and the rules derived from the shipped records in
use. Each `// expect: <slug>` line has a finding of that panic (of the rule `<slug>`, or of a
rule that cites the folder's record: a derived rule's id is its own), and no `// ok` line has a
finding at warning or above. (The shipped rule examples that started from a corpus example
carry only the lines added with the rule file: the corpus lines are checked here.)"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

CORPUS = Path(__file__).resolve().parent / "panics"
EXPECT = re.compile(r"//\s*expect:\s*([\w-]+(?:\s*,\s*[\w-]+)*)")
OK = re.compile(r"//\s*ok\b")
LOUD = ("error", "warning")


@pytest.fixture(scope="module")
def findings(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, int], list[dict]]:
    cache = tmp_path_factory.mktemp("cache")
    done = subprocess.run(
        [sys.executable, "-m", "panic_lens", "check", "--format", "json", "--fail-on", "never",
         str(CORPUS)],
        capture_output=True, text=True, env={**_env(), "PANIC_LENS_CACHE_DIR": str(cache)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert not report["errors"], report["errors"]
    by_line: dict[tuple[str, int], list[dict]] = {}
    for found in report["findings"]:
        key = (Path(found["path"]).resolve().parent.name, found["line"])
        by_line.setdefault(key, []).append(found)
    return by_line


def _is_of(finding: dict, rule: str, panic: str, record_id: str) -> bool:
    """A finding of `rule`, or, for the folder's own panic, of a rule citing its record."""
    return finding["rule"] == rule or (rule == panic and record_id in finding["records"])


def _env() -> dict[str, str]:
    return dict(os.environ)


EXAMPLES = sorted(p.parent.name for p in CORPUS.glob("*/example.rs"))


@pytest.mark.parametrize("panic", EXAMPLES)
def test_each_example_line_is_flagged_as_annotated(
    panic: str, findings: dict[tuple[str, int], list[dict]]
) -> None:
    lines = (CORPUS / panic / "example.rs").read_text(encoding="utf-8").splitlines()
    record = json.loads((CORPUS / panic / "record.json").read_text(encoding="utf-8"))["record"]
    problems = []
    for number, line in enumerate(lines, start=1):
        here = findings.get((panic, number), [])
        expected = EXPECT.search(line)
        if expected is not None:
            for rule in re.split(r"\s*,\s*", expected.group(1)):
                if not any(_is_of(f, rule, panic, record["id"]) for f in here):
                    problems.append(f"{panic}:{number}: no {rule} finding")
        elif OK.search(line):
            loud = [f["rule"] for f in here if f["severity"] in LOUD]
            if loud:
                problems.append(f"{panic}:{number}: `// ok` line flagged by {loud}")
    assert not problems, "\n".join(problems)
