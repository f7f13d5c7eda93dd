"""`serve`'s first diagnostics before pygls's server and lsprotocol are loaded.

Importing lsprotocol's ~560 attrs classes, cattrs and pygls is most of the time between an
editor starting the server and its first diagnostics. The answer to `initialize` depends only
on the client's capabilities and initializationOptions and on the installed server, so the
pygls path keeps it (in the cache folder) the first time, and a later start answers from it at
once. Then, with the client's settings pulled (workspace/configuration), the documents opened
right after `initialized` are analysed, their diagnostics published (or, for a client that
pulls diagnostics, its first textDocument/diagnostic requests answered), and only then is
pygls loaded.

pygls then handles everything from the start: it is given every byte read so far (except the
answer to the quick start's own configuration request), so it builds its workspace, documents
and settings as usual. Its own answer to `initialize` is not sent again: it is compared with
the stored one, which is replaced when they differ. A publish equal to the quick start's is not
sent twice, and any other is sent; a pull answered early carries a result id the server never
gives, so the client's next pull gets the server's full answer. So the quick start only makes
the first diagnostics earlier; the server's state, and its last word on every document, come
from pygls.

The quick start stops at anything it does not expect (another message, no stored answer, a
silent client, a pipe it cannot read) and hands everything over as read. It never imports
pygls's server or lsprotocol (tests/lsp/test_quickstart.py).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import select
import stat
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from panic_lens import cachedir

logger = logging.getLogger(__name__)

CONFIG_ID = "panic-lens/quickstart/configuration"  # our workspace/configuration request's id
WAIT_S = 0.25  # for each message of the client's start; past that, pygls takes over
KEPT_ANSWERS = 8  # stored initialize answers (one per client set-up and installed server)
_HEADER_END = b"\r\n\r\n"


@dataclass
class Handover:
    """What the pygls path needs from the quick start."""

    data: bytes = b""  # every byte read from stdin that pygls must still read, in order
    init_id: Any = None  # the initialize request's id (None: none was read)
    answered: dict[str, Any] | None = None  # the initialize result we sent (None: not sent)
    store: Path | None = None  # where the initialize result for this client is kept
    published: dict[str, dict[str, Any]] = field(default_factory=dict)  # uri -> params sent
    asked: bool = False  # our workspace/configuration request is still unanswered


class Reader:
    """LSP frames from a pipe, with a deadline per frame; keeps the bytes pygls must see."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = bytearray()
        self.kept: list[bytes] = []  # the frames read, for pygls (all but the dropped ones)
        self.eof = False

    def next(self, timeout: float | None) -> Any:
        """The next message (parsed JSON), or None at the deadline, the end of input or on a
        frame this reader cannot read (left unconsumed for pygls)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            frame = self._frame()
            if frame is not None:
                length, end = frame
                body = bytes(self.buffer[end - length : end])
                try:
                    message = json.loads(body)
                except ValueError:
                    return None
                self.kept.append(bytes(self.buffer[:end]))
                del self.buffer[:end]
                return message
            if self.eof or not self._fill(deadline):
                return None

    def last(self) -> int:
        """The index of the last frame read (for `drop`)."""
        return len(self.kept) - 1

    def drop(self, index: int) -> None:
        """Frame `index` was ours alone (an answer to our request, a request we answered):
        pygls never sees it."""
        self.kept[index] = b""

    def unread(self) -> bytes:
        return b"".join(self.kept) + bytes(self.buffer)

    def _frame(self) -> tuple[int, int] | None:
        """(body length, end offset) of a whole frame at the start of the buffer."""
        head_end = self.buffer.find(_HEADER_END)
        if head_end < 0:
            return None
        length = None
        for line in bytes(self.buffer[:head_end]).split(b"\r\n"):
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length" and value.strip().isdigit():
                length = int(value.strip())
        if length is None:
            self.eof = True  # not a frame we understand: stop reading, pygls will judge
            return None
        end = head_end + len(_HEADER_END) + length
        return (length, end) if len(self.buffer) >= end else None

    def _fill(self, deadline: float | None) -> bool:
        wait = None if deadline is None else max(0.0, deadline - time.monotonic())
        if not select.select([self.fd], [], [], wait)[0]:
            return False
        chunk = os.read(self.fd, 1 << 16)
        if not chunk:
            self.eof = True
            return False
        self.buffer += chunk
        return True


def quick_start(stdin_fd: int = 0, out: BinaryIO | None = None) -> Handover | None:
    """Run the quick start on `stdin_fd` and `out`; None when it does not apply (not a pipe or
    a socket, Windows, caches turned off), else what pygls must take over."""
    if cachedir.disabled() or not is_stream(stdin_fd, _fileno(out) if out is not None else 1):
        return None
    reader = Reader(stdin_fd)
    handover = Handover()
    try:
        _run(reader, out if out is not None else sys.stdout.buffer, handover)
    except Exception:  # only ever an early start: pygls does it all again anyway
        logger.debug("quick start stopped", exc_info=True)
    handover.data = reader.unread()
    return handover


def _run(reader: Reader, out: BinaryIO, handover: Handover) -> None:
    message = reader.next(None)
    if not _is(message, "initialize") or "id" not in message:
        return
    handover.init_id = message["id"]
    params = message.get("params") or {}
    handover.store = store_path(params)
    answer = read_answer(handover.store)
    if answer is None:  # pygls answers, and keeps its answer for the next start
        return
    send(out, {"jsonrpc": "2.0", "id": handover.init_id, "result": answer})
    handover.answered = answer
    _first_diagnostics(reader, out, handover, params, answer)


def _first_diagnostics(
    reader: Reader, out: BinaryIO, handover: Handover, params: dict[str, Any],
    answer: dict[str, Any],
) -> None:  # fmt: skip
    """Read `initialized`, the settings and the documents opened; publish them (or answer the
    client's first pulls); stop.

    The settings follow lsp/config.refresh_settings: initializationOptions, under what the
    client answers to workspace/configuration (asked after `initialized`, and again after each
    workspace/didChangeConfiguration without our section in it: the client answers those
    alike), or under the section a didChangeConfiguration carries; the change asked for last
    wins. A client that cannot be asked has the initializationOptions and what it pushes."""
    from panic_lens.diagnostics import is_source
    from panic_lens.settings import SECTION, section_of

    caps = params.get("capabilities") or {}
    asks = bool(_get(caps, "workspace", "configuration"))  # config.refresh_settings pulls
    pull = _get(caps, "textDocument", "diagnostic") is not None  # lsp/session.py `pull`
    base = section_of(params.get("initializationOptions"))
    layers: list[Any] = [base]
    pulled: list[Any] = []  # the client's answer to our workspace/configuration, once in
    waiting = False  # the settings asked for last are a pull not answered yet
    opened: dict[str, tuple[str, Any]] = {}  # uri -> (text, version), in order
    pulls: list[tuple[int, Any, str]] = []  # (frame, request id, uri) of pulls not answered
    ready = False
    while True:
        # a pull client with its settings and documents in, but no pull sent yet, may not pull
        # for a while: pygls is loaded then, and answers it
        waiting_for_pull = pull and ready and opened and not pulls
        message = reader.next(0.0 if waiting_for_pull else WAIT_S)
        if message is None:
            return
        if _is(message, "initialized"):
            if asks:
                request = {"items": [{"section": SECTION}]}
                send(out, {"jsonrpc": "2.0", "id": CONFIG_ID,
                           "method": "workspace/configuration", "params": request})  # fmt: skip
                handover.asked = waiting = True
            else:
                ready = True
        elif _is(message, "workspace/didChangeConfiguration"):
            pushed = _get(message, "params", "settings")
            if pushed is not None and section_of(pushed) is not pushed:
                layers, waiting = [base, section_of(pushed)], False
            elif asks and handover.asked:  # the server pulls again: our answer stands for it
                waiting = True
            elif asks and pulled:
                layers, waiting = [base, *pulled], False
            elif asks:
                return  # before `initialized`: not what editors do
            else:
                layers, waiting = [base], False
            ready = ready or not waiting
        elif _is(message, "textDocument/didOpen"):
            doc = (message.get("params") or {}).get("textDocument") or {}
            if not isinstance(doc.get("uri"), str) or not isinstance(doc.get("text"), str):
                return
            opened[doc["uri"]] = (doc["text"], doc.get("version"))
        elif message.get("id") == CONFIG_ID and "method" not in message:
            reader.drop(reader.last())
            handover.asked = False
            values = message.get("result")
            pulled = [values[0] if isinstance(values, list) and values else None]
            if waiting:  # else a pushed section asked for since is in effect
                layers, waiting = [base, *pulled], False
            ready = True
        elif pull and _is(message, "textDocument/diagnostic") and "id" in message:
            uri = _get(message, "params", "textDocument", "uri")
            if uri not in opened or not is_source(uri):
                return
            pulls.append((reader.last(), message["id"], uri))
        else:
            return
        if ready and not waiting and opened and (pulls or not pull):
            reports = _analysed(handover, params, answer, layers, opened)
            if pull:
                for frame, request_id, uri in pulls:
                    report = {"kind": "full", "resultId": _quick_id(reports[uri]),
                              "items": reports[uri]["diagnostics"]}  # fmt: skip
                    send(out, {"jsonrpc": "2.0", "id": request_id, "result": report})
                    reader.drop(frame)
            else:
                for found in reports.values():
                    send(out, {"params": found, "method": "textDocument/publishDiagnostics",
                               "jsonrpc": "2.0"})  # fmt: skip
                    handover.published[found["uri"]] = found
            return


def _quick_id(found: dict[str, Any]) -> str:
    """A pull answer's result id: never one the server gives (those name its process), so the
    client's next pull gets the server's full answer."""
    digest = hashlib.blake2b(json.dumps(found, sort_keys=True).encode(), digest_size=8)
    return f"quick-{digest.hexdigest()}"


def _analysed(
    handover: Handover, params: dict[str, Any], answer: dict[str, Any], layers: list[Any],
    opened: dict[str, tuple[str, Any]],
) -> dict[str, dict[str, Any]]:  # fmt: skip
    """The publishDiagnostics params of each opened Rust document, as the server makes them
    (lsp/session.py, lsp/config.py) from the same inputs."""
    from pygls.uris import from_fs_path, to_fs_path

    from panic_lens import engine
    from panic_lens.catalog import load_catalog
    from panic_lens.catalog.derive import register_derived
    from panic_lens.diagnostics import LineIndex, diagnostic_json, is_source
    from panic_lens.positions import Encoding
    from panic_lens.rules.language.load import use_rule_folders
    from panic_lens.settings import in_use, layered, rule_folders

    settings, _ = layered(layers)  # errors are shown by the server once it runs
    utf8 = _get(answer, "capabilities", "positionEncoding") == "utf-8"
    encoding: Encoding = "utf-8" if utf8 else "utf-16"
    roots = workspace_roots(params)
    root = roots[0] if roots else None
    # the rule folders as lsp/rule_files.py reads them; then `severity` may name their rules
    use_rule_folders(rule_folders(settings.rules, root, [str(r) for r in roots]))
    settings, _ = layered(layers)
    records = in_use(settings.rules, settings.records, root, [str(r) for r in roots]).records
    loaded = load_catalog(records, include_default=True)
    register_derived(loaded.catalog.records, loaded.files_print)  # as lsp/config.py does
    catalog = loaded.catalog
    paths = {uri: to_fs_path(uri) for uri in opened}
    texts = {paths[uri]: text for uri, (text, _) in opened.items()}

    def lines_for(path: str) -> LineIndex | None:
        if path in texts:
            return LineIndex.of(texts[path], encoding)
        try:
            return LineIndex.of(Path(path).read_bytes(), encoding)
        except OSError:
            return None

    def uri_of(path: str) -> str:
        return from_fs_path(path) or path

    reports: dict[str, dict[str, Any]] = {}
    for uri, (text, version) in opened.items():
        if not is_source(uri):
            continue
        src = text.encode("utf-8", "surrogatepass")
        analysis = engine.analyze(src, paths[uri], settings=settings, catalog=catalog)
        index = LineIndex.of(src, encoding)
        found: dict[str, Any] = {
            "uri": uri,
            "diagnostics": [
                diagnostic_json(f, index, uri, lines_for, uri_of) for f in analysis.findings
            ],
        }
        if version is not None:
            found["version"] = version
        reports[uri] = found
    return reports


def workspace_roots(params: dict[str, Any]) -> list[Path]:
    """The workspace folders pygls makes of initialize's params (lsp/config.workspace_roots)."""
    from pygls.uris import from_fs_path, to_fs_path

    uris = [f.get("uri") for f in params.get("workspaceFolders") or [] if isinstance(f, dict)]
    if not uris:
        root = params.get("rootUri")
        if root is None and isinstance(params.get("rootPath"), str):
            root = from_fs_path(params["rootPath"])
        uris = [root] if root else []
    return [Path(p) for u in uris if isinstance(u, str) and (p := to_fs_path(u))]


def send(out: BinaryIO, message: dict[str, Any]) -> None:
    """One frame, as pygls writes it (ASCII JSON, so characters and bytes count alike)."""
    body = json.dumps(message).encode("ascii")
    head = f"Content-Length: {len(body)}\r\n"
    head += "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n"
    out.write(head.encode("ascii") + body)
    out.flush()


# ---- the stored answers to initialize ----------------------------------------------------


def store_path(params: dict[str, Any]) -> Path | None:
    """Where the answer to this client's `initialize` is kept: named by what it depends on
    (the client's capabilities and initializationOptions) and by the installed server (its
    version, Python, and the size and time of every source file of lsp/, pygls and
    lsprotocol), so an upgrade or an edited server never reads an old answer."""
    folder = cache_folder()
    if folder is None:
        return None
    digest = hashlib.blake2b(digest_size=16)
    asked = {k: params.get(k) for k in ("capabilities", "initializationOptions")}
    digest.update(json.dumps(asked, sort_keys=True, default=str).encode())
    digest.update(_installed_signature().encode())
    return folder / f"initialize-{digest.hexdigest()}.json"


def read_answer(path: Path | None) -> dict[str, Any] | None:
    if path is None:
        return None
    try:
        answer = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    return (
        answer
        if isinstance(answer, dict) and isinstance(answer.get("capabilities"), dict)
        else None
    )


def write_answer(path: Path, answer: dict[str, Any]) -> None:
    """Keep `answer` (atomically) and drop the oldest answers past KEPT_ANSWERS."""
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".initialize-")
        with os.fdopen(fd, "wb") as file:
            file.write(json.dumps(answer).encode())
        os.replace(tmp, path)
        tmp = None
        stored = sorted(path.parent.glob("initialize-*.json"), key=_mtime, reverse=True)
        for old in stored[KEPT_ANSWERS:]:
            with contextlib.suppress(OSError):
                old.unlink()
    except OSError as exc:
        logger.info("could not keep the initialize answer: %s", exc)
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def cache_folder() -> Path | None:
    """The folder the other caches use (cachedir.root); None when it cannot be found."""
    try:
        return cachedir.root()
    except ImportError:
        return None


def _installed_signature() -> str:
    from importlib.machinery import PathFinder

    from panic_lens import __version__

    folders = [Path(__file__).parent / "lsp"]
    for name in ("pygls", "lsprotocol"):
        spec = PathFinder.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            folders.append(Path(next(iter(spec.submodule_search_locations))))
    parts = [__version__, sys.version]
    for folder in folders:
        for file in sorted(folder.rglob("*.py")):
            with contextlib.suppress(OSError):
                info = file.stat()
                parts.append(f"{file}:{info.st_size}:{info.st_mtime_ns}")
    return "\n".join(parts)


def is_stream(fd: int, out_fd: int | None = 1) -> bool:
    """Whether `fd` is what the quick start and the server's asyncio reader read: a pipe or a
    socket (libuv's pipes, in Neovim and VS Code, are socket pairs), outside Windows, and not
    the very file `out_fd` writes to (asyncio makes its input non-blocking, which would make
    the output of a socket used both ways non-blocking too)."""
    if sys.platform == "win32":
        return False
    try:
        info = os.fstat(fd)
        out = os.fstat(out_fd) if out_fd is not None else None
    except OSError:
        return False
    if out is not None and (info.st_dev, info.st_ino) == (out.st_dev, out.st_ino):
        return False
    return stat.S_ISFIFO(info.st_mode) or stat.S_ISSOCK(info.st_mode)


def _fileno(stream: BinaryIO) -> int | None:
    try:
        return stream.fileno()
    except (OSError, ValueError):  # io.UnsupportedOperation is both
        return None


def _is(message: Any, method: str) -> bool:
    return isinstance(message, dict) and message.get("method") == method


def _get(node: Any, *path: str) -> Any:
    for part in path:
        node = node.get(part) if isinstance(node, dict) else None
    return node
