"""Rule files are checked when they load (rules/language/check.py): each single mistake is an
error naming file, line and key (with a "did you mean" where a name is close), on every path
that loads rules: reading the file, `check` (exit 2, the JSON `errors`), `rules list` and
`rules test` (exit 2, the error printed). The editor's side is in tests/lsp/test_rule_files.py.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from panic_lens.cli import main
from panic_lens.rules import meta
from panic_lens.rules.language import types
from panic_lens.rules.language.spec import RuleFileError, RuleSpec
from panic_lens.rules.language.spec import parse_rule as read
from panic_lens.rules.language.spec import read_rule_file as read_file


def parse_rule(raw: bytes, source: str) -> RuleSpec:
    """Read and check a rule, as everything that registers one does (`meta.info_from_spec`)."""
    spec = read(raw, source)
    meta.info_from_spec(spec)
    return spec


def read_rule_file(path: Path) -> RuleSpec:
    spec = read_file(path)
    meta.info_from_spec(spec)
    return spec


# A good rule of burn's HuberLossConfig (the shipped config table: `delta` is an f32).
GOOD = """\
id = "my-huber"
title = "Huber loss with a negative delta"
summary = "HuberLossConfig::init panics on a negative delta."

[[panic_site]]
file = "crates/burn-nn/src/loss/huber.rs"
guard = "delta >= 0"
message = "Delta for Huber loss must be a non-negative number"

[[where]]
call = "burn::nn::loss::HuberLossConfig::init"

[when]
condition = "config.delta < 0.0"
message = "delta = {config.delta} is negative"

[[fix]]
title = "Use the absolute value"
replace = "config.delta"
with = "{-config.delta}"
changes_behaviour = true
"""

EXAMPLE = """\
use burn::nn::loss::HuberLossConfig;
fn build() {
    let _ = HuberLossConfig::new(-1.0).init(); // expect: my-huber
    let _ = HuberLossConfig::new(1.0).init(); // ok
}
"""

# (what, the change to GOOD, line, key, what the reason says)
MISTAKES = [
    ("toml syntax", ('title = "Huber', 'title = "Huber\n'), 2, "", "not valid TOML"),
    ("unknown key", ('summary =', 'sumary = "x"\nsummary ='), 3, "sumary",
     "did you mean `summary`?"),
    ("wrong type", ("changes_behaviour = true", 'changes_behaviour = "yes"'), 21,
     "fix[0].changes_behaviour", "must be true or false"),
    ("cel syntax", ("config.delta < 0.0", "config.delta < "), 14, "when.condition",
     "Syntax error"),
    ("cel type", ("config.delta < 0.0", "config.delta > 'x'"), 14, "when.condition",
     "no matching overload for '_>_' applied to '(double, string)'"),
    ("unknown name", ("config.delta < 0.0", "confg.delta < 0.0"), 14, "when.condition",
     "`confg` is not a value this rule binds (did you mean `config`?)"),
    ("unknown call path", ("burn::nn::loss::HuberLossConfig::init",
                           "burn::nn::HuberLossConfig::init"), 11, "where[0].call",
     "did you mean `burn::nn::loss::HuberLossConfig`?"),
    ("unknown method", ('HuberLossConfig::init"', 'HuberLossConfig::inti"'), 11, "where[0].call",
     "`inti` is no function of `burn::nn::loss::HuberLossConfig` panic-lens knows (did you"
     " mean `init`?)"),
    ("unknown function", ("config.delta < 0.0", "sise([config.delta]) > 1"), 14,
     "when.condition", "no function `sise` (did you mean `size`?)"),
    ("unknown config field", ("config.delta < 0.0", "config.dlta < 0.0"), 14,
     "when.condition", "`config.dlta` is no field of the config of any call of this rule"
     " (did you mean `delta`?)"),
    ("bad hole", ("{config.delta} is", "{config.delta +} is"), 15, "when.message",
     "the hole {config.delta +} does not compile"),
    ("hole type", ("{config.delta} is", "{config.delta - 'x'} is"), 15, "when.message",
     "no matching overload"),
    ("bad fix target", ('replace = "config.delta"', 'replace = "config.dleta"'), 19,
     "fix[0].replace", "(did you mean `config.delta`?)"),
    ("fix target not a value", ('replace = "config.delta"', 'replace = "delta"'), 19,
     "fix[0].replace", "(did you mean `config.delta`?)"),
    ("fix hole", ("{-config.delta}", "{-config.delta.x}"), 20, "fix[0].with",
     "does not compile"),
    ("not a condition", ("config.delta < 0.0", "config.delta * 2.0"), 14, "when.condition",
     "must be true or false, but it is DOUBLE"),
]  # fmt: skip
IDS = [m[0] for m in MISTAKES]


@pytest.fixture(autouse=True)
def _registry() -> Iterator[None]:
    before = meta.added_rules()
    yield
    meta.set_added_rules(before)


def broken(change: tuple[str, str]) -> str:
    assert change[0] in GOOD
    return GOOD.replace(change[0], change[1], 1)


def folder(tmp_path: Path, text: str) -> Path:
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "my-huber.toml").write_text(text)
    (rules / "my-huber.rs").write_text(EXAMPLE)
    return rules


def test_the_good_rule_loads_and_its_example_holds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rules = folder(tmp_path, GOOD)
    assert main(["rules", "test", str(rules)]) == 0
    assert "2 expectation(s) met, 0 failed" in capsys.readouterr().out


@pytest.mark.parametrize(("what", "change", "line", "key", "reason"), MISTAKES, ids=IDS)
def test_a_mistake_names_file_line_and_key(
    tmp_path: Path, what: str, change: tuple[str, str], line: int, key: str, reason: str
) -> None:
    path = folder(tmp_path, broken(change)) / "my-huber.toml"
    with pytest.raises(RuleFileError) as caught:
        read_rule_file(path)
    found = caught.value
    assert (found.path, found.line, found.key) == (str(path), line, key)
    assert reason in found.reason


@pytest.mark.parametrize(("what", "change", "line", "key", "reason"), MISTAKES, ids=IDS)
def test_check_exits_2_with_the_error_in_json(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    what: str,
    change: tuple[str, str],
    line: int,
    key: str,
    reason: str,
) -> None:
    rules = folder(tmp_path, broken(change))
    source = tmp_path / "src.rs"
    source.write_text(EXAMPLE.replace("// expect: my-huber", ""))
    code = main(["check", "--rules", str(rules), "--format", "json", str(source)])
    out = capsys.readouterr()
    assert code == 2
    [error] = json.loads(out.out)["errors"]
    assert error["kind"] == "rule"
    assert (error["path"], error["line"], error["key"]) == (str(rules / "my-huber.toml"), line, key)
    assert reason in error["reason"]
    assert f"my-huber.toml:{line}: " in out.err


@pytest.mark.parametrize(("what", "change", "line", "key", "reason"), MISTAKES, ids=IDS)
def test_rules_test_and_list_exit_2_and_print_the_error(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    what: str,
    change: tuple[str, str],
    line: int,
    key: str,
    reason: str,
) -> None:
    rules = folder(tmp_path, broken(change))
    shown = f"{rules / 'my-huber.toml'}:{line}: {key + ': ' if key else ''}"
    assert main(["rules", "test", str(rules)]) == 2
    out = capsys.readouterr().out
    assert f"panic-lens: rule file error: {shown}" in out
    assert reason in out and "Error(" not in out and "Traceback" not in out
    assert main(["rules", "list", "--rules", str(rules)]) == 2
    assert shown in capsys.readouterr().err


def test_an_external_call_is_taken_as_written() -> None:
    text = broken(("burn::nn::loss::HuberLossConfig::init", "my_crate::losses::huber"))
    with pytest.raises(RuleFileError, match="`my_crate` is not a burn crate"):
        parse_rule(text.replace("config.delta", "0.0").encode(), "r.toml")
    text = text.replace('losses::huber"\n', 'losses::huber"\nexternal = true\nargs = ["delta"]\n')
    text = text.replace("config.delta", "delta")
    spec = parse_rule(text.encode(), "r.toml")
    assert spec.wheres[0].external and spec.wheres[0].args == ("delta",)


@pytest.mark.parametrize(
    "condition",
    [
        "config.delta < 0",  # an int against a double: CEL's evaluator compares them
        "has(config.delta) && config.delta != null && !(config.delta >= 0.0)",
        "context.test ? false : config.delta < 0.0",
        "size(context.backends) > 0 && config.delta in [0.0, 1.5]",
    ],
)
def test_what_runs_also_type_checks(condition: str) -> None:
    parse_rule(GOOD.replace("config.delta < 0.0", condition, 1).encode(), "r.toml")


def test_an_arithmetic_mix_fails_as_it_would_when_run() -> None:
    """CEL adds no int to a double at run time either: the rule could never fire."""
    with pytest.raises(RuleFileError, match=r"'_\+_' applied to '\(double, int\)'"):
        parse_rule(GOOD.replace("config.delta < 0.0", "config.delta + 1 < 0.0").encode(), "r")


@pytest.mark.parametrize(
    ("rust", "cel"),
    [
        ("usize", "INT"), ("i64", "INT"), ("f32", "DOUBLE"), ("f64", "DOUBLE"), ("bool", "BOOL"),
        ("Option<f64>", "double_wrapper"), ("Option<usize>", "int_wrapper"),
        ("[usize; 2]", "LIST<INT>"), ("Vec<usize>", "LIST<INT>"), ("Vec<f32>", "LIST<DOUBLE>"),
        ("(f32, f32, f32)", "LIST<DOUBLE>"), ("Option<Vec<usize>>", "DYN"),
        ("PaddingConfig2d", "STRING"), ("Initializer", "STRING"), ("B::Device", "DYN"),
        ("LearningRate", "DOUBLE"), ("Option<[usize; 2]>", "DYN"), ("&[usize]", "LIST<INT>"),
    ],
)  # fmt: skip
def test_burns_rust_types_as_cel_types(rust: str, cel: str) -> None:
    assert types.rust_type(rust).name() == cel


def test_a_config_field_of_an_option_may_be_null_and_a_number() -> None:
    text = GOOD.replace("HuberLossConfig::init", "CrossEntropyLossConfig::init")
    for ok in ("config.smoothing != null && config.smoothing > 1.0", "config.smoothing == null"):
        parse_rule(
            text.replace("config.delta < 0.0", ok).replace("delta", "smoothing").encode(), "r"
        )
    with pytest.raises(RuleFileError, match="wrapper"):
        bad = text.replace("config.delta < 0.0", "config.smoothing == 'x'")
        parse_rule(bad.replace("delta", "smoothing").encode(), "r")


def test_every_shipped_rule_passes_the_check() -> None:
    """The shipped rules load unchecked (package data): the check runs here instead."""
    from panic_lens.rules.language import check

    checked = [read_rule_file(p) for p in sorted(meta.SHIPPED_DIR.glob("*.toml"))]
    for spec in checked:
        check.check_rule(spec)  # raises RuleFileError naming file, line and key
    assert len(checked) == len(meta.SHIPPED)


NARROW = """\
id = "my-narrow"
title = "narrow"
summary = "Tensor::narrow panics past the end."

[[panic_site]]
file = "crates/burn-tensor/src/tensor/api/base.rs"
guard = "start + length <= dims[dim]"
message = "Start and length must be within the bounds"

[[where]]
call = "burn::tensor::Tensor::narrow"
args = ["dim", "start", "length"]

[when]
condition = "CONDITION"
"""


@pytest.mark.parametrize(
    ("condition", "error"),
    [
        ("start + length > 4", None),
        ("type(dim) == int && start < 0", None),  # `dim` is generic in burn: dyn
        ("start > 'x'", "'_>_' applied to '(int, string)'"),  # `start: usize`
        ("size(length) > 1", "'size' applied to '(int)'"),
    ],
)
def test_arguments_have_the_types_of_burns_parameters(condition: str, error: str | None) -> None:
    text = NARROW.replace("CONDITION", condition).encode()
    if error is None:
        parse_rule(text, "r.toml")
        return
    with pytest.raises(RuleFileError) as caught:
        parse_rule(text, "r.toml")
    assert (caught.value.line, caught.value.key) == (15, "when.condition")
    assert error in caught.value.reason


def test_an_external_calls_arguments_are_dyn() -> None:
    text = NARROW.replace("CONDITION", "start > 'x'").replace(
        'args = ["dim"', 'external = true\nargs = ["dim"'
    )
    parse_rule(text.encode(), "r.toml")


def test_a_rule_that_passed_is_not_checked_again_and_a_broken_one_always_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from panic_lens.rules.language import check, verdicts

    monkeypatch.setenv("PANIC_LENS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("PANIC_LENS_NO_CACHE", raising=False)
    monkeypatch.setattr(verdicts, "_OPEN", {})  # as a new process: read from the folder
    checked: list[str] = []
    real = check.check_rule
    monkeypatch.setattr(check, "check_rule", lambda spec: (checked.append(spec.id), real(spec)))
    good = read(GOOD.encode(), "good.toml")
    bad = read(GOOD.replace("config.delta < 0.0", "config.dlta < 0.0").encode(), "bad.toml")
    for _ in range(2):
        monkeypatch.setattr(verdicts, "_OPEN", {})
        meta.info_from_spec(good)
        with pytest.raises(RuleFileError, match="dlta"):
            meta.info_from_spec(bad)
    assert checked == ["my-huber", "my-huber", "my-huber"]  # the good one once, the bad twice
    changed = read(GOOD.replace("is negative", "is below 0").encode(), "good.toml")
    meta.info_from_spec(changed)
    assert len(checked) == 4
    [kept] = (tmp_path / "cache" / "rulecheck").iterdir()
    assert kept.read_text().split() == [good.fingerprint, changed.fingerprint]
    monkeypatch.setattr(verdicts, "_STAMP", ["another-version"])  # panic-lens was upgraded
    monkeypatch.setattr(verdicts, "_OPEN", {})
    meta.info_from_spec(good)
    assert len(checked) == 5  # checked again, and the old verdicts are gone
    assert [p.name for p in (tmp_path / "cache" / "rulecheck").iterdir()] == ["another-version.txt"]


def test_every_rule_derived_from_a_shipped_record_passes_the_check(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What the deriver writes (catalog/derive.py) is checked like any rule when it joins the
    registry: each shipped record's rule, derived even where a hand-written rule covers it."""
    from panic_lens.catalog import load_catalog
    from panic_lens.catalog.derive import Derived, derive, shipped_guards
    from panic_lens.rules.language import configs

    monkeypatch.setenv("PANIC_LENS_NO_CACHE", "1")  # every rule checked, none remembered
    guards = shipped_guards()
    if not guards["functions"]:
        pytest.skip("no guards index shipped")
    records = load_catalog([], include_default=True).catalog.records
    derived = [o for r in records if isinstance(o := derive(r, guards, configs.table()), Derived)]
    assert len(derived) >= 10  # most shipped records' panics are derivable
    for outcome in derived:
        meta.info_from_spec(outcome.spec)  # raises RuleFileError on a problem


def test_without_shipped_indexes_what_they_would_tell_is_not_checked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A package without its burn indexes (no config table, no guards index) still loads its
    rules: calls and config fields are not known, and the rest is still checked."""
    from panic_lens.rules.language import api, configs

    monkeypatch.setattr(configs, "table", lambda: configs.ConfigTable(None, {}, {}, {}))
    monkeypatch.setattr(api, "known_api", lambda: api.api_of({}))
    parse_rule(GOOD.replace('Config::init"', 'Config::inti"').encode(), "r")
    with pytest.raises(RuleFileError, match="Syntax error"):
        parse_rule(GOOD.replace("config.delta < 0.0", "config.delta <").encode(), "r")
    for path in sorted(meta.SHIPPED_DIR.glob("*.toml")):
        meta.info_from_spec(read_file(path))
