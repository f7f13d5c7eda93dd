"""pytest-lsp fixtures: the real server in a subprocess, driven as VS Code or as Neovim.

VS Code 1.65 (pytest-lsp's capture) takes pushed diagnostics and UTF-16; Neovim 0.11 pulls
diagnostics and offers UTF-8. Every end-to-end test runs under both.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Union

import pytest
import pytest_lsp
from lsp_helpers import CLIENTS, DATA, encoding_of, initialize, make_crate
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, make_test_lsp_client


def make_client() -> LanguageClient:
    """pytest-lsp's client, plus client/registerCapability and unregisterCapability (it keeps
    the registrations in force)."""
    client = make_test_lsp_client()
    client.registrations = []  # type: ignore[attr-defined]
    # lsprotocol 2025.0.0 reads any code action that has a `command` as a bare Command (it
    # tests `"command" in obj`, not its type); editors test for a string, as the spec says.
    converter = client.protocol._converter
    converter.register_structure_hook(
        Union[types.Command, types.CodeAction],  # noqa: UP007 (the exact type lsprotocol uses)
        lambda obj, _: converter.structure(
            obj, types.Command if isinstance(obj.get("command"), str) else types.CodeAction
        ),
    )

    client.published = []  # type: ignore[attr-defined]
    client.protocol.fm.features.pop(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def publish(params: types.PublishDiagnosticsParams) -> None:
        """pytest-lsp keeps the last list per file; this also keeps every notification."""
        client.diagnostics[params.uri] = params.diagnostics
        client.published.append(params)  # type: ignore[attr-defined]

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:
        client.registrations.extend(params.registrations)  # type: ignore[attr-defined]

    @client.feature(types.CLIENT_UNREGISTER_CAPABILITY)
    def unregister(params: types.UnregistrationParams) -> None:
        gone = {u.id for u in params.unregisterations}
        kept = [r for r in client.registrations if r.id not in gone]  # type: ignore[attr-defined]
        client.registrations[:] = kept  # type: ignore[attr-defined]

    return client


SERVER = ClientServerConfig(
    server_command=[sys.executable, "-m", "panic_lens", "serve", "--stdio"],
    client_factory=make_client,
)


@pytest_lsp.fixture(params=list(CLIENTS), config=SERVER)
async def client(request: pytest.FixtureRequest, lsp_client: LanguageClient) -> AsyncIterator[None]:
    """A started, not yet initialized server; `lsp_client.preset` names the client imitated."""
    lsp_client.preset = request.param  # type: ignore[attr-defined]
    yield
    if lsp_client.capabilities is None and lsp_client._server is not None:
        lsp_client._server.kill()  # never initialized: pytest-lsp's stop() would wait forever
    else:
        await lsp_client.shutdown_session()


@pytest_lsp.fixture(scope="module", params=list(CLIENTS), config=SERVER)
async def shared(
    request: pytest.FixtureRequest,
    lsp_client: LanguageClient,
    tmp_path_factory: pytest.TempPathFactory,
) -> AsyncIterator[None]:
    """One initialized server (scope openFiles) for a whole test module, per imitated client."""
    lsp_client.preset = request.param  # type: ignore[attr-defined]
    root = make_crate(tmp_path_factory.mktemp("shared"), {})
    result = await initialize(lsp_client, root, {"scope": "openFiles"})
    lsp_client.encoding = encoding_of(result)  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


@pytest.fixture
def crate(tmp_path: Path) -> Path:
    """A copy of tests/lsp/data/crate, so tests may edit it."""
    return Path(shutil.copytree(DATA / "crate", tmp_path / "crate"))


@pytest.fixture(scope="session")
def _lsp_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("panic-lens-lsp-cache")


@pytest.fixture(autouse=True)
def _private_cache_dir(_lsp_cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """One cache folder for every server these tests start (overriding the suite's folder per
    test): the first start of each client set-up keeps its answer to `initialize`, and the
    later ones start through the quick start (panic_lens/quickstart.py), as an editor does
    from its second start on."""
    monkeypatch.setenv("PANIC_LENS_CACHE_DIR", str(_lsp_cache_dir))
    return _lsp_cache_dir
