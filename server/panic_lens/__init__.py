"""panic-lens: find burn calls that will panic at run time, before they run."""

from __future__ import annotations

__version__ = "0.1.0"
RULES_VERSION = "1"  # bump when a rule's behaviour changes (part of cache keys)
