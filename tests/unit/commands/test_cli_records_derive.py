"""`panic-lens records derive` and the coverage part of `records check`, over a small
burn-like guards index (the shipped one is measured in tests/unit/catalog)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from records_factory import record

from panic_lens.catalog import derive as D
from panic_lens.cli import main
from panic_lens.rules.language import api
from panic_lens.rules.language.spec import parse_rule
from panic_lens.rust.burn_guards import build_guards

FILES = {
    "Cargo.toml": b'[workspace.package]\nversion = "0.9.0"\n',
    "crates/burn-train/Cargo.toml": b'[package]\nname = "burn-train"\n',
    "crates/burn-train/src/lib.rs": b"mod score;\npub use score::*;\n",
    "crates/burn-train/src/score.rs": b"""
pub struct Score;
impl Score {
    pub fn with_order(order: usize) -> Self {
        assert!(order >= 1, "order must be at least 1");
        Score
    }
    pub fn opaque(order: usize) -> Self {
        assert!(order < LIMIT, "order above the limit");
        Score
    }
}
""",
}


@pytest.fixture
def guards(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    for rel, text in FILES.items():
        path = tmp_path / "burn" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text)
    built = build_guards(tmp_path / "burn")
    monkeypatch.setattr(D.outcomes, "shipped_guards", lambda: built)
    monkeypatch.setattr(api, "known_api", lambda: api.api_of(built))  # what rules may call
    monkeypatch.setenv("PANIC_LENS_NO_CACHE", "1")
    return built


def score(rid: str, line: int, message: str) -> dict[str, Any]:
    return record(
        rid, filePath="crates/burn-train/src/score.rs", lineNumber=line,
        errorMessage=message, messagePattern=message,
    )  # fmt: skip


def test_records_derive_prints_a_rule_file(
    capsys: pytest.CaptureFixture[str], guards: dict[str, Any], write_records: Callable[..., Path]
) -> None:
    path = write_records("order.json", score("aa11", 5, "order must be at least 1"))
    assert main(["records", "derive", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# derived from record aa11 (burn crates/burn-train/src/score.rs:5)")
    spec = parse_rule(out.encode(), "printed")
    assert spec.id == "derived-score-with-order-least" and spec.derived_from == "aa11"
    assert [w.call for w in spec.wheres] == ["burn::train::Score::with_order"]
    assert spec.condition is not None and "order >= 1" in spec.condition


def test_records_derive_says_why_not(
    capsys: pytest.CaptureFixture[str], guards: dict[str, Any], write_records: Callable[..., Path]
) -> None:
    path = write_records("limit.json", score("bb22", 9, "order above the limit"))
    assert main(["records", "derive", str(path)]) == 0
    out = capsys.readouterr().out
    assert "not derived (guard construct not understood)" in out
    assert "the constant `LIMIT`" in out
    assert main(["records", "derive", "no-such-id"]) == 2
    assert "no record with that id" in capsys.readouterr().out


def test_records_check_shows_what_checks_each_record(
    capsys: pytest.CaptureFixture[str], guards: dict[str, Any], write_records: Callable[..., Path]
) -> None:
    write_records("r/order.json", score("aa11", 5, "order must be at least 1"))
    write_records("r/limit.json", score("bb22", 9, "order above the limit"))
    path = write_records("r/other.json", score("cc33", 3, "nothing like this"))
    assert main(["records", "check", str(path.parent)]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: line.split()[1] for line in out.split("checks (")[1].splitlines()[1:4]}
    assert rows == {"aa11": "derived", "bb22": "none", "cc33": "none"}
    assert "site not found" in out and "the constant `LIMIT`" in out
    assert "0 hand-written, 1 derived, 2 none" in out


def test_records_derive_even_if_covered(
    capsys: pytest.CaptureFixture[str], guards: dict[str, Any], write_records: Callable[..., Path]
) -> None:
    from panic_lens.rules import meta
    from panic_lens.rules.language.spec import BurnSite

    hand = meta.RuleInfo(
        id="hand-order", title="t", summary="s", apis=(), default_severity=meta.Severity.ERROR,
        module=meta.LANGUAGE_DETECTOR,
        panic_sites=(BurnSite("crates/burn-train/src/score.rs", "order >= 1", "order must be"),),
    )  # fmt: skip
    meta.add_rule(hand)
    try:
        path = write_records("order.json", score("aa11", 5, "order must be at least 1"))
        assert main(["records", "derive", str(path)]) == 0
        assert "covered by the rule hand-order" in capsys.readouterr().out
        assert main(["records", "derive", "--even-if-covered", str(path)]) == 0
        assert 'derived_from = "aa11"' in capsys.readouterr().out
    finally:
        meta.remove_rule("hand-order")
