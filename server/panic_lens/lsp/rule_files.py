"""User rule folders in the editor (docs/rule-language.md, "Where rules come from").

The folders are the `rules` setting (relative paths taken from the first workspace folder)
and the `rules` of the Cargo.toml governing each workspace folder. They are loaded at
`initialize`, again when the settings or a Cargo.toml change, and when a rule file changes
(a watched file, or a save). The rules then run on every file, like the shipped ones.

A rule file that cannot be used gets one diagnostic on its own URI (its error's line, source
"panic-lens", code "rule-file"), cleared once the file is fixed; the other rules run on. A
folder that does not exist is a message (it has no line to point at). Nothing here raises.
"""

from __future__ import annotations

import contextlib
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.uris import to_fs_path

from panic_lens.lsp.session import DIAGNOSTIC_IDENTIFIER, file_uri
from panic_lens.rules.language.spec import RuleFileError
from panic_lens.rules.meta import generation
from panic_lens.settings import rule_folders

if TYPE_CHECKING:
    from panic_lens.lsp.session import PanicLensServer

logger = logging.getLogger(__name__)
CODE = "rule-file"


def folders(ls: PanicLensServer, rules: tuple[str, ...] | None = None) -> list[Path]:
    """The rule folders (or files) in use, absolute; `rules`: the setting (default: the
    settings in effect)."""
    roots = ls.workspace_roots()
    named = ls.settings.rules if rules is None else rules
    found = rule_folders(named, roots[0] if roots else None, [str(r) for r in roots])
    return [p.absolute() for p in found]


def load(ls: PanicLensServer, rules: tuple[str, ...] | None = None) -> bool:
    """Read the rule folders into the registry and keep their errors (published by
    `publish`). True when the rules in use changed (then every file needs analysing again).
    `rules`: the `rules` setting about to take effect (default: the one in effect)."""
    before = generation()
    try:
        wanted = folders(ls, rules)
        from panic_lens.rules.language.load import use_rule_folders

        loaded = use_rule_folders(wanted)
    except Exception:  # a rule folder must never take the server down
        logger.exception("loading the rule folders failed")
        return False
    ls.rule_folders = tuple(wanted)
    ls.rule_files = frozenset(str(Path(f).absolute()) for f in loaded.files)
    by_uri: dict[str, list[RuleFileError]] = {}
    missing: list[str] = []
    for error in loaded.errors:
        logger.error("rule file error: %s", error)
        if Path(error.path).is_file():
            by_uri.setdefault(file_uri(Path(error.path)), []).append(error)
        else:
            missing.append(str(error))
    ls.rule_errors_pending = {**{u: [] for u in ls.rule_errors}, **by_uri}
    ls.rule_errors = by_uri
    if missing and frozenset(missing) != ls.reported_rule_folders:
        text = "panic-lens: " + "; ".join(missing)
        ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Error, message=text))
    ls.reported_rule_folders = frozenset(missing)
    return generation() != before


def publish(ls: PanicLensServer) -> None:
    """Push the rule files' diagnostics that changed since the last `publish` (an empty list
    clears a fixed file); a client that pulls diagnostics is told to pull again."""
    pending, ls.rule_errors_pending = ls.rule_errors_pending, {}
    if ls.pull:
        if pending and ls.client_supports("workspace.diagnostics.refresh_support"):
            ls.workspace_diagnostic_refresh(None)
        return
    for uri in pending:
        params = types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics(ls, uri))
        ls.text_document_publish_diagnostics(params)


def diagnostics(ls: PanicLensServer, uri: str) -> list[types.Diagnostic]:
    """The diagnostics of rule file `uri` (none when it is fine)."""
    errors = ls.rule_errors.get(uri, [])
    if not errors:
        return []
    path = to_fs_path(uri)
    lines: list[str] = []
    if path:
        with contextlib.suppress(OSError):
            lines = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
    out = []
    for error in errors:
        row = max(error.line - 1, 0)
        text = lines[row] if row < len(lines) else ""
        utf16 = ls.encoding == "utf-16"
        width = len(text.encode("utf-16-le")) // 2 if utf16 else len(text.encode())
        out.append(
            types.Diagnostic(
                range=types.Range(types.Position(row, 0), types.Position(row, width)),
                message=f"{error.key}: {error.reason}" if error.key else error.reason,
                severity=types.DiagnosticSeverity.Error,
                code=CODE,
                source=DIAGNOSTIC_IDENTIFIER,
            )
        )
    return out


def report(ls: PanicLensServer, uri: str) -> types.RelatedFullDocumentDiagnosticReport | None:
    """A pull for a rule file: its errors (None: `uri` is not a rule file)."""
    path = to_fs_path(uri)
    if uri not in ls.rule_errors and (not path or str(Path(path).absolute()) not in ls.rule_files):
        return None
    return types.RelatedFullDocumentDiagnosticReport(items=diagnostics(ls, uri))


def is_rule_file(ls: PanicLensServer, path: Path) -> bool:
    """A `.toml` file that is, or may now be, one of the rule files in use."""
    if path.suffix != ".toml":
        return False
    resolved = path.absolute()
    return str(resolved) in ls.rule_files or any(
        resolved == folder or resolved.parent == folder for folder in ls.rule_folders
    )


def watch_globs(ls: PanicLensServer) -> list[str]:
    """What the client must watch for rule files: each folder's `*.toml`, or the file."""
    return [str(f) if f.suffix == ".toml" else f"{f}/*.toml" for f in ls.rule_folders]


def reload(ls: PanicLensServer) -> None:
    """A rule file or a Cargo.toml changed: read the rules again; if they changed, analyse
    every known file again. Rule file diagnostics are published either way."""
    if load(ls):
        ls.reanalyze_all()
    publish(ls)
