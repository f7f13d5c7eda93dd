"""Code actions: the rules' machine fixes, the records' solutions, the suppression comment, and
`source.fixAll.panic-lens`. Edits are computed lazily (codeAction/resolve) when the client can.

fixAll applies only fixes that keep behaviour: it often runs on save, and a fix that changes what
a model computes (e.g. another interpolation mode) must be a deliberate, visible choice.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from panic_lens.catalog.advisories import advised_against
from panic_lens.lsp.convert import SOURCE, finding_key, lsp_diagnostic, lsp_text_edits
from panic_lens.lsp.identifiers import FIX_ALL, SHOW_RECORD
from panic_lens.model import Edit, Finding, Fix
from panic_lens.rules.meta import SUPPRESSION_RULE

if TYPE_CHECKING:
    from panic_lens.lsp.session import FileResult, PanicLensServer

ALLOW = "allow"


@dataclass(frozen=True, slots=True)
class Target:
    finding: Finding
    diagnostic: types.Diagnostic


def lsp_code_actions(
    ls: PanicLensServer, result: FileResult, params: types.CodeActionParams
) -> list[types.CodeAction]:
    """Every action for the panic-lens diagnostics in the request's context, then fixAll."""
    lazy = ls.client_supports("text_document.code_action.resolve_support")
    actions: list[types.CodeAction] = []
    for target in _targets(ls, result, params):
        actions.extend(_fix_actions(result, target, lazy))
        actions.extend(_solution_actions(ls, target))
        if target.finding.rule != SUPPRESSION_RULE:
            actions.append(_allow_action(result, target, lazy))
    if (fix_all := fix_all_action(result, lazy)) is not None:
        actions.append(fix_all)
    return [a for a in actions if _wanted(a.kind, params.context.only)]


def _targets(
    ls: PanicLensServer, result: FileResult, params: types.CodeActionParams
) -> list[Target]:
    ours = [d for d in params.context.diagnostics if d.source == SOURCE]
    targets = [Target(f, d) for d in ours if (f := _finding_of(result, d)) is not None]
    if targets or ours:
        return targets
    # Clients that send no diagnostics (some send none for a cursor): findings under the range.
    start = result.index.point(params.range.start)
    end = result.index.point(params.range.end)
    return [
        Target(f, lsp_diagnostic(f, result.index, result.uri, ls.lines_for))
        for f in result.analysis.findings
        if (f.span.start.row, f.span.start.col) <= (end.row, end.col)
        and (start.row, start.col) <= (f.span.end.row, f.span.end.col)
    ]


def _finding_of(result: FileResult, diag: types.Diagnostic) -> Finding | None:
    data = diag.data if isinstance(diag.data, dict) else {}
    if (key := data.get("key")) and (found := result.finding(key)) is not None:
        return found
    for f in result.analysis.findings:  # data lost by the client: match rule and range
        if f.rule == diag.code and result.index.range(f.span) == diag.range:
            return f
    return None


def _fix_actions(result: FileResult, target: Target, lazy: bool) -> list[types.CodeAction]:
    fixes = target.finding.fixes
    preferred = _preferred(fixes)
    return [
        _action(
            fix_title(fix),
            types.CodeActionKind.QuickFix,
            result,
            target,
            {"action": "fix", "key": finding_key(target.finding), "fix": fix.id},
            lazy,
            preferred=fix is preferred,
        )
        for fix in fixes
    ]


def fix_title(fix: Fix) -> str:
    if fix.behavior_change and "behaviour" not in fix.title and "behavior" not in fix.title:
        return f"{fix.title} (changes behaviour)"
    return fix.title


def _preferred(fixes: Sequence[Fix]) -> Fix | None:
    """The rule's own choice; else the first fix that keeps behaviour."""
    marked = [f for f in fixes if f.preferred]
    safe = [f for f in fixes if not f.behavior_change]
    return next(iter(marked or safe), None)


def _solution_actions(ls: PanicLensServer, target: Target) -> list[types.CodeAction]:
    catalog, rule = ls.catalog, target.finding.rule
    if catalog is None:
        return []
    out = []
    for rid in target.finding.records:
        record = catalog.get(rid)
        if record is None or rule not in catalog.binding(rid).knowledge_rules:
            continue
        for solution in record.knowledge.solutions:
            if advised_against(rid, "solutions", solution):
                continue  # wrong advice is no action; the hover and record view correct it
            title = f"Record {rid}: {_shorten(solution)}"
            command = types.Command(title=title, command=SHOW_RECORD, arguments=[rid])
            out.append(
                types.CodeAction(
                    title=title,
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[target.diagnostic],
                    command=command,
                )
            )
    return out


def _allow_action(result: FileResult, target: Target, lazy: bool) -> types.CodeAction:
    data = {"action": ALLOW, "key": finding_key(target.finding)}
    title = f"Allow {target.finding.rule} here"
    return _action(title, types.CodeActionKind.QuickFix, result, target, data, lazy)


def fix_all_action(result: FileResult, lazy: bool) -> types.CodeAction | None:
    if not fix_all_edits(result.analysis.findings):
        return None
    action = types.CodeAction(title="Apply every safe panic-lens fix in this file", kind=FIX_ALL)
    return _complete(action, result, {"action": "fixAll"}, lazy)


def _action(
    title: str,
    kind: str,
    result: FileResult,
    target: Target,
    data: dict[str, Any],
    lazy: bool,
    preferred: bool = False,
) -> types.CodeAction:
    action = types.CodeAction(
        title=title, kind=kind, diagnostics=[target.diagnostic], is_preferred=preferred or None
    )
    return _complete(action, result, data, lazy)


def _complete(
    action: types.CodeAction, result: FileResult, data: dict[str, Any], lazy: bool
) -> types.CodeAction:
    action.data = {**data, "uri": result.uri, "version": result.version}
    if not lazy:
        action.edit = action_edit(result, action.data)
    return action


def action_edit(result: FileResult, data: dict[str, Any]) -> types.WorkspaceEdit | None:
    """The WorkspaceEdit an action's data stands for, against the current analysis."""
    kind = data.get("action")
    if kind == "fixAll":
        edits = lsp_text_edits(fix_all_edits(result.analysis.findings), result.index)
        return _workspace_edit(result, edits)
    finding = result.finding(str(data.get("key")))
    if finding is None:
        return None
    if kind == ALLOW:
        return _workspace_edit(result, [allow_edit(result, finding)])
    fix = next((f for f in finding.fixes if f.id == data.get("fix")), None)
    return _workspace_edit(result, lsp_text_edits(fix.edits, result.index)) if fix else None


def allow_edit(result: FileResult, finding: Finding) -> types.TextEdit:
    """`// panic-lens: allow(<rule>) <reason>` on its own line above, with the line's indent."""
    row = finding.span.start.row
    line = result.index.line(row).decode("utf-8", errors="replace")
    indent = line[: len(line) - len(line.lstrip())]
    text = f"{indent}// panic-lens: allow({finding.rule}) TODO: say why this cannot panic\n"
    at = types.Position(line=result.index.position(finding.span.start).line, character=0)
    return types.TextEdit(range=types.Range(start=at, end=at), new_text=text)


def fix_all_edits(findings: Iterable[Finding]) -> list[Edit]:
    """One behaviour-keeping fix per finding, skipping any that overlaps an earlier choice."""
    chosen: list[Edit] = []
    for finding in findings:
        fix = _preferred(finding.fixes)
        if fix is None or fix.behavior_change:
            continue
        if not any(_overlaps(e, c) for e in fix.edits for c in chosen):
            chosen.extend(fix.edits)
    return sorted(chosen, key=lambda e: e.span.start_byte)


def _overlaps(a: Edit, b: Edit) -> bool:
    return a.span.start_byte < b.span.end_byte and b.span.start_byte < a.span.end_byte


def _workspace_edit(result: FileResult, edits: list[types.TextEdit]) -> types.WorkspaceEdit:
    # `changes` rather than versioned documentChanges: every client supports it, and resolve
    # recomputes edits against the current analysis anyway.
    return types.WorkspaceEdit(changes={result.uri: list(edits)})


def _wanted(kind: str | None, only: Sequence[str] | None) -> bool:
    if not only:
        return True
    return any(kind == k or (kind or "").startswith(f"{k}.") for k in only)


def _shorten(text: str, limit: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
