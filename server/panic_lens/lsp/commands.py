"""workspace/executeCommand: explainPanic, showRecord and scanWorkspace.

showRecord renders the record as Markdown into the user cache folder and asks the client to
open it; a client that cannot show documents gets the panic-site link in a message instead.
"""

from __future__ import annotations

import logging
import re
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from panic_lens import cachedir
from panic_lens.commands.explain import explain_lines
from panic_lens.lsp.markdown import record_document
from panic_lens.lsp.scan import scan_workspace

if TYPE_CHECKING:
    from panic_lens.lsp.session import PanicLensServer

logger = logging.getLogger(__name__)


class CommandError(ValueError):
    """Bad command arguments: answered as a JSON-RPC error, the server keeps running."""


def explain_panic(ls: PanicLensServer, args: list[Any]) -> dict[str, Any]:
    """Text (a panic message or a whole log) -> matching records, as the CLI's explain.

    `matches`: records whose messagePattern matched a line; `ruleMatches`: lines showing a
    rule's known runtime text, with the records whose knowledge half is about that rule;
    `text` / `markdown`: the CLI's report (knowledge and advisories included).
    """
    text = _text_arg(args, "text")
    if ls.catalog is None:
        return {"matches": [], "ruleMatches": []}
    matches, rules = ls.catalog.explain(text), ls.catalog.explain_rules(text)
    lines = explain_lines(ls.catalog, matches, rules, ls.derived_outcomes)  # the CLI's words
    report = "\n".join(lines).strip("\n")
    return {
        "matches": [_jsonable(m) for m in matches],
        "ruleMatches": [_jsonable(m) for m in rules],
        "text": report,
        "markdown": f"# panic-lens: Explain Panic Message\n\n{_fenced(report)}\n",
    }


async def show_record(ls: PanicLensServer, args: list[Any]) -> dict[str, Any]:
    rid = _text_arg(args, "recordId")
    catalog = ls.catalog
    record = catalog.get(rid) if catalog is not None else None
    if catalog is None or record is None:
        raise CommandError(f"no record with id {rid!r}")
    if ls.client_supports("window.show_document.support"):
        path = write_record_document(rid, record_document(record, catalog))
        uri = path.as_uri()
        shown = await ls.window_show_document_async(
            types.ShowDocumentParams(uri=uri, take_focus=True)
        )
        return {"uri": uri, "shown": bool(shown and shown.success)}
    link = record.panic.github_url or record.panic.file_path or rid
    message = f"panic-lens record {rid}: panic site {link}"
    ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Info, message=message))
    return {"uri": None, "shown": False, "link": link}


async def scan(ls: PanicLensServer, args: list[Any]) -> dict[str, int]:
    files, findings = await scan_workspace(ls)
    return {"files": files, "findings": findings}


def write_record_document(record_id: str, text: str) -> Path:
    folder = cachedir.root() / "records"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{re.sub(r'[^A-Za-z0-9_.-]', '_', record_id)}.md"
    path.write_text(text, encoding="utf-8")
    return path


def _text_arg(args: list[Any], name: str) -> str:
    """The first argument, as a string or as `{name: string}` (clients send either)."""
    value = args[0] if args else None
    if isinstance(value, dict):
        value = value.get(name)
    if not isinstance(value, str) or not value:
        raise CommandError(f"expected a {name} string as the first argument, got {value!r}")
    return value


def _fenced(text: str) -> str:
    """`text` verbatim in a code block whose fence no backtick run inside can close."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text}\n{fence}"


def _jsonable(match: Any) -> dict[str, Any]:
    data = asdict(match)
    return {k: list(v) if isinstance(v, tuple) else v for k, v in data.items()}
