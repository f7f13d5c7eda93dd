"""Records bind to rules by panic site: file plus guard or message, tolerant of line drift."""

from __future__ import annotations

import json
from typing import Any

import pytest
from records_factory import SEEDS, record

from panic_lens.catalog import Binding, load_catalog
from panic_lens.catalog.binding import bind_record
from panic_lens.catalog.sites import best_matches, same_file
from panic_lens.engine import check_paths
from panic_lens.model import Severity
from panic_lens.rules.meta import BurnSite, RuleInfo, rules

CTC, ASYNC, ROUTER, INTERP = (
    "ctc-target-capacity",
    "async-policy-load-record",
    "router-unsupported-dtype",
    "interpolate-backward-mode",
)
CTC_FILE = "crates/burn-cubecl/src/kernel/ctc.rs"
SEED_FILES = {
    "2d90c97bb9ee521c": "000_23566bc50852bd48.txt",
    "98e8605c71c1dd9c": "001_13cde4144dac5f63.txt",
    "22a18ddf8713058a": "003_b53f12a8bd177b53.txt",
}


def seed(rid: str, **fields: Any) -> dict[str, Any]:
    """A seed record as data, with `fields` changed (None removes one)."""
    data = json.loads((SEEDS / SEED_FILES[rid]).read_text(encoding="utf-8"))["record"]
    data.update(fields)
    return {k: v for k, v in data.items() if v is not None}


def catalog_of(write_records, *records: dict[str, Any]):  # type: ignore[no-untyped-def]
    path = write_records("recs.jsonl", list(records))
    result = load_catalog([path], include_default=False)
    assert result.errors == ()
    return result.catalog


def bind(write_records, rec: dict[str, Any]) -> Binding:
    return catalog_of(write_records, rec).binding(rec["id"])


@pytest.mark.parametrize(
    ("rid", "panic", "site_line"),
    [
        ("2d90c97bb9ee521c", CTC, 307),
        ("98e8605c71c1dd9c", CTC, 610),
        ("22a18ddf8713058a", INTERP, 146),
    ],
)
def test_each_seed_panic_half_binds_by_its_site(rid: str, panic: str, site_line: int) -> None:
    catalog = load_catalog().catalog
    record = catalog.get(rid)
    assert record is not None
    b = catalog.binding(rid)
    assert (b.panic_rules, b.panic_by) == ((panic,), "site")
    [match] = best_matches(record)
    assert (match.rule, match.site.line, match.guard, match.message) == (
        panic,
        site_line,
        True,
        True,
    )


def test_the_ctc_file_with_another_guard_leaves_the_panic_half_unbound(write_records) -> None:
    rec = record(
        "other-ctc",
        errorMessage="ctc_loss: targets must be a [N, S] tensor, got {} dims",
        messagePattern=r"ctc_loss: targets must be a \[N, S\] tensor, got (.+?) dims",
        filePath=CTC_FILE,
        lineNumber=290,
        sourceCode="    assert_eq!(\n        targets.shape().num_dims(),\n        2,\n"
        '        "ctc_loss: targets must be a [N, S] tensor, got {} dims",\n    );\n',
        documentation="ctc_loss and CTCLoss need 2-D targets; ctc_loss_backward too.",
    )
    b = bind(write_records, rec)
    assert b.panic_rules == () and b.panic_by == ""
    # its knowledge is about that other ctc panic too: not bound to the ctc rule by words
    assert CTC not in b.knowledge_rules


def test_the_message_alone_binds_and_so_does_the_message_pattern(write_records) -> None:
    by_message = seed("2d90c97bb9ee521c", id="m", sourceCode=None, lineNumber=None)
    by_pattern = seed("98e8605c71c1dd9c", id="p", sourceCode=None, errorMessage="assertion failed")
    catalog = catalog_of(write_records, by_message, by_pattern)
    for rid, line in (("m", 307), ("p", 610)):
        record = catalog.get(rid)
        assert record is not None and catalog.binding(rid).panic_rules == (CTC,)
        [match] = best_matches(record)
        assert match.site.line == line and not match.guard and match.message


def test_the_right_text_in_another_file_does_not_bind(write_records) -> None:
    for path in ("crates/burn-wgpu/src/kernel/ctc.rs", "crates/burn-cubecl/src/kernel/ctc2.rs"):
        rec = seed("2d90c97bb9ee521c", id="elsewhere", filePath=path, githubUrl=None)
        assert bind(write_records, rec).panic_rules == ()


def test_a_quote_moved_by_21_lines_still_binds(write_records) -> None:
    url = seed("2d90c97bb9ee521c")["githubUrl"].replace("#L289-L325", "#L310-L346")
    drifted = seed(
        "2d90c97bb9ee521c",
        lineNumber=328,
        sourceCodeStart=310,
        sourceCodeEnd=346,
        githubUrl=url,
        sourceCode="\n" + seed("2d90c97bb9ee521c")["sourceCode"].replace("    ", "\t"),
    )
    assert bind(write_records, drifted) == Binding((CTC,), (ASYNC,), "site", "words")


@pytest.mark.parametrize(
    "path",
    [
        r"crates\burn-cubecl\src\kernel\ctc.rs",
        r"C:\Users\dev\burn\crates\burn-cubecl\src\kernel\ctc.rs",
        r"C:\Users\dev\.cargo\registry\src\index.crates.io-1949cf8c6b5b557f"
        r"\burn-cubecl-0.22.0-pre.2\src\kernel\ctc.rs",
        "./crates/burn-cubecl/src/kernel/ctc.rs",
        "burn-cubecl/src/kernel/ctc.rs",
        "crates/burn-cubecl/src/kernel/ctc.rs:307:9",
    ],
)
def test_path_spellings_bind(write_records, path: str) -> None:
    rec = seed("2d90c97bb9ee521c", filePath=path)
    catalog = catalog_of(write_records, rec)
    found = catalog.get(rec["id"])
    assert found is not None
    assert [(m.site.line, m.guard, m.message) for m in best_matches(found)] == [(307, True, True)]
    b = catalog.binding(rec["id"])
    assert (b.panic_rules, b.panic_by) == ((CTC,), "site")


def test_path_comparison() -> None:
    assert same_file(
        "/src/burn/crates/burn-router/src/channel/base.rs", "crates/burn-router/src/channel/base.rs"
    )
    assert not same_file("src/channel/base.rs", "crates/burn-router/src/channel/base.rs")
    assert not same_file(
        "crates/burn-fusion/src/channel/base.rs", "crates/burn-router/src/channel/base.rs"
    )


def test_without_a_file_path_the_github_url_names_the_file(write_records) -> None:
    assert bind(write_records, seed("22a18ddf8713058a", filePath=None)).panic_rules == (INTERP,)
    no_file = seed("22a18ddf8713058a", filePath=None, githubUrl=None)
    assert bind(write_records, no_file).panic_rules == ()


def test_the_other_rules_sites_at_both_burn_versions(write_records) -> None:
    recs = [
        record(
            "async-022",
            errorMessage="not implemented: Not implemented yet. Please load the record on the "
            "inner policy before creating an async policy.",
            filePath="crates/burn-rl/src/policy/async_policy.rs",
        ),
        record(
            "async-021",
            errorMessage="not yet implemented",
            filePath="crates/burn-rl/src/policy/async_policy.rs",
            sourceCode="    fn load_record(self, _record: R) -> Self {\n        // Not needed\n"
            "        todo!()\n    }",
        ),
        record(
            "router",
            errorMessage="not implemented",
            messagePattern="not implemented",
            filePath="crates/burn-router/src/channel/base.rs",
            sourceCode="        } else {\n            unimplemented!()\n        }",
        ),
        record(
            "interp-021",
            errorMessage="bilinear interpolation backward is not supported by JIT backend",
            filePath="crates/burn-cubecl/src/kernel/interpolate/base.rs",
        ),
    ]
    catalog = catalog_of(write_records, *recs)
    assert [catalog.binding(r["id"]).panic_rules for r in recs] == [
        (ASYNC,),
        (ASYNC,),
        (ROUTER,),
        (INTERP,),
    ]


def test_line_number_orders_equal_matches_of_one_file(write_records) -> None:
    guard_only = {
        "errorMessage": "assertion failed",
        "messagePattern": "assertion failed",
        "filePath": CTC_FILE,
        "sourceCode": "    assert!(\n        max_l_prime as u32 <= SHARED_ALPHA_CAPACITY,\n",
    }
    recs = [
        record("near-forward", lineNumber=300, **guard_only),
        record("near-backward", lineNumber=640, **guard_only),
        record("no-line", **guard_only),
    ]
    catalog = catalog_of(write_records, *recs)
    lines = {}
    for r in recs:
        found = catalog.get(r["id"])
        assert found is not None
        lines[r["id"]] = [m.site.line for m in best_matches(found)]
    assert lines == {"near-forward": [307], "near-backward": [610], "no-line": [307, 610]}
    assert all(catalog.binding(r["id"]).panic_rules == (CTC,) for r in recs)


def test_two_rules_sharing_a_file_tie_without_a_line_and_split_by_it(write_records) -> None:
    def rule(rid: str, line: int) -> RuleInfo:
        site = BurnSite("crates/burn-nn/src/conv.rs", "assert!(", "bad config", line)
        return RuleInfo(rid, rid, "", ("Conv",), Severity.ERROR, "none", panic_sites=(site,))

    rules = (rule("first", 10), rule("second", 90))
    base = {"errorMessage": "bad config", "filePath": "crates/burn-nn/src/conv.rs"}
    catalog = catalog_of(
        write_records, record("tie", **base), record("late", lineNumber=85, **base)
    )
    tie, late = catalog.get("tie"), catalog.get("late")
    assert tie is not None and late is not None
    assert bind_record(tie, rules).panic_rules == ("first", "second")
    assert bind_record(late, rules).panic_rules == ("second",)


def test_knowledge_follows_the_site_rule_when_it_mentions_it(write_records) -> None:
    rec = seed(
        "2d90c97bb9ee521c",
        documentation=seed("2d90c97bb9ee521c")["documentation"]
        + " Unlike ctc_loss, it has no cap.",
    )
    assert bind(write_records, rec) == Binding((CTC,), (CTC,), "site", "site")


INTERPOLATE_2D = record(
    "interp2d-size",
    errorMessage="Either output_size or scale_factor must be provided",
    messagePattern="Either output_size or scale_factor must be provided",
    filePath="crates/burn-nn/src/modules/interpolate/interpolate2d.rs",
    lineNumber=159,
    sourceCode="fn calculate_output_size(input_dims: [usize; 4], output_size: Option<[usize; 2]>,"
    " scale_factor: Option<[f32; 2]>) -> [usize; 2] {\n    match (output_size, scale_factor) {\n"
    "        // interpolate to the given size\n"
    '        _ => panic!("Either output_size or scale_factor must be provided"),\n    }\n}',
    githubUrl="https://github.com/tracel-ai/burn/blob/v0.22.0-pre.2/crates/burn-nn/src/modules/"
    "interpolate/interpolate2d.rs#L159",
    documentation="Interpolate2d panics in forward when its config sets neither output_size nor "
    "scale_factor: interpolate needs a target size. Interpolate2d reads Interpolate2dConfig.",
    triggerScenarios="Calling interpolate through Interpolate2d built from a default "
    "Interpolate2dConfig; interpolate has no size to resize to.",
    solutions=["Set with_output_size or with_scale_factor before init, then interpolate."],
    tags=["interpolate", "config"],
)


INTERP_2D = "interpolate2d-missing-output-size-and-scale"


def test_a_record_about_another_interpolate_panic_binds_to_its_own_rule(write_records) -> None:
    b = bind(write_records, INTERPOLATE_2D)
    assert b.panic_rules == (INTERP_2D,) and b.panic_by == "site"
    assert INTERP not in b.rules


def test_no_interpolate_finding_cites_a_record_about_another_panic(write_records) -> None:
    app = SEEDS.parent / "examples" / "burn-app"
    path = write_records("interp2d.json", INTERPOLATE_2D)
    catalog = load_catalog([path]).catalog  # the seeds plus this record
    assert INTERP not in catalog.binding(INTERPOLATE_2D["id"]).rules
    findings = check_paths([app], catalog=catalog).findings
    cited = {f.rule: f.records for f in findings}
    assert cited[INTERP] == ("22a18ddf8713058a",)
    assert all(INTERPOLATE_2D["id"] not in f.records for f in findings)


def test_every_rule_declares_a_site_in_a_burn_crate() -> None:
    for rule in rules():
        assert rule.panic_sites
        for site in rule.panic_sites:
            assert site.file.startswith("crates/burn-") and site.guard and site.message


def _site_rule(rid: str, guard: str, message: str) -> RuleInfo:
    site = BurnSite("crates/burn-nn/src/loss/widget.rs", guard, message, 30)
    return RuleInfo(
        rid, rid, "", ("WidgetLossConfig",), Severity.ERROR, "none", panic_sites=(site,)
    )


TWO_ASSERTS = (
    "    fn assertions(&self) {\n"
    '        assert!(self.margin >= 0.0, "Margin must be non-negative, got {}", self.margin);\n'
    "        assert!(\n            self.p == 1 || self.p == 2,\n"
    '            "Only p = 1 or p = 2 is supported, got {}",\n            self.p\n        );\n'
    "    }"
)


def test_a_guard_quoted_beside_the_records_own_assert_does_not_bind(write_records) -> None:
    p_rule = _site_rule("widget-p", "self.p == 1 || self.p == 2,", "Only p = 1 or p = 2")
    base = {"filePath": "crates/burn-nn/src/loss/widget.rs", "sourceCode": TWO_ASSERTS}
    catalog = catalog_of(
        write_records,
        record("margin", errorMessage="Margin must be non-negative, got {}", **base),
        record("p-old", errorMessage="p must be 1 or 2", **base),  # not quoted: the guard decides
        record("p", errorMessage="Only p = 1 or p = 2 is supported, got {}", **base),
    )
    bound = {}
    for rid in ("margin", "p-old", "p"):
        found = catalog.get(rid)
        assert found is not None
        bound[rid] = bind_record(found, (p_rule,)).panic_rules
    assert bound == {"margin": (), "p-old": ("widget-p",), "p": ("widget-p",)}


def test_a_shared_check_reason_binds_only_for_the_checks_operation(write_records) -> None:
    def check(op: str) -> str:
        return (
            f"=== Tensor Operation Error ===\n  Operation: '{op}'\n  Reason:\n    1. The axes "
            "must be unique. The axes '{}' are not unique. \n"
        )

    site = BurnSite(
        "crates/burn-tensor/src/tensor/api/base.rs",
        "check!(TensorCheck::permute(fixed_axes));",
        "The axes must be unique.",
        519,
    )
    permute = RuleInfo("p", "p", "", ("Tensor",), Severity.ERROR, "none", panic_sites=(site,))
    base = {"filePath": "crates/burn-tensor/src/tensor/api/base.rs"}
    catalog = catalog_of(
        write_records,
        record("flip", errorMessage=check("flip"), **base),
        record("permute", errorMessage=check("Permute"), **base),
        record("permute-021", errorMessage=check("permute"), **base),
        record("bare", errorMessage="The axes must be unique.", **base),
        record("hole", errorMessage=check("{}"), **base),  # the format string names no op
    )
    bound = {}
    for rid in ("flip", "permute", "permute-021", "bare", "hole"):
        found = catalog.get(rid)
        assert found is not None
        bound[rid] = bind_record(found, (permute,)).panic_rules
    assert bound == {
        "flip": (), "permute": ("p",), "permute-021": ("p",), "bare": ("p",), "hole": ("p",)
    }  # fmt: skip


def test_a_check_named_after_its_operation_with_more_words_binds(write_records) -> None:
    """check.rs names a check after its operation and what it checks: `movedim_args_length`
    prints 'Movedim'; a record of 'Movedim' binds to it without a line or a quote, and one of
    'SliceAssign' does not bind to `TensorCheck::slice`."""
    message = (
        "=== Tensor Operation Error ===\n  Operation: '{op}'\n  Reason:\n    1. The number of "
        "dimensions in source and destination must be equal. Source dimensions: {}, "
        "Destination dimensions: {}.\n"
    )
    movedim = BurnSite(
        "crates/burn-tensor/src/tensor/api/base.rs",
        "check!(TensorCheck::movedim_args_length(",
        "The number of dimensions in source and destination must be equal.",
        571,
    )
    sliced = BurnSite(
        "crates/burn-tensor/src/tensor/api/base.rs",
        "check!(TensorCheck::slice(",
        "The number of dimensions in source and destination must be equal.",
        900,
    )
    rules = (
        RuleInfo("m", "m", "", ("Tensor",), Severity.ERROR, "none", panic_sites=(movedim,)),
        RuleInfo("s", "s", "", ("Tensor",), Severity.ERROR, "none", panic_sites=(sliced,)),
    )
    base = {"filePath": "crates/burn-tensor/src/tensor/api/base.rs", "lineNumber": None}
    catalog = catalog_of(
        write_records,
        record("movedim", errorMessage=message.replace("{op}", "Movedim"), **base),
        record("assign", errorMessage=message.replace("{op}", "SliceAssign"), **base),
    )
    bound = {rid: bind_record(catalog.get(rid), rules).panic_rules for rid in ("movedim", "assign")}
    assert bound == {"movedim": ("m",), "assign": ()}
