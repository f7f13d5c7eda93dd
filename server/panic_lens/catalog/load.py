"""Reading record files: JSON object files (any extension), `.jsonl` dumps, folders recursively.

Every problem becomes a RecordError; one bad record or file never stops the rest from loading.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Sequence
from pathlib import Path

from panic_lens.catalog.model import Record, RecordError
from panic_lens.catalog.validate import validate_envelope

SNIFF_BYTES = 64
TOO_DEEP = "invalid JSON: nested too deeply to be a record"


def default_records_root() -> Path:
    """The shipped records: inside the installed wheel, else the source checkout's records/."""
    package = Path(__file__).resolve().parent.parent
    packaged = package / "_records"
    return packaged if packaged.is_dir() else package.parent.parent / "records"


def record_files(paths: Sequence[str | os.PathLike[str]]) -> tuple[list[Path], list[RecordError]]:
    """The files to load under `paths`, each once. A named file is always loaded; inside a
    folder, `.jsonl` files and files that start with `{` are (so a README is skipped)."""
    files: dict[Path, Path] = {}
    errors: list[RecordError] = []
    for raw in paths:
        root = Path(raw)
        if root.is_file():
            files.setdefault(root.resolve(), root)
        elif root.is_dir():
            for file in _walk(root):
                files.setdefault(file.resolve(), file)
        else:
            errors.append(RecordError(str(root), None, None, None, "no such file or directory"))
    return list(files.values()), errors


def read_records(file: Path) -> Iterator[Record | RecordError]:
    """Every record (or error) in one file, in file order."""
    try:
        text = file.read_bytes().decode("utf-8-sig")
    except OSError as exc:
        yield RecordError(str(file), None, None, None, f"cannot read: {exc.strerror or exc}")
        return
    except UnicodeDecodeError as exc:
        yield RecordError(str(file), None, None, None, f"not UTF-8 text: {exc.reason}")
        return
    if file.suffix.lower() == ".jsonl":
        yield from _read_jsonl(text, str(file))
    else:
        yield from _read_json(text, str(file))


def _read_json(text: str, path: str) -> Iterator[Record | RecordError]:
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        yield RecordError(
            path, exc.lineno, None, None, f"invalid JSON: {exc.msg} (column {exc.colno})"
        )
        return
    except RecursionError:  # json recurses per nesting level: [[[[... is not a record
        yield RecordError(path, None, None, None, TOO_DEEP)
        return
    first_line = text[: len(text) - len(text.lstrip())].count("\n") + 1
    yield from _results(validate_envelope(obj, path, first_line))


def _read_jsonl(text: str, path: str) -> Iterator[Record | RecordError]:
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            yield RecordError(
                path, number, None, None, f"invalid JSON: {exc.msg} (column {exc.colno})"
            )
            continue
        except RecursionError:
            yield RecordError(path, number, None, None, TOO_DEEP)
            continue
        yield from _results(validate_envelope(obj, path, number))


def _results(result: Record | list[RecordError]) -> Iterator[Record | RecordError]:
    if isinstance(result, Record):
        yield result
    else:
        yield from result


def _walk(root: Path) -> Iterator[Path]:
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            file = Path(dirpath) / name
            if not name.startswith(".") and _looks_like_records(file):
                yield file


def _looks_like_records(file: Path) -> bool:
    if file.suffix.lower() == ".jsonl":
        return True
    try:
        with file.open("rb") as handle:
            head = handle.read(SNIFF_BYTES)
    except OSError:
        return True  # let read_records report why it cannot be read
    return head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{")
