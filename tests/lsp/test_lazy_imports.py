"""The server imports code actions and commands on first use (or after the start-up): their
names are registered from constants that must match those modules."""

from __future__ import annotations

import subprocess
import sys


def test_the_registered_names_are_the_modules_own() -> None:
    from panic_lens.lsp import actions, commands, server

    assert server.FIX_ALL == actions.FIX_ALL
    assert set(server.COMMANDS) == {commands.EXPLAIN, commands.SHOW_RECORD, commands.SCAN}
    assert all(callable(getattr(commands, name)) for name in server.COMMANDS.values())


def test_the_server_starts_without_importing_actions_or_commands() -> None:
    script = (
        "import sys, panic_lens.lsp.server as s; s.make_server(); "
        "print(sorted(m for m in ('panic_lens.lsp.actions', 'panic_lens.lsp.commands') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
