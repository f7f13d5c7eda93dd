"""The server imports code actions and commands on first use (or after the start-up): it
registers their names from lsp/identifiers.py, and each command has its function."""

from __future__ import annotations

import subprocess
import sys


def test_every_registered_command_has_its_function() -> None:
    from panic_lens.lsp import commands, identifiers, server

    assert set(server.COMMANDS) == {identifiers.EXPLAIN, identifiers.SHOW_RECORD, identifiers.SCAN}
    assert all(callable(getattr(commands, name)) for name in server.COMMANDS.values())


def test_the_server_starts_without_importing_actions_or_commands() -> None:
    script = (
        "import sys, panic_lens.lsp.server as s; s.make_server(); "
        "print(sorted(m for m in ('panic_lens.lsp.actions', 'panic_lens.lsp.commands') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
