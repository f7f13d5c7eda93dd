"""A record of a burn panic that no rule covers becomes a check: find the record's panic site
in burn's guards index (`rust/burn_guards.py`), follow its guard up to the public calls that
reach it, and write the condition in the rule language (docs/rule-language.md).

The rule says only what is definitely true: every Rust construct on the way is translated
exactly or the record is `NotDerived` with the construct named; a value the call does not
show stays unknown at run time, so the rule is silent there.

The stages, one module each: `site` (the record's panic in the guards index), `lift` (the
chain of conditions carried up to the public calls), `translate` and `conditions` (Rust to
the rule language), `rule` (the rule file), `pipeline` (the stages in order, once per site),
`outcomes` (a load's records, cached, and the registry's derived slot); `model` holds what
they share.
"""

from __future__ import annotations

from panic_lens.catalog.derive.model import (
    CONSTRUCT,
    NOT_PUBLIC,
    NOT_VISIBLE,
    SITE_NOT_FOUND,
    Derived,
    NotDerived,
    Unmapped,
)
from panic_lens.catalog.derive.outcomes import (
    Covered,
    Outcome,
    apart,
    derive_all,
    derive_apart,
    register_derived,
)
from panic_lens.catalog.derive.pipeline import derive
from panic_lens.catalog.derive.rule import derived_toml
from panic_lens.catalog.derive.site import find_site
from panic_lens.rules.language.configs import guards_files, read_guards, shipped_guards

__all__ = [
    "CONSTRUCT", "NOT_PUBLIC", "NOT_VISIBLE", "SITE_NOT_FOUND", "Covered", "Derived",
    "NotDerived", "Outcome", "Unmapped", "apart", "derive", "derive_all", "derive_apart",
    "derived_toml", "find_site", "guards_files", "read_guards", "register_derived",
    "shipped_guards",
]  # fmt: skip
