"""The names the server registers with the client: its fix-all code action kind and its
commands. A module of their own, so the server registers them without importing the code
actions and commands (loaded on first use)."""

FIX_ALL = "source.fixAll.panic-lens"
EXPLAIN = "panic-lens.explainPanic"
SHOW_RECORD = "panic-lens.showRecord"
SCAN = "panic-lens.scanWorkspace"
