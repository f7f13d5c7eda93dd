"""explain: records and rules found from burn's real runtime texts inside a noisy log."""

from __future__ import annotations

import pytest
import regex
from hypothesis import given
from hypothesis import strategies as st
from records_factory import record

from panic_lens.catalog import Catalog, load_catalog
from panic_lens.catalog.literals import ascii_lower, required_factor

FORWARD = (
    "ctc_loss: 2 * max_target_len + 1 = 10001 exceeds the kernel's shared-memory alpha "
    "capacity (8192). Reduce target length or raise SHARED_ALPHA_CAPACITY."
)
BACKWARD = FORWARD.replace("ctc_loss:", "ctc_loss_backward:").replace("10001", "8193")
ASYNC = (
    "not implemented: Not implemented yet. Please load the record on the inner policy before "
    "creating an async policy."
)
INTERP = (
    "interpolate_backward kernel failed (device=Cuda(0), dtype=F32, options=InterpolateOptions "
    "{ mode: Bilinear, align_corners: false }): Unsupported interpolation mode: Bilinear "
    "interpolation backward is not supported by JIT backend"
)
REGISTRY = "/home/dev/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f"


def noisy_log(*panics: tuple[str, str]) -> str:
    """A `cargo test` log with each (location, message) panic between ordinary output."""
    lines = [
        "   Compiling speech v0.1.0 (/home/dev/speech)",
        "    Finished `test` profile [unoptimized + debuginfo] target(s) in 41.07s",
        "     Running unittests src/lib.rs (target/debug/deps/speech-5b1f0c1e8d)",
        "",
        "running 7 tests",
        "test data::tests::pads_to_max_len ... ok",
    ]
    for i, (location, message) in enumerate(panics):
        lines += [
            f"test train::tests::case_{i} ... FAILED",
            f"thread 'train::tests::case_{i}' panicked at {location}:",
            message,
            "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace",
        ]
    lines += ["", "failures:", "test result: FAILED. 3 passed; 4 failed; finished in 2.31s"]
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def seeds() -> Catalog:
    return load_catalog().catalog


def line_of(log: str, text: str) -> int:
    return log.splitlines().index(text) + 1


def test_forward_and_backward_ctc_messages_find_their_records(seeds: Catalog) -> None:
    log = noisy_log(
        (f"{REGISTRY}/burn-cubecl-0.22.0/src/kernel/ctc.rs:307:5", FORWARD),
        (f"{REGISTRY}/burn-cubecl-0.22.0/src/kernel/ctc.rs:610:5", BACKWARD),
    )
    matches = seeds.explain(log)
    assert [(m.record_id, m.line_no) for m in matches] == [
        ("2d90c97bb9ee521c", line_of(log, FORWARD)),
        ("98e8605c71c1dd9c", line_of(log, BACKWARD)),
    ]
    assert matches[0].line == FORWARD and matches[0].span == (0, len(FORWARD))


def test_interpolate_failure_finds_its_record(seeds: Catalog) -> None:
    log = noisy_log(
        (f"{REGISTRY}/burn-cubecl-0.22.0/src/kernel/interpolate/base.rs:147:13", INTERP)
    )
    assert [(m.record_id, m.line) for m in seeds.explain(log)] == [("22a18ddf8713058a", INTERP)]


def test_async_policy_text_matches_no_pattern_but_its_rule_knowledge(seeds: Catalog) -> None:
    location = f"{REGISTRY}/burn-rl-0.22.0/src/policy/async_policy.rs:321:9"
    log = noisy_log((location, ASYNC))
    assert seeds.explain(log) == []
    hits = seeds.explain_rules(log)
    assert {(h.rule, h.line_no) for h in hits} == {
        ("async-policy-load-record", line_of(log, ASYNC)),
        ("async-policy-load-record", line_of(log, ASYNC) - 1),
    }
    assert all(h.record_ids == ("2d90c97bb9ee521c",) for h in hits)


def test_a_location_after_a_long_path_like_run_is_still_found(seeds: Catalog) -> None:
    # Before: `burn-rl[^\s:]*` was retried from every `burn-rl` of the run (quadratic), hit
    # explain_rules' timeout on this line and dropped the location without a word.
    location = f"{REGISTRY}/burn-rl-0.22.0/src/policy/async_policy.rs:321:9"
    line = "burn-rl/" * 20_000 + " thread 'main' panicked at " + location
    [hit] = seeds.explain_rules(f"noise\n{line}\n")
    assert (hit.rule, hit.line_no, hit.location) == ("async-policy-load-record", 2, True)
    assert line[hit.span[0] : hit.span[1]] == location[location.index("burn-rl") :]


def test_rule_texts_of_the_other_panics(seeds: Catalog) -> None:
    log = noisy_log(
        (f"{REGISTRY}/burn-router-0.22.0/src/channel/base.rs:71:22", "not implemented"),
        ("src/main.rs:1:1", INTERP),
        ("src/main.rs:2:1", FORWARD),
    )
    rules = [(h.rule, h.record_ids) for h in seeds.explain_rules(log)]
    assert rules == [
        ("router-unsupported-dtype", ("98e8605c71c1dd9c",)),
        ("interpolate-backward-mode", ("22a18ddf8713058a",)),
        ("ctc-target-capacity", ()),
    ]


def test_nothing_matches_an_ordinary_log(seeds: Catalog) -> None:
    log = noisy_log(("src/lib.rs:3:5", "index out of bounds: the len is 3 but the index is 7"))
    assert seeds.explain(log) == [] and seeds.explain_rules(log) == []


def test_catastrophic_pattern_is_bounded_by_the_timeout(write_records) -> None:
    path = write_records(
        "bad.jsonl",
        [
            record("evil", messagePattern="(a|aa)+$"),
            record("evil-lit", messagePattern="xyz(a|aa)+$"),
            record("fine"),
        ],
    )
    catalog = load_catalog([path], include_default=False).catalog
    text = "\n".join(["a" * 100 + "!", "xyz" + "a" * 100 + "!", "widget 7 exploded"] * 50)
    result = catalog.explain_patterns(text, timeout=0.05)
    # each catastrophic pattern times out once and is then skipped for the rest of the text
    assert sorted(result.timed_out) == ["evil", "evil-lit"]
    assert {m.record_id for m in result.matches} == {"fine"}
    assert len(result.matches) == 50


def test_patterns_without_literals_still_match_every_line(write_records) -> None:
    path = write_records("p.json", record("anchored", messagePattern=r"^\d+ ok$"))
    catalog = load_catalog([path], include_default=False).catalog
    text = "1 ok\nno 2 ok\n33 ok\n33 ok but more\n"
    assert [m.line_no for m in catalog.explain(text)] == [1, 3]


def test_case_insensitive_pattern_passes_the_prefilter(write_records) -> None:
    path = write_records("i.json", record("ci", messagePattern=r"(?i)widget (\d+) EXPLODED"))
    catalog = load_catalog([path], include_default=False).catalog
    [m] = catalog.explain("log line\nWIDGET 7 exploded at noon\n")
    assert (m.line_no, m.span) == (2, (0, 17))


def test_spans_count_code_points_and_crlf_is_trimmed(write_records) -> None:
    path = write_records("u.json", record("u"))
    catalog = load_catalog([path], include_default=False).catalog
    [m] = catalog.explain("🔥 日本 widget 9 exploded\r\n")
    assert m.line == "🔥 日本 widget 9 exploded"
    assert m.span == (5, len(m.line))


@pytest.mark.parametrize(
    ("pattern", "factor"),
    [
        (
            r"ctc_loss: 2 \* max_target_len \+ 1 = (.+?) exceeds",
            {"ctc_loss: 2 * max_target_len + 1 = "},
        ),
        (r"(?i)Hello (\d+) x", {"hello "}),
        (r"foo\d+barbaz", {"barbaz"}),
        (r"(abc|defg)\d", {"abc", "defg"}),
        (r"^a\bbcd$", {"abcd"}),
        (r"(?:abc)?\d", None),
        (r"(ab|cdef)\d", None),
        (r"(a|aa)+$", None),
        (r"(?:foo){e<=1}", None),
        (r"\p{Lu}+ failed", None),
    ],
)
def test_required_literal_fragments(pattern: str, factor: set[str] | None) -> None:
    assert required_factor(pattern) == (None if factor is None else frozenset(factor))


def test_ascii_lower_keeps_offsets() -> None:
    text = "ÉCOLE İstanbul ABC"
    assert len(ascii_lower(text)) == len(text)
    assert ascii_lower(text) == "École İstanbul abc"


# (pattern piece, strategy for a text it matches): every text of the whole pattern must contain
# the chosen literal, whichever path (quick scan or full parse) chose it.
_WORD = st.text("abcXYZ_:=-' ", min_size=1, max_size=14)
_PIECES = st.one_of(
    _WORD.map(lambda w: (regex.escape(w), st.just(w))),
    st.just((r"(.+?)", st.text("0123456789xy{}", min_size=1, max_size=5))),
    st.just((r"\d+", st.text("0123456789", min_size=1, max_size=4))),
    st.just((r"[ab)]", st.sampled_from("ab)"))),
    st.just((r"(?:ab|cde)", st.sampled_from(["ab", "cde"]))),
    st.just((r"q?", st.sampled_from(["", "q"]))),
    st.just((r"r{2,3}", st.sampled_from(["rr", "rrr"]))),
    st.just((r"\b", st.just(""))),
)


@given(st.lists(_PIECES, min_size=1, max_size=8), st.data())
def test_required_literals_occur_in_every_match(pieces, data: st.DataObject) -> None:
    pattern = "".join(p for p, _ in pieces)
    text = "".join(data.draw(sample) for _, sample in pieces)
    if not regex.fullmatch(pattern, text):
        return  # a `\b` between two word characters: not a text of this pattern
    factor = required_factor(pattern)
    if factor is not None:
        assert any(lit in ascii_lower(text) for lit in factor), (pattern, text, factor)


# -- patterns that span lines (burn's tensor checks) -------------------------------------------

TENSOR_CHECK = (
    "=== Tensor Operation Error ===\n"
    "  Operation: 'Cat'\n"
    "  Reason:\n"
    "    1. Can't concatenate tensors with different shapes, except for the provided dimension"
    " provided dimension (1), Tensor (0) has shape [2, 3], Tensor (1) has shape [3, 3]. \n"
)


def catalog_of(write_records, rid: str, pattern: str) -> Catalog:
    path = write_records(f"{rid}.json", record(rid, messagePattern=pattern))
    return load_catalog([path], include_default=False).catalog


def test_a_pattern_that_spans_lines_matches_where_it_starts(write_records) -> None:
    """The literal explain filters on is on the reason's line, the match starts three lines
    before it: the record is found, on the line where burn's message starts."""
    pattern = (
        r"=== Tensor Operation Error ===\n  Operation: 'Cat'\n  Reason:\n    1\. Can't"
        r" concatenate tensors with different shapes, except for the provided dimension"
        r" provided dimension \((.+?)\), Tensor \((.+?)\) has shape (.+?)\."
    )
    catalog = catalog_of(write_records, "cat", pattern)
    log = noisy_log(("src/model.rs:12:9", TENSOR_CHECK.rstrip("\n")))
    [match] = catalog.explain(log)
    assert match.line == "=== Tensor Operation Error ==="
    assert log.splitlines()[match.line_no - 1] == match.line and match.span == (0, 30)


def test_a_repeated_line_group_and_two_panics_in_one_log(write_records) -> None:
    """`(?:\\n    .*)*?` skips any earlier reasons; each panic of the log is found once."""
    pattern = (
        r"=== Tensor Operation Error ===\n  Operation: '(.+?)'\n  Reason:(?:\n    .*)*?\n"
        r"    (.+?)\. The provided tensors have incompatible shapes\."
    )
    catalog = catalog_of(write_records, "binop", pattern)
    reason = "The provided tensors have incompatible shapes. Lhs [2], Rhs [3]."
    message = (
        "=== Tensor Operation Error ===\n  Operation: 'Add'\n  Reason:\n"
        f"    1. Some other reason.\n    2. {reason}"
    )
    log = noisy_log(("src/a.rs:1:1", message), ("src/b.rs:2:2", message.replace("Add", "Sub")))
    found = catalog.explain(log)
    assert [m.line for m in found] == ["=== Tensor Operation Error ==="] * 2
    assert found[0].line_no < found[1].line_no


def test_lines_too_far_apart_do_not_make_a_match(write_records) -> None:
    catalog = catalog_of(write_records, "two", r"first line\nsecond line")
    assert [m.line_no for m in catalog.explain("x\nfirst line\nsecond line\n")] == [2]
    assert catalog.explain("first line\nsomething between\nsecond line\n") == []


def test_the_corpus_records_that_span_lines_explain_their_own_message() -> None:
    """Every corpus record whose pattern spans lines finds burn's text written from its
    errorMessage (holes filled), as a panic prints it."""
    from pathlib import Path

    corpus = Path(__file__).resolve().parents[2] / "corpus" / "panics"
    catalog = load_catalog([corpus], include_default=False).catalog
    spanning = [r for r in catalog.records if "\\n" in r.panic.message_pattern]
    assert len(spanning) >= 10
    for r in spanning:
        text = r.panic.error_message.replace("{}", "7").replace("{:?}", "[7]")
        if "\\n  left: " in r.panic.message_pattern:  # assert_eq! prints both sides after
            text += "\n  left: 7\n right: 8"
        log = noisy_log(("src/x.rs:1:1", text.rstrip("\n")))
        assert r.id in {m.record_id for m in catalog.explain(log)}, r.id
