"""A client that refuses `client/unregisterCapability` (issue 37): the server logs that refusal
as what it is, keeps track of the watchers still in force, and asks for the new ones beside
them; it does not log it as if watching had been refused from the start."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsp_helpers import diagnostics, eventually, initialize, make_crate, open_doc
from lsprotocol import types
from pytest_lsp import LanguageClient
from pytest_lsp.client import captured_exception_key

CLEAN = "fn main() {}\n"


@pytest.mark.parametrize("client", ["vscode"], indirect=True)  # dynamic registration allowed
async def test_a_refused_unregistration_is_logged_as_such(
    client: LanguageClient, tmp_path: Path
) -> None:
    records = tmp_path / "records"
    records.mkdir()
    root = make_crate(tmp_path / "ws", {"src/main.rs": CLEAN})

    client.protocol.fm.features.pop(types.CLIENT_UNREGISTER_CAPABILITY)  # conftest's

    @client.feature(types.CLIENT_UNREGISTER_CAPABILITY)
    def refuse(params: types.UnregistrationParams) -> None:
        raise RuntimeError("this client never unregisters")

    await initialize(client, root, {"scope": "openFiles"})
    await diagnostics(client, open_doc(client, root / "src/main.rs"), lambda d: True)
    registrations = client.registrations  # type: ignore[attr-defined]
    [first] = await eventually(lambda: registrations, lambda r: len(r) > 0)
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"panicLens": {"records": [str(records)]}})
    )
    await eventually(lambda: registrations, lambda r: len(r) > 1)
    second = registrations[-1]
    assert second.id != first.id  # asked for beside the old ones, which stay in force
    globs = [w["globPattern"] for w in second.register_options["watchers"]]
    assert f"{records}/**/*" in globs
    logged = [m.message for m in client.log_messages]
    [refusal] = [m for m in logged if "unregisterCapability" in m]
    assert "registered before" in refusal and "stay in force" in refusal
    assert not [m for m in logged if m.startswith("client refused file watchers")]
    # pytest-lsp reports an exception raised by a client handler as the test's failure; this
    # one is the refusal the test makes on purpose
    stash = client._pytest_item.stash  # type: ignore[attr-defined]
    raised = stash.get(captured_exception_key, None)
    assert raised is not None and "this client never unregisters" in str(raised.value)
    stash[captured_exception_key] = None
