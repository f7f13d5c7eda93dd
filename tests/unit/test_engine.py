"""engine: rules run under settings, failures become notes, suppressions and binary files."""

from __future__ import annotations

import time
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType

import pytest

from panic_lens import engine
from panic_lens.model import Finding, HoverFact, Settings, Severity
from panic_lens.rules.meta import SUPPRESSION_RULE, rule_by_id
from panic_lens.rust.facts import FileFacts
from panic_lens.rust.syntax import span_of
from panic_lens.settings import parse_settings

RULE = "async-policy-load-record"


def fake_rule(rule: str, detect) -> ModuleType:  # type: ignore[no-untyped-def]
    module = ModuleType(f"fake_{rule}")
    module.INFO = rule_by_id(rule)  # type: ignore[attr-defined]
    module.detect = detect  # type: ignore[attr-defined]
    return module


def flag_calls_named(name: str, rule: str = RULE):  # type: ignore[no-untyped-def]
    def detect(facts: FileFacts) -> Iterable[Finding | HoverFact]:
        for site in facts.calls():
            if site.name == name:
                span = span_of(site.name_node)
                yield HoverFact(rule, span, name, ("seen",))
                yield Finding(rule, span, Severity.ERROR, f"{name} called")

    return fake_rule(rule, detect)


@pytest.fixture
def rules(monkeypatch: pytest.MonkeyPatch) -> list[ModuleType]:
    installed: list[ModuleType] = []
    monkeypatch.setattr(
        engine, "rule_detectors", lambda: tuple((m.INFO, m.detect) for m in installed)
    )
    return installed


def test_findings_hovers_severity_override_and_path(rules: list[ModuleType]) -> None:
    rules.append(flag_calls_named("boom"))
    settings = parse_settings({"severity": {RULE: "warning"}}).settings
    result = engine.analyze("fn f() { boom(); }", "a.rs", settings=settings)
    assert [(f.rule, f.severity, f.path) for f in result.findings] == [
        (RULE, Severity.WARNING, "a.rs")
    ]
    assert [h.api for h in result.hovers] == ["boom"]


def test_rule_turned_off_does_not_run(rules: list[ModuleType]) -> None:
    rules.append(flag_calls_named("boom"))
    settings = parse_settings({"severity": {RULE: "off"}}).settings
    assert engine.analyze("fn f() { boom(); }", settings=settings).findings == ()


def test_a_failing_rule_becomes_a_note_and_others_still_run(rules: list[ModuleType]) -> None:
    def broken(facts: FileFacts) -> Iterable[Finding]:
        raise RuntimeError("kaput")

    rules.extend([fake_rule("ctc-target-capacity", broken), flag_calls_named("boom")])
    result = engine.analyze("fn f() { boom(); }")
    assert [f.rule for f in result.findings] == [RULE]
    assert any("ctc-target-capacity failed" in n and "kaput" in n for n in result.notes)


def test_records_come_from_the_catalog(rules: list[ModuleType]) -> None:
    class OneRecord:
        def record_ids_for_rule(self, rule: str) -> tuple[str, ...]:
            return ("rec-1",) if rule == RULE else ()

    rules.append(flag_calls_named("boom"))
    result = engine.analyze("fn f() { boom(); }", catalog=OneRecord())  # type: ignore[arg-type]
    assert result.findings[0].records == ("rec-1",)


def test_suppression_with_reason_silences(rules: list[ModuleType]) -> None:
    rules.append(flag_calls_named("boom"))
    src = (
        f"fn f() {{\n    // panic-lens: allow({RULE}) loaded on the inner policy\n    boom();\n}}\n"
    )
    assert engine.analyze(src).findings == ()


def test_suppression_without_reason_silences_with_a_hint(rules: list[ModuleType]) -> None:
    rules.append(flag_calls_named("boom"))
    result = engine.analyze(f"fn f() {{ boom(); // panic-lens: allow({RULE})\n}}")
    assert [(f.rule, f.severity) for f in result.findings] == [(SUPPRESSION_RULE, Severity.HINT)]
    assert "reason" in result.findings[0].message


def test_unused_and_unknown_suppressions_give_hints(rules: list[ModuleType]) -> None:
    rules.append(flag_calls_named("boom"))
    src = f"// panic-lens: allow({RULE}, no-such-rule) just because\nfn f() {{ fine(); }}\n"
    messages = sorted(f.message.split(":")[0] for f in engine.analyze(src).findings)
    assert len(messages) == 2
    assert any("unknown rule id `no-such-rule`" in f.message for f in engine.analyze(src).findings)
    assert any("unused suppression" in f.message for f in engine.analyze(src).findings)


def test_suppression_text_in_a_string_is_not_a_comment(rules: list[ModuleType]) -> None:
    rules.append(flag_calls_named("boom"))
    src = f'fn f() {{ let s = "// panic-lens: allow({RULE}) x"; boom(); }}'
    assert [f.rule for f in engine.analyze(src).findings] == [RULE]


def test_oversized_text_is_skipped_with_a_note(rules: list[ModuleType]) -> None:
    rules.append(flag_calls_named("boom"))
    src = "fn f() { boom(); }\n" + "// padding\n" * (engine.MAX_FILE_BYTES // 10)
    result = engine.analyze(src, "huge.rs")
    assert result.findings == () and "MB limit" in result.notes[0]


def test_binary_text_is_skipped_with_a_note(rules: list[ModuleType]) -> None:
    result = engine.analyze(b"\x00\x01ELF", "blob.rs")
    assert result.findings == () and "skipped" in result.notes[0]


def test_manifest_metadata_sets_severity_and_explicit_settings_win(
    rules: list[ModuleType], tmp_path: Path
) -> None:
    rules.append(flag_calls_named("boom"))
    (tmp_path / "Cargo.toml").write_text(
        f'[package]\nname = "x"\n[package.metadata.panic-lens]\n'
        f'severity = {{ "{RULE}" = "hint" }}\n'
    )
    src = tmp_path / "lib.rs"
    assert engine.analyze("fn f() { boom(); }", src).findings[0].severity is Severity.HINT
    explicit = parse_settings({"severity": {RULE: "warning"}}).settings
    got = engine.analyze("fn f() { boom(); }", src, settings=explicit)
    assert got.findings[0].severity is Severity.WARNING
    assert engine.layered_settings({}, Settings()) == Settings()


def test_check_paths_reports_missing_paths_and_counts_files(tmp_path: Path) -> None:
    (tmp_path / "a.rs").write_text("fn main() {}\n")
    (tmp_path / "target").mkdir()
    (tmp_path / "target" / "b.rs").write_text("fn main() {}\n")
    result = engine.check_paths([tmp_path, tmp_path / "missing"])
    assert result.files == 1 and [e.reason for e in result.errors] == ["no such file or directory"]


@pytest.mark.parametrize(
    "body",
    [
        "let x = " + "(" * 10_000 + "p.load_record(r)" + ")" * 10_000 + ";",
        "let p = AsyncPolicy::new(1, b)" + ".clone()" * 10_000 + "; p.load_record(r);",
        "g(" * 10_000 + "x" + ")" * 10_000 + ";",
        "let x = " + " + ".join(["1"] * 10_000) + "; ctc_loss(a, x);",
    ],
    ids=["parens", "method-chain", "nested-calls", "long-sum"],
)
def test_ten_thousand_deep_expressions_run_every_real_rule(body: str) -> None:
    # Climbing parents one by one is quadratic in tree-sitter; this would take minutes.
    started = time.monotonic()
    result = engine.analyze("use burn::rl::AsyncPolicy;\nfn f(b: B) { " + body + " }")
    assert not any("failed" in n for n in result.notes), result.notes
    assert time.monotonic() - started < 20


def test_doc_comments_and_prose_are_not_suppressions(rules: list[ModuleType]) -> None:
    rules.append(flag_calls_named("boom"))
    src = (
        f"/// panic-lens: allow({RULE}) documented syntax\n"
        f"fn f() {{ boom(); }}\n"
        f"// see panic-lens: allow({RULE}) for details\n"
        f"fn g() {{ boom(); }}\n"
    )
    assert [f.rule for f in engine.analyze(src).findings] == [RULE, RULE]


def test_bad_manifest_settings_become_notes_and_defaults_apply(
    rules: list[ModuleType], tmp_path: Path
) -> None:
    rules.append(flag_calls_named("boom"))
    (tmp_path / "Cargo.toml").write_text(
        f'[package]\nname = "x"\n[package.metadata.panic-lens]\n'
        f'severity = {{ "{RULE}" = "loud" }}\n'
    )
    result = engine.analyze("fn f() { boom(); }", tmp_path / "lib.rs")
    assert [f.severity for f in result.findings] == [Severity.ERROR]
    assert any("metadata.panic-lens" in n and "loud" in n for n in result.notes)


def test_only_the_rules_in_the_language_with_a_call_in_the_text_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`rules_with_sites` names the rules in the language whose calls the text makes; the
    engine runs only those of the language (the others could find nothing), and the analysis
    is the one every rule gives."""
    from panic_lens.rules.language import call_sites
    from panic_lens.rules.meta import rules

    src = (
        "use burn::prelude::*;\nfn f(x: Tensor<B, 3>) {\n"
        "    let _ = x.clone().permute([0, 0, 1]);\n    let _ = x.squeeze_dim::<2>(0);\n}\n"
    )
    live = call_sites.rules_with_sites(FileFacts.build(src.encode(), "src/lib.rs"))
    assert {"permute-duplicate-axes", "squeeze-dim-not-one"} <= live
    assert "conv-groups-divide-channels" not in live
    gated = engine.analyze(src, "src/lib.rs")
    every = frozenset(info.id for info in rules())
    monkeypatch.setattr(call_sites, "rules_with_sites", lambda facts: every)
    assert engine.analyze(src, "src/lib.rs") == gated
    assert any(f.rule == "permute-duplicate-axes" for f in gated.findings)
