"""A rule added to the registry is seen by every answer path: the engine, `check`'s batch path
(prefilter, worker processes), the content-hash cache (entries written before
the rule existed are not reused), the editor's per-function re-analysis, the reports and the
settings. Nothing about the new rule is written anywhere but in its RuleInfo and detector.

Each test runs with the rule written twice: in Python (this module is its detector module,
`INFO.module` names it) and as a rule file in the rule language (`RULE_FILE`).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from panic_lens import batch, engine, function_reanalysis, prefilter
from panic_lens.cache import AnalysisCache
from panic_lens.model import Finding, HoverFact, Settings, Severity
from panic_lens.report import sarif
from panic_lens.rules import meta
from panic_lens.rules.language.spec import parse_rule
from panic_lens.rust.facts import FileFacts
from panic_lens.settings import parse_settings

INFO = meta.RuleInfo(
    id="frobnicate-anything",
    title="frobnicate always panics",
    summary="a rule that exists only in this test",
    apis=("frobnicate",),
    default_severity=Severity.WARNING,
    module=__name__,
    triggers=("frobnicate",),
)
RULE_FILE = b"""
id = "frobnicate-anything"
title = "frobnicate always panics"
summary = "a rule that exists only in this test"
severity = "warning"
[[panic_site]]
file = "crates/burn-tensor/src/frobnicate.rs"
guard = "panic!()"
message = "frobnicated"
[[where]]
call = "burn::tensor::module::frobnicate"
external = true  # not burn's: the load-time check takes it as written
"""
LANGUAGE_INFO = meta.info_from_spec(parse_rule(RULE_FILE, "frobnicate-anything.toml"))
RISKY = (
    "use burn::tensor::module::frobnicate;\n"
    "pub fn train(x: u32) -> u32 {\n    let y = x + 1;\n    frobnicate(y)\n}\n"
)
FILLER = "pub fn helper_{i}(a: u64) -> u64 {{\n    let b = a * {i};\n    b + 1\n}}\n"


def detect(facts: FileFacts) -> Iterator[Finding | HoverFact]:
    for site in facts.calls(frozenset({"frobnicate"})):
        span = facts.span(site.name_node)
        yield Finding(INFO.id, span, INFO.default_severity, "frobnicate panics")


@pytest.fixture(params=["python", "rule-file"])
def rule(request: pytest.FixtureRequest) -> meta.RuleInfo:
    return INFO if request.param == "python" else LANGUAGE_INFO


@pytest.fixture
def added(rule: meta.RuleInfo) -> Iterator[meta.RuleInfo]:
    meta.add_rule(rule)
    try:
        yield rule
    finally:
        meta.remove_rule(rule.id)


def crate(root: Path, files: int) -> Path:
    """A crate whose one risky file is among `files` others no shipped rule looks at."""
    (root / "src").mkdir(parents=True)
    (root / "Cargo.toml").write_text('[package]\nname = "app"\nversion = "0.1.0"\n')
    for i in range(files):
        text = "".join(FILLER.format(i=i * 100 + j) for j in range(40))
        (root / "src" / f"m{i}.rs").write_text(text)
    (root / "src" / "risky.rs").write_text(FILLER.format(i=1) + RISKY)
    return root


def rules_of(result: engine.CheckResult) -> list[tuple[str, str]]:
    return [(Path(f.path or "").name, f.rule) for f in result.findings]


def test_the_engine_sees_an_added_rule(added: meta.RuleInfo) -> None:
    assert [f.rule for f in engine.analyze(RISKY).findings] == [added.id]


def test_without_the_rule_nothing_is_found() -> None:
    assert engine.analyze(RISKY).findings == ()
    assert not prefilter.Prefilter({}).keeps("lib.rs", RISKY.encode())


def test_the_prefilter_words_come_from_the_registry(added: meta.RuleInfo) -> None:
    assert prefilter.Prefilter({}).keeps("lib.rs", RISKY.encode())
    assert b"frobnicate" in prefilter.group_words()


@pytest.mark.parametrize("jobs", [1, 2])
def test_check_sees_an_added_rule(tmp_path: Path, added: meta.RuleInfo, jobs: int) -> None:
    # 300 files of ~3 KB: above the size at which check uses worker processes
    root = crate(tmp_path / "app", 300)
    assert sum(p.stat().st_size for p in root.rglob("*.rs")) > batch.PARALLEL_MIN_BYTES
    result, stats = batch.run_check([root], jobs=jobs)
    assert rules_of(result) == [("risky.rs", added.id)]
    assert stats.candidates == 1  # the prefilter kept the one file that names the rule's word
    assert rules_of(result) == rules_of(engine.check_paths([root]))


def test_the_cache_does_not_answer_from_before_the_rule(
    tmp_path: Path, rule: meta.RuleInfo
) -> None:
    root = crate(tmp_path / "app", 3)
    cache = AnalysisCache(tmp_path / "cache")
    assert batch.check_paths([root], cache=cache, jobs=1).findings == ()
    meta.add_rule(rule)
    try:
        found = batch.check_paths([root], cache=cache, jobs=1)
        assert rules_of(found) == [("risky.rs", rule.id)]
    finally:
        meta.remove_rule(rule.id)
    assert batch.check_paths([root], cache=cache, jobs=1).findings == ()


def test_the_editors_re_analysis_sees_an_added_rule(added: meta.RuleInfo) -> None:
    before = FILLER.format(i=1) + RISKY.replace("frobnicate(y)", "y")
    analysis, snapshot = function_reanalysis.analyze_full(
        before.encode(), None, settings=None, catalog=None
    )
    assert analysis.findings == () and snapshot is not None
    after = before.replace("    y\n}", "    frobnicate(y)\n}")
    edited, _, _ = function_reanalysis.analyze_edit(
        snapshot, after.encode(), None, settings=None, catalog=None
    )
    assert [f.rule for f in edited.findings] == [added.id]


def test_settings_reports_and_suppressions_know_an_added_rule(added: meta.RuleInfo) -> None:
    parsed = parse_settings({"severity": {added.id: "error"}})
    assert parsed.errors == ()
    settings: Settings = parsed.settings
    assert [f.severity for f in engine.analyze(RISKY, settings=settings).findings] == [
        Severity.ERROR
    ]
    allowed = RISKY.replace(
        "frobnicate(y)", f"// panic-lens: allow({added.id}) test\n    frobnicate(y)"
    )
    assert engine.analyze(allowed).findings == ()
    assert added.id in [rule["id"] for rule in sarif.driver()["rules"]]
