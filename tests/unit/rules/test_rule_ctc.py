"""ctc-target-capacity: the width threshold, every way in, severities, messages and hovers."""

from __future__ import annotations

from pathlib import Path

import pytest

from panic_lens.engine import analyze
from panic_lens.model import Finding, HoverFact, Settings, Severity
from panic_lens.rules import ctc_target_capacity as rule
from panic_lens.rust.crate import CrateContext
from panic_lens.rust.facts import FileFacts

RULE = "ctc-target-capacity"
HEAD = (
    "use burn::prelude::*;\nuse burn::tensor::module::ctc_loss;\n"
    "use burn::nn::loss::{CTCLoss, CTCLossConfig};\n"
)
WGPU = CrateContext(manifest=Path("Cargo.toml"), backends=frozenset({"wgpu"}))


def found(body: str, head: str = HEAD) -> list[int]:
    """1-based lines of this rule's findings in `head + body` (no Cargo.toml: warnings)."""
    return [f.span.start.row + 1 for f in analyze(head + body).findings if f.rule == RULE]


def detect(body: str, crate: CrateContext = WGPU, settings: Settings | None = None) -> list:
    facts = FileFacts.build((HEAD + body).encode(), "src/lib.rs", crate=crate, settings=settings)
    return list(rule.detect(facts))


def call(targets: str) -> str:
    return f"fn f(lp: Tensor<3>, d: &Device) {{ let t = {targets}; ctc_loss(lp, t, a, b, 0); }}"


@pytest.mark.parametrize(
    ("width", "flagged"), [(64, False), (4095, False), (4096, True), (4097, True), (100_000, True)]
)
def test_threshold_is_2s_plus_1_over_8192(width: int, flagged: bool) -> None:
    lines = found(call(f"Tensor::<2, Int>::zeros([2, {width}], d)"))
    assert lines == ([4] if flagged else [])


@pytest.mark.parametrize(
    "body",
    [
        call("Tensor::<2, Int>::ones([2, 5000], d)"),
        call("Tensor::<B, 2, Int>::full([2, 5000], 1, d)"),
        call("labels.reshape([2, 5000])"),
        call("Tensor::<2, Int>::from_data([[0; 5000]; 2], d)"),
        "fn f(lp: Tensor<3>, d: &Device) { "
        "ctc_loss::<B>(lp, Tensor::<B, 2, Int>::zeros([2, 5000], d), a, b, 0); }",
        "fn f(lp: Tensor<3>, d: &Device) { let t = Tensor::<2, Int>::zeros([2, 5000], d); "
        "CTCLossConfig::new().init().forward(lp, t, a, b); }",
        "fn f(l: &CTCLoss, lp: Tensor<3>, d: &Device) { "
        "let t = Tensor::<2, Int>::zeros([2, 5000], d); "
        "l.forward_with_reduction(lp, t, a, b, r); }",
        "fn f<B: Backend>(lp: P, d: &Device) { let t = Tensor::<B, 2, Int>::zeros([2, 5000], d); "
        "B::ctc_loss(lp, t.into_primitive(), a, b, 0); }",
    ],
)
def test_every_way_in_is_flagged(body: str) -> None:
    assert found(body) == [4]


@pytest.mark.parametrize(
    "body",
    [
        call("batch.targets"),
        call("Tensor::<2, Int>::zeros([2, max_len], d)"),
        call("Tensor::<2, Int>::zeros([5000, 2], d)"),  # N is wide, S is not
        call("Tensor::<1, Int>::zeros([5000], d)"),  # not a [N, S] tensor
        "fn f(lp: Tensor<3>, t: Tensor<2, Int>) { ctc_loss(lp, t, a, b, 0); }",
        "fn f(x: Scorer, d: &Device) { let t = Tensor::<2, Int>::zeros([2, 5000], d); "
        "x.forward(lp, t, a, b); }",
        "mod m { fn ctc_loss(a: u8, t: [[u8; 5000]; 2]) {} "
        "fn g() { ctc_loss(1, [[0; 5000]; 2]); } }",
        "fn f<D: Decoder>(d: &Device) { let t = Tensor::<2, Int>::zeros([2, 5000], d); "
        "D::ctc_loss(lp, t, a, b, 0); }",
    ],
)
def test_unknown_widths_and_other_functions_are_quiet(body: str) -> None:
    assert found(body) == []


def test_not_burns_when_imported_from_elsewhere() -> None:
    head = "use speech::ctc_loss;\n\n\n"
    assert found(call("Tensor::<2, Int>::zeros([2, 5000], d)"), head=head) == []


@pytest.mark.parametrize(
    ("crate", "severity"),
    [
        (WGPU, Severity.ERROR),
        (CrateContext(manifest=Path("Cargo.toml"), backends=frozenset({"cpu"})), Severity.ERROR),
        (CrateContext(), Severity.WARNING),  # no Cargo.toml found
        (
            CrateContext(
                manifest=Path("Cargo.toml"),
                backends=frozenset({"flex"}),
                optional_backends=frozenset({"cuda"}),
            ),
            Severity.WARNING,
        ),
        (CrateContext(manifest=Path("Cargo.toml"), backends=frozenset({"ndarray"})), Severity.HINT),
        (CrateContext(manifest=Path("Cargo.toml"), backends=frozenset({"tch"})), Severity.HINT),
        (CrateContext(manifest=Path("Cargo.toml")), Severity.HINT),
    ],
)
def test_severity_follows_the_backends(crate: CrateContext, severity: Severity) -> None:
    results = detect(call("Tensor::<2, Int>::zeros([2, 4096], d)"), crate)
    (finding,) = [r for r in results if isinstance(r, Finding)]
    assert finding.severity is severity


def test_message_evidence_and_hover() -> None:
    body = "const W: usize = 5_000;\n" + call("Tensor::<2, Int>::zeros([2, W], d)")
    results = detect(body)
    (finding,) = [r for r in results if isinstance(r, Finding)]
    (hover,) = [r for r in results if isinstance(r, HoverFact)]
    assert "S = 5000" in finding.message and "10001" in finding.message
    assert "8192" in finding.message and "const W, line 4" in finding.message
    assert "wgpu" in finding.message
    assert [e.span.start.row + 1 for e in finding.evidence] == [4, 5]
    assert hover.flagged and hover.api == "burn::tensor::module::ctc_loss"
    assert hover.facts == finding.facts and any("4095" in f for f in hover.facts)
    text = (HEAD + body).encode()
    name = text[finding.span.start_byte : finding.span.end_byte]
    assert name == b"ctc_loss"  # the range is the called function's name
    assert finding.fixes == ()  # the right width depends on the data: no machine edit


def test_hover_for_calls_that_are_fine() -> None:
    results = detect(call("Tensor::<2, Int>::zeros([2, 64], d)") + call("batch.targets"))
    assert all(isinstance(r, HoverFact) and not r.flagged for r in results)
    assert [r.facts[0] for r in results] == [
        "targets width 64 (line 4), within the 4095 limit",
        "targets width not known statically (computed at run time or passed in)",
    ]


def test_capacity_setting() -> None:
    body = call("Tensor::<2, Int>::zeros([2, 600], d)")
    assert [r for r in detect(body) if isinstance(r, Finding)] == []
    small = Settings(ctc_capacity=1025)
    (finding,) = [r for r in detect(body, settings=small) if isinstance(r, Finding)]
    assert "1201" in finding.message and "1025" in finding.message


def test_const_from_another_file_of_the_crate(tmp_path: Path) -> None:
    (tmp_path / "Cargo.toml").write_text(
        '[package]\nname = "a"\nversion = "0.1.0"\n\n[dependencies]\n'
        'burn = { version = "0.22.0-pre.2", features = ["rocm"] }\n'
    )
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "limits.rs").write_text("pub const LABELS: usize = 4096;\n")
    main = tmp_path / "src" / "lib.rs"
    main.write_text(
        HEAD
        + "mod limits;\nuse limits::LABELS;\n"
        + call("Tensor::<2, Int>::zeros([2, LABELS], d)")
    )
    (finding,) = [f for f in analyze(main.read_bytes(), main).findings if f.rule == RULE]
    assert finding.severity is Severity.ERROR and "limits.rs:1" in finding.message
    assert finding.evidence[0].path == str(tmp_path / "src" / "limits.rs")
