"""interpolate-backward-mode: both enums, training signals, severities, hovers and the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from panic_lens.engine import analyze
from panic_lens.model import Finding, HoverFact, Severity
from panic_lens.rules import interpolate_backward_mode as rule
from panic_lens.rust.crate import CrateContext
from panic_lens.rust.edits import apply_edits
from panic_lens.rust.facts import FileFacts
from panic_lens.rust.syntax import has_error, parse

RULE = "interpolate-backward-mode"
HEAD = (
    "use burn::prelude::*;\n"
    "use burn::tensor::module::interpolate;\n"
    "use burn::tensor::ops::{InterpolateMode, InterpolateOptions};\n"
    "use burn::nn::interpolate::{Interpolate1dConfig, Interpolate2dConfig};\n"
    "use burn::nn::interpolate::InterpolateMode as Nn;\n"
)
TRAINS = "fn train(l: Tensor<1>) { l.backward(); }\n"
WGPU_TRAIN = CrateContext(
    manifest=Path("Cargo.toml"), backends=frozenset({"wgpu"}), features=frozenset({"train"})
)


def ops(mode: str) -> str:
    return f"fn f(x: Tensor<4>) {{ interpolate(x, [8, 8], InterpolateOptions::new({mode})); }}\n"


def nn(mode: str, config: str = "Interpolate2dConfig") -> str:
    return f"fn g() {{ let c = {config}::new().with_mode({mode}).init(); }}\n"


def findings(body: str, head: str = HEAD) -> list[Finding]:
    return [f for f in analyze(head + body).findings if f.rule == RULE]


def detect(body: str, crate: CrateContext = WGPU_TRAIN) -> list[Finding | HoverFact]:
    facts = FileFacts.build((HEAD + body).encode(), "src/lib.rs", crate=crate)
    return list(rule.detect(facts))


@pytest.mark.parametrize(
    "body",
    [
        ops("InterpolateMode::Bilinear"),
        ops("InterpolateMode::Bicubic"),
        ops("InterpolateMode::Lanczos3"),
        ops("burn::tensor::ops::InterpolateMode::Bicubic"),
        "fn f(x: Tensor<4>) { let m = InterpolateMode::Bilinear; let o = "
        "InterpolateOptions::new(m).with_align_corners(true); interpolate(x, [8, 8], o); }\n",
        nn("Nn::Linear"),
        nn("Nn::Cubic", "Interpolate1dConfig"),
        nn("Nn::Lanczos"),
        "fn f(x: Tensor<4>) { let m = Nn::Linear; "
        "interpolate(x, [8, 8], InterpolateOptions::new(m.into())); }\n",
    ],
)
def test_smooth_modes_in_training_code(body: str) -> None:
    (finding,) = findings(body + TRAINS)
    assert finding.severity is Severity.WARNING  # no Cargo.toml: the backend is unknown


@pytest.mark.parametrize(
    "body",
    [
        ops("InterpolateMode::Nearest"),
        ops("InterpolateMode::NearestExact"),
        nn("Nn::Nearest"),
        nn("Nn::NearestExact"),
        "fn g() { let c = Interpolate2dConfig::new().init(); }\n",  # default: Nearest
        "fn f(x: Tensor<4>, m: InterpolateMode) { "
        "interpolate(x, [8, 8], InterpolateOptions::new(m)); }\n",
        "fn g() { Interpolate2dConfig::new().with_mode(Nn::Cubic).with_mode(Nn::Nearest); }\n",
    ],
)
def test_nearest_unknown_and_overridden_modes_are_quiet(body: str) -> None:
    assert findings(body + TRAINS) == []


def test_lookalike_enums_and_functions() -> None:
    head = (
        "enum InterpolateMode { Bilinear }\nstruct InterpolateOptions;\n"
        "fn interpolate(x: u8, s: [usize; 2], o: InterpolateOptions) {}\n\n"
    )
    body = (
        "fn f(x: u8) { "
        "interpolate(x, [8, 8], InterpolateOptions::new(InterpolateMode::Bilinear)); }\n"
    )
    assert findings(body + TRAINS, head=head) == []
    other = (
        "use image::InterpolateMode;\n"
        "use burn::tensor::{module::interpolate, ops::InterpolateOptions};\n\n\n\n"
    )
    assert findings(ops("InterpolateMode::Bilinear") + TRAINS, head=other) == []


def test_forward_only_code_is_a_hint() -> None:
    no_train = CrateContext(manifest=Path("Cargo.toml"), backends=frozenset({"wgpu"}))
    results = detect(ops("InterpolateMode::Bilinear"), no_train)
    (finding,) = [r for r in results if isinstance(r, Finding)]
    assert finding.severity is Severity.HINT and "no training signal" in finding.message


@pytest.mark.parametrize(
    ("backends", "mode", "severity"),
    [
        ({"wgpu"}, "Bilinear", Severity.ERROR),
        ({"cpu"}, "Lanczos3", Severity.ERROR),
        ({"flex"}, "Bilinear", Severity.HINT),  # flex has a bilinear backward
        ({"flex"}, "Lanczos3", Severity.WARNING),
        ({"ndarray"}, "Bicubic", Severity.WARNING),
        ({"tch"}, "Bicubic", Severity.HINT),
        (set(), "Bilinear", Severity.WARNING),  # default backend; BURN_DEVICE may pick cubecl
    ],
)
def test_severity_follows_backends(backends: set[str], mode: str, severity: Severity) -> None:
    crate = CrateContext(
        manifest=Path("Cargo.toml"), backends=frozenset(backends), features=frozenset({"train"})
    )
    results = detect(ops(f"InterpolateMode::{mode}"), crate)
    (finding,) = [r for r in results if isinstance(r, Finding)]
    assert finding.severity is severity


def test_function_signal_is_named_in_message_and_evidence() -> None:
    crate = CrateContext(manifest=Path("Cargo.toml"), backends=frozenset({"metal"}))
    body = (
        "fn f(x: Tensor<4>) {\n    let x = x.require_grad();\n"
        "    interpolate(x, [8, 8], InterpolateOptions::new(InterpolateMode::Bicubic));\n}\n"
    )
    results = detect(body, crate)
    (finding,) = [r for r in results if isinstance(r, Finding)]
    (hover,) = [r for r in results if isinstance(r, HoverFact)]
    assert finding.severity is Severity.ERROR
    assert "`.require_grad()` on line 7" in finding.message and "metal" in finding.message
    assert [e.span.start.row + 1 for e in finding.evidence] == [8, 7]
    assert hover.flagged and hover.facts == finding.facts


def test_hovers_for_every_call() -> None:
    results = detect(ops("InterpolateMode::Nearest") + nn("Nn::NearestExact"))
    assert [type(r) for r in results] == [HoverFact, HoverFact]
    assert results[0].facts == (
        "mode InterpolateMode::Nearest: backward supported on every cubecl backend",
    )  # type: ignore[union-attr]
    assert results[1].api == "burn::nn::interpolate::Interpolate2dConfig::with_mode"  # type: ignore[union-attr]


FIX_CASES = {
    "ops-inline": ops("InterpolateMode::Bilinear"),
    "ops-full-path": ops("burn::tensor::ops::InterpolateMode::Lanczos3"),
    "ops-let": "fn f(x: Tensor<4>) {\n    let mode = InterpolateMode::Bicubic;\n"
    "    interpolate(x, [8, 8], InterpolateOptions::new(mode));\n}\n",
    "nn-chain": "fn g() {\n    let c = Interpolate2dConfig::new()\n"
    "        .with_output_size(Some([4, 4]))\n"
    "        .with_mode(Nn::Linear)\n        .init();\n}\n",
    "nn-1d": nn("Nn::Cubic", "Interpolate1dConfig"),
    "nn-into": "fn f(x: Tensor<4>) { let m = Nn::Lanczos; "
    "interpolate(x, [8, 8], InterpolateOptions::new(m.into())); }\n",
}


@pytest.mark.parametrize("name", sorted(FIX_CASES))
def test_fix_parses_and_removes_the_finding(name: str) -> None:
    src = HEAD + FIX_CASES[name] + TRAINS
    (finding,) = findings(FIX_CASES[name] + TRAINS)
    (fix,) = finding.fixes
    assert fix.behavior_change and "changes results" in fix.title and not fix.preferred
    fixed = apply_edits(src.encode(), fix.edits)
    assert not has_error(parse(fixed)), fixed.decode()
    assert findings(fixed.decode()[len(HEAD) :]) == [], fixed.decode()
    assert b"Nearest" in fixed


def test_module_hovers_default_mode_and_forward() -> None:
    body = (
        "fn f(x: Tensor<4>) {\n"
        "    let up = Interpolate2dConfig::new().with_mode(Nn::Cubic).init();\n"
        "    let y = up.forward(x.clone());\n"
        "    let plain = Interpolate1dConfig::new().init();\n"
        "}\n"
    )
    hovers = {
        (r.span.start.row + 1, r.api): r.facts for r in detect(body) if isinstance(r, HoverFact)
    }
    forward = hovers[(8, "burn::nn::interpolate::Interpolate2d::forward")]
    assert forward[0] == "Interpolate2d from Interpolate2dConfig::new(..) on line 7, then .init()"
    assert (
        forward[1]
        == "mode InterpolateMode::Cubic (Bicubic, set on line 7): no backward kernel on cubecl"
    )
    (default,) = hovers[(9, "burn::nn::interpolate::Interpolate1dConfig::new")]
    assert default.startswith("mode defaults to Nearest")
    assert (7, "burn::nn::interpolate::Interpolate2dConfig::new") not in hovers  # with_mode follows
