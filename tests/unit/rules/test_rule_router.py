"""router-unsupported-dtype: unsigned moves between capture devices, direct default calls."""

from __future__ import annotations

import pytest

from panic_lens.engine import analyze
from panic_lens.model import Severity

RULE = "router-unsupported-dtype"
HEAD = "use burn::tensor::{DType, Device, Int, Tensor};\n"


def moves(dtype: str, target: str = "b", extra: str = "") -> list[tuple[str, Severity]]:
    body = (
        "fn f(data: TensorData) {\n"
        "    let a = Device::capture();\n"
        "    let b = Device::capture();\n"
        f"{extra}"
        f"    let t = Tensor::<1, Int>::from_data(data, (&a, DType::{dtype}));\n"
        f"    t.to_device(&{target});\n"
        "}\n"
    )
    return [(f.rule, f.severity) for f in analyze(HEAD + body).findings]


@pytest.mark.parametrize("dtype", ["U8", "U16", "U32", "U64"])
def test_unsigned_moves_between_capture_devices_are_errors(dtype: str) -> None:
    assert moves(dtype) == [(RULE, Severity.ERROR)]


@pytest.mark.parametrize("dtype", ["I64", "I32", "I16", "I8", "F32", "F16", "BF16", "Bool"])
def test_signed_float_and_bool_moves_are_fine(dtype: str) -> None:
    assert moves(dtype) == []


def test_dtype_variant_through_a_glob_import() -> None:
    src = (
        HEAD + "use burn::tensor::DType::*;\nfn f(data: TensorData) {\n"
        "    let a = Device::capture();\n    let b = Device::capture();\n"
        "    let t = Tensor::<1, Int>::from_data(data, (&a, U8));\n    t.to_device(&b);\n}\n"
    )
    assert [f.rule for f in analyze(src).findings] == [RULE]


def test_the_outermost_cast_decides() -> None:
    src = (
        HEAD + "fn f(data: TensorData) {\n    let a = Device::capture();\n"
        "    let b = Device::capture();\n"
        "    let t = Tensor::<1, Int>::from_data(data, (&a, DType::U32));\n"
        "    t.clone().cast(DType::I64).to_device(&b);\n"
        "    t.cast(DType::I64).cast(DType::U8).to_device(&b);\n}\n"
    )
    assert [f.span.start.row for f in analyze(src).findings] == [6]


def test_same_device_or_a_clone_of_it_is_no_move() -> None:
    assert moves("U32", target="a") == []
    assert moves("U32", target="c", extra="    let c = a.clone();\n") == []


def test_message_evidence_and_hover_facts() -> None:
    src = (
        HEAD + "fn f(data: TensorData) {\n    let a = Device::capture();\n"
        "    let b = Device::capture();\n"
        "    let t = Tensor::<1, Int>::from_data(data, (&a, DType::U32));\n"
        "    t.to_device(&b);\n}\n"
    )
    result = analyze(src)
    (finding,) = result.findings
    line = src.splitlines()[finding.span.start.row]
    assert line[finding.span.start.col : finding.span.end.col] == "to_device"
    assert "U32" in finding.message and "`a`" in finding.message and "`b`" in finding.message
    assert "not implemented" in finding.message
    assert [e.span.start.row for e in finding.evidence] == [4, 2, 3]
    # other rules (a derived one over from_data) may hover their own calls
    (hover,) = [h for h in result.hovers if h.rule == RULE]
    assert hover.flagged and "line 3" in hover.facts[0]


def test_other_to_device_calls_get_nothing() -> None:
    src = HEAD + "fn f(m: Model, d: &Device, t: Tensor<1, Int>) { m.to_device(d); t.to_device(d); }"
    result = analyze(src)
    assert result.findings == () and result.hovers == ()


def test_direct_calls_warn_and_overrides_do_not() -> None:
    src = (
        "use burn_router::RouterChannel;\n"
        "fn g<C: RouterChannel>(t: T, d: &D) { C::change_client_backend(t, d); }\n"
        "fn h<C: Other>(t: T, d: &D) { C::change_client_backend(t, d); }\n"
        "struct R;\nimpl RouterChannel for R {\n"
        "    fn change_client_backend(t: T, d: &D) -> T { t }\n"
        "    fn hop(t: T, d: &D) -> T { Self::change_client_backend(t, d) }\n}\n"
    )
    result = analyze(src)
    assert [(f.span.start.row, f.severity) for f in result.findings] == [(1, Severity.WARNING)]
    hovers = [(h.span.start.row, h.flagged) for h in result.hovers]
    assert hovers == [(1, True), (6, False)]
    assert "own change_client_backend" in result.hovers[1].facts[0]


def test_inheriting_impl_gets_an_information_note_only() -> None:
    src = (
        "use burn::router::RouterChannel;\nstruct R;\nimpl RouterChannel for R {\n    fn f() {}\n}"
    )
    assert [(f.rule, f.severity) for f in analyze(src).findings] == [(RULE, Severity.INFORMATION)]
    local = "trait RouterChannel {}\nstruct R;\nimpl RouterChannel for R {}\n"
    assert analyze(local).findings == ()
