"""The rules: what each is about (ids, titles, the burn APIs, the words it needs, docs) and
the one registry every path asks which rules there are.

Importable without tree-sitter, so the catalog can bind records to rules cheaply; a rule's
detector module (`RuleInfo.module`) is imported only when the engine runs it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache, wraps
from pathlib import Path
from typing import TypeVar

from panic_lens.model import Severity
from panic_lens.rules.language.spec import BurnSite, RuleSpec


@dataclass(frozen=True, slots=True)
class RuleInfo:
    """What a rule is about. `apis` are the burn names a knowledge half mentions to bind by words;
    `panic_sites` are where in burn the rule's panic is raised, which a panic half must match."""

    id: str
    title: str
    summary: str
    apis: tuple[str, ...]
    default_severity: Severity
    # The module with the rule's `detect(facts)`, imported when the engine runs the rule.
    module: str
    # Call names without one of which the rule cannot fire in a file (a sound byte prefilter);
    # aliases of them declared elsewhere in the crate must be added by the prefilter itself.
    triggers: tuple[str, ...] = ()
    # Sharper, still sound: any-of groups of all-of words. The rule can only fire in a file
    # that, for some group, mentions every word or a name the crate gives it (the engine
    # resolves names through `use .. as` and `type` across the crate's files, never others).
    # A word ending in CALL_MARK must be called: `name(` or `name::<`; one that also starts
    # with METHOD_MARK, as a method (`.name(`); one ending in QUALIFIER_MARK must qualify a path.
    # Empty: each trigger is a group on its own.
    conditions: tuple[tuple[str, ...], ...] = ()
    panic_sites: tuple[BurnSite, ...] = ()
    spec: RuleSpec | None = None  # the rule file, for rules read from one

    @property
    def fingerprint(self) -> str:
        """Changes whenever what the rule finds may: its file's hash, or its module."""
        return f"{self.id}@{self.module}" + (f"#{self.spec.fingerprint}" if self.spec else "")

    @property
    def prefilter_groups(self) -> tuple[tuple[str, ...], ...]:
        if self.spec is not None and self.spec.hook is None:
            return _call_groups(self.spec)  # computed when a prefilter first asks
        return self.conditions or tuple((t,) for t in self.triggers)

    @property
    def doc_path(self) -> Path:
        """The rule's Markdown page, shipped in the wheel or read from the source tree."""
        return docs_root() / f"{self.id}.md"


SHIPPED_DIR = Path(__file__).resolve().parent / "defs"


def _shipped() -> tuple[RuleInfo, ...]:
    """The rule files in the package, in id order. A broken shipped file is a bug of the
    package: it fails loudly here (and in the tests), never silently. The load-time check
    of their calls and expressions runs in the package's tests (they are its data, like the
    indexes they are checked against), not at every start."""
    from panic_lens.rules.language.spec import read_rule_file

    specs = sorted((read_rule_file(p) for p in SHIPPED_DIR.glob("*.toml")), key=lambda s: s.id)
    return tuple(info_from_spec(spec, check=False) for spec in specs)


def info_from_spec(spec: RuleSpec, check: bool = True) -> RuleInfo:
    """The registry's view of a rule file: a hook names its Python detector, a rule in the
    language runs through `rules.language.detect`; its prefilter words come from its calls.
    A rule in the language is checked first (`language.check`: its calls and expressions,
    through `language.verdicts`) unless `check` is False (the shipped rules, checked by the
    package's tests); RuleFileError names its first problem."""
    from panic_lens.rules.hooks import hook_module
    from panic_lens.rules.language.spec import RuleFileError

    if spec.hook is None and check:
        from panic_lens.rules.language.verdicts import check_rule

        check_rule(spec)
    if spec.hook is not None:
        module = hook_module(spec.hook)
        if module is None:
            raise RuleFileError(
                spec.source, spec.line_of("hook"), "hook", f"no hook named {spec.hook!r}"
            )
        groups = spec.prefilter
    else:
        module = LANGUAGE_DETECTOR
        groups = ()  # from its calls, on first use (`prefilter_groups`)
    # the types and free functions a record about the rule names (method names such as
    # `new` or `init` say nothing about which panic a text is about)
    names = [w.owner_name if w.method_like else w.name for w in spec.wheres]
    apis = tuple(dict.fromkeys((*spec.apis, *names)))
    return RuleInfo(
        id=spec.id, title=spec.title, summary=spec.summary, apis=apis,
        default_severity=spec.severity, module=module, conditions=groups,
        panic_sites=spec.sites, spec=spec,
    )  # fmt: skip


LANGUAGE_DETECTOR = "panic_lens.rules.language.detect"


# Marks a prefilter word that the file must call (`prefilter.CALL`): the rule finds calls only.
CALL_MARK = "("
# Marks, before a called word, a method call: `.name(`, `.name::<`.
METHOD_MARK = "."
# Marks a type's name that the file writes as a path's qualifier: `Owner::`, `Owner<..>` or
# `<Owner as ..>` / `<.. as Owner>` (what a path or a trait-qualified call of its function needs).
QUALIFIER_MARK = "::"


def plain_word(word: str) -> str:
    """A prefilter word as a byte search finds it: without its marks."""
    return word.removeprefix(METHOD_MARK).removesuffix(CALL_MARK).removesuffix(QUALIFIER_MARK)


@lru_cache(maxsize=1024)
def _call_groups(spec: RuleSpec) -> tuple[tuple[str, ...], ...]:
    """Words without which a rule in the language cannot fire in a file: a free function's
    name; a method's name with its type's (the receiver's type is only ever known from a name
    the file writes, or a crate alias of it, which the prefilter adds). The rule's calls and
    the tensor constructors that give a shape must be written as calls."""
    from panic_lens.rules.language.configs import config_of_module
    from panic_lens.rules.language.viable import needs_tensor_shape
    from panic_lens.rust.burn_api import SHAPE_CALLS, SHAPE_WORDS

    groups: set[tuple[str, ...]] = set()
    for where in spec.wheres:
        call = where.name + CALL_MARK
        if not where.method_like:
            base: list[tuple[str, ...]] = [(call,)]
        else:
            owners = [where.owner_name]
            config = config_of_module(where.owner)
            if config is not None and where.owner_name not in config.rsplit("::", 1)[-1]:
                owners.append(config.rsplit("::", 1)[-1])
            # a path or trait-qualified call writes the owner as its qualifier; a method call
            # needs the owner's name anywhere (a receiver's type, a config's constructor)
            base = [
                group
                for owner in owners
                for group in ((call, owner + QUALIFIER_MARK), (METHOD_MARK + call, owner))
            ]
        if needs_tensor_shape(spec, where):  # and a shape is only known from these words
            shapes = [w + CALL_MARK if w in SHAPE_CALLS else w for w in SHAPE_WORDS]
            # (a call that is itself a shape source, `reshape(`, is one word of its group)
            base = [tuple(dict.fromkeys((*group, word))) for group in base for word in shapes]
        if where.words:  # what the rule file says its values need besides
            base = [tuple(dict.fromkeys((*group, *where.words))) for group in base]
        groups.update(base)
    return tuple(sorted(groups))


SHIPPED: tuple[RuleInfo, ...] = _shipped()


def _by_id(rule_id: str) -> RuleInfo:
    return next(r for r in SHIPPED if r.id == rule_id)


# The Python rules (their modules import their INFO from here).
CTC = _by_id("ctc-target-capacity")
ASYNC_POLICY = _by_id("async-policy-load-record")
ROUTER = _by_id("router-unsupported-dtype")
INTERPOLATE = _by_id("interpolate-backward-mode")
BINARY_OPS = _by_id("binary-op-incompatible-shapes")
_added: list[RuleInfo] = []  # the registry: rules added to the shipped ones, in order
_derived: list[RuleInfo] = []  # rules derived from records no other rule covers
_generation = [0]  # bumped by every change of the registry (keys the prefilter's tables)


def rules() -> tuple[RuleInfo, ...]:
    """Every rule there is: the shipped ones, the added ones, then the ones derived from
    records. Every path (the engine,
    the prefilter, the cache keys, the reports, the settings) asks this, never a copy."""
    return SHIPPED + tuple(_added) + tuple(_derived)


def rule_by_id(rule_id: str) -> RuleInfo | None:
    return next((r for r in rules() if r.id == rule_id), None)


def rule_ids() -> tuple[str, ...]:
    return tuple(r.id for r in rules())


def generation() -> int:
    """Changes whenever the set of rules does (a key for tables computed from the rules)."""
    return _generation[0]


T = TypeVar("T")


def per_rule_set(compute: Callable[[], T]) -> Callable[[], T]:
    """`compute`, run once per state of the registry: for tables computed from the rules
    (prefilter words, cache keys), which a rule added later must change."""
    cached = lru_cache(maxsize=2)(lambda _generation: compute())

    @wraps(compute)
    def current() -> T:
        return cached(generation())

    return current


def per_rules(
    compute: Callable[[tuple[RuleInfo, ...]], T],
) -> Callable[[tuple[RuleInfo, ...] | None], T]:
    """`compute(rules)`, run once per set of rules: the registry's (None, known by its
    generation) or a given tuple (known by its rules' identities). For tables that every
    record of a dataset is matched against; the last few sets are kept."""
    kept: dict[tuple[object, ...], tuple[tuple[RuleInfo, ...], T]] = {}

    @wraps(compute)
    def lookup(among: tuple[RuleInfo, ...] | None) -> T:
        key = ("registry", generation()) if among is None else tuple(id(r) for r in among)
        found = kept.get(key)
        if found is None:
            if len(kept) >= 4:
                kept.clear()
            registry = rules() if among is None else among
            found = kept[key] = (registry, compute(registry))  # held: its ids stay its rules'
        return found[1]

    return lookup


def add_rule(info: RuleInfo) -> None:
    """Register a rule beside the shipped ones (its detector module must be importable)."""
    if rule_by_id(info.id) is not None:
        raise ValueError(f"a rule with id {info.id!r} exists already")
    _added.append(info)
    _generation[0] += 1


def remove_rule(rule_id: str) -> None:
    _added[:] = [r for r in _added if r.id != rule_id]
    _generation[0] += 1


def set_added_rules(infos: tuple[RuleInfo, ...]) -> None:
    """Replace every added rule at once (user rule folders, read again after a change)."""
    for info in infos:
        if any(info.id == r.id for r in SHIPPED):
            raise ValueError(f"a shipped rule has the id {info.id!r}")
    _added[:] = list(infos)
    _generation[0] += 1


def added_rules() -> tuple[RuleInfo, ...]:
    return tuple(_added)


def added_rule_examples() -> dict[str, frozenset[str]]:
    """The example files of the rules added from rule folders, by absolute folder: a walk
    leaves them out (their `// expect:` lines are flagged on purpose); named as a path
    they are analysed like any file."""
    import os

    found: dict[str, set[str]] = {}
    for info in _added:
        if info.spec is not None and info.spec.examples is not None:
            folder, name = os.path.split(os.path.abspath(info.spec.examples))
            found.setdefault(folder, set()).add(name)
    return {folder: frozenset(names) for folder, names in found.items()}


def set_derived_rules(infos: tuple[RuleInfo, ...]) -> None:
    """Replace every derived rule at once (`catalog/derive/`, when records are loaded). A
    derived rule never takes the id of a shipped or added rule."""
    taken = {r.id for r in SHIPPED} | {r.id for r in _added}
    for info in infos:
        if info.id in taken:
            raise ValueError(f"a shipped or added rule has the id {info.id!r}")
    if tuple(_derived) == tuple(infos):
        return  # the same rules: tables computed from the registry stay valid
    _derived[:] = list(infos)
    _generation[0] += 1


def derived_rules() -> tuple[RuleInfo, ...]:
    return tuple(_derived)


SUPPRESSION_RULE = "panic-lens-suppression"  # hints about `// panic-lens: allow(..)` comments


def docs_root() -> Path:
    """docs/rules inside the installed package, else in the source checkout."""
    here = Path(__file__).resolve().parent.parent
    packaged = here / "_docs" / "rules"
    return packaged if packaged.is_dir() else here.parent.parent / "docs" / "rules"
