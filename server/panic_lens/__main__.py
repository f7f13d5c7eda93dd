"""`python -m panic_lens` runs the CLI."""

from __future__ import annotations

from panic_lens.cli import entry

entry()
