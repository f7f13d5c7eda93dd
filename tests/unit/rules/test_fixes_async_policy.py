"""async-policy-load-record fixes: every edit re-parses cleanly and removes the finding."""

from __future__ import annotations

from pathlib import Path

import pytest

from panic_lens.engine import analyze
from panic_lens.rust.edits import apply_edits
from panic_lens.rust.syntax import has_error, parse

RULE = "async-policy-load-record"
HEAD = "use burn::rl::{AsyncPolicy, Policy};\n\n"

CASES = {
    "closure-parameter": """\
fn f(r: R) {
    let apply = |p: AsyncPolicy<P>| {
        p.load_record(r);
    };
}
""",
    "let-then-load": """\
fn f(base: P, r: R) {
    let p = AsyncPolicy::new(4, base);
    let p = p.load_record(r);
    run(p);
}
""",
    "load-statement": """\
fn f(base: P, r: R) {
    let p = AsyncPolicy::new(4, base);
    p.load_record(r);
}
""",
    "load-in-expression": """\
fn f(base: P, r: R) -> AsyncPolicy<P> {
    let p = AsyncPolicy::new(4, base);
    keep(p.load_record(r))
}
""",
    "chained": """\
fn f(base: P, r: R) -> AsyncPolicy<P> {
    AsyncPolicy::new(4, base).load_record(r)
}
""",
    "parameter": """\
fn f(p: AsyncPolicy<P>, r: R) {
    p.load_record(r);
}
""",
    "reassign": """\
fn f(mut p: AsyncPolicy<P>, r: R) {
    p = p.load_record(r);
    run(p);
}
""",
    "ufcs": """\
fn f(p: AsyncPolicy<P>, r: R) -> AsyncPolicy<P> {
    Policy::load_record(p, r)
}
""",
    "qualified": """\
fn f(p: AsyncPolicy<P>, r: R) -> AsyncPolicy<P> {
    <AsyncPolicy<P> as Policy>::load_record(p, r)
}
""",
    "field": """\
struct A<P> { p: AsyncPolicy<P> }
impl<P> A<P> {
    fn f(self, r: R) -> AsyncPolicy<P> {
        self.p.load_record(r)
    }
}
""",
    "used-between": """\
fn f(base: P, r: R) {
    let p = AsyncPolicy::new(4, base);
    act(&p);
    let p = p.load_record(r);
}
""",
    "record-made-after-wrap": """\
fn f(base: P) {
    let p = AsyncPolicy::new(4, base);
    let r = read();
    let p = p.load_record(r);
}
""",
    "in-mod": """\
mod m {
    use burn::rl::{AsyncPolicy, Policy};
    fn f(p: AsyncPolicy<P>, r: R) {
        p.load_record(r);
    }
}
""",
}


def flagged(src: str) -> list[object]:
    return [f for f in analyze(src).findings if f.rule == RULE]


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_fix_parses_and_removes_the_finding(name: str) -> None:
    src = (HEAD if name != "in-mod" else "") + CASES[name]
    (finding,) = flagged(src)
    assert finding.fixes, "a correct fix exists for every case here"  # type: ignore[attr-defined]
    for fix in finding.fixes:  # type: ignore[attr-defined]
        fixed = apply_edits(src.encode(), fix.edits)
        assert not has_error(parse(fixed)), (fix.id, fixed.decode())
        assert flagged(fixed.decode()) == [], (fix.id, fixed.decode())


def test_preload_is_preferred_and_reads_naturally() -> None:
    src = HEAD + CASES["let-then-load"]
    (finding,) = flagged(src)
    fix = finding.fixes[0]  # type: ignore[attr-defined]
    assert fix.id == "async-policy-preload" and fix.preferred and not fix.behavior_change
    fixed = apply_edits(src.encode(), fix.edits).decode()
    assert (
        "    let base = base.load_record(r);\n    let p = AsyncPolicy::new(4, base);\n    run(p);"
        in fixed
    )


def test_chained_form_loads_inside_the_constructor_call() -> None:
    src = HEAD + CASES["chained"]
    fix = flagged(src)[0].fixes[0]  # type: ignore[attr-defined]
    assert (
        "AsyncPolicy::new(4, base.load_record(r))" in apply_edits(src.encode(), fix.edits).decode()
    )


def test_no_preload_when_the_policy_is_used_before_the_load_or_the_record_comes_later() -> None:
    for name in ("used-between", "record-made-after-wrap"):
        ids = [f.id for f in flagged(HEAD + CASES[name])[0].fixes]  # type: ignore[attr-defined]
        assert ids == ["async-policy-update-state"], name


def test_state_fix_adds_mut_and_the_policy_state_import() -> None:
    src = HEAD + CASES["parameter"]
    (fix,) = flagged(src)[0].fixes  # type: ignore[attr-defined]
    fixed = apply_edits(src.encode(), fix.edits).decode()
    assert "use burn::rl::PolicyState;" in fixed
    assert "fn f(mut p: AsyncPolicy<P>, r: R) {\n    p.update(p.state().load_record(r));" in fixed


def test_state_fix_in_an_expression_keeps_the_value() -> None:
    src = HEAD + CASES["ufcs"]
    (fix,) = flagged(src)[0].fixes  # type: ignore[attr-defined]
    fixed = apply_edits(src.encode(), fix.edits).decode()
    assert "{ let mut policy = p; policy.update(policy.state().load_record(r)); policy }" in fixed


def test_ufcs_through_a_full_path_gets_no_method_syntax_fix() -> None:
    src = "fn f(p: burn::rl::AsyncPolicy<P>, r: R) -> X { burn::rl::Policy::load_record(p, r) }\n"
    (finding,) = flagged(src)
    assert finding.fixes == ()  # type: ignore[attr-defined]


GOLDEN = Path(__file__).resolve().parents[2] / "golden"


def golden_flagged_files() -> list[Path]:
    return sorted(
        p
        for p in GOLDEN.glob("async-policy-*/src/*.rs")
        if "async-policy-load-record" in p.read_text()
    )


@pytest.mark.parametrize(
    "path", golden_flagged_files(), ids=lambda p: f"{p.parent.parent.name}/{p.name}"
)
def test_every_fix_in_the_golden_files_removes_exactly_its_finding(path: Path) -> None:
    src = path.read_bytes()
    findings = [f for f in analyze(src, path).findings if f.rule == RULE]
    assert findings
    for finding in findings:
        for fix in finding.fixes:
            fixed = apply_edits(src, fix.edits)
            assert not has_error(parse(fixed)), (fix.id, finding.span.start.row)
            after = [f for f in analyze(fixed, path).findings if f.rule == RULE]
            assert len(after) == len(findings) - 1, (fix.id, finding.span.start.row)


@pytest.mark.parametrize("name", ["let-then-load", "parameter", "chained"])
def test_a_half_typed_line_in_another_function_keeps_the_fixes(name: str) -> None:
    """Fixes are judged where they edit: a syntax error elsewhere does not hide them, and each
    still parses once that other function is finished."""
    src = HEAD + CASES[name]
    clean = [f.fixes for f in flagged(src)]  # type: ignore[attr-defined]
    typing = src + "fn other() {\n    let y = x +\n}\n"
    assert has_error(parse(typing.encode()))
    (finding,) = flagged(typing)
    assert [f.fixes for f in [finding]] == clean  # type: ignore[attr-defined]
    done = typing.replace("let y = x +", "let y = x + 1;")
    for fix in finding.fixes:  # type: ignore[attr-defined]
        assert not has_error(parse(apply_edits(done.encode(), fix.edits)))


def test_a_fix_is_not_offered_when_its_own_function_does_not_parse() -> None:
    broken = "p.load_record(r);\n    let z = (;"
    src = HEAD + CASES["parameter"].replace("p.load_record(r);", broken)
    (finding,) = flagged(src)
    assert finding.fixes == ()  # type: ignore[attr-defined]
