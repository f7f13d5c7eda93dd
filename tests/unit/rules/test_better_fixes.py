"""The fixes that pick a value (issue 37, point 7): the gcd of the channel counts for a conv's
groups, the fraction for a dropout or label smoothing written as a percentage; none where the
intended value cannot be read."""

from __future__ import annotations

import pytest

from panic_lens.engine import analyze
from panic_lens.rust.edits import apply_edits

HEAD = (
    "use burn::nn::conv::{Conv1dConfig, Conv2dConfig, DeformConv2dConfig};\n"
    "use burn::nn::DropoutConfig;\n"
    "use burn::nn::loss::{BinaryCrossEntropyLossConfig, CrossEntropyLossConfig};\n"
    "use burn::nn::transformer::PositionWiseFeedForwardConfig;\n"
    "fn f(device: &burn::prelude::Device) {\n"
)


def fixed_line(line: str) -> str | None:
    """The line after its one finding's fix, or None when no fix is offered."""
    src = (HEAD + f"    {line}\n}}\n").encode()
    (finding,) = analyze(src, "lib.rs").findings
    if not finding.fixes:
        return None
    (fix,) = finding.fixes
    assert fix.behavior_change  # a value the code did not write: an unsafe fix
    return apply_edits(src, fix.edits).decode().splitlines()[5].strip()


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("Conv2dConfig::new([6, 9], [3, 3]).with_groups(4).init(device);", "with_groups(3)"),
        ("Conv2dConfig::new([64, 128], [3, 3]).with_groups(48).init(device);", "with_groups(64)"),
        ("Conv1dConfig::new(7, 5, 3).with_groups(2).init(device);", "with_groups(1)"),
        (
            "DeformConv2dConfig::new([6, 9], [3, 3]).with_weight_groups(4).init(device);",
            "with_weight_groups(3)",
        ),
        ("DropoutConfig::new(50.0).init();", "DropoutConfig::new(0.5)"),
        ("DropoutConfig::new(100.0).init();", "DropoutConfig::new(1.0)"),
        (
            "PositionWiseFeedForwardConfig::new(8, 32).with_dropout(10.0).init(device);",
            "with_dropout(0.1)",
        ),
        (
            "CrossEntropyLossConfig::new().with_smoothing(Some(10.0)).init(device);",
            "with_smoothing(Some(0.1))",
        ),
        (
            "BinaryCrossEntropyLossConfig::new().with_smoothing(Some(5.0)).init(device);",
            "with_smoothing(Some(0.05))",
        ),
    ],
)
def test_the_fix_writes_the_value_that_was_meant(line: str, expected: str) -> None:
    after = fixed_line(line)
    assert after is not None and expected in after


@pytest.mark.parametrize(
    "line",
    [
        "DropoutConfig::new(-0.5).init();",
        "DropoutConfig::new(250.0).init();",
        "CrossEntropyLossConfig::new().with_smoothing(Some(-1.0)).init(device);",
    ],
)
def test_no_fix_where_the_value_meant_cannot_be_read(line: str) -> None:
    assert fixed_line(line) is None
