"""Rule files: what a good file gives, and a bad one named by file, line and key."""

from __future__ import annotations

from pathlib import Path

import pytest

from panic_lens.model import Severity
from panic_lens.rules.language.expressions import free_names
from panic_lens.rules.language.spec import RuleFileError, key_lines, parse_rule, read_rule_file
from panic_lens.rules.language.versions import version_matches
from panic_lens.rules.meta import SHIPPED_DIR

GOOD = """\
id = "group-norm-groups"
title = "GroupNorm groups"
summary = "GroupNormConfig::init panics unless num_groups divides num_channels."
severity = "warning"
fires = "when init runs"

[[panic_site]]
file = "crates/burn-nn/src/modules/norm/group.rs"
guard = "num_channels % num_groups != 0"
message = "The number of channels must be divisible by the number of groups"
line = 79

[[where]]
call = "burn::nn::GroupNormConfig::init"
let.channels = "config.num_channels"

[[where]]
call = "burn::tensor::module::group_norm"
args = ["input", "_", "groups"]

[when]
condition = "channels % config.num_groups != 0"
message = "num_groups = {config.num_groups} does not divide {channels}"

[[severity_when]]
when = "context.test"
severity = "hint"

[[fix]]
title = "One group per channel"
replace = "config.num_groups"
with = "{channels}"
changes_behaviour = true
"""


def parse(text: str) -> object:
    return parse_rule(text.encode(), "r.toml")


def error(text: str) -> RuleFileError:
    with pytest.raises(RuleFileError) as caught:
        parse(text)
    return caught.value


def test_a_good_rule() -> None:
    spec = parse_rule(GOOD.encode(), "r.toml")
    assert spec.id == "group-norm-groups" and spec.severity is Severity.WARNING
    assert [w.call for w in spec.wheres] == [
        "burn::nn::GroupNormConfig::init",
        "burn::tensor::module::group_norm",
    ]
    assert spec.wheres[0].method_like and not spec.wheres[1].method_like
    assert spec.wheres[0].lets == (("channels", "config.num_channels"),)
    assert spec.wheres[1].args == ("input", "_", "groups") and spec.wheres[1].replaced_by == ()
    assert spec.sites[0].line == 79 and spec.fixes[0].changes_behaviour
    assert spec.severity_when[0].severity is Severity.HINT


@pytest.mark.parametrize(
    ("change", "line", "key", "reason"),
    [
        (('id = "group-norm-groups"', 'id = "Group Norm"'), 1, "id", "kebab-case"),
        (('severity = "warning"', 'severity = "loud"'), 4, "severity", "not one of"),
        (("line = 79", "line = -1"), 11, "panic_site[0].line", "positive integer"),
        (('call = "burn::nn::GroupNormConfig::init"', 'call = "init"'), 14, "where[0].call",
         "not a path"),
        (('args = ["input", "_", "groups"]', 'args = ["config"]'), 19, "where[1].args",
         "cannot name"),
        (('args = ["input", "_", "groups"]', 'args = ["input"]\nresult_generic = -1'), 20,
         "where[1].result_generic", "turbofish position"),
        (('args = ["input", "_", "groups"]', 'args = ["input"]\nwords = ["a b"]'), 20,
         "where[1].words", "a list of words"),
        (('args = ["input", "_", "groups"]', 'args = ["input"]\nreplaced_by = ["with x"]'), 20,
         "where[1].replaced_by", "a list of method names"),
        (("channels % config.num_groups", "chanels % config.num_groups"), 22, "when.condition",
         "`chanels` is not a value"),
        (("{config.num_groups} does", "{groupz} does"), 23, "when.message", "`groupz`"),
        (('fires = "when init runs"', 'firez = "x"'), 5, "firez", "unknown key"),
        (('guard = "num_channels % num_groups != 0"\n', ""), 7, "panic_site[0]",
         "`guard` is missing"),
    ],
)  # fmt: skip
def test_a_bad_rule_is_named_by_line_and_key(
    change: tuple[str, str], line: int, key: str, reason: str
) -> None:
    assert change[0] in GOOD
    found = error(GOOD.replace(change[0], change[1], 1))
    assert (found.path, found.line, found.key) == ("r.toml", line, key)
    assert reason in found.reason
    assert str(found).startswith(f"r.toml:{line}: {key}: ")


def test_toml_syntax_errors_give_the_line() -> None:
    found = error(GOOD.replace('title = "GroupNorm groups"', "title = GroupNorm"))
    assert found.line == 2 and "not valid TOML" in found.reason


def test_a_rule_needs_sites_and_calls() -> None:
    assert "panic_site" in error('id = "a"\ntitle = "t"\nsummary = "s"\n').reason
    no_where = GOOD.split("[[where]]")[0]
    assert "[[where]]" in error(no_where).reason


def test_hook_rules_are_metadata_only() -> None:
    hook = GOOD.replace('fires = "when init runs"', 'hook = "ctc-target-capacity"')
    found = error(hook)
    assert found.key in ("where", "when", "fix", "severity_when")


def test_key_lines_count_arrays_of_tables() -> None:
    lines = key_lines(GOOD)
    assert lines["where[1].args"] == 19 and lines["fix[0].with"] == 32
    assert lines["where[0].let.channels"] == 15


def test_free_names_skip_fields_functions_and_macro_variables() -> None:
    assert free_names("size(xs) > 1 && xs.all(x, x > n) && config.a.b == 'k'") == {
        "xs", "n", "config"
    }  # fmt: skip


@pytest.mark.parametrize(
    ("req", "version", "ok"),
    [
        (">=0.21, <0.23", "0.22.0-pre.2", True),
        (">=0.21, <0.22", "0.22.0-pre.2", False),
        ("=0.21", "0.21.3", True),
        ("<0.21", "0.20.1", True),
        (">=0.21", "not-a-version", None),
    ],
)
def test_version_requirements(req: str, version: str, ok: bool | None) -> None:
    assert version_matches(req, version) is ok


def test_every_shipped_rule_file_reads(tmp_path: Path) -> None:
    files = sorted(SHIPPED_DIR.glob("*.toml"))
    assert len(files) >= 4
    for file in files:
        assert read_rule_file(file).id == file.stem


def test_a_wheres_words_join_its_prefilter_groups() -> None:
    """`words` are added to every prefilter group of their `where` (and to no other's)."""
    from panic_lens.rules.meta import rule_by_id

    rule = rule_by_id("tensor-data-shape-mismatch")
    assert rule is not None and rule.prefilter_groups
    assert all("vec!" in group for group in rule.prefilter_groups)
    steps = rule_by_id("slice-step-zero")
    assert steps is not None
    # Slice::new needs no `s!`; a path call writes its owner as the path's qualifier
    assert ("new(", "Slice::") in steps.prefilter_groups
    assert (".new(", "Slice") in steps.prefilter_groups
    assert ("slice(", "Tensor::", "s!") in steps.prefilter_groups
    assert (".slice(", "Tensor", "s!") in steps.prefilter_groups
