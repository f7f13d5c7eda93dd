"""Source drift: does a record's panic site still sit where it says, in a burn checkout?

The record quotes `sourceCode` (lines sourceCodeStart..End of `filePath`) and names the panic
line `lineNumber`. Against a checkout we look for the whole quote first; when burn has changed
around it, for the panic line itself (the quote's line at lineNumber), nearest to where it was.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from panic_lens.catalog.model import Record

OK, MOVED, CHANGED, MISSING, NO_FILE, NO_SOURCE = (
    "ok",
    "moved",
    "changed",
    "missing",
    "no-file",
    "no-source",
)


@dataclass(frozen=True, slots=True)
class Drift:
    """`line` is where the panic line is now (1-based), None when not found."""

    record_id: str
    status: str
    file_path: str | None
    recorded_line: int | None
    line: int | None
    detail: str

    @property
    def offset(self) -> int | None:
        if self.line is None or self.recorded_line is None:
            return None
        return self.line - self.recorded_line


def check_drift(record: Record, checkout: Path) -> Drift:
    """Compare one record's panic site with `checkout`."""
    p = record.panic
    if not p.file_path or not p.source_code:
        return Drift(
            record.id, NO_SOURCE, p.file_path, p.line_number, None, "no filePath/sourceCode"
        )
    try:
        current = (checkout / p.file_path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return Drift(record.id, NO_FILE, p.file_path, p.line_number, None, "file not in checkout")
    start = _quote_start(current, p.source_code)
    panic_index = _panic_index(record)
    if start is not None:
        now = start + panic_index if panic_index is not None else start
        status = OK if start == p.source_code_start else MOVED
        return Drift(record.id, status, p.file_path, p.line_number, now, "sourceCode found")
    return _find_panic_line(record, current, panic_index)


def _quote_start(current: str, quote: str) -> int | None:
    """The 1-based line where `quote` starts in `current` (trailing whitespace ignored)."""
    body = quote.rstrip("\n")
    at = current.find(body) if body.strip() else -1
    if at < 0:
        return None
    # A quote that starts mid-line (its first line is a fragment) still counts from that line.
    return current.count("\n", 0, at) + 1


def _panic_index(record: Record) -> int | None:
    p = record.panic
    if p.line_number is None or p.source_code_start is None:
        return None
    index = p.line_number - p.source_code_start
    return index if 0 <= index < len((p.source_code or "").split("\n")) else None


def _find_panic_line(record: Record, current: str, panic_index: int | None) -> Drift:
    p = record.panic
    quoted = (p.source_code or "").split("\n")
    anchor = quoted[panic_index].strip() if panic_index is not None else ""
    if not anchor:
        return Drift(record.id, MISSING, p.file_path, p.line_number, None, "sourceCode not found")
    hits = [i + 1 for i, line in enumerate(current.split("\n")) if line.strip() == anchor]
    if not hits:
        detail = f"neither sourceCode nor its panic line {anchor!r} is in the file"
        return Drift(record.id, MISSING, p.file_path, p.line_number, None, detail)
    expected = p.line_number or 0
    nearest = min(hits, key=lambda n: (abs(n - expected), n))
    return Drift(
        record.id, CHANGED, p.file_path, p.line_number, nearest, f"panic line {anchor!r} found"
    )
