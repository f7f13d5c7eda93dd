"""Settings: one dataclass tree with defaults, read from Cargo.toml metadata, LSP or CLI flags.

The same keys everywhere (camelCase, as VS Code's `panicLens.*` settings spell them):

    severity      {rule-id: "error" | "warning" | "information" | "hint" | "off"}
    records       [paths of extra record files or folders]
    rules         [paths of rule folders or rule files (docs/rule-language.md)]
    scope         "workspace" | "openFiles"
    ctcCapacity   the kernel's alpha capacity, for patched burn builds (default 8192)
    logLevel      "error" | "warning" | "info" | "debug"

Invalid values produce a message and fall back to the default for that key.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from panic_lens.model import Settings, Severity
from panic_lens.rules.meta import rule_by_id, rule_ids

SECTION = "panicLens"  # the editors' settings section
SCOPES = ("workspace", "openFiles")
LOG_LEVELS = ("error", "warning", "info", "debug")


@dataclass(frozen=True, slots=True)
class SettingsResult:
    settings: Settings
    errors: tuple[str, ...] = field(default=())


def section_of(raw: Any) -> Any:
    """Accept both `{"panicLens": {...}}` (VS Code style) and the keys at the top level."""
    if isinstance(raw, Mapping) and isinstance(raw.get(SECTION), Mapping):
        return raw[SECTION]
    return raw


def record_paths(records: Sequence[str], root: Path | None) -> list[Path]:
    """The `records` setting's paths, relative ones taken from `root` (the first workspace
    folder, when there is one)."""
    out = []
    for raw in records:
        path = Path(raw).expanduser()
        out.append(path if path.is_absolute() or root is None else root / path)
    return out


@dataclass(frozen=True, slots=True)
class InUse:
    """The user's rule folders (or files) and record files (or folders) in use, each once, in
    order; the shipped rules and records come on top of these."""

    rules: tuple[Path, ...] = ()
    records: tuple[Path, ...] = ()


def in_use(
    rules: Sequence[str],
    records: Sequence[str],
    root: Path | None,
    places: Sequence[str | os.PathLike[str]] = (),
) -> InUse:
    """The one answer to "which rules and records", for every command and the editor: the
    explicit `rules` and `records` (the editor's settings or the CLI's flags, relative ones
    taken from `root`), then those of the Cargo.toml governing each of `places` (the nearest
    at or above it): its `[package.metadata.panic-lens]` and its workspace root's
    `[workspace.metadata.panic-lens]`, both used, each entry relative to the Cargo.toml it is
    written in. A bad value in a manifest is left out here (the engine notes it for every
    file of the crate)."""
    from panic_lens.rust.crate import find_manifest
    from panic_lens.rust.manifests import panic_lens_tables

    found_rules, found_records = record_paths(rules, root), record_paths(records, root)
    manifests = dict.fromkeys(m for p in places if (m := find_manifest(p)) is not None)
    for manifest in manifests:
        for path, table in panic_lens_tables(manifest):
            found_rules += _manifest_paths(path, table, "rules")
            found_records += _manifest_paths(path, table, "records")
    return InUse(tuple(dict.fromkeys(found_rules)), tuple(dict.fromkeys(found_records)))


def _manifest_paths(manifest: Path, table: Mapping[str, Any], key: str) -> list[Path]:
    """A manifest's `rules` or `records` paths, relative to the manifest (a bad value: none)."""
    value = table.get(key, [])
    entries = [value] if isinstance(value, str) else value
    if not isinstance(entries, list) or not all(isinstance(e, str) for e in entries):
        return []
    return [Path(os.path.normpath(manifest.parent / Path(e).expanduser())) for e in entries]


def rule_folders(
    explicit: Sequence[str], root: Path | None, places: Sequence[str | os.PathLike[str]] = ()
) -> list[Path]:
    """Every rule folder (or file) in use (`in_use`'s rules)."""
    return list(in_use(explicit, (), root, places).rules)


def layered(layers: list[Any]) -> tuple[Settings, list[str]]:
    """Settings from raw layers, each over the ones before it, and every layer's errors."""
    settings, errors = Settings(), list[str]()
    for layer in layers:
        result = parse_settings(layer, settings)
        settings, errors = result.settings, errors + list(result.errors)
    return settings, errors


def parse_settings(raw: Mapping[str, Any] | None, base: Settings | None = None) -> SettingsResult:
    """Read the keys above from `raw` on top of `base` (defaults when None).

    Unknown keys are ignored (clients send their own); a bad value is reported and skipped.
    """
    settings = base or Settings()
    if not raw:
        return SettingsResult(settings)
    if not isinstance(raw, Mapping):
        return SettingsResult(
            settings, (f"settings: expected an object, got {type(raw).__name__}",)
        )
    errors: list[str] = []
    for key, reader in _READERS.items():
        if key in raw and raw[key] is not None:
            try:
                settings = reader(settings, raw[key])
            except (TypeError, ValueError) as exc:
                errors.append(f"settings.{key}: {exc}; using the default")
    return SettingsResult(settings, tuple(errors))


def _read_severity(s: Settings, value: Any) -> Settings:
    if not isinstance(value, Mapping):
        raise TypeError(f"expected an object of rule id -> severity, got {value!r}")
    merged = dict(s.severity)
    for rule, sev in value.items():
        if rule_by_id(rule) is None:
            raise ValueError(unknown_rule(str(rule)))
        if not isinstance(sev, str):
            raise TypeError(f"severity of {rule} must be a string, got {sev!r}")
        merged[rule] = None if sev.strip().lower() == "off" else _severity(sev)
    return replace(s, severity=tuple(sorted(merged.items())))


def unknown_rule(rule: str) -> str:
    """`unknown rule id `x`; did you mean `y`?`: the closest rule ids in use, not all of them."""
    close = difflib.get_close_matches(rule, rule_ids(), n=2, cutoff=0.6)
    if not close:  # a prefix or a fragment of an id (`dropout`) is a guess too
        close = [r for r in rule_ids() if rule and rule.lower() in r][:2]
    if close:
        return f"unknown rule id `{rule}`; did you mean {' or '.join(f'`{c}`' for c in close)}?"
    return f"unknown rule id `{rule}` (`panic-lens rules list` prints the rules in use)"


def _severity(text: str) -> Severity:
    try:
        return Severity.parse(text)
    except ValueError:
        raise ValueError(
            f"unknown severity {text!r} (use error, warning, information, hint or off)"
        ) from None


def _read_records(s: Settings, value: Any) -> Settings:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise TypeError(f"expected a list of paths, got {value!r}")
    return replace(s, records=tuple(value))


def _read_rules(s: Settings, value: Any) -> Settings:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise TypeError(f"expected a list of paths, got {value!r}")
    return replace(s, rules=tuple(value))


def _read_scope(s: Settings, value: Any) -> Settings:
    if value not in SCOPES:
        raise ValueError(f"expected one of {', '.join(SCOPES)}, got {value!r}")
    return replace(s, scope=value)


def _read_capacity(s: Settings, value: Any) -> Settings:
    if isinstance(value, bool) or not isinstance(value, int) or value < 3:
        raise ValueError(f"expected an integer of at least 3, got {value!r}")
    return replace(s, ctc_capacity=value)


def _read_log_level(s: Settings, value: Any) -> Settings:
    if not isinstance(value, str) or value.lower() not in LOG_LEVELS:
        raise ValueError(f"expected one of {', '.join(LOG_LEVELS)}, got {value!r}")
    return replace(s, log_level=value.lower())


_READERS = {
    "severity": _read_severity,
    "records": _read_records,
    "rules": _read_rules,
    "scope": _read_scope,
    "ctcCapacity": _read_capacity,
    "logLevel": _read_log_level,
}
