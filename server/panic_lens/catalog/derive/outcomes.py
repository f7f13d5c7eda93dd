"""Records -> registered rules: each record's outcome (`Covered` by a hand-written rule,
`Derived`, or `NotDerived`), for a whole load at once (`derive_all`, cached in memory and in
the user cache folder), and the derived rules put in the registry's slot
(`register_derived`). The shipped guards index is read here.
"""

from __future__ import annotations

import hashlib
import json
import marshal
import pickle
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields
from functools import lru_cache
from operator import attrgetter, itemgetter
from pathlib import Path
from typing import Any

from panic_lens.catalog.derive.lift import forget_lifts
from panic_lens.catalog.derive.model import Derived, NotDerived
from panic_lens.catalog.derive.pipeline import Deriver
from panic_lens.catalog.model import PanicSite, Record
from panic_lens.rules.language.configs import ConfigTable, guards_files, shipped_guards
from panic_lens.rules.language.spec import RuleFileError
from panic_lens.rules.meta import RuleInfo


@dataclass(frozen=True, slots=True)
class Covered:
    """A hand-written rule's panic site is the record's: that rule wins."""

    rules: tuple[str, ...]


Outcome = Derived | NotDerived | Covered


@lru_cache(maxsize=1)
def _shipped_guards_print() -> str:
    files = guards_files()
    return hashlib.sha256(files[-1].read_bytes()).hexdigest() if files else "no-guards"


@lru_cache(maxsize=1)
def _shipped_table_print() -> str:
    """The shipped config table's file bytes key the cache (it is read only to derive)."""
    from panic_lens.rules.language.configs import index_files

    files = index_files()
    return hashlib.sha256(files[-1].read_bytes()).hexdigest() if files else "no-configs"


def _fingerprint(data: Any) -> str:
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


_MEMO: dict[str, dict[str, Outcome]] = {}
_GUARDS_PRINTS: dict[int, str] = {}


def derive_all(
    records: Iterable[Record],
    guards: dict[str, Any] | None = None,
    table: ConfigTable | None = None,
    hand_rules: Iterable[RuleInfo] | None = None,
    files_print: str | None = None,
) -> dict[str, Outcome]:
    """Each record's outcome: covered by a hand-written rule (shipped or added), a derived
    rule, or why not. Cached by a content hash of the records' panic halves (or, when the
    records are exactly what the loader read from files, its `files_print`), the guards
    index, the config table and the hand-written rules' sites (in memory, and on disk unless
    caches are off), so loading the same records again costs a hash and reading one file."""
    from panic_lens.catalog.sites import site_rules
    from panic_lens.rules.language import configs as configs_module
    from panic_lens.rules.meta import SHIPPED, added_rules

    hands = tuple(SHIPPED + added_rules()) if hand_rules is None else tuple(hand_rules)
    records = list(records)
    key = _key(records, guards, table, hands, files_print)
    if key in _MEMO:
        return _MEMO[key]
    stored = _read_cache(key)
    if stored is not None and all(record.id in stored for record in records):
        out = {record.id: stored[record.id] for record in records}
        _MEMO.clear()
        _MEMO[key] = out
        return out
    out = {}
    # Records about one panic share its one rule: records with the same panic half, and
    # records whose halves resolve to the same site and write the same rule (`Deriver`);
    # a dataset holds many records of one site, and a rule per record made the registry
    # grow with the dataset, not with burn's panics.
    by_half: dict[Any, Outcome] = {}
    deriver: Deriver | None = None  # made when a record is derived
    for record in records:
        if record.panic in by_half:
            out[record.id] = by_half[record.panic]
            continue
        covered = site_rules(record, hands)
        if covered:
            out[record.id] = by_half[record.panic] = Covered(covered)
            continue
        if deriver is None:
            if table is None:
                table = configs_module.table()
            hand_sites = tuple(site for rule in hands for site in rule.panic_sites)
            deriver = Deriver(shipped_guards() if guards is None else guards, table, hand_sites)
        out[record.id] = by_half[record.panic] = deriver.derive(record, share=True)
    if deriver is not None:
        forget_lifts()  # what made a load fast is of no use after it (a server keeps running)
    _write_cache(key, out)
    _MEMO.clear()
    _MEMO[key] = out
    return out


def _key(
    records: list[Record], guards: dict[str, Any] | None, table: ConfigTable | None,
    hands: tuple[RuleInfo, ...], files_print: str | None,
) -> str:  # fmt: skip
    """What `derive_all`'s outcomes depend on, hashed: the cache's key."""
    if guards is None:  # the shipped index: its file's bytes key the cache (it is parsed,
        guards_print = _shipped_guards_print()  # 2.6 MB of JSON, only to derive)
    else:
        gid = id(guards)
        if gid not in _GUARDS_PRINTS:
            _GUARDS_PRINTS.clear()
            _GUARDS_PRINTS[gid] = _fingerprint(guards)
        guards_print = _GUARDS_PRINTS[gid]
    return _fingerprint(
        [
            _code_print(),
            guards_print,
            _shipped_table_print() if table is None else [table.burn, sorted(table.configs)],
            [(r.id, r.panic_sites) for r in hands],
            files_print or _halves_print(records),
        ]
    )


def derive_apart(records: Iterable[Record], files_print: str | None = None) -> None:
    """`register_derived` in a child process (`apart`) when the outcomes or the verdicts on
    the derived rules' files are not stored yet, so that this process reads them from the
    cache. For a process that keeps running (the language server): deriving parses the
    guards index, checking a rule file loads the checker and its indexes, and the memory
    that takes (over 20 MB) is not given back to the system once freed."""
    from panic_lens.rules.language import verdicts
    from panic_lens.rules.meta import SHIPPED, added_rules

    records = list(records)
    key = _key(records, None, None, tuple(SHIPPED + added_rules()), files_print)
    path = _cache_file(key)
    if path is None or ((key in _MEMO or path.exists()) and verdicts.stored()):
        return
    apart(lambda: register_derived(records, files_print))


def apart(work: Callable[[], object]) -> bool:
    """Run `work` in a forked child process (the same state: rules, records, settings) and
    wait for it: for work whose results the cache folder keeps, done where the memory it
    takes goes back to the system with the child. False, and nothing run, without
    `os.fork`; False too when the child failed (the caller then does the work itself)."""
    import os

    if not hasattr(os, "fork"):
        return False
    pid = os.fork()
    if pid == 0:  # the child: work, then leave without running the parent's cleanup
        code = 1
        try:
            work()
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0


_HALF_FIELDS = attrgetter(*(f.name for f in fields(PanicSite)))


def _halves_print(records: list[Record]) -> str:
    """A hash of the records' ids and panic halves, in id order (the order the records were
    read in does not change it)."""
    rows = sorted(((r.id, _HALF_FIELDS(r.panic)) for r in records), key=itemgetter(0))
    return hashlib.sha256(marshal.dumps(rows, 2)).hexdigest()  # version 2: no references, faster


@lru_cache(maxsize=1)
def _code_print() -> str:
    """What derive() writes and what its cache holds (its outcomes, their rule specs) change
    with this package's modules and the rule language's spec module: their bytes key the
    cache."""
    from panic_lens.rules.language import spec

    digest = hashlib.sha256()
    for module in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(module.name.encode() + b"\0" + module.read_bytes())
    digest.update(Path(spec.__file__).read_bytes())
    return digest.hexdigest()


def _cache_file(key: str) -> Path | None:
    from panic_lens import cachedir

    if cachedir.disabled():
        return None
    return cachedir.root() / "derived" / f"{key[:32]}.pickle"


def _read_cache(key: str) -> dict[str, Outcome] | None:
    """The stored outcomes by record id (records that shared an outcome share it again),
    rule specs included, so that a warm start parses no rule file."""
    path = _cache_file(key)
    if path is None:
        return None
    try:
        data = pickle.loads(path.read_bytes())
    except Exception:  # unreadable, or of classes that have changed since: derived again
        return None
    if not isinstance(data, dict) or data.get("key") != key:
        return None
    outcomes = data.get("outcomes")
    return outcomes if isinstance(outcomes, dict) else None


def _write_cache(key: str, outcomes: dict[str, Outcome]) -> None:
    path = _cache_file(key)
    if path is None:
        return
    try:  # pickle writes each shared outcome once and restores the sharing
        data = pickle.dumps({"key": key, "outcomes": outcomes}, protocol=pickle.HIGHEST_PROTOCOL)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(data)
        tmp.replace(path)
    except (OSError, pickle.PicklingError):
        pass  # a cache that cannot be written is only slower


def register_derived(
    records: Iterable[Record], files_print: str | None = None
) -> dict[str, Outcome]:
    """Derive the records no hand-written rule covers and register their rules (replacing
    the rules derived before). Returns every record's outcome. `files_print`: the loader's
    print of the files `records` are all of (`LoadResult.files_print`)."""
    from panic_lens.rules.meta import info_from_spec, set_derived_rules

    outcomes = derive_all(records, files_print=files_print)
    infos: dict[str, RuleInfo] = {}  # one rule per panic: records of one site share it
    for outcome in outcomes.values():
        if isinstance(outcome, Derived) and outcome.spec.id not in infos:
            try:
                infos[outcome.spec.id] = info_from_spec(outcome.spec)
            except RuleFileError:
                continue
    set_derived_rules(tuple(infos.values()))
    # the parsed index is the deriver's (the checker above read its summary from it); a
    # server holding it would hold the whole index for good: a later derivation reads it again
    from panic_lens.rules.language import configs

    configs.shipped_guards.cache_clear()
    return outcomes
