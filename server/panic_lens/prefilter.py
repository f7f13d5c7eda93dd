"""Byte-level prefilter for batch checks: the files in which no rule can find anything.

A file is analysed when, for one of a rule's condition groups (`RuleInfo.prefilter_groups`:
any-of groups of all-of words), it mentions every word or a name its crate gives that word
(`pub use burn::tensor::module::ctc_loss as ctc;`, `type L = CTCLoss<B>;`), since rules resolve
names through the crate's own modules (a file outside them, such as a test, through its own
aliases too); or it mentions the suppression marker. A word marked as
a call (`CALL`) counts where the file calls it, a method's (`METHOD`) where it calls it as a
method, a qualifier (`QUALIFIER`) where it qualifies a path. Words count in comments too:
lexing them out cost more than the few files it dropped. A rule that declares no words turns
the prefilter off: then nothing can be skipped soundly.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cache, lru_cache
from pathlib import Path

from panic_lens.model import ALLOW_WORD
from panic_lens.rules.meta import (
    CALL_MARK,
    METHOD_MARK,
    QUALIFIER_MARK,
    per_rule_set,
    plain_word,
    rules,
)
from panic_lens.rust.lexical import WORD_BYTES

# `// panic-lens: allow(..)` comments yield hints even in files without a rule's call.
SUPPRESSION_MARKER = ALLOW_WORD
_USE_ALIAS = re.compile(rb"\bas\s+([A-Za-z_][A-Za-z0-9_]*)")
_TYPE_ALIAS = re.compile(rb"type\s+([A-Za-z_][A-Za-z0-9_]*)")
# A literal first (no leading \b) lets `re` jump between candidates; the word boundary
# before `use` is checked by hand.
_USE_STMT = re.compile(rb"use\b[^;]*")
# Casts (`n as usize`) are not new names; a cast in a `use` statement cannot happen anyway.
_PRIMITIVES = frozenset(
    b"_ usize isize u8 u16 u32 u64 u128 i8 i16 i32 i64 i128 f32 f64 bool char str".split()
)
Groups = tuple[tuple[bytes, ...], ...]
AliasMap = Mapping[bytes, frozenset[bytes]]


# A group word ending in CALL must be written as a call: the name, then `(` or `::<` (spaces
# between allowed). The engine finds rules' calls as call expressions only, whose name is
# followed by its arguments' `(` or its turbofish; comments in between are not looked for.
# One that starts with METHOD is a method call's (`.name(`), and one ending in QUALIFIER a
# type's name written as a path's qualifier (`Owner::`, `Owner<`, `Owner>::`, `Owner as`).
CALL = CALL_MARK.encode()
METHOD = METHOD_MARK.encode()
QUALIFIER = QUALIFIER_MARK.encode()


def rule_groups() -> Groups | None:
    """Every rule's condition groups and the suppression marker's; None when some rule
    declares none (every file must be analysed). Computed from the rule registry."""
    return _tables()[0]


def group_words() -> tuple[bytes, ...]:
    """The words the groups name, as searched for (without their marks)."""
    return _tables()[1]


@per_rule_set
def _tables() -> tuple[Groups | None, tuple[bytes, ...], dict[bytes, tuple[bytes, ...]]]:
    """The tables above, and each word's marked forms, for the registry's rules."""
    if not all(rule.prefilter_groups for rule in rules()):
        return None, (), {}
    found = {tuple(w.encode() for w in g) for rule in rules() for g in rule.prefilter_groups}
    groups = tuple(sorted(found | {(SUPPRESSION_MARKER,)}))
    forms: dict[bytes, set[bytes]] = {}
    for word in {w for g in groups for w in g}:
        plain = plain_word(word.decode()).encode()
        forms.setdefault(plain, set())
        if word != plain:
            forms[plain].add(word)
    words = tuple(sorted(forms))
    return groups, words, {w: tuple(sorted(marked)) for w, marked in forms.items() if marked}


@per_rule_set
def _word_finder() -> Callable[[bytes], frozenset[bytes]]:
    """`own_words`' search: one pass for all group words, a word inside or overlapping another
    (`Tensor` in `TensorData`) included."""
    return substring_finder(group_words())


def own_words(data: bytes) -> frozenset[bytes]:
    """The group words `data` mentions itself, and each marked form of them it writes."""
    if rule_groups() is None:
        return frozenset()
    return _with_forms(data, _word_finder()(data))


def _with_forms(data: bytes, found: frozenset[bytes]) -> frozenset[bytes]:
    """`found` (the group words `data` mentions) and each marked form of them it writes."""
    forms = _tables()[2]
    wanted = [w for w in found if w in forms]
    if not wanted:
        return found
    starts = _form_word_starts()(data)
    written = [m for w in wanted for m in forms[w] if _writes(data, m, starts.get(w, ()))]
    return found.union(written) if written else found


@per_rule_set
def _form_word_starts() -> Callable[[bytes], dict[bytes, list[int]]]:
    """Where each group word that has marked forms is written in a text (overlapping, by
    one Aho-Corasick pass): the forms are looked for there only."""
    import ahocorasick_rs

    words = sorted(_tables()[2])
    if not words:
        return lambda data: {}
    automaton = ahocorasick_rs.BytesAhoCorasick(words, matchkind=ahocorasick_rs.MATCHKIND_STANDARD)

    def starts(data: bytes) -> dict[bytes, list[int]]:
        out: dict[bytes, list[int]] = {}
        for i, start, _ in automaton.find_matches_as_indexes(data, overlapping=True):
            out.setdefault(words[i], []).append(start)
        return out

    return starts


def _every_form(found: frozenset[bytes]) -> frozenset[bytes]:
    """`found` and every marked form of its words, as if each were written: what a text with
    these words can complete at most."""
    forms = _tables()[2]
    marked = [m for w in found if w in forms for m in forms[w]]
    return found.union(marked) if marked else found


def _writes(data: bytes, marked: bytes, starts: Iterable[int]) -> bool:
    """`data` writes the marked form at one of `starts` (where its word is written): the
    word, not inside a longer one, as its marks say (a method's after a `.`)."""
    method = marked.startswith(METHOD)
    form = _form_of(marked)
    for start in starts:
        if form.match(data, start) is None:
            continue
        if method:
            while start > 0 and data[start - 1] in _SPACE:
                start -= 1
            if start > 0 and data[start - 1] == _DOT:
                return True
        elif start == 0 or data[start - 1] not in WORD_BYTES:
            return True
    return False


_SPACE = frozenset(b" \t\n\r\f\v")
_DOT = ord(".")


@cache  # one per marked word of the rules in use: a few hundred
def _form_of(marked: bytes) -> re.Pattern[bytes]:
    # matched where the word is written; what comes before it is checked by hand
    if marked.endswith(QUALIFIER):
        name = re.escape(marked.removesuffix(QUALIFIER))
        return re.compile(name + rb"(?:\s*(?:::|<|>\s*::)|\s+as\b)")
    name = re.escape(marked.removeprefix(METHOD).removesuffix(CALL))
    return re.compile(name + rb"\s*(?:\(|::\s*<)")


@per_rule_set
def _group_masks() -> tuple[dict[bytes, int], dict[bytes, tuple[int, ...]]]:
    """Each group word's bit (CALL-marked words are words of their own), and the groups as
    masks of their words' bits, filed under one word of theirs (a group can only be complete
    where that word is present)."""
    words = sorted({w for group in rule_groups() or () for w in group})
    bits = {word: 1 << i for i, word in enumerate(words)}
    by_word: dict[bytes, set[int]] = {}
    for group in rule_groups() or ():
        mask = sum(bits[w] for w in set(group))
        by_word.setdefault(words[(mask & -mask).bit_length() - 1], set()).add(mask)
    return bits, {word: tuple(sorted(masks)) for word, masks in by_word.items()}


def any_group(present: Iterable[bytes]) -> bool:
    """Some group has every word in `present`."""
    bits, by_word = _group_masks()
    words = [w for w in present if w in bits]
    mask = 0
    for word in words:
        mask |= bits[word]
    return any(m & mask == m for word in words for m in by_word.get(word, ()))


@per_rule_set
def _rules_of_group() -> dict[int, frozenset[str]]:
    """The ids of the rules with each group, by the group's mask of `_group_masks`' bits."""
    bits = _group_masks()[0]
    found: dict[int, set[str]] = {}
    for rule in rules():
        for group in rule.prefilter_groups:
            found.setdefault(sum(bits[w.encode()] for w in set(group)), set()).add(rule.id)
    return {mask: frozenset(ids) for mask, ids in found.items()}


def possible_rules(present: Iterable[bytes]) -> frozenset[str] | None:
    """The rules with a group every word of which is in `present`: the only ones that can
    fire in a file whose words (and crate aliases) these are, by the argument that lets
    `keeps` skip a file where none can. None when the prefilter is off (any rule may)."""
    if rule_groups() is None:
        return None
    bits, by_word = _group_masks()
    words = [w for w in present if w in bits]
    mask = 0
    for word in words:
        mask |= bits[word]
    of_group = _rules_of_group()
    found: set[str] = set()
    for word in words:  # a complete group is filed under one of its words, all present
        for group in by_word.get(word, ()):
            if group & mask == group:
                found.update(of_group.get(group, ()))  # the marker's group: no rule's
    return frozenset(found)


def crate_alias_map(
    texts: Iterable[bytes], seeded: Sequence[bool] | None = None
) -> dict[bytes, frozenset[bytes]]:
    """For each group word, the names the crate's sources give it (and names of those names):
    `use ..::ctc_loss as ctc;` and `type Chan = RouterChannel<..>;` statements. `seeded`, when
    given, says which texts mention a group word (the caller's scans, reused)."""
    sources, seeds = list(texts), set(group_words())
    known, new, sites = set(seeds), set(seeds), {}
    first = seeded
    while new:  # alias sites of every source that names a word or an alias, to a fixpoint
        if first is not None:
            mentioning = [i for i, seed in enumerate(first) if seed]
        else:
            names_new = substring_finder(new)
            mentioning = [i for i, text in enumerate(sources) if names_new(text)]
        for i in mentioning:
            if i not in sites:
                sites[i] = _alias_sites(sources[i])
        first = None
        names_known = substring_finder(known)
        new = {
            name
            for found in sites.values()
            for stmt, name in found
            if name not in known and names_known(stmt)
        }
        known |= new
    # a statement naming `a` that declares `b` makes `b` a name of whatever `a` names
    named_in = substring_finder(known)
    gives: dict[bytes, set[bytes]] = {}
    for found in sites.values():
        for stmt, name in found:
            for other in named_in(stmt):
                gives.setdefault(other, set()).add(name)
    return {word: _closure(word, gives) for word in seeds}


def _closure(word: bytes, gives: Mapping[bytes, set[bytes]]) -> frozenset[bytes]:
    names, todo = {word}, [word]
    while todo:
        for name in gives.get(todo.pop(), ()):
            if name not in names:
                names.add(name)
                todo.append(name)
    return frozenset(names - {word})


_FEW_NEEDLES = 8


def substring_finder(needles: Iterable[bytes]) -> Callable[[bytes], frozenset[bytes]]:
    """The needles a text contains, by one overlapping Aho-Corasick pass."""
    return _finder_of(frozenset(needles))


@lru_cache(maxsize=64)  # most crates name no word otherwise: their searches are the same
def _finder_of(needles: frozenset[bytes]) -> Callable[[bytes], frozenset[bytes]]:
    import ahocorasick_rs

    found = sorted(needles)
    if len(found) <= _FEW_NEEDLES:  # building an automaton costs more than a few searches
        return lambda data: frozenset({needle for needle in found if needle in data})
    automaton = ahocorasick_rs.BytesAhoCorasick(found, matchkind=ahocorasick_rs.MATCHKIND_STANDARD)

    def contained(data: bytes) -> frozenset[bytes]:
        hits = automaton.find_matches_as_indexes(data, overlapping=True)
        return frozenset({found[i] for i, _, _ in hits})

    return contained


def crate_aliases(texts: Iterable[bytes]) -> tuple[bytes, ...]:
    """Every name the crate gives any group word."""
    found = crate_alias_map(texts).values()
    return tuple(sorted(set().union(*found) - set(group_words())))


def _alias_sites(text: bytes) -> list[tuple[bytes, bytes]]:
    """(statement, name) of each `use .. as name` and `type name = ..` of a source."""
    out = []
    for use in _USE_STMT.finditer(text):  # only `as` inside a use statement renames
        if _after_word(text, use) or _in_comment(text, use):
            continue
        stmt = use.group(0)
        for m in _USE_ALIAS.finditer(stmt):
            if m.group(1) not in _PRIMITIVES:  # `path as name`: the path follows `{` or `,`
                item = max(stmt.rfind(b"{", 0, m.start()), stmt.rfind(b",", 0, m.start())) + 1
                out.append((stmt[item : m.end()], m.group(1)))
    for m in _TYPE_ALIAS.finditer(text):
        end = text.find(b";", m.end())
        if not _after_word(text, m) and not _in_comment(text, m):
            out.append((text[m.start() : end if end >= 0 else len(text)], m.group(1)))
    return out


def _after_word(text: bytes, match: re.Match[bytes]) -> bool:
    """The match starts inside a longer word (`reuse`, `subtype`): not the keyword."""
    return match.start() > 0 and text[match.start() - 1] in WORD_BYTES


def _in_comment(text: bytes, match: re.Match[bytes]) -> bool:
    """A `//` comment line (doc comments talk about aliases a lot); block comments are rare
    enough that an alias read from one only costs an extra file analysed."""
    line = text[text.rfind(b"\n", 0, match.start()) + 1 : match.start()]
    return line.lstrip().startswith(b"//")


class Prefilter:
    """One run's prefilter; `contents` are the bytes already read, by absolute path."""

    def __init__(
        self,
        contents: Mapping[str, bytes],
        manifest_of: Callable[[str], Path | None] | None = None,
        read: Callable[[str], bytes] | None = None,
    ) -> None:
        """`manifest_of` finds a file's Cargo.toml (`rust.crate.find_manifest` by default; a
        run shares one memoised finder between its prefilter and its crate digests). `read`
        reads a crate source missing from `contents` (a run that keeps what it reads passes
        its store)."""
        self._contents = contents
        self._read = read or _read_file
        self._manifest_of = manifest_of or self._find_manifest
        self._manifests: dict[str, Path | None] = {}
        self._aliases: dict[Path, Callable[[bytes], frozenset[bytes]] | None] = {}
        # the group words of each file, by absolute path: a crate's alias map looks for them
        # in every source of the crate, and the files' own verdicts need not look again
        self._words: dict[str, frozenset[bytes]] = {}
        self._plain_words: dict[str, frozenset[bytes]] = {}  # without their marked forms
        self._crate_files: dict[Path, frozenset[str]] = {}  # the `src/` files read, by crate

    def keeps(self, path: str, data: bytes) -> bool:
        """Some group has every word in `data` (comments included) or named there by an
        alias (`_named`); the aliases are read only when the file's own words complete no
        group."""
        if rule_groups() is None:
            return True
        absolute = os.path.abspath(path)
        plain = self._plain(absolute, data)
        if SUPPRESSION_MARKER in plain:
            return True  # a suppression comment gets its hint: comments count here
        named = None
        most = _every_form(plain)  # the words it could have, were every form written
        if not any_group(most):  # then no form need be looked for
            named = self._named(path, data)
            if not any_group(most | named):
                return False
        own = self._scanned(absolute, data)
        if any_group(own):
            return True
        named = named if named is not None else self._named(path, data)
        return any_group(own | named)

    def rules_for(self, path: str, data: bytes) -> frozenset[str] | None:
        """The rules that can fire in `data` (`possible_rules` of its words, comments
        included, and of the names its aliases give them); None: any rule may."""
        if rule_groups() is None:
            return None
        return possible_rules(self._scanned(os.path.abspath(path), data) | self._named(path, data))

    def _named(self, path: str, data: bytes) -> frozenset[bytes]:
        """The group words `data` names by an alias: one its crate's `src/` files give (the
        module loader reads them all), and, for a file that is not one of them (a crate's
        test, bench or example, a file of no crate), one its own `use .. as` or `type` gives."""
        crate = self._crate_aliases(path)
        found = crate(data) if crate is not None else frozenset()
        manifest = self._manifest_of(path)
        if manifest is None or os.path.abspath(path) not in self._crate_files[manifest]:
            own = _alias_finder(crate_alias_map([data])) if _alias_sites(data) else None
            if own is not None:
                found |= own(data)
        return found

    def _find_manifest(self, path: str) -> Path | None:
        from panic_lens.rust.crate import find_manifest

        folder = os.path.dirname(os.path.abspath(path))
        if folder not in self._manifests:
            self._manifests[folder] = find_manifest(path)
        return self._manifests[folder]

    def _crate_aliases(self, path: str) -> Callable[[bytes], frozenset[bytes]] | None:
        """The search for the group words that a text names by one of its crate's aliases;
        None when the crate gives no word another name."""
        manifest = self._manifest_of(path)
        if manifest is None:
            return None
        if manifest not in self._aliases:
            sources = list(self._sources(manifest.parent / "src"))
            seeded = [self._mentions_a_word(path, data) for path, data in sources]
            found = crate_alias_map([data for _, data in sources], seeded)
            self._aliases[manifest] = _alias_finder(found)
            self._crate_files[manifest] = frozenset(os.path.abspath(p) for p, _ in sources)
        return self._aliases[manifest]

    def _scanned(self, path: str, data: bytes) -> frozenset[bytes]:
        """The group words `data` mentions; kept only for the run's own bytes of `path` (a
        file read again may have changed in between)."""
        if self._contents.get(path) is not data:
            return own_words(data)
        found = self._words.get(path)
        if found is None:
            found = self._words[path] = _with_forms(data, self._plain(path, data))
        return found

    def _plain(self, path: str, data: bytes) -> frozenset[bytes]:
        """The group words `data` mentions, without their marked forms (kept as `_scanned`)."""
        if self._contents.get(path) is not data:
            return _word_finder()(data)
        found = self._plain_words.get(path)
        if found is None:
            found = self._plain_words[path] = _word_finder()(data)
        return found

    def _mentions_a_word(self, path: str, data: bytes) -> bool:
        """Whether `data` mentions a group word (its own words then name one, and only
        then): the crate's other files need no more than this, the marked forms are
        looked for in the files whose verdicts are asked."""
        return bool(self._plain(path, data))

    def _sources(self, src: Path) -> Iterable[tuple[str, bytes]]:
        for dirpath, dirnames, filenames in os.walk(src):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for name in sorted(f for f in filenames if f.endswith(".rs")):
                path = os.path.join(dirpath, name)
                data = self._contents.get(path)
                if data is None:
                    try:
                        data = self._read(path)
                    except OSError:
                        continue
                yield path, data


def _alias_finder(aliases: AliasMap) -> Callable[[bytes], frozenset[bytes]] | None:
    """The group words a text names by one of their aliases; None when there are none."""
    marked = _tables()[2]
    words_of: dict[bytes, set[bytes]] = {}
    for word, names in aliases.items():
        # an alias counts as a call or a qualifier (a method's name cannot be renamed)
        forms = {word, *(m for m in marked.get(word, ()) if not m.startswith(METHOD))}
        for name in names:
            words_of.setdefault(name, set()).update(forms)
    if not words_of:
        return None
    contained = substring_finder(words_of)

    def named(data: bytes) -> frozenset[bytes]:
        return frozenset().union(*(words_of[name] for name in contained(data)))

    return named


def _read_file(path: str) -> bytes:
    with open(path, "rb") as file:
        return file.read()
