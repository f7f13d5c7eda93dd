"""Where panic-lens keeps its caches, and the switch that turns them all off.

`PANIC_LENS_NO_CACHE=1` turns every cache off; `PANIC_LENS_CACHE_DIR` moves them (default: the
user cache folder from platformdirs, imported only when needed).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing itself is not imported (the server's start imports this)
if TYPE_CHECKING:
    from pathlib import Path


def disabled() -> bool:
    return os.environ.get("PANIC_LENS_NO_CACHE", "").strip() not in ("", "0", "false")


def override() -> str | None:
    """PANIC_LENS_CACHE_DIR, when set."""
    return os.environ.get("PANIC_LENS_CACHE_DIR") or None


def root() -> Path:
    """The cache folder: PANIC_LENS_CACHE_DIR, else the user cache folder's panic-lens."""
    from pathlib import Path

    moved = override()
    if moved:
        return Path(moved)
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("panic-lens", appauthor=False))
