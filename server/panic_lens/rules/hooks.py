"""The one registry of hooks: Python detectors a rule file names with `hook = "name"` for what
the rule language cannot say. Each module exposes `detect(facts)` yielding findings and hover
facts; the rule file gives its id, texts, panic sites and prefilter words.
"""

from __future__ import annotations

HOOKS: dict[str, str] = {
    "ctc-target-capacity": "panic_lens.rules.ctc_target_capacity",
    "async-policy-load-record": "panic_lens.rules.async_policy_load_record",
    "router-unsupported-dtype": "panic_lens.rules.router_unsupported_dtype",
    "interpolate-backward-mode": "panic_lens.rules.interpolate_backward_mode",
    "binary-op-incompatible-shapes": "panic_lens.rules.binary_op_shapes",
}


def hook_module(name: str) -> str | None:
    return HOOKS.get(name)
