"""schemaVersion 2 validation: one raw JSON object in, a Record or a list of RecordErrors out.

Required fields are the ones panic-lens cannot work without (id, schemaVersion, errorMessage,
messagePattern); every other known field is optional but must have the right type when present.
Unknown fields are ignored so newer dataset dumps still load.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from panic_lens.catalog.model import Knowledge, Origin, PanicSite, Record, RecordError
from panic_lens.catalog.patterns import compile_pattern, is_plain

SCHEMA_VERSION = 2
MAX_PATTERN_CHARS = 8_192  # real patterns are a few hundred characters
MAX_STRING_CHARS = 1_048_576  # a 10 MB field is a broken dump, not a record

# field -> expected kind: "str", "int", "strs" (list of strings); "!" suffix: required.
PANIC_FIELDS = {
    "errorMessage": "str!",
    "messagePattern": "str!",
    "filePath": "str",
    "lineNumber": "int",
    "sourceCode": "str",
    "sourceCodeStart": "int",
    "sourceCodeEnd": "int",
    "githubUrl": "str",
    "errorType": "str",
    "severity": "str",
}
KNOWLEDGE_FIELDS = {
    "documentation": "str",
    "triggerScenarios": "str",
    "commonSituations": "str",
    "solutions": "strs",
    "exampleFix": "str",
    "handlingStrategy": "str",
    "validationCode": "str",
    "typeGuard": "str",
    "tryCatchPattern": "str",
    "preventionTips": "strs",
    "tags": "strs",
    "backgroundTag": "str",
}
OTHER_FIELDS = {
    "id": "str!",
    "schemaVersion": "int!",
    "repo": "str",
    "slug": "str",
    "errorCode": "str",
    "errorClass": "str",
    "httpStatus": "int",
    "analyzedSha": "str",
    "analyzedAt": "str",
    "contentChangedAt": "str",
    "writtenBy": "str",  # who wrote a record that is not from the dataset ("panic-lens")
}
ALL_FIELDS = {**OTHER_FIELDS, **PANIC_FIELDS, **KNOWLEDGE_FIELDS}


def validate_envelope(obj: Any, path: str, line: int) -> Record | list[RecordError]:
    """Validate one `{"record": {...}, "datasetVersion": "..."}` object."""
    if not isinstance(obj, Mapping):
        return [RecordError(path, line, None, None, f"expected an object, got {_kind(obj)}")]
    raw = obj.get("record")
    if not isinstance(raw, Mapping):
        got = "nothing" if raw is None else _kind(raw)
        reason = f'expected {{"record": {{...}}, "datasetVersion": ...}}, "record" is {got}'
        return [RecordError(path, line, None, "record", reason)]
    version = obj.get("datasetVersion")
    if version is not None and not isinstance(version, str):
        return [RecordError(path, line, _id_of(raw), "datasetVersion", "expected a string")]
    return validate_record(raw, Origin(path, line), version)


def validate_record(
    raw: Mapping[str, Any], origin: Origin, dataset_version: str | None = None
) -> Record | list[RecordError]:
    """Check every known field's type and the pattern, then build the Record."""
    rid = _id_of(raw)
    errors = [
        RecordError(origin.path, origin.line, rid, name, reason)
        for name, kind in ALL_FIELDS.items()
        if (reason := _field_problem(raw.get(name), kind, name in raw)) is not None
    ]
    version = raw.get("schemaVersion")
    if isinstance(version, int) and not isinstance(version, bool) and version != SCHEMA_VERSION:
        reason = f"schemaVersion {version} is not supported (expected {SCHEMA_VERSION})"
        errors.append(RecordError(origin.path, origin.line, rid, "schemaVersion", reason))
    if not errors and (reason := pattern_problem(raw["messagePattern"])) is not None:
        errors.append(RecordError(origin.path, origin.line, rid, "messagePattern", reason))
    return errors or _build(raw, origin, dataset_version)


def pattern_problem(pattern: str) -> str | None:
    """Why `pattern` cannot be used as a messagePattern, or None when it can."""
    if len(pattern) > MAX_PATTERN_CHARS:
        return f"pattern of {len(pattern)} characters exceeds the {MAX_PATTERN_CHARS} limit"
    if not pattern.strip():
        return "empty pattern would match every line"
    if is_plain(pattern):
        return None  # valid by construction; compiled when explain first needs it
    import regex  # only for patterns that are not plain

    try:
        compile_pattern(pattern)
    except (regex.error, ValueError, OverflowError) as exc:
        return f"does not compile with the regex package: {exc}"
    return None


def _field_problem(value: Any, kind: str, present: bool) -> str | None:
    required = kind.endswith("!")
    kind = kind.rstrip("!")
    if value is None:
        if required:
            return "required field is missing" if not present else "required field is null"
        return None
    if kind == "int":
        ok = isinstance(value, int) and not isinstance(value, bool)
        return None if ok else f"expected an integer, got {_kind(value)}"
    if kind == "strs":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            return f"expected a list of strings, got {_kind(value)}"
        return _length_problem(sum(len(v) for v in value))
    if not isinstance(value, str):
        return f"expected a string, got {_kind(value)}"
    if required and not value.strip():
        return "required field is empty"
    return _length_problem(len(value))


def _length_problem(size: int) -> str | None:
    if size > MAX_STRING_CHARS:
        return f"text of {size} characters exceeds the {MAX_STRING_CHARS} limit"
    return None


def _build(raw: Mapping[str, Any], origin: Origin, dataset_version: str | None) -> Record:
    panic = PanicSite(
        error_message=raw["errorMessage"],
        message_pattern=raw["messagePattern"],
        file_path=raw.get("filePath"),
        line_number=raw.get("lineNumber"),
        source_code=raw.get("sourceCode"),
        source_code_start=raw.get("sourceCodeStart"),
        source_code_end=raw.get("sourceCodeEnd"),
        github_url=raw.get("githubUrl"),
        error_type=raw.get("errorType"),
        severity=raw.get("severity"),
    )
    knowledge = Knowledge(
        documentation=raw.get("documentation"),
        trigger_scenarios=raw.get("triggerScenarios"),
        common_situations=raw.get("commonSituations"),
        solutions=tuple(raw.get("solutions") or ()),
        example_fix=raw.get("exampleFix"),
        handling_strategy=raw.get("handlingStrategy"),
        validation_code=raw.get("validationCode"),
        type_guard=raw.get("typeGuard"),
        try_catch_pattern=raw.get("tryCatchPattern"),
        prevention_tips=tuple(raw.get("preventionTips") or ()),
        tags=tuple(raw.get("tags") or ()),
        background_tag=raw.get("backgroundTag"),
    )
    return Record(
        id=raw["id"],
        panic=panic,
        knowledge=knowledge,
        origin=origin,
        repo=raw.get("repo"),
        slug=raw.get("slug"),
        analyzed_sha=raw.get("analyzedSha"),
        dataset_version=dataset_version,
        written_by=raw.get("writtenBy"),
    )


def _id_of(raw: Mapping[str, Any]) -> str | None:
    rid = raw.get("id")
    return rid if isinstance(rid, str) and rid else None


def _kind(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    return names.get(type(value), f"a {type(value).__name__}")
