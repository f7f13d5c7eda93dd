"""`python -m panic_lens` runs the CLI."""

from __future__ import annotations

import sys

from panic_lens.cli import main

sys.exit(main())
