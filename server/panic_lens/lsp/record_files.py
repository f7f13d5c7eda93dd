"""Record files in the editor: what `panic-lens records check` says of each record, on the record.

A records file is a `.json` or `.jsonl` file in one of the records folders in use: the
`records` setting (a folder, not inside a hidden folder, or a file it names), and the shipped
records folder when it lies inside a workspace folder (the panic-lens repository itself). The
loader also reads other files that start with `{` (catalog/load.py, the shipped `.txt` records);
the server takes any such name for Rust (`diagnostics.is_source`), so those are left out.

Each record of an open records file gets an Information diagnostic (source "panic-lens", code
"record-coverage") on the line of its `"id"`: the hand-written rule that checks it, the rule
derived from it (and burn's panic site), or why no rule checks it. A record the loader rejects
gets an Error (code "record-file") on the line of the field at fault, and text that is not
JSON (half typed) one Error on the JSON error's line. The editor's text is read, not the disk.
Outcomes come from `derive_all` over the file's records alone, against the rules in use
(shipped and user rules). Hovering a record's id shows what `records derive` prints for it.
Nothing here raises: a failure is logged and the file gets no diagnostics.
"""

from __future__ import annotations

import asyncio
import logging
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.uris import to_fs_path

from panic_lens.lsp.session import DIAGNOSTIC_IDENTIFIER

if TYPE_CHECKING:
    from panic_lens.catalog.derive import Outcome
    from panic_lens.catalog.model import Record, RecordError
    from panic_lens.lsp.session import PanicLensServer

logger = logging.getLogger(__name__)
COVERAGE = "record-coverage"
BROKEN = "record-file"
_ID_KEY = re.compile(r'(?<!\\)"id"\s*:')
SUFFIXES = (".json", ".jsonl")
_WAITING: dict[str, asyncio.Task[None]] = {}  # uri -> its evaluation, due once the loop is free


def folders(ls: PanicLensServer) -> list[Path]:
    """The records folders (or files) in use, absolute."""
    from panic_lens.catalog.load import default_records_root
    from panic_lens.lsp.config import record_paths

    found = [p.absolute() for p in record_paths(ls)]
    shipped = default_records_root()
    if shipped.is_dir() and ls.in_workspace(shipped):
        found.append(shipped.absolute())
    return found


def is_record_file(ls: PanicLensServer, uri: str) -> bool:
    """`uri` is a `.json` or `.jsonl` file in a records folder in use (or named by the
    `records` setting)."""
    path_text = to_fs_path(uri)
    if not path_text or not path_text.lower().endswith(SUFFIXES):
        return False
    path = Path(path_text).absolute()
    for folder in folders(ls):
        if path == folder:
            return True
        if path.is_relative_to(folder):
            inside = path.relative_to(folder).parts
            if not any(part.startswith(".") for part in inside):  # the loader skips .git
                return True
    return False


@dataclass(frozen=True, slots=True)
class Entry:
    """One record (or error) of the file: the 0-based line it is shown on, and what it is."""

    line: int
    record: Record | None
    error: RecordError | None


def entries(text: str, path: str) -> list[Entry]:
    """The file's records and errors, each placed on its line."""
    from panic_lens.catalog.load import records_in_text
    from panic_lens.catalog.model import Record

    lines = text.splitlines()
    jsonl = path.lower().endswith(".jsonl")
    out: list[Entry] = []
    for item in records_in_text(text.removeprefix("\ufeff"), path):
        if isinstance(item, Record):
            start = item.origin.line - 1
            out.append(Entry(_key_line(lines, start, "id", jsonl), item, None))
        else:
            start = (item.line or 1) - 1
            where = _key_line(lines, start, item.field, jsonl) if item.field else start
            out.append(Entry(where, None, item))
    return out


def _key_line(lines: list[str], start: int, key: str, jsonl: bool) -> int:
    """The 0-based line of the first `"key":` from line `start` on (only that line in a JSONL
    file); `start` when there is none."""
    pattern = _ID_KEY if key == "id" else re.compile(rf'(?<!\\)"{re.escape(key)}"\s*:')
    stop = start + 1 if jsonl else len(lines)
    for row in range(max(start, 0), min(stop, len(lines))):
        if pattern.search(lines[row]):
            return row
    return max(start, 0)


def outcomes(records: list[Record]) -> dict[str, Outcome]:
    """Each record's coverage: derive_all over these records, with the rules in use."""
    from panic_lens.catalog.derive import derive_all

    return derive_all(records) if records else {}


def coverage_message(record: Record, outcome: Outcome) -> str:
    """What every front end says of the record's coverage (`catalog.coverage`), as a sentence."""
    from panic_lens.catalog.coverage import from_outcome

    return f"record {record.id}: {from_outcome(outcome).describe()}"


def derive_text(record: Record, outcome: Outcome) -> str:
    """What `panic-lens records derive` prints for `record`."""
    from panic_lens.catalog.derive import Covered, Derived

    if isinstance(outcome, Derived):
        return f"# derived from record {record.id} (burn {outcome.site})\n{outcome.toml}"
    if isinstance(outcome, Covered):
        return f"# record {record.id}: covered by the rule {', '.join(outcome.rules)}\n"
    return f"# record {record.id}: not derived ({outcome.kind}): {outcome.reason}\n"


def _text(ls: PanicLensServer, uri: str) -> str | None:
    """The editor's text of `uri` when it is an open records file."""
    doc = ls.workspace.text_documents.get(uri)
    if doc is None or not is_record_file(ls, uri):
        return None
    return doc.source


def diagnostics(ls: PanicLensServer, uri: str, text: str) -> list[types.Diagnostic]:
    """The diagnostics of the records file `uri` whose text is `text`."""
    path = to_fs_path(uri) or uri
    try:
        found = entries(text, path)
        records = [e.record for e in found if e.record is not None]
        covered = outcomes(records)
    except Exception:  # a records file must never take the server down
        logger.exception("evaluating the records of %s failed", uri)
        return []
    lines = text.splitlines()
    out: list[types.Diagnostic] = []
    for entry in found:
        if entry.record is not None:
            outcome = covered.get(entry.record.id)
            if outcome is None:
                continue
            message = coverage_message(entry.record, outcome)
            severity = types.DiagnosticSeverity.Information
            code = COVERAGE
        elif entry.error is not None:
            error = entry.error
            named = f"record {error.record_id}: " if error.record_id else ""
            field = f"{error.field}: " if error.field else ""
            message = f"{named}{field}{error.reason}"
            severity = types.DiagnosticSeverity.Error
            code = BROKEN
        else:
            continue
        out.append(
            types.Diagnostic(
                range=_line_range(ls, lines, entry.line),
                message=message,
                severity=severity,
                code=code,
                source=DIAGNOSTIC_IDENTIFIER,
            )
        )
    return out


def _line_range(ls: PanicLensServer, lines: list[str], row: int) -> types.Range:
    text = lines[row] if row < len(lines) else ""
    utf16 = ls.encoding == "utf-16"
    width = len(text.encode("utf-16-le")) // 2 if utf16 else len(text.encode())
    return types.Range(types.Position(row, 0), types.Position(row, width))


def refresh(ls: PanicLensServer, uri: str) -> bool:
    """Publish the diagnostics of `uri` if it is an open records file (push clients; a pulling
    client asks through `report`). True when it is one."""
    text = _text(ls, uri)
    if text is None:
        return False
    if not ls.pull:
        doc = ls.workspace.text_documents[uri]
        params = types.PublishDiagnosticsParams(
            uri=uri, diagnostics=diagnostics(ls, uri, text), version=doc.version
        )
        ls.text_document_publish_diagnostics(params)
    return True


def opened(ls: PanicLensServer, uri: str) -> None:
    """didOpen/didChange/didSave of a file that is not Rust: if it is a records file, publish
    its diagnostics once the messages already received are handled (a burst of changes is
    evaluated once) and the client's settings are in (they say which folders count)."""
    if not uri.lower().endswith(SUFFIXES) or uri in _WAITING:
        return

    async def later() -> None:
        await ls.settled_or_timeout()
        _WAITING.pop(uri, None)
        try:
            refresh(ls, uri)
        except Exception:  # a task: nobody else would see the error
            logger.exception("evaluating the records of %s failed", uri)

    _WAITING[uri] = asyncio.get_running_loop().create_task(later())


def refresh_all(ls: PanicLensServer) -> None:
    """The rules or records folders changed: every open records file again."""
    for uri in list(ls.workspace.text_documents):
        if not ls.is_source(uri):
            try:
                refresh(ls, uri)
            except Exception:
                logger.exception("evaluating the records of %s failed", uri)


def report(ls: PanicLensServer, uri: str) -> types.RelatedFullDocumentDiagnosticReport | None:
    """A pull for an open records file (None: `uri` is not one)."""
    text = _text(ls, uri)
    if text is None:
        return None
    return types.RelatedFullDocumentDiagnosticReport(items=diagnostics(ls, uri, text))


def hover(ls: PanicLensServer, uri: str, position: types.Position) -> types.Hover | None:
    """On a record's `"id"` line: what `records derive` prints for that record."""
    text = _text(ls, uri)
    if text is None:
        return None
    try:
        found = entries(text, to_fs_path(uri) or uri)
        records = [e.record for e in found if e.record is not None]
        here = [e.record for e in found if e.record is not None and e.line == position.line]
        if not here:
            return None
        outcome = outcomes(records)[here[0].id]  # the file's records: as its diagnostics say
    except Exception:
        logger.exception("hover on the records of %s failed", uri)
        return None
    body = derive_text(here[0], outcome)
    value = f"```toml\n{body}```" if body.endswith("\n") else f"```toml\n{body}\n```"
    contents = types.MarkupContent(kind=types.MarkupKind.Markdown, value=value)
    lines = text.splitlines()
    return types.Hover(contents=contents, range=_line_range(ls, lines, position.line))
