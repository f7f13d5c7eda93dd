"""Stage 4, writing the rule: the public calls and their conditions become a rule file in the
rule language (`derived_toml`): one `[[where]]` per call, burn's message with the values the
calls show, the panic site records bind by; a module's panic on its config's fields moves
to the config's `init` (`at_config_init`).
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import Any

from panic_lens.catalog.derive.model import Entry, split_args
from panic_lens.catalog.derive.naming import bare, read_values
from panic_lens.catalog.model import Record
from panic_lens.rules.language.configs import ConfigTable
from panic_lens.rules.language.spec import BUILTIN_NAMES


def reads(condition: str, names: set[str]) -> bool:
    """Whether the condition reads one of `names` (a value some call may show)."""
    body = re.sub(r'"(?:[^"\\]|\\.)*"', '""', condition)
    return any(re.search(rf"(?<![\w.]){re.escape(n)}\b(?!\s*\()", body) for n in names)


def at_config_init(entries: list[Entry], table: ConfigTable) -> str | None:
    """A module method whose panic depends on its config's fields only panics later than the
    call that fixes them: it is reported at the config's `init` (which made the module), and
    the rule says when burn panics."""
    later: list[str] = []
    for entry in entries:
        if entry.kind != "module" or not entry.condition:
            continue
        module, method = entry.call.rsplit("::", 1)
        config = table.modules.get(module)
        if config is None or not reads(entry.condition, {"config"}):
            continue
        if reads(entry.condition, {"receiver", *entry.params}):
            continue
        entry.call, entry.kind = f"{config}::init", "config"
        entry.holes = [
            h if h is not None and not reads(h, {"receiver", *entry.params}) else None
            for h in entry.holes
        ]
        entry.params = []
        later.append(f"{module.rsplit('::', 1)[-1]}::{method}")
    if not later:
        return None
    return f"at the first {' or '.join(sorted(set(later)))} call"


def merge_same_calls(entries: list[Entry]) -> list[Entry]:
    """One entry per public call: two ways from one call to the panic are `||`ed (the
    message's values are kept only where both ways give the same ones)."""
    out: dict[str, Entry] = {}
    for entry in entries:
        seen = out.get(entry.call)
        if seen is None:
            out[entry.call] = entry
            continue
        if entry.condition != seen.condition:
            if not entry.condition or not seen.condition:
                seen.condition = ""  # one way panics unconditionally
            else:
                seen.condition = f"({seen.condition}) || ({entry.condition})"
        seen.holes = [a if a == b else None for a, b in zip(seen.holes, entry.holes, strict=False)]
    return list(out.values())


def _unreserved(entry: Entry) -> Entry:
    """The entry with a parameter named like a value the rule language gives every rule
    (`config`, `receiver`, `result`, `context`) renamed with a trailing `_`, in its condition
    and holes too: a public function `fn build(config: &DropoutConfig)` that reaches the
    panic reads `config_.prob`. A config's own method, whose `self` is the rule's `config`,
    is left as it is."""
    clash = [p for p in entry.params if p in BUILTIN_NAMES]
    if not clash or entry.kind == "config":
        return entry
    word = re.compile(r"(?<![\w.])(" + "|".join(clash) + r")\b")

    def renamed(text: str) -> str:
        return word.sub(lambda found: f"{found.group(1)}_", text)

    return replace(
        entry,
        params=[f"{p}_" if p in clash else p for p in entry.params],
        condition=renamed(entry.condition),
        holes=[renamed(h) if h is not None else None for h in entry.holes],
    )


def _q(text: str) -> str:
    return json.dumps(text)


def derived_toml(
    record: Record,
    entries: list[Entry],
    fn: dict[str, Any],
    panic: dict[str, Any],
    rule_id: str,
    fires: str | None = None,
    burn_message: str | None = None,
    more_sites: tuple[tuple[dict[str, Any], dict[str, Any]], ...] = (),
    other_messages: tuple[str, ...] = (),
) -> str:
    """The rule file's text (what `records derive` prints and the registry reads);
    `more_sites`: burn's other panics (function, panic), named too; `other_messages`: the
    messages of those the record is about besides burn's (hole-free), said after it."""
    burn_message = burn_message or ""
    entries = [_unreserved(entry) for entry in entries]
    hole_names = [f"v{i}" for i in range(len(entries[0].holes))]
    if burn_message:
        message = _fill_named(burn_message, hole_names, entries)
        for other in other_messages:  # `k1 must be positive, or k2 must be positive`
            message = f"{message.rstrip()}, or {other.replace('{', '{{').replace('}', '}}')}"
    else:
        plain = re.sub(
            r"^assertion `left (==|!=) right` failed: |^not implemented: ",
            "",
            record.panic.error_message,
        ).strip()
        message = _fill_holes(plain, [], entries)
    shown = message.replace("{{", "\x00").replace("}}", "\x01")
    shown = re.sub(r"\{[^{}]*\}", "…", shown).replace("\x00", "{").replace("\x01", "}")
    title = (shown.strip().splitlines() or [""])[0][:100] or f"burn panic {record.id}"
    literal = _literal(burn_message)
    literal = (literal or title).replace("{", "").replace("}", "").replace("…", "").strip()
    conditions = {e.condition for e in entries}
    shared = len(conditions) == 1
    calls = ", ".join(
        sorted({e.call.rsplit("::", 2)[-2] + "::" + e.call.rsplit("::", 1)[-1] for e in entries})
    )
    summary = f"{calls} panics in burn ({fn['file']}:{panic['line']}): {title}"
    message, value_lets = _with_values(message, hole_names, entries)
    lines = [
        f"id = {_q(rule_id)}",
        f"title = {_q(title)}",
        f"summary = {_q(summary)}",
        'severity = "error"',
        f"derived_from = {_q(record.id)}",
        *([f"fires = {_q(fires)}"] if fires else []),
        "",
    ]
    for site_fn, site_panic in [(fn, panic), *more_sites]:
        own = _literal(str(site_panic.get("message") or "")) or literal  # its own message's
        lines += [
            "[[panic_site]]",
            f"file = {_q(site_fn['file'])}",
            f"guard = {_q(_quoted_guard(site_panic) or literal)}",
            f"message = {_q(own.replace('{', '').replace('}', ''))}",
            f"line = {site_panic['line']}",
            "",
        ]
    lines.pop()
    for entry in sorted(entries, key=lambda e: e.call):
        lines += ["", "[[where]]", f"call = {_q(entry.call)}"]
        if entry.params:
            lines.append(f"args = [{', '.join(_q(p) for p in entry.params)}]")
        if entry.result_generic is not None and reads(
            " ".join([entry.condition, *filter(None, entry.holes)]), {"result"}
        ):
            lines.append(f"result_generic = {entry.result_generic}")
        lets: list[tuple[str, str]] = []
        if not shared:
            lets.append(("fires", entry.condition or "true"))
        for name, hole in zip(hole_names, entry.holes, strict=False):
            if hole is not None:
                lets.append((name, hole))
        lets += value_lets.get(id(entry), [])
        if lets:
            lines.append("[where.let]")
            lines += [f"{name} = {_q(expr)}" for name, expr in lets]
    condition = next(iter(conditions)) if shared else "fires"
    filled = message
    lines += ["", "[when]"]
    if condition:
        lines.append(f"condition = {_q(condition)}")
    lines.append(f"message = {_q(filled)}")
    return "\n".join(lines) + "\n"


def _literal(message: str) -> str:
    """The first literal piece of burn's format string long enough to say which panic."""
    return next((p.strip() for p in re.split(r"\{[^{}]*\}", message) if len(p.strip()) >= 4), "")


def _with_values(
    message: str, hole_names: list[str], entries: list[Entry]
) -> tuple[str, dict[int, list[tuple[str, str]]]]:
    """`message` with the values the condition read that it does not print already
    (` (delta = {config.delta})`), and the `[where.let]`s of the values that each call reads
    in its own way (by entry)."""
    printed = {
        bare(hole)
        for i, name in enumerate(hole_names)
        if "{" + name + "}" in message
        for e in entries
        if (hole := e.holes[i]) is not None
    }
    lets: dict[int, list[tuple[str, str]]] = {}
    shown: list[str] = []
    for position, (label, exprs) in enumerate(read_values(entries, printed)):
        if len(set(exprs)) == 1:
            shown.append(f"{label} = {{{exprs[0]}}}")
            continue
        name = f"r{position}"
        for entry, expr in zip(entries, exprs, strict=True):
            lets.setdefault(id(entry), []).append((name, expr))
        shown.append(f"{label} = {{{name}}}")
    if shown:
        message = f"{message.rstrip()} ({', '.join(shown)})"
    return message, lets


def _quoted_guard(panic: dict[str, Any]) -> str:
    """A fragment of burn's panic line as written, for `[[panic_site]] guard` (records bind by
    it): the assert's condition, the `if` a panic sits in, the TensorCheck called."""
    kind = panic["kind"]
    if kind == "check":
        return f"TensorCheck::{panic['check']}"
    guard = str(panic.get("guard") or "")
    if kind == "assert":
        return re.sub(r"^!\((.*)\)$", r"\1", guard, flags=re.S)
    if kind in ("assert_eq", "assert_ne"):
        first = split_args(guard.replace(" != ", ", ", 1).replace(" == ", ", ", 1))[0]
        return first[1:-1] if first.startswith("(") and first.endswith(")") else first
    ifs = [p[1] for p in panic.get("path", ()) if p[0] == "if"]
    return ifs[-1] if ifs else ""


def _fill_named(template: str, names: list[str], entries: list[Entry]) -> str:
    """burn's format string with its named holes (`{dim}`, `{x:?}`) as `{v<i>}` where every
    entry maps the value, `…` elsewhere (positional `{}` holes too)."""
    known = [all(e.holes[i] is not None for e in entries) for i in range(len(names))]
    index = iter(range(len(names)))

    def repl(found: re.Match[str]) -> str:
        if found.group(0) in ("{{", "}}"):
            return found.group(0)
        name = found.group(1)
        if not name or name.isdigit():
            return "…"
        i = next(index, None)
        return "{" + names[i] + "}" if i is not None and known[i] else "…"

    return re.sub(r"\{\{|\}\}|\{(\w*)(?::[^{}]*)?\}", repl, template)


def _fill_holes(message: str, names: list[str], entries: list[Entry]) -> str:
    """The record's message with its `{}` holes as `{v<i>}` where every entry maps the value."""
    known = [all(e.holes[i] is not None for e in entries) for i in range(len(names))]
    holes = iter(range(len(names)))
    positional = message.count("{}")

    def repl(_: re.Match[str]) -> str:
        index = next(holes, None)
        if index is None or positional != len(names) or not known[index]:
            return "…"
        return "{" + names[index] + "}"

    escaped = message.replace("{", "\x00").replace("}", "\x01").replace("\x00\x01", "{}")
    escaped = re.sub(r"\{\}", repl, escaped)
    return escaped.replace("\x00", "{{").replace("\x01", "}}")
