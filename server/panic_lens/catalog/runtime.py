"""Known runtime texts of each rule's panic, as data: what burn really prints.

Records carry one messagePattern for their panic half only; a record whose knowledge half is
about another panic (a split record) is found through these texts instead. Panic locations
(`panicked at .../async_policy.rs:320:9:`) count too, for panics whose message says little
(`not implemented`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import regex

from panic_lens.catalog.lines import Lines


@dataclass(frozen=True, slots=True)
class RuntimeText:
    rule: str
    pattern: str
    note: str
    location: bool = False  # a panic location (file:line), not the message itself


def _crate_file(crate: str, path: str) -> str:
    """`burn-<crate>...[/src]/<path>:<line>[:<col>]` in a panic location. The file's tail is
    matched first and the `burn-<crate>` before it (group `crate`, where the match is shown
    to start) is looked for behind it: written the other way, `burn-rl[^\\s:]*` tried from
    every `burn-rl` of one long path-like run rescanned the run each time (quadratic: 7 s for
    a 32 KB line, past explain's timeout, so the location went unseen)."""
    tail = rf"[/\\](?:src[/\\])?{path}:\d+(?::\d+)?"
    return rf"{tail}(?<=(?P<crate>burn-{crate})[^\s:]*{tail})"


RUNTIME_TEXTS: tuple[RuntimeText, ...] = (
    RuntimeText(
        "ctc-target-capacity",
        r"ctc_loss(?:_backward)?: 2 \* max_target_len \+ 1 = \d+ exceeds the kernel's "
        r"shared-memory alpha capacity \(\d+\)",
        "cubecl ctc_loss capacity assert: the targets tensor is 4096 or more wide",
    ),
    RuntimeText(
        "async-policy-load-record",
        r"not implemented: Not implemented yet\. Please load the record on the inner policy "
        r"before creating an async policy\.",
        "Policy::load_record called on burn-rl's AsyncPolicy",
    ),
    RuntimeText(
        "async-policy-load-record",
        _crate_file("rl", r"policy[/\\]async_policy\.rs"),
        "panic raised in burn-rl's async_policy.rs (in v0.21 the text was `not yet implemented`)",
        location=True,
    ),
    RuntimeText(
        "router-unsupported-dtype",
        _crate_file("router", r"channel[/\\]base\.rs"),
        "panic raised in RouterChannel::change_client_backend (runtime text `not implemented`): "
        "a tensor whose dtype it cannot move, such as an unsigned int",
        location=True,
    ),
    RuntimeText(
        "interpolate-backward-mode",
        r"interpolate_backward kernel failed \(",
        "cubecl interpolate backward: the interpolation mode has no backward kernel",
    ),
    RuntimeText(
        "interpolate-backward-mode",
        r"(?:nearest exact|bilinear|bicubic|lanczos3) interpolation backward is not supported",
        "interpolate backward: this backend has no backward kernel for the mode "
        "(cubecl in v0.21, ndarray, tch)",
    ),
)


@dataclass(frozen=True, slots=True)
class RuntimeHit:
    rule: str
    line_no: int
    line: str
    span: tuple[int, int]
    note: str
    location: bool


def find_runtime_texts(lines: Lines, timeout: float) -> list[RuntimeHit]:
    """Every (rule, line) where a known runtime text occurs; the first match per line."""
    hits: dict[tuple[str, int], RuntimeHit] = {}
    for known in RUNTIME_TEXTS:
        try:
            found = list(_compiled(known.pattern).finditer(lines.text, timeout=timeout))
        except TimeoutError:  # linear patterns; only an absurd input gets here: skip the text
            continue
        for m in found:
            begin = m.start("crate") if known.location else m.start()
            number = lines.line_of(begin)
            if (known.rule, number) not in hits:
                start = lines.start_of(number)
                span = (begin - start, m.end() - start)
                hits[(known.rule, number)] = RuntimeHit(
                    known.rule, number, lines.line(number), span, known.note, known.location
                )
    return sorted(hits.values(), key=lambda h: (h.line_no, h.rule))


@cache
def _compiled(pattern: str) -> regex.Pattern[str]:
    import regex  # explain's alone

    return regex.compile(pattern)
