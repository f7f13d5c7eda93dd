"""Reading record files: JSON object files (any extension), `.jsonl` dumps, folders recursively.

Every problem becomes a RecordError; one bad record or file never stops the rest from loading.
In a folder, every `.json` and `.jsonl` file is read, so a broken one is reported rather than
passed over; any other file is read only when it starts with `{` (the shipped records end in
`.txt`), and the rest (a README) is left alone. Hidden folders (.git) are not entered.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator, Sequence
from functools import lru_cache
from pathlib import Path

from panic_lens.catalog.model import Record, RecordError
from panic_lens.catalog.validate import validate_envelope

SNIFF_BYTES = 64
TOO_DEEP = "invalid JSON: nested too deeply to be a record"
NOT_REGULAR = "not a regular file or folder (a broken link, a pipe or a device?)"


def default_records_root() -> Path:
    """The shipped records: inside the installed wheel, else the source checkout's records/."""
    package = Path(__file__).resolve().parent.parent
    packaged = package / "_records"
    return packaged if packaged.is_dir() else package.parent.parent / "records"


def record_files(paths: Sequence[str | os.PathLike[str]]) -> tuple[list[Path], list[RecordError]]:
    """The files to load under `paths`, each once, and why any path or folder entry is not
    loaded. A named file is always loaded; inside a folder, see the module docstring."""
    files: dict[Path, Path] = {}
    errors: list[RecordError] = []
    for raw in paths:
        root = Path(raw)
        if root.is_file():
            files.setdefault(root.resolve(), root)
        elif root.is_dir():
            for file in _walk(root, errors):
                files.setdefault(file.resolve(), file)
        elif root.exists():
            errors.append(RecordError(str(root), None, None, None, NOT_REGULAR))
        else:
            errors.append(RecordError(str(root), None, None, None, "no such file or directory"))
    return list(files.values()), errors


def files_print(files: Sequence[Path]) -> str | None:
    """A print of what loading `files` gives, without reading them: each file's path, size,
    modification time and inode, in load order, and the bytes of the code that turns a file
    into records (this module and the modules it reads records with). None when a file cannot
    be looked at. Taken before the files are read, a file changed meanwhile is seen as changed
    on the next load."""
    digest = hashlib.sha256(_loader_code_print())
    for file in files:
        try:
            st = os.stat(file)
        except OSError:
            return None
        digest.update(
            f"{os.path.abspath(file)}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ino}\n".encode()
        )
    return digest.hexdigest()


@lru_cache(maxsize=1)
def _loader_code_print() -> bytes:
    from panic_lens.catalog import model, patterns, validate

    digest = hashlib.sha256()
    for module in (__file__, model.__file__, patterns.__file__, validate.__file__):
        digest.update(Path(module).read_bytes())
    return digest.digest()


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
    yield from records_in_text(text, str(file))


def records_in_text(text: str, path: str) -> Iterator[Record | RecordError]:
    """Every record (or error) in `text`, read as the file `path` would be (a `.jsonl` name:
    one record per line; else one JSON object): the editor's unsaved text goes through here."""
    if path.lower().endswith(".jsonl"):
        yield from _read_jsonl(text, path)
    else:
        yield from _read_json(text, path)


def _read_json(text: str, path: str) -> Iterator[Record | RecordError]:
    if not text.strip():
        yield RecordError(path, None, None, None, "empty file: expected a JSON object")
        return
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


def _walk(root: Path, errors: list[RecordError]) -> Iterator[Path]:
    def unreadable(exc: OSError) -> None:
        where = exc.filename or str(root)
        errors.append(RecordError(where, None, None, None, f"cannot read folder: {exc.strerror}"))

    # Linked folders are followed (a records folder may link to a shared dataset); each real
    # folder is entered once, so a link to an ancestor does not loop.
    seen: set[Path] = set()
    for dirpath, dirnames, filenames in os.walk(root, onerror=unreadable, followlinks=True):
        real = Path(dirpath).resolve()
        if real in seen:
            dirnames[:] = []
            continue
        seen.add(real)
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            file = Path(dirpath) / name
            if _is_records_name(name):
                if file.is_file():
                    yield file
                else:  # a FIFO would block the read; a dangling link cannot be read
                    errors.append(RecordError(str(file), None, None, None, NOT_REGULAR))
            elif not name.startswith(".") and file.is_file() and _starts_with_brace(file):
                yield file


def _is_records_name(name: str) -> bool:
    return name.lower().endswith((".json", ".jsonl"))


def _starts_with_brace(file: Path) -> bool:
    try:
        with file.open("rb") as handle:
            head = handle.read(SNIFF_BYTES)
    except OSError:
        return False  # not a records file by its name, and not readable: nothing to report
    return head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{")
