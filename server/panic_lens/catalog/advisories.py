"""Advisories: known errors in the seed records' knowledge halves, kept as data.

The records are the user's data and are shown as they are; an advisory is a plain note that
front ends print next to the field it corrects. Each entry only applies while the field still
contains `quote`, so an updated record does not get a stale note. Every field named here is
never offered as a machine-applicable fix, and a list item it corrects (one solution) is not
offered as a code action at all. The notes come from reading burn's source.
"""

from __future__ import annotations

from dataclasses import dataclass

from panic_lens.catalog.model import Advisory, Record

_TWO_ARGS = (
    "AsyncPolicy::new takes two arguments, AsyncPolicy::new(autobatch_size, inner_policy); "
    "this code does not compile as written."
)
_UNSIGNED = (
    "Unsigned integer tensors (U8, U16, U32, U64) also reach the unimplemented!(), because "
    "DType::is_int() matches only I8..I64. A QFloat tensor never reaches change_client_backend: "
    "quantized moves go through q_to_device, a separate unimplemented!() on router backends."
)
_NO_TYPE_PARAM = (
    "There is no such method: change_client_backend is the associated function "
    "RouterChannel::change_client_backend(tensor, device), with no type parameter."
)
_MODE_NOT_DTYPE = (
    "The cause is the interpolation mode, not the dtype: on cubecl backends only Nearest and "
    "NearestExact have a backward kernel; Bilinear, Bicubic and Lanczos3 fail in any float dtype, "
    "so casting to f32 does not help."
)


@dataclass(frozen=True, slots=True)
class _Entry:
    record_id: str
    field: str
    quote: str
    note: str


ENTRIES: tuple[_Entry, ...] = (
    _Entry("2d90c97bb9ee521c", "exampleFix", "AsyncPolicy::new(base_policy)", _TWO_ARGS),
    _Entry("2d90c97bb9ee521c", "tryCatchPattern", "AsyncPolicy::new(inner)", _TWO_ARGS),
    _Entry(
        "2d90c97bb9ee521c",
        "validationCode",
        "AsyncPolicy<()>",
        "This code does not compile: AsyncPolicy<P> requires P: Policy, which () is not.",
    ),
    _Entry(
        "2d90c97bb9ee521c",
        "solutions",
        "the only in-library path is the pre-load pattern",
        "Too strong: Policy::update works on an AsyncPolicy, so "
        "p.update(p.state().load_record(record)) is a second way to load a record.",
    ),
    _Entry("98e8605c71c1dd9c", "documentation", "(e.g. QFloat)", _UNSIGNED),
    _Entry("98e8605c71c1dd9c", "triggerScenarios", "practically a quantized (QFloat)", _UNSIGNED),
    _Entry("98e8605c71c1dd9c", "solutions", "Float/Int/Bool", _UNSIGNED),
    _Entry("98e8605c71c1dd9c", "preventionTips", "Never route QFloat", _UNSIGNED),
    _Entry(
        "98e8605c71c1dd9c",
        "validationCode",
        "DType::U32",
        "Wrong: U32 and U64 are not migratable. The default change_client_backend handles F64, "
        "F32, Flex32, F16, BF16, I64, I32, I16, I8 and Bool only.",
    ),
    _Entry("98e8605c71c1dd9c", "exampleFix", "change_client_backend::<B2>", _NO_TYPE_PARAM),
    _Entry("98e8605c71c1dd9c", "tryCatchPattern", "change_client_backend::<B2>", _NO_TYPE_PARAM),
    _Entry(
        "22a18ddf8713058a",
        "exampleFix",
        "cast(DType::F32)",
        _MODE_NOT_DTYPE + " interpolate_backward is not a user API either.",
    ),
    _Entry("22a18ddf8713058a", "solutions", "f32 is safest", _MODE_NOT_DTYPE),
    _Entry("22a18ddf8713058a", "commonSituations", "f16 kernels", _MODE_NOT_DTYPE),
    _Entry("22a18ddf8713058a", "preventionTips", "Prefer f32", _MODE_NOT_DTYPE),
    _Entry("22a18ddf8713058a", "validationCode", "DType::F16", _MODE_NOT_DTYPE),
)


def advisories_for(record: Record) -> tuple[Advisory, ...]:
    """The advisories that still apply to `record` (its field still holds the quoted text)."""
    return tuple(
        Advisory(e.record_id, e.field, e.note)
        for e in ENTRIES
        if e.record_id == record.id and e.quote in field_text(record, e.field)
    )


def advised_against(record_id: str, field: str, text: str) -> bool:
    """True when an advisory shows `text` (one item of a list field, such as one solution) to
    be wrong: the quote it corrects is in it. Such advice is shown with its note, never offered
    as something to do."""
    return any(e.record_id == record_id and e.field == field and e.quote in text for e in ENTRIES)


def field_text(record: Record, field: str) -> str:
    """The text of one knowledge field by its record (camelCase) name; lists joined by lines."""
    k = record.knowledge
    value = {
        "documentation": k.documentation,
        "triggerScenarios": k.trigger_scenarios,
        "commonSituations": k.common_situations,
        "solutions": "\n".join(k.solutions),
        "exampleFix": k.example_fix,
        "validationCode": k.validation_code,
        "typeGuard": k.type_guard,
        "tryCatchPattern": k.try_catch_pattern,
        "preventionTips": "\n".join(k.prevention_tips),
    }.get(field)
    return value or ""
