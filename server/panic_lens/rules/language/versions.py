"""burn version requirements of rule files (`burn = ">=0.21, <0.23"`): their syntax and
whether a crate's locked burn satisfies one."""

from __future__ import annotations

import re

VERSION_REQ = re.compile(r"\s*(>=|<=|>|<|=|==)?\s*(\d+(?:\.\d+){0,2}(?:-[0-9A-Za-z.]+)?)\s*")


def version_matches(req: str, version: str) -> bool | None:
    """Whether burn `version` satisfies `req` ('>=0.21, <0.23'); None when unreadable.
    A pre-release counts as its release (0.22.0-pre.2 is 0.22.0) for ranges."""
    have = _version_tuple(version)
    if have is None:
        return None
    for part in req.split(","):
        found = VERSION_REQ.fullmatch(part)
        want = _version_tuple(found.group(2)) if found else None
        if found is None or want is None:
            return None
        op = found.group(1) or ">="
        if op in ("=", "=="):  # `=0.21`: any 0.21.x
            given = len(found.group(2).split("-", 1)[0].split("."))
            have_prefix, want = have[:given], want[:given]
            if have_prefix != want:
                return False
            continue
        ok = {
            ">=": have >= want, "<=": have <= want, ">": have > want, "<": have < want,
        }[op]  # fmt: skip
        if not ok:
            return False
    return True


def _version_tuple(text: str) -> tuple[int, ...] | None:
    head = text.strip().split("-", 1)[0].split("+", 1)[0]
    try:
        parts = tuple(int(p) for p in head.split("."))
    except ValueError:
        return None
    return (*parts, 0, 0, 0)[:3]
