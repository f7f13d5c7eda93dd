"""The engine: run every rule over a source text or a set of paths and return findings.

Pure Python; never imports pygls or lsprotocol. The CLI and the server both call `analyze`,
so the editor and CI can never disagree.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from panic_lens.model import Analysis, Finding, HoverFact, Settings, Severity
from panic_lens.rules import rule_detectors, suppress
from panic_lens.rules.meta import added_rule_examples, rule_by_id
from panic_lens.rust.crate import crate_context
from panic_lens.rust.facts import FileFacts
from panic_lens.rust.syntax import Tree
from panic_lens.settings import parse_settings
from panic_lens.walk import MAX_FILE_BYTES, CheckResult, PathError, is_binary
from panic_lens.walk import SKIP_DIRS as SKIP_DIRS  # the engine's names for them, re-exported
from panic_lens.walk import iter_rust_paths as walk_rust_paths

if TYPE_CHECKING:
    from panic_lens.catalog import Catalog
    from panic_lens.rust.memo import CrateMemo


def analyze(
    text: str | bytes,
    path: str | os.PathLike[str] | None = None,
    *,
    settings: Settings | None = None,
    catalog: Catalog | None = None,
    tree: Tree | None = None,
    memo: CrateMemo | None = None,
    may_fire: frozenset[str] | None = None,
    findings_only: bool = False,
) -> Analysis:
    """Analyse one Rust source text. `path` locates the crate (Cargo.toml) and names findings.

    Never raises: a rule that fails becomes a note and the other rules still run. `tree` may be
    a tree of exactly `text` (the server's incremental re-parse). `memo` (one `check` run's)
    memoises crate lookups and lets the rules skip resolving calls that cannot be theirs: the
    same Analysis, faster. `may_fire` (the prefilter's `rules_for` the text) are the only
    rules that can find anything in it; the others count as run and finding nothing: the same
    Analysis again, faster. `findings_only`: the caller reads the findings and notes only;
    the hovers may then be missing some calls (the findings and notes are the same).
    """
    src = text.encode("utf-8", errors="surrogatepass") if isinstance(text, str) else text
    if is_binary(src):
        return Analysis(notes=(f"{path or '<text>'}: skipped, not a UTF-8 text file",))
    if len(src) > MAX_FILE_BYTES:  # generated code; parsing it would stall an editor
        size = len(src) / 2**20
        limit = MAX_FILE_BYTES // 2**20
        return Analysis(
            notes=(f"{path or '<text>'}: skipped, {size:.0f} MB over the {limit} MB limit",)
        )
    name = os.fspath(path) if path is not None else None
    try:
        facts = build_facts(src, name, settings=settings, tree=tree, memo=memo)
    except Exception as exc:  # a broken manifest or parser must not take the editor down
        return Analysis(notes=(f"{name or '<text>'}: analysis failed: {exc!r}",))
    facts.findings_only, facts.may_fire = findings_only, may_fire
    return run_rules(facts, catalog, may_fire)


def build_facts(
    src: bytes,
    path: str | None,
    *,
    settings: Settings | None = None,
    tree: Tree | None = None,
    memo: CrateMemo | None = None,
) -> FileFacts:
    """Facts for one file, with settings = defaults < Cargo.toml metadata < `settings`."""
    crate = memo.crate_context(path) if memo is not None and path else crate_context(path)
    effective = layered_settings(crate.metadata, settings)
    return FileFacts.build(src, path, settings=effective, crate=crate, tree=tree, memo=memo)


def layered_settings(metadata: Mapping[str, Any], explicit: Settings | None) -> Settings:
    """Cargo.toml's `[package.metadata.panic-lens]` under the explicitly passed settings."""
    from_manifest = parse_settings(metadata).settings if metadata else Settings()
    if explicit is None:
        return from_manifest
    severity = dict(from_manifest.severity) | dict(explicit.severity)
    defaults = Settings()
    picks = {
        name: getattr(explicit, name)
        if getattr(explicit, name) != getattr(defaults, name)
        else getattr(from_manifest, name)
        for name in ("records", "scope", "ctc_capacity", "log_level")
    }
    return replace(explicit, severity=tuple(sorted(severity.items())), **picks)


@dataclass(frozen=True, slots=True)
class RuleRun:
    """What the rules said before suppression: finished findings per active rule, in detect
    order; the per-function re-analysis (function_reanalysis) reuses and merges these."""

    findings: tuple[tuple[str, tuple[Finding, ...]], ...]
    hovers: tuple[HoverFact, ...]
    failures: tuple[str, ...]  # "rule X failed" notes


def warm_up(settings: Settings | None = None, catalog: Catalog | None = None) -> None:
    """Run every rule once over a text that names every rule's words, so that what the rules
    load on first use (modules, tables, plans) is loaded now: before worker processes are
    forked, which then share it, or before an editor's first keystroke."""
    from panic_lens.rules.meta import rules

    words = sorted({w for rule in rules() for group in rule.prefilter_groups for w in group})
    analyze(f"// {' '.join(words)}\nfn main() {{}}\n", None, settings=settings, catalog=catalog)


def run_rules(
    facts: FileFacts, catalog: Catalog | None = None, may_fire: frozenset[str] | None = None
) -> Analysis:
    """Run every enabled rule over `facts`, then settings, suppressions and record ids."""
    return finish(facts, rule_run(facts, catalog, may_fire))


def rule_run(
    facts: FileFacts, catalog: Catalog | None = None, may_fire: frozenset[str] | None = None
) -> RuleRun:
    """Every enabled rule over the call sites `facts.calls()` yields, before suppression;
    with `may_fire`, the rules not in it are known to find nothing and are not run."""
    findings: list[tuple[str, tuple[Finding, ...]]] = []
    hovers: list[HoverFact] = []
    failures: list[str] = []
    live: frozenset[str] | None = None  # the rules in the language with a call here
    for info, detect in rule_detectors():
        rule = info.id
        override = facts.settings.severity_for(rule)
        if override is None:
            continue
        if may_fire is not None and rule not in may_fire:
            findings.append((rule, ()))
            continue
        if info.spec is not None and info.spec.hook is None:
            if live is None:  # imported with the rules' detectors, when rules first run
                from panic_lens.rules.language.call_sites import rules_with_sites

                live = rules_with_sites(facts)
            if rule not in live:
                findings.append((rule, ()))
                continue
        try:
            results = list(detect(facts))
        except Exception as exc:  # one broken rule must not hide the others' findings
            failures.append(f"{facts.path or '<text>'}: rule {rule} failed: {exc!r}")
            findings.append((rule, ()))
            continue
        if not results:  # most rules on most texts
            findings.append((rule, ()))
            continue
        hovers += [item for item in results if isinstance(item, HoverFact)]
        found = [item for item in results if isinstance(item, Finding)]
        records = _records_for(rule, catalog) if found else ()  # bound once per rule, when needed
        findings.append((rule, tuple(_finish(i, override, records, facts.path) for i in found)))
    return RuleRun(tuple(findings), tuple(hovers), tuple(failures))


def finish(facts: FileFacts, outcome: RuleRun) -> Analysis:
    """Suppressions, hints and a stable order over a RuleRun; notes from the crate."""
    notes = [*facts.crate.errors, *_metadata_errors(facts), *outcome.failures]
    notes += _index_version_notes(facts, outcome)
    active = frozenset(rule for rule, _ in outcome.findings)
    raw = [f for _, found in outcome.findings for f in found]
    allows = suppress.find_allows(facts.allow_comments(), facts.src)
    kept, hints = suppress.apply(raw, allows, active, facts.src)
    hints = [replace(h, path=facts.path) for h in hints]
    ordered = sorted(kept + hints, key=lambda f: (f.span.start_byte, f.rule))
    # rules may find calls in set order; the same text must give the same Analysis
    hovers = sorted(outcome.hovers, key=lambda h: (h.span.start_byte, h.span.end_byte, h.rule,
                                               h.api, h.facts))  # fmt: skip
    return Analysis(tuple(ordered), tuple(hovers), tuple(notes))


def _index_version_notes(facts: FileFacts, outcome: RuleRun) -> list[str]:
    """When a rule in the language found something in a crate that locks another burn than
    the one whose configs and guards it read, say so (once per crate: notes are distinct)."""
    locked = facts.crate.burn_version
    if not locked or not any(found and _in_language(rule) for rule, found in outcome.findings):
        return []
    from panic_lens.rules.language.configs import table

    indexed = table().burn
    if indexed is None or indexed == locked:
        return []
    where = facts.crate.manifest.parent if facts.crate.manifest else "this crate"
    return [
        f"{where}: Cargo.lock has burn {locked}; the rules in the rule language read burn's "
        f"configs as of burn {indexed} (the index panic-lens ships), so a field or default "
        "that changed between them may be read wrong"
    ]


def _in_language(rule_id: str) -> bool:
    info = rule_by_id(rule_id)
    return info is not None and info.spec is not None and info.spec.hook is None


def _metadata_errors(facts: FileFacts) -> list[str]:
    """Bad values in Cargo.toml's panic-lens table: reported, and the defaults used instead."""
    if not facts.crate.metadata:
        return []
    where = f"{facts.crate.manifest}: metadata.panic-lens"
    return [f"{where}: {error}" for error in parse_settings(facts.crate.metadata).errors]


def _finish(
    finding: Finding, override: Severity | bool | None, records: tuple[str, ...], path: str | None
) -> Finding:
    severity = override if isinstance(override, Severity) else finding.severity
    return replace(finding, severity=severity, records=finding.records or records, path=path)


def _records_for(rule: str, catalog: Catalog | None) -> tuple[str, ...]:
    catalog = catalog if catalog is not None else default_catalog()
    return catalog.record_ids_for_rule(rule) if catalog is not None else ()


@lru_cache(maxsize=1)
def default_catalog() -> Catalog | None:
    """The shipped records, loaded once on first use (None if the catalog cannot load)."""
    try:
        from panic_lens.catalog import load_catalog

        return load_catalog().catalog
    except Exception:  # records are an extra: findings still stand without them
        return None


def iter_rust_files(paths: Sequence[str | os.PathLike[str]]) -> Iterator[Path]:
    """Every `.rs` file under `paths` (`walk.iter_rust_paths`), less the examples of the rules
    added from rule folders."""
    for path in iter_rust_paths(paths):
        yield Path(path)


def iter_rust_paths(
    paths: Sequence[str | os.PathLike[str]], listings: dict[str, Any] | None = None
) -> Iterator[str]:
    """`walk.iter_rust_paths` without the example files of the rules in use."""
    return walk_rust_paths(paths, listings, skip=added_rule_examples())


def check_paths(
    paths: Sequence[str | os.PathLike[str]],
    *,
    settings: Settings | None = None,
    catalog: Catalog | None = None,
) -> CheckResult:
    """Analyse every Rust file under `paths`; unreadable paths become PathErrors."""
    findings: list[Finding] = []
    errors: list[PathError] = []
    notes: dict[str, None] = {}  # ordered, each once (a bad Cargo.toml is noted per file)
    count = 0
    for raw in paths:
        if not Path(raw).exists():
            errors.append(PathError(str(raw), "no such file or directory"))
    for file in iter_rust_files([p for p in paths if Path(p).exists()]):
        try:
            data = file.read_bytes()
        except OSError as exc:
            errors.append(PathError(str(file), exc.strerror or str(exc)))
            continue
        count += 1
        analysis = analyze(data, file, settings=settings, catalog=catalog)
        findings.extend(analysis.findings)
        notes.update(dict.fromkeys(analysis.notes))
    findings.sort(key=lambda f: (f.path or "", f.span.start_byte, f.rule))
    return CheckResult(tuple(findings), tuple(errors), count, tuple(notes))
