"""Load-time checks of a rule in the language: what the TOML reading (`spec.py`) cannot see.

Every `[[where]]` call must resolve to a burn API panic-lens knows (`api.py`: the shipped
config table and guards index) unless it says `external = true`; every expression (the
condition, each `let`, each `severity_when`, each `{..}` hole of `message` and of a fix's
`with`) must parse and type-check with CEL against the names the rule binds, with their types
(`types.py`); a `config.<field>` must be a field of some call's config; a `[[fix]] replace`
must name a value the rule binds. A problem is a `RuleFileError` naming file, line and key,
with "did you mean" where a close name exists. Each distinct expression is checked once per
process (a reload of unchanged rules checks nothing again).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import cel_expr_python.cel as cel

from panic_lens.rules.language import api, types
from panic_lens.rules.language.conditions import declared_functions
from panic_lens.rules.language.expressions import STRING_LITERAL
from panic_lens.rules.language.spec import (
    HOLE,
    RuleFileError,
    RuleSpec,
    closest,
    did_you_mean,
    error_at,
)

__all__ = ["check_rule"]

# The names whose fields a rule reads (`config.delta`): each field becomes a typed variable
# of its own for the check (`config__delta`), so a misspelled field is named and typed.
_RECORDS = ("config", "context", "receiver", "result")
_MARK = "__"
_HAS = re.compile(r"\bhas\(\s*(config|context|receiver|result)\s*\.\s*([A-Za-z_]\w*)\s*\)")
_FIELD = re.compile(r"(?<![\w.])(config|context|receiver|result)\s*\.\s*([A-Za-z_]\w*)")


@dataclass(frozen=True)
class _Scope:
    """What a rule's expressions may read: each record's fields with their types, and the
    other names (arguments, lets) with theirs."""

    fields: dict[str, dict[str, Any]]  # record -> field -> cel type
    names: dict[str, Any]  # argument or let name -> cel type
    open_config: bool = False  # no config table is shipped: any `config.x` may be a field

    @cached_property
    def variables(self) -> dict[str, Any]:
        """Every name and every field as CEL variables (one environment serves all the
        expressions of a rule); a record read whole (`receiver == null`) is a map."""
        out = {
            f"{record}{_MARK}{field}": kind
            for record, fields in self.fields.items()
            for field, kind in fields.items()
        }
        for record in _RECORDS:
            out[record] = cel.Type.Map(cel.Type.STRING, cel.Type.DYN)
        return out | self.names


def check_rule(spec: RuleSpec) -> None:
    """Raise RuleFileError for the first problem of a rule in the language: its calls, then
    its expressions, then its fixes' targets."""
    for index, where in enumerate(spec.wheres):
        if not where.external:
            problem = api.resolve(where.call)
            if problem is not None:
                hint = (
                    "; if it is an API panic-lens does not know, write `external = true` in "
                    "this `[[where]]`"
                )
                raise _fail(spec, f"where[{index}].call", problem + hint)
    scope = _scope(spec)
    if spec.condition is not None:
        _check(spec, scope, spec.condition, "when.condition", boolean=True)
    if spec.message is not None:
        _check_holes(spec, scope, spec.message, "when.message")
    for index, rule in enumerate(spec.severity_when):
        _check(spec, scope, rule.when, f"severity_when[{index}].when", boolean=True)
    for index, fix in enumerate(spec.fixes):
        _check_target(spec, scope, fix.replace, f"fix[{index}].replace")
        _check_holes(spec, scope, fix.with_, f"fix[{index}].with")


def _fail(spec: RuleSpec, key: str, reason: str) -> RuleFileError:
    return error_at(spec.source, spec.lines, key, reason)


def _scope(spec: RuleSpec) -> _Scope:
    """The fields and names of the rule with their types: a config field of several calls'
    configs, or a name several `[[where]]`s bind, keeps its type only when they agree."""
    configs = [types.config_fields(w.owner) for w in spec.wheres]
    open_config = types.no_config_table()
    fields = {
        "config": types.merge(c for c in configs if c is not None),
        **types.RECORDS,
    }
    names: dict[str, list[Any]] = {}
    for index, where in enumerate(spec.wheres):
        own = dict(types.argument_types(where))
        for name, expr in where.lets:
            key = f"where[{index}].let.{name}"
            here = _Scope(fields | {"config": configs[index] or {}}, own, open_config)
            own[name] = _check(spec, here, expr, key)
        for name, kind in own.items():
            names.setdefault(name, []).append(kind)
    names_ = {name: types.agree(kinds) for name, kinds in names.items()}
    return _Scope(fields, names_, open_config)


def _check_holes(spec: RuleSpec, scope: _Scope, template: str, key: str) -> None:
    for hole in HOLE.finditer(template):
        if hole.group(1) is not None:
            _check(spec, scope, hole.group(1), key, hole=True)


def _check_target(spec: RuleSpec, scope: _Scope, target: str, key: str) -> None:
    """A fix replaces the source text that set an argument or a config field."""
    head, _, field = target.partition(".")
    arguments = {a for w in spec.wheres for a in w.args if a != "_"}
    if head == "config" and field:
        known = scope.fields["config"]
        if field not in known and not scope.open_config:
            close = closest(field, known)
            hint = f" (did you mean `config.{close}`?)" if close else ""
            raise _fail(spec, key, f"`{target}` is no field of the config of any call{hint}")
        return
    if target not in arguments:
        # `delta` for `config.delta`: the closest of the arguments and the fields' names
        values = {**{f: f"config.{f}" for f in scope.fields["config"]}, **{a: a for a in arguments}}
        close = closest(target, values)
        hint = f" (did you mean `{values[close]}`?)" if close else ""
        raise _fail(
            spec, key, f"`{target}` names no value a fix can replace (an `args` name or "
            f"config.<field>){hint}",
        )  # fmt: skip


def _check(
    spec: RuleSpec, scope: _Scope, expr: str, key: str, boolean: bool = False, hole: bool = False
) -> Any:
    """The CEL type of `expr` in `scope` (DYN when CEL cannot tell); RuleFileError when it
    does not parse, names an unknown field or does not type-check."""
    rewritten = _flatten(spec, scope, expr, key)
    kind, problem = _typed(rewritten, scope.variables)
    what = "the hole {" + expr.strip() + "}" if hole else "the expression"
    if problem is not None:
        raise _fail(spec, key, f"{what} does not compile: {_readable(problem)}")
    if boolean and kind is not None and kind.name() not in ("BOOL", "DYN"):
        raise _fail(spec, key, f"must be true or false, but it is {_unflatten(kind.name())}")
    return kind if kind is not None else cel.Type.DYN


def _flatten(spec: RuleSpec, scope: _Scope, expr: str, key: str) -> str:
    """`expr` with each `record.field` as one variable (`config__delta`; `has(record.field)`
    as `true`); a field no call gives is an error."""

    def field_of(record: str, field: str) -> str:
        known = scope.fields[record]
        if record == "config" and scope.open_config and field not in known:
            return f"{record}.{field}"  # the config is a map of unknown fields
        if field not in known:
            where = "the config of any call of this rule" if record == "config" else record
            reason = f"`{record}.{field}` is no field of {where}"
            if record == "config" and not known:
                reason = f"`{record}.{field}`: no call of this rule has a burn config"
            raise _fail(spec, key, reason + did_you_mean(field, known))
        return f"{record}{_MARK}{field}"

    def has(found: re.Match[str]) -> str:
        field_of(found.group(1), found.group(2))
        return "true"

    def select(found: re.Match[str]) -> str:
        return field_of(found.group(1), found.group(2))

    parts = STRING_LITERAL.split(expr)
    strings = STRING_LITERAL.findall(expr)
    out = []
    for at, part in enumerate(parts):
        out.append(_FIELD.sub(select, _HAS.sub(has, part)))
        if at < len(strings):
            out.append(strings[at])
    return "".join(out)


def _unflatten(text: str) -> str:
    return re.sub(rf"\b({'|'.join(_RECORDS)}){_MARK}(\w)", r"\1.\2", text)


# CEL's functions and macros, and the rule language's (`conditions.declared_functions`)
_FUNCTIONS = (
    "size", "has", "int", "uint", "double", "string", "bool", "bytes", "dyn", "type", "exists",
    "all", "exists_one", "map", "filter", "matches", "startsWith", "endsWith", "contains",
    "sum", "product", "indices",
)  # fmt: skip
_UNDECLARED = re.compile(r"undeclared reference to '(\w+)' \(in container ''\)")


def _readable(problem: str) -> str:
    """CEL's error in the rule's words: fields as written, a misspelled function named."""
    found = _UNDECLARED.search(problem)
    if found:
        name = found.group(1)
        return f"no function `{name}`{did_you_mean(name, _FUNCTIONS)}"
    return _unflatten(problem)


_CHECKED: dict[tuple[str, tuple[tuple[str, str], ...]], tuple[Any, str | None]] = {}
_ENVS: dict[tuple[tuple[str, str], ...], Any] = {}


def _typed(expr: str, variables: dict[str, Any]) -> tuple[Any, str | None]:
    """(CEL type, None) or (None, the first error that would also fail at run time); each
    expression is compiled once per set of variable types."""
    signature = tuple(sorted((n, t.name()) for n, t in variables.items()))
    found = _CHECKED.get((expr, signature))
    if found is None:
        if len(_CHECKED) > 8192:
            _CHECKED.clear()
        found = _CHECKED[(expr, signature)] = _compile(expr, _env(signature, variables))
    return found


def _compile(expr: str, env: Any) -> tuple[Any, str | None]:
    try:
        return env.compile(expr).return_type(), None
    except RuntimeError as exc:
        real = [e for e in _errors(str(exc)) if not _lenient(e)]
        return None, (real[0] if real else None)


def _env(signature: tuple[tuple[str, str], ...], variables: dict[str, Any]) -> Any:
    env = _ENVS.get(signature)
    if env is None:
        if len(_ENVS) > 1024:
            _ENVS.clear()
        env = _ENVS[signature] = cel.NewEnv(variables=variables, functions=declared_functions())
    return env


def _errors(message: str) -> list[str]:
    """The text of each error of a CEL compile failure."""
    out = []
    for line in message.splitlines():
        found = re.search(r"ERROR: <input>:\d+:\d+: (.*)", line)
        if found:
            out.append(found.group(1).strip())
    return out or [message.splitlines()[0] if message else message]


_OVERLOAD = re.compile(r"found no matching overload for '([^']+)' applied to '\((.*)\)'")
_NUMERIC = re.compile(r"^(?:int|uint|double|wrapper\((?:int|uint|double)\)|dyn)$")
_COMPARE = {"_==_", "_!=_", "_<_", "_<=_", "_>_", "_>=_"}


def _lenient(error: str) -> bool:
    """CEL's checker is stricter than its evaluator, which compares an int with a double
    (`delta < 0`), a value with null, and lets the branches of `?:` differ: such an error is
    no error at run time. So is one that follows from another (`*error*`)."""
    found = _OVERLOAD.search(error)
    if found is None:
        return False
    op, args = found.group(1), [a.strip() for a in _split_args(found.group(2))]
    if "*error*" in args or op == "_?_:_":
        return True
    if op in _COMPARE and len(args) == 2:
        if op in ("_==_", "_!=_") and ("null_type" in args or "dyn" in args):
            return True
        return all(_NUMERIC.match(a) for a in args)
    if op == "@in" and len(args) == 2:
        inner = re.fullmatch(r"list\((.*)\)", args[1])
        return inner is not None and bool(_NUMERIC.match(args[0]) and _NUMERIC.match(inner[1]))
    return False


def _split_args(text: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for at, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:at])
            start = at + 1
    parts.append(text[start:])
    return parts
