"""The JSON-RPC protocol layer: position-encoding choice and an answer for every request.

pygls 2.1.1 turns params that fail to deserialize into an exception inside its read loop and
never answers the request, so the client waits forever; here such a request gets an error reply.
"""

from __future__ import annotations

import itertools
import logging
import re
from bisect import bisect_left, bisect_right
from collections.abc import Generator, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Any, overload

from cattrs import transform_error
from cattrs.errors import ClassValidationError
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidRequest
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method

from panic_lens.lsp import pygls_compat
from panic_lens.positions import Encoding

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class UnreadableRequest:
    """A request whose params did not deserialize; it is answered with `error`."""

    id: int | str
    method: str
    error: JsonRpcException


def choose_encoding(capabilities: types.ClientCapabilities) -> Encoding:
    """UTF-8 when the client offers it (no conversion needed), else the mandatory UTF-16."""
    general = capabilities.general
    offered = (general.position_encodings or []) if general else []
    return "utf-8" if types.PositionEncodingKind.Utf8 in offered else "utf-16"


class PanicLensProtocol(LanguageServerProtocol):
    """LanguageServerProtocol plus the guards above and our capability adjustments."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # ids of requests the quick start sent (quickstart.py): their answers are not ours
        self.ignored_responses: set[str] = set()

    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            if "id" in data and "method" in data:
                return _unreadable(data, exc)
            raise

    def handle_message(self, message: Any) -> None:
        if self.ignored_responses and not hasattr(message, "method"):
            answered = getattr(message, "id", None)
            if answered in self.ignored_responses:
                self.ignored_responses.discard(answered)
                return
        if isinstance(message, UnreadableRequest):
            logger.warning(
                "answering %s (id %s) with an error: %s",
                message.method,
                message.id,
                message.error.message,
            )
            pygls_compat.send_response(self, message.id, None, message.error.to_response_error())
            return
        shutting_down = pygls_compat.shutdown_received(self)
        if shutting_down and _is_request(message) and message.method != types.EXIT:
            # pygls drops these silently and the client waits forever; the spec says error.
            error = JsonRpcInvalidRequest("the server is shutting down")
            pygls_compat.send_response(self, message.id, None, error.to_response_error())
            return
        super().handle_message(message)

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(
        self, params: types.InitializeParams
    ) -> Generator[Any, Any, types.InitializeResult]:
        encoding = choose_encoding(params.capabilities)
        # pygls picks the client's first supported encoding (possibly utf-32); narrow the offer
        # so pygls's document sync and our conversions agree on one encoding.
        if params.capabilities.general is not None:
            params.capabilities.general.position_encodings = [encoding]
        result: types.InitializeResult = yield from super().lsp_initialize(params)
        # the workspace's documents split lines as LSP does
        pygls_compat.swap_workspace_class(self, LspWorkspace)
        adjust = getattr(pygls_compat.server_of(self), "adjust_capabilities", None)
        if adjust is not None:
            adjust(result.capabilities)
        return result


class LspTextDocument(pygls_compat.EditableTextDocument):
    """A TextDocument whose lines end at LF, CRLF or lone CR only, as the LSP spec says, and
    whose incremental edits cost the edit, not the document.

    pygls uses str.splitlines, which also breaks at U+2028, U+0085, form feeds and more: an
    incremental edit after one of those would land on the wrong line. pygls also rebuilds the
    whole text line by line for every edit, a cost in the document's size; here the
    offsets where lines start are kept and updated from each edit, and the edit is one splice.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._starts: list[int] = [0]
        self._starts_of: str | None = None  # the source `_starts` describes
        self.content_id = next(_CONTENT_IDS)  # changes with every edit: cheap result ids

    @property
    def lines(self) -> Sequence[str]:
        return SourceLines(self.source, self.line_starts())

    def line_starts(self) -> list[int]:
        """Offsets (code points) where the LSP lines of the current source start.

        A new list after every change and never mutated, so a caller may keep it as a snapshot.
        """
        source = self.source
        if self._starts_of is not source:  # opened, or a full-text change
            self._starts = _line_starts(source)
            self._starts_of = source
        return self._starts

    def apply_change(self, change: types.TextDocumentContentChangeEvent) -> None:
        self.content_id = next(_CONTENT_IDS)
        super().apply_change(change)

    def incremental_change(self, change: types.TextDocumentContentChangePartial) -> None:
        """pygls's edit (its position clamping included) as one splice of the source."""
        source, starts = self.source, self.line_starts()
        lines = SourceLines(source, starts)
        if source.isascii():  # a flag of the string: every encoding counts code points
            start = _ascii_position(lines, change.range.start)
            end = _ascii_position(lines, change.range.end)
        else:
            found = self.position_codec.range_from_client_units(lines, change.range)
            start = types.Position(found.start.line, found.start.character)
            end = types.Position(found.end.line, found.end.character)
        if (start.line, start.character) > (end.line, end.character):
            self.pygls_incremental_change(change)  # a reversed range: pygls's own result
            return
        # pygls writes the lines before the start, line[:start col], the text, end line[end
        # col:] and the lines after: one splice at these offsets (its slices clamp a column to
        # the end of its line, terminator included, and so does `_offset`).
        a = _offset(source, starts, start.line, start.character)
        b = _offset(source, starts, end.line, end.character)
        new = source[:a] + change.text + source[b:]
        self.replace_source(new)
        self._starts = _spliced_starts(starts, new, a, b, len(change.text))
        self._starts_of = new


class SourceLines(Sequence[str]):
    """The LSP lines of `source` (terminators kept), read through its line start offsets.

    What `tuple(_LSP_LINE.findall(source))` gives, without splitting the whole text: a final
    empty line (after a trailing line break, or of an empty text) is not a line.
    """

    __slots__ = ("_count", "_source", "_starts")

    def __init__(self, source: str, starts: list[int]) -> None:
        self._source = source
        self._starts = starts
        self._count = len(starts) - (starts[-1] == len(source))

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...
    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        if isinstance(index, slice):
            return tuple(self[i] for i in range(*index.indices(self._count)))
        if index < 0:
            index += self._count
        if not 0 <= index < self._count:
            raise IndexError("line index out of range")
        end = self._starts[index + 1] if index + 1 < len(self._starts) else len(self._source)
        return self._source[self._starts[index] : end]


def _line_starts(source: str) -> list[int]:
    """Where the LSP lines of `source` start; without a CR, summed from its LF-split line
    lengths (several times quicker than the three-way regex)."""
    if "\r" in source:
        return [0, *(m.end() for m in _LSP_BREAK.finditer(source))]
    lines = source.split("\n")
    lines.pop()  # the text after the last LF starts a line but ends none
    return list(accumulate([len(line) + 1 for line in lines], initial=0))


def _ascii_position(lines: SourceLines, position: types.Position) -> types.Position:
    """pygls's `position_from_client_units` for an ASCII text, without counting its units
    one character at a time: the same clamping (a column past a line's end is its last
    character; a line past the end is the end of the last line, its line break included) and
    a CRLF inside a line counting as one character."""
    count = len(lines)
    if count == 0:
        return types.Position(0, 0)
    if position.line >= count:
        return types.Position(count - 1, len(lines[count - 1]))
    length = len(lines[position.line].replace("\r\n", "\n"))
    if length == 0:
        return types.Position(position.line, 0)
    character = position.character if position.character <= length else length - 1
    return types.Position(position.line, character)


def _offset(source: str, starts: list[int], line: int, character: int) -> int:
    end = starts[line + 1] if line + 1 < len(starts) else len(source)
    return min(starts[line] + character, end)


def _spliced_starts(starts: list[int], new: str, a: int, b: int, inserted: int) -> list[int]:
    """Line starts of `new`: old `source[a:b]` replaced by `inserted` code points at `a`.

    A start at offset p depends on the characters at p - 1 and p only (a CR starts a line
    unless an LF follows). Starts before `a` stay, starts after `b` shift by the length change,
    and the ones from `a` to the end of the inserted text are found again in `new`.
    """
    head = starts[: bisect_left(starts, a)] or [0]
    stop = a + inserted
    found = [
        end
        for m in _LSP_BREAK.finditer(new, max(a - 1, 0), min(stop + 1, len(new)))
        if a <= (end := m.end()) <= stop
    ]
    tail = starts[bisect_right(starts, b) :]
    delta = inserted - (b - a)
    return head + found + (list(map(delta.__add__, tail)) if delta else tail)


class LspWorkspace(pygls_compat.DocumentWorkspace):
    """A Workspace that creates LspTextDocuments."""

    document_class = LspTextDocument


_LSP_BREAK = re.compile(r"\r\n|\r|\n")
_CONTENT_IDS = itertools.count(1)


def _is_request(message: Any) -> bool:
    return getattr(message, "id", None) is not None and isinstance(
        getattr(message, "method", None), str
    )


def _unreadable(data: dict[str, Any], exc: JsonRpcException) -> UnreadableRequest:
    method = str(data.get("method"))
    cause = exc.__cause__
    if isinstance(cause, ClassValidationError):
        detail = "; ".join(transform_error(cause)[:5])
    else:
        detail = str(cause or exc.message)
    error = JsonRpcException(f"invalid params for {method}: {detail}", code=exc.code)
    return UnreadableRequest(id=data["id"], method=method, error=error)
