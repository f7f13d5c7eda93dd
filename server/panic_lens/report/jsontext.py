"""The text of a JSON or SARIF report: `json.dumps(report, indent=2, ensure_ascii=False)`."""

from __future__ import annotations

import json
from typing import Any


def indented(report: Any) -> str:
    """`report` as `json.dumps(report, indent=2, ensure_ascii=False)` writes it, written by
    orjson: the stdlib encoder is pure Python once it indents, a tenth of orjson's speed on a
    large report. What orjson refuses (a lone surrogate from an undecodable file name, an
    integer beyond 64 bits, a dataclass) goes to json.dumps. Reports hold no floats, which
    the two would spell differently (`1e16`, `1e+16`)."""
    import orjson

    options = orjson.OPT_INDENT_2 | orjson.OPT_PASSTHROUGH_DATACLASS
    try:
        return orjson.dumps(report, option=options).decode()
    except orjson.JSONEncodeError:
        return json.dumps(report, indent=2, ensure_ascii=False)
