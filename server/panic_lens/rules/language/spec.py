"""Rule files: one TOML file per rule (docs/rule-language.md), read into a `RuleSpec`.

Reading checks every key and names a mistake by file, line and key (`RuleFileError`); what
the keys say (that each call is a burn API panic-lens knows, that every expression
type-checks against the names the rule binds) is checked when the rule joins the registry
(`meta.info_from_spec` runs `check.check_rule`). Nothing here imports tree-sitter or CEL.
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from panic_lens.model import Severity
from panic_lens.rules.language.expressions import free_names
from panic_lens.rules.language.versions import VERSION_REQ

RULE_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# `{expr}` holes of a message or fix text; `{{` and `}}` are literal braces.
HOLE = re.compile(r"\{\{|\}\}|\{([^{}]+)\}")
PATH = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)+")
# Names a condition may read besides the `args` and `let` names of its `[[where]]`s.
BUILTIN_NAMES = ("config", "receiver", "result", "context")
RESERVED = frozenset(BUILTIN_NAMES) | {"true", "false", "null", "in", "_"}


class RuleFileError(ValueError):
    """A rule file that cannot be used: `path:line: key: reason`."""

    def __init__(self, path: str, line: int, key: str, reason: str) -> None:
        self.path, self.line, self.key, self.reason = path, line, key, reason
        where = f"{path}:{line}" if line else path
        super().__init__(f"{where}: {key}: {reason}" if key else f"{where}: {reason}")


def closest(name: str, known: Iterable[str]) -> str | None:
    """The name of `known` closest to `name`, when one is close enough to be a typo."""
    import difflib  # only when a rule is wrong

    close = difflib.get_close_matches(name, sorted(set(known)), n=1, cutoff=0.6)
    return close[0] if close else None


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """` (did you mean `x`?)` for the closest of `known` to `name`, or an empty string."""
    close = closest(name, known)
    return f" (did you mean `{close}`?)" if close else ""


def error_at(source: str, lines: dict[str, int], key: str, reason: str) -> RuleFileError:
    """The error of `key`, at its line (or its table's, for a key inside a multi-line value)."""
    line = lines.get(key, 0)
    probe = key
    while not line and ("." in probe or "[" in probe):
        probe = re.sub(r"(\.[^.\[]+|\[\d+\])$", "", probe)
        line = lines.get(probe, 0)
    return RuleFileError(source, line, key, reason)


@dataclass(frozen=True, slots=True)
class BurnSite:
    """`[[panic_site]]`: a place in burn's source where a rule's panic is raised.

    A record's panic half is about this panic when it names the same `file` and either quotes
    `guard` in its sourceCode or carries `message` in its errorMessage or messagePattern
    (whitespace is ignored in both). `line` never decides alone: it only orders two matching
    sites of the same file.
    """

    file: str  # path inside the burn repository: crates/<crate>/src/...
    guard: str  # a distinctive fragment of the assert or panic line(s)
    message: str  # a literal fragment of the panic's format string, with no `{}` holes
    line: int | None = None  # where the guard sits in burn 0.22.0-pre.2 (or the version noted)


@dataclass(frozen=True, slots=True)
class Where:
    """`[[where]]`: a burn function or method (`owner::name`; `owner` None for a free function
    is not knowable from the text, so `owner` is the path before the last segment)."""

    call: str
    args: tuple[str, ...] = ()
    lets: tuple[tuple[str, str], ...] = ()
    # which turbofish argument of the call (`x.unsqueeze::<3>()`) is the rank of what it returns
    result_generic: int | None = None
    # words a file must also write for this call to be flagged (what makes its values known)
    words: tuple[str, ...] = ()
    # the author's word that `call` is an API outside what panic-lens knows of burn (its
    # resolution is then not checked at load)
    external: bool = False
    # a builder's methods that replace what `call` sets (`with_source_size` after
    # `with_size_ratio(-1.0)`): a call whose result one of them is later called on is not
    # flagged (the value never reaches the panic)
    replaced_by: tuple[str, ...] = ()
    # read from `call` once (every call site of a file asks them)
    name: str = field(init=False, compare=False, repr=False)
    owner: str = field(init=False, compare=False, repr=False)
    owner_name: str = field(init=False, compare=False, repr=False)
    # `Type::method` (the owner is a type: its last segment is capitalised)
    method_like: bool = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        owner, _, name = self.call.rpartition("::")
        owner = owner or name  # a call with no `::`: as `rsplit` reads it
        owner_name = owner.rsplit("::", 1)[-1]
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "owner", owner)
        object.__setattr__(self, "owner_name", owner_name)
        object.__setattr__(self, "method_like", owner_name[:1].isupper())


@dataclass(frozen=True, slots=True)
class SeverityWhen:
    when: str
    severity: Severity


@dataclass(frozen=True, slots=True)
class FixSpec:
    title: str
    replace: str
    with_: str
    changes_behaviour: bool = False


@dataclass(frozen=True, slots=True)
class RuleSpec:
    """One rule file, checked. `hook` rules give metadata only; the others are data."""

    id: str
    title: str
    summary: str
    severity: Severity
    source: str  # the file it was read from
    fingerprint: str  # sha256 of the file's bytes: cache keys change when the rule does
    sites: tuple[BurnSite, ...]
    apis: tuple[str, ...] = ()
    fires: str | None = None
    burn: str | None = None
    hook: str | None = None
    prefilter: tuple[tuple[str, ...], ...] = ()  # hook rules only: their words
    wheres: tuple[Where, ...] = ()
    condition: str | None = None
    message: str | None = None
    severity_when: tuple[SeverityWhen, ...] = ()
    fixes: tuple[FixSpec, ...] = ()
    examples: str | None = None  # the `.rs` beside the file, when there is one
    derived_from: str | None = None  # the id of the record the rule was derived from
    # `docs = ".."`: a web address, or an absolute path (written relative to the rule file)
    docs: str | None = None
    doc: str | None = None  # `[doc] text = ".."`: the rule's documentation, Markdown
    lines: dict[str, int] = field(default_factory=dict, compare=False, repr=False)

    def line_of(self, key: str) -> int:
        return self.lines.get(key, 0)


_TOP = {
    "id", "title", "summary", "severity", "fires", "apis", "burn", "hook", "prefilter",
    "panic_site", "where", "when", "severity_when", "fix", "derived_from", "docs", "doc",
}  # fmt: skip
_DOC = {"text"}
WEB_ADDRESS = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
_SITE = {"file", "guard", "message", "line"}
_WHERE = {"call", "args", "let", "result_generic", "words", "external", "replaced_by"}
_WHEN = {"condition", "message"}
_SEVERITY_WHEN = {"when", "severity"}
_FIX = {"title", "replace", "with", "changes_behaviour"}


def read_rule_file(path: Path) -> RuleSpec:
    """The rule in `path`; RuleFileError names the first problem by line and key."""
    shown = str(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise RuleFileError(shown, 0, "", f"cannot read: {exc.strerror or exc}") from exc
    return parse_rule(raw, shown, examples=_examples_of(path))


def _examples_of(path: Path) -> str | None:
    beside = path.with_suffix(".rs")
    return str(beside) if beside.is_file() else None


def parse_rule(raw: bytes, source: str, examples: str | None = None) -> RuleSpec:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RuleFileError(source, 0, "", f"not UTF-8 text ({exc.reason})") from exc
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line = getattr(exc, "lineno", 0) or _line_from_message(str(exc))
        raise RuleFileError(
            source, line, "", f"not valid TOML: {exc.msg if hasattr(exc, 'msg') else exc}"
        ) from exc
    lines = key_lines(text)
    spec = _Reader(source, lines).rule(data, hashlib.sha256(raw).hexdigest()[:16], examples)
    return spec


def _line_from_message(message: str) -> int:
    found = re.search(r"line (\d+)", message)
    return int(found.group(1)) if found else 0


def key_lines(text: str) -> dict[str, int]:
    """The 1-based line of each key, by dotted path with array-of-tables indexes:
    `id`, `where[1].call`, `when.condition`, `where[0].let.x`. Line-based: a key inside a
    multi-line value is not seen (its table's line is used)."""
    out: dict[str, int] = {}
    counts: dict[str, int] = {}
    table = ""
    in_string: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if in_string is not None:
            if stripped.count(in_string) % 2 == 1:
                in_string = None
            continue
        if stripped.startswith("[["):
            name = stripped[2:].split("]]", 1)[0].strip()
            index = counts.get(name, 0)
            counts[name] = index + 1
            table = f"{name}[{index}]"
            out.setdefault(table, number)
            out.setdefault(name, number)
            continue
        if stripped.startswith("["):
            name = stripped[1:].split("]", 1)[0].strip()
            head, _, rest = name.partition(".")
            # `[where.let]` after `[[where]]`
            table = f"{head}[{counts[head] - 1}].{rest}" if head in counts and rest else name
            out.setdefault(table, number)
            continue
        key, eq, value = stripped.partition("=")
        key = key.strip().strip('"')
        if not eq or not key or key.startswith("#"):
            continue
        out.setdefault(f"{table}.{key}" if table else key, number)
        for quote in ('"""', "'''"):
            if value.count(quote) % 2 == 1:
                in_string = quote
    return out


class _Reader:
    """Checks the parsed TOML; every error names the key's line."""

    def __init__(self, source: str, lines: dict[str, int]) -> None:
        self.source = source
        self.lines = lines

    def fail(self, key: str, reason: str) -> RuleFileError:
        return error_at(self.source, self.lines, key, reason)

    def unknown(self, table: dict[str, Any], allowed: set[str], prefix: str) -> None:
        for key in table:
            if key not in allowed:
                where = f"{prefix}.{key}" if prefix else key
                known = ", ".join(sorted(allowed))
                close = did_you_mean(key, allowed)
                raise self.fail(where, f"unknown key{close} (known keys: {known})")

    def text(self, table: dict[str, Any], key: str, prefix: str, required: bool = True) -> str:
        where = f"{prefix}.{key}" if prefix else key
        value = table.get(key)
        if value is None:
            if required:
                raise self.fail(prefix or key, f"`{key}` is missing")
            return ""
        if not isinstance(value, str) or not value.strip():
            raise self.fail(where, "must be a non-empty string")
        return value.strip()

    def docs(self, data: dict[str, Any]) -> str | None:
        """`docs`: a web address as written, or a file (relative to the rule file) that exists."""
        value = self.text(data, "docs", "", required=False)
        if not value or WEB_ADDRESS.match(value):
            return value or None
        path = Path(self.source).parent / Path(value).expanduser()
        if not path.is_file():
            raise self.fail("docs", f"no such file: {path} (write a web address or a file)")
        return str(path.resolve())

    def doc(self, data: dict[str, Any]) -> str | None:
        """`[doc] text = ".."`: the rule's page, shown where a link to one would be."""
        table = data.get("doc")
        if table is None:
            return None
        if not isinstance(table, dict):
            raise self.fail("doc", 'must be a table `[doc]` with `text = "..."`')
        self.unknown(table, _DOC, "doc")
        return self.text(table, "text", "doc")

    def tables(self, data: dict[str, Any], key: str) -> list[dict[str, Any]]:
        value = data.get(key, [])
        if isinstance(value, dict):
            raise self.fail(key, f"write `[[{key}]]` (a list of tables), not `[{key}]`")
        if not isinstance(value, list) or not all(isinstance(t, dict) for t in value):
            raise self.fail(key, "must be a list of tables")
        return value

    def rule(self, data: dict[str, Any], fingerprint: str, examples: str | None) -> RuleSpec:
        self.unknown(data, _TOP, "")
        rule_id = self.text(data, "id", "")
        if not RULE_ID.fullmatch(rule_id):
            raise self.fail("id", f"{rule_id!r} is not kebab-case (a-z, 0-9 and -)")
        severity = self.severity(data.get("severity", "error"), "severity")
        hook = self.text(data, "hook", "", required=False) or None
        sites = tuple(self.site(t, i) for i, t in enumerate(self.tables(data, "panic_site")))
        if not sites:
            raise self.fail("", "at least one `[[panic_site]]` is required")
        spec = RuleSpec(
            id=rule_id,
            title=self.text(data, "title", ""),
            summary=self.text(data, "summary", ""),
            severity=severity,
            source=self.source,
            fingerprint=fingerprint,
            sites=sites,
            apis=self.words(data, "apis"),
            fires=self.text(data, "fires", "", required=False) or None,
            burn=self.version_req(data),
            hook=hook,
            lines=self.lines,
            examples=examples,
            derived_from=self.text(data, "derived_from", "", required=False) or None,
            docs=self.docs(data),
            doc=self.doc(data),
        )
        if hook is not None:
            for key in ("where", "when", "fix", "severity_when"):
                if key in data:
                    raise self.fail(key, "a `hook` rule is Python: it cannot also have this")
            return replace(spec, prefilter=self.prefilter(data))
        if "prefilter" in data:
            raise self.fail("prefilter", "only a `hook` rule declares its words")
        wheres = tuple(self.where(t, i) for i, t in enumerate(self.tables(data, "where")))
        if not wheres:
            raise self.fail("", "at least one `[[where]]` is required (or a `hook`)")
        when = data.get("when", {})
        if not isinstance(when, dict):
            raise self.fail("when", "must be a table `[when]`")
        self.unknown(when, _WHEN, "when")
        names = _names(wheres)
        condition = self.text(when, "condition", "when", required=False) or None
        message = self.text(when, "message", "when", required=False) or None
        if condition is not None:
            self.names_known(condition, names, "when.condition")
        if message is not None:
            self.holes_known(message, names, "when.message")
        severity_when = tuple(
            self.severity_rule(t, i, names)
            for i, t in enumerate(self.tables(data, "severity_when"))
        )
        fixes = tuple(self.fix(t, i, names) for i, t in enumerate(self.tables(data, "fix")))
        return replace(
            spec, wheres=wheres, condition=condition, message=message,
            severity_when=severity_when, fixes=fixes,
        )  # fmt: skip

    def severity(self, value: Any, key: str) -> Severity:
        try:
            return Severity.parse(value) if isinstance(value, str) else Severity(value)
        except ValueError:
            reason = f"{value!r} is not one of error, warning, information, hint"
            raise self.fail(key, reason) from None

    def words(self, data: dict[str, Any], key: str) -> tuple[str, ...]:
        value = data.get(key, [])
        if not isinstance(value, list) or not all(isinstance(w, str) and w for w in value):
            raise self.fail(key, "must be a list of non-empty strings")
        return tuple(value)

    def prefilter(self, data: dict[str, Any]) -> tuple[tuple[str, ...], ...]:
        value = data.get("prefilter")
        if value is None:
            raise self.fail("hook", "a `hook` rule must list its `prefilter` word groups")
        ok = (
            isinstance(value, list)
            and value
            and all(
                isinstance(g, list)
                and g
                and all(isinstance(w, str) and IDENT.fullmatch(w.removesuffix("(")) for w in g)
                for g in value
            )
        )
        if not ok:
            raise self.fail(
                "prefilter", "must be a list of lists of identifiers (a called name ends in `(`)"
            )
        return tuple(tuple(g) for g in value)

    def version_req(self, data: dict[str, Any]) -> str | None:
        req = self.text(data, "burn", "", required=False)
        if not req:
            return None
        for part in req.split(","):
            if not VERSION_REQ.fullmatch(part):
                raise self.fail(
                    "burn", f"{part.strip()!r} is not a version requirement like '>=0.21'"
                )
        return req

    def site(self, table: dict[str, Any], index: int) -> BurnSite:
        prefix = f"panic_site[{index}]"
        self.unknown(table, _SITE, prefix)
        file = self.text(table, "file", prefix)
        if not file.startswith("crates/") or not file.endswith(".rs"):
            raise self.fail(
                f"{prefix}.file", "must be a path in burn's repository: crates/<crate>/src/...rs"
            )
        line = table.get("line")
        if line is not None and (not isinstance(line, int) or line < 1):
            raise self.fail(f"{prefix}.line", "must be a positive integer")
        message = self.text(table, "message", prefix)
        if "{" in message or "}" in message:
            raise self.fail(
                f"{prefix}.message", "a literal fragment of the message, without `{}` holes"
            )
        return BurnSite(file, self.text(table, "guard", prefix), message, line)

    def where(self, table: dict[str, Any], index: int) -> Where:
        prefix = f"where[{index}]"
        self.unknown(table, _WHERE, prefix)
        call = self.text(table, "call", prefix)
        if not PATH.fullmatch(call):
            raise self.fail(
                f"{prefix}.call", f"{call!r} is not a path like burn::nn::GroupNormConfig::init"
            )
        args = table.get("args", [])
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            raise self.fail(f"{prefix}.args", "must be a list of names")
        for arg in args:
            if arg != "_" and (not IDENT.fullmatch(arg) or arg in RESERVED):
                raise self.fail(f"{prefix}.args", f"{arg!r} cannot name an argument")
        lets = table.get("let", {})
        if not isinstance(lets, dict) or not all(isinstance(v, str) for v in lets.values()):
            raise self.fail(f"{prefix}.let", 'must be a table of name = "expression"')
        for name in lets:
            if not IDENT.fullmatch(name) or name in RESERVED:
                raise self.fail(f"{prefix}.let.{name}", "cannot be used as a name")
        known = set(BUILTIN_NAMES) | {a for a in args if a != "_"}
        for name, expr in lets.items():
            self.names_known(expr, known, f"{prefix}.let.{name}")
            known.add(name)
        generic = table.get("result_generic")
        if generic is not None and (type(generic) is not int or generic < 0):
            raise self.fail(f"{prefix}.result_generic", "must be a turbofish position: 0, 1, ..")
        words = table.get("words", [])
        if not isinstance(words, list) or not all(
            isinstance(w, str) and len(w) >= 2 and not any(c.isspace() for c in w) for w in words
        ):
            raise self.fail(f"{prefix}.words", "must be a list of words (2 characters or more)")
        external = table.get("external", False)
        if not isinstance(external, bool):
            raise self.fail(f"{prefix}.external", "must be true or false")
        replaced = table.get("replaced_by", [])
        if not isinstance(replaced, list) or not all(
            isinstance(m, str) and IDENT.fullmatch(m) for m in replaced
        ):
            raise self.fail(f"{prefix}.replaced_by", "must be a list of method names")
        return Where(call, tuple(args), tuple(lets.items()), generic, tuple(words), external,
                     tuple(replaced))  # fmt: skip

    def severity_rule(self, table: dict[str, Any], index: int, names: set[str]) -> SeverityWhen:
        prefix = f"severity_when[{index}]"
        self.unknown(table, _SEVERITY_WHEN, prefix)
        when = self.text(table, "when", prefix)
        self.names_known(when, names, f"{prefix}.when")
        return SeverityWhen(when, self.severity(table.get("severity"), f"{prefix}.severity"))

    def fix(self, table: dict[str, Any], index: int, names: set[str]) -> FixSpec:
        prefix = f"fix[{index}]"
        self.unknown(table, _FIX, prefix)
        replace = self.text(table, "replace", prefix)  # which value: `check.py` checks it
        with_ = table.get("with")
        if not isinstance(with_, str):
            raise self.fail(prefix, "`with` (the replacement text) is missing")
        self.holes_known(with_, names, f"{prefix}.with")
        flag = table.get("changes_behaviour", False)
        if not isinstance(flag, bool):
            raise self.fail(f"{prefix}.changes_behaviour", "must be true or false")
        return FixSpec(self.text(table, "title", prefix), replace, with_, flag)

    def names_known(self, expr: str, names: set[str], key: str) -> None:
        """Every free name of `expr` is one the rule binds (a typo fails here, not silently
        as an always-unknown condition). Syntax is checked when the condition compiles."""
        for name in free_names(expr):
            if name not in names:
                known = ", ".join(sorted(names))
                close = did_you_mean(name, names)
                raise self.fail(key, f"`{name}` is not a value this rule binds{close} ({known})")

    def holes_known(self, template: str, names: set[str], key: str) -> None:
        for hole in HOLE.finditer(template):
            if hole.group(1) is not None:
                self.names_known(hole.group(1), names, key)


def _names(wheres: tuple[Where, ...]) -> set[str]:
    """Names a condition may read: the builtins and the names every `[[where]]` binds (a name
    bound by some wheres only is allowed: it is unknown, hence absent, at the others)."""
    names = set(BUILTIN_NAMES)
    for where in wheres:
        names |= {a for a in where.args if a != "_"} | {n for n, _ in where.lets}
    return names
