"""Rule folders: every `*.toml` of a folder is one rule file. A broken file is reported and
skipped; the other rules still load."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from panic_lens.rules.language.spec import RuleFileError, read_rule_file
from panic_lens.rules.meta import SHIPPED, RuleInfo, added_rules, info_from_spec, set_added_rules


@dataclass(frozen=True, slots=True)
class LoadedRules:
    rules: tuple[RuleInfo, ...]
    errors: tuple[RuleFileError, ...]
    files: tuple[str, ...]  # every rule file read, good or bad (what a watcher watches)


def rule_files(folder: Path) -> list[Path]:
    """The rule files of a folder (or the file itself), sorted; not recursive."""
    if folder.is_file():
        return [folder]
    try:
        return sorted(p for p in folder.glob("*.toml") if p.is_file())
    except OSError:
        return []


def load_rule_folders(folders: Iterable[str | os.PathLike[str]]) -> LoadedRules:
    """The rules of `folders` in order; a rule whose id is taken (a shipped rule, or an
    earlier file) is an error on its `id` line, not a replacement."""
    taken = {r.id: "a shipped rule" for r in SHIPPED}
    rules: list[RuleInfo] = []
    errors: list[RuleFileError] = []
    files: list[str] = []
    for folder in folders:
        path = Path(folder)
        if not path.exists():
            errors.append(RuleFileError(str(path), 0, "", "no such rules folder or file"))
            continue
        for file in rule_files(path):
            files.append(str(file))
            try:
                spec = read_rule_file(file)
                info = info_from_spec(spec)
            except RuleFileError as exc:
                errors.append(exc)
                continue
            if spec.id in taken:
                reason = f"{spec.id!r} is taken by {taken[spec.id]}"
                errors.append(RuleFileError(str(file), spec.line_of("id"), "id", reason))
                continue
            taken[spec.id] = str(file)
            rules.append(info)
    return LoadedRules(tuple(rules), tuple(errors), tuple(files))


def use_rule_folders(folders: Iterable[str | os.PathLike[str]]) -> LoadedRules:
    """Load `folders` and make their good rules the registry's rules from files (every user
    rule runs on every file: the registry is one per process); rules registered from Python
    (`meta.add_rule`) stay. The registry changes only when the rules do, so tables keyed by its
    generation survive a reload that changed nothing."""
    loaded = load_rule_folders(folders)
    kept = tuple(r for r in added_rules() if r.spec is None)
    taken = {r.id for r in kept}
    clash = [r for r in loaded.rules if r.id in taken]
    errors = loaded.errors + tuple(
        RuleFileError(r.spec.source if r.spec else r.id, r.spec.line_of("id") if r.spec else 0,
                      "id", f"{r.id!r} is taken by a rule registered from Python")
        for r in clash
    )  # fmt: skip
    good = tuple(r for r in loaded.rules if r.id not in taken)
    if added_rules() != kept + good:
        set_added_rules(kept + good)
    return LoadedRules(good, errors, loaded.files)
