"""async-policy-load-record: forms that panic, safe patterns, messages, hovers."""

from __future__ import annotations

import pytest

from panic_lens.engine import analyze
from panic_lens.model import Severity
from panic_lens.rules import async_policy_load_record as rule
from panic_lens.rust.crate import CrateContext
from panic_lens.rust.facts import FileFacts

HEAD = "use burn::rl::{AsyncPolicy, Policy, PolicyState};\n"
RULE = "async-policy-load-record"


def rules_in(body: str, head: str = HEAD) -> list[str]:
    return [f.rule for f in analyze(head + body).findings]


@pytest.mark.parametrize(
    "body",
    [
        "fn f(b: P, r: R) { let p = AsyncPolicy::new(4, b); p.load_record(r); }",
        "fn f(b: P, r: R) { AsyncPolicy::new(4, b).load_record(r); }",
        "fn f(r: R) { let p: AsyncPolicy<P> = g(); p.load_record(r); }",
        "fn f(p: AsyncPolicy<P>, r: R) { p.load_record(r); }",
        "struct S { p: AsyncPolicy<P> } impl S { fn f(self, r: R) { self.p.load_record(r); } }",
        "fn f(p: AsyncPolicy<P>, r: R) { Policy::load_record(p, r); }",
        "fn f(p: AsyncPolicy<P>, r: R) { <AsyncPolicy<_> as Policy>::load_record(p, r); }",
        "fn f(p: AsyncPolicy<P>, r: R) { p.clone().load_record(r); }",
        "fn f(p: AsyncPolicy<P>, r: R) { let q = p; let q = q; q.load_record(r); }",
    ],
)
def test_forms_that_panic(body: str) -> None:
    assert rules_in(body) == [RULE]


@pytest.mark.parametrize(
    "body",
    [
        "fn f(b: P, r: R) { let b = b.load_record(r); let p = AsyncPolicy::new(4, b); }",
        "fn f(mut p: AsyncPolicy<P>, r: R) { p.update(p.state().load_record(r)); }",
        "fn f(m: M, r: R) { m.load_record(r); }",
        "fn f<B: Backend>(m: Model<B>, o: Optim, r: R) { m.load_record(r); o.load_record(r); }",
        "fn f(p: AsyncPolicy<P>, r: R) { let p = inner(); p.load_record(r); }",
        "fn f(p: AsyncPolicy<P>, s: State, r: R) { PolicyState::load_record(&s, r); }",
        'fn f(p: AsyncPolicy<P>, r: R) { // p.load_record(r)\n let s = "p.load_record(r)"; }',
        "fn f(p: impl Policy, r: R) { p.load_record(r); }",
        "fn f<P: Policy>(p: P, r: R) { Policy::load_record(p, r); }",
    ],
)
def test_safe_patterns_and_other_receivers(body: str) -> None:
    assert rules_in(body) == []


def test_lookalike_types_are_not_burns() -> None:
    body = "fn f(b: P, r: R) { let p = AsyncPolicy::new(4, b); p.load_record(r); }"
    assert rules_in(body, head="use governor::AsyncPolicy;\n") == []
    assert rules_in(body, head="struct AsyncPolicy;\n") == []
    assert rules_in(body, head="use burn_rl::AsyncPolicy as AsyncPolicy;\n") == [RULE]


def test_finding_range_message_evidence_and_hover() -> None:
    src = (
        HEAD + "fn f(b: P, r: R) {\n    let p = AsyncPolicy::new(4, b);\n    p.load_record(r);\n}\n"
    )
    result = analyze(src)
    (finding,) = result.findings
    line = src.splitlines()[finding.span.start.row]
    assert line[finding.span.start.col : finding.span.end.col] == "load_record"
    assert finding.severity is Severity.ERROR
    assert "AsyncPolicy::new(..) on line 3" in finding.message
    assert "Please load the record on the inner policy" in finding.message
    assert finding.evidence[0].span.start.row == 2
    flagged = [h for h in result.hovers if h.flagged]
    assert len(flagged) == 1 and "line 3" in flagged[0].facts[0]
    assert any(h.api == "burn::rl::AsyncPolicy::new" for h in result.hovers)


def test_state_load_gets_a_safe_hover_only() -> None:
    result = analyze(
        HEAD + "fn f(mut p: AsyncPolicy<P>, r: R) { p.update(p.state().load_record(r)); }"
    )
    assert result.findings == ()
    assert [h.api for h in result.hovers] == ["burn::rl::PolicyState::load_record"]


def test_v021_message_uses_the_todo_text() -> None:
    src = (HEAD + "fn f(p: AsyncPolicy<P>, r: R) { p.load_record(r); }").encode()
    facts = FileFacts.build(src, crate=CrateContext(burn_version="0.21.0"))
    findings = [f for f in rule.detect(facts) if not hasattr(f, "flagged")]
    assert "`not yet implemented`" in findings[0].message  # type: ignore[union-attr]


def test_error_on_every_backend(tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "Cargo.toml").write_text(
        '[dependencies]\nburn = { version = "0.22", features = ["ndarray"] }\n'
    )
    src = HEAD + "fn f(p: AsyncPolicy<P>, r: R) { p.load_record(r); }"
    assert [f.severity for f in analyze(src, tmp_path / "lib.rs").findings] == [Severity.ERROR]
