"""Binding each record half to rules, and the advisories shown next to known-wrong advice."""

from __future__ import annotations

import json
from pathlib import Path

from records_factory import record

from panic_lens.catalog import Binding, load_catalog
from panic_lens.catalog.binding import api_weight, snake_case
from panic_lens.catalog.derive import Covered, Derived, register_derived
from panic_lens.rules.meta import derived_rules, set_derived_rules

CORPUS = Path(__file__).resolve().parents[2] / "corpus" / "panics"

CTC, ASYNC, ROUTER, INTERP = (
    "ctc-target-capacity",
    "async-policy-load-record",
    "router-unsupported-dtype",
    "interpolate-backward-mode",
)


def bind(write_records, **fields: object) -> Binding:
    path = write_records("r.json", record("r", **fields))
    result = load_catalog([path], include_default=False)
    assert result.errors == ()
    return result.catalog.binding("r")


def test_seed_records_bind_each_half_separately() -> None:
    catalog = load_catalog().catalog
    assert catalog.binding("2d90c97bb9ee521c") == Binding((CTC,), (ASYNC,), "site", "words")
    assert catalog.binding("98e8605c71c1dd9c") == Binding((CTC,), (ROUTER,), "site", "words")
    assert catalog.binding("22a18ddf8713058a") == Binding((INTERP,), (INTERP,), "site", "site")
    statuses = {r.id: catalog.binding(r.id).status for r in catalog.records}
    assert [statuses[i] for i in ("2d90c97bb9ee521c", "98e8605c71c1dd9c", "22a18ddf8713058a")] == [
        "split", "split", "bound"
    ]  # fmt: skip


def test_every_project_record_binds_both_halves_to_the_rule_of_its_panic() -> None:
    """Each record the project wrote is about one panic: both halves bind by site to the
    hand-written rule of that panic, or to the rule derived from the record, or to nothing
    when neither exists (a record the deriver cannot turn into a check yet)."""
    loaded = load_catalog()
    before = derived_rules()
    outcomes = register_derived(loaded.catalog.records, loaded.files_print)
    try:
        written = [r for r in loaded.catalog.records if r.written_by == "panic-lens"]
        assert len(written) >= 60
        for r in written:
            binding, outcome = loaded.catalog.binding(r.id), outcomes[r.id]
            if isinstance(outcome, Covered):
                expected = outcome.rules
            elif isinstance(outcome, Derived):
                expected = (outcome.spec.id,)
            else:
                expected = ()
            by = "site" if expected else ""
            assert binding == Binding(expected, expected, by, by), (r.id, outcome)
    finally:
        set_derived_rules(before)


def test_rule_lookups_distinguish_the_halves() -> None:
    catalog = load_catalog().catalog
    assert catalog.record_ids_for_rule(CTC) == ("2d90c97bb9ee521c", "98e8605c71c1dd9c")
    assert catalog.panic_record_ids(CTC) == ("2d90c97bb9ee521c", "98e8605c71c1dd9c")
    assert catalog.knowledge_record_ids(CTC) == ()
    assert catalog.knowledge_record_ids(ASYNC) == ("2d90c97bb9ee521c",)
    assert catalog.record_ids_for_rule(ROUTER) == ("98e8605c71c1dd9c",)
    assert catalog.binding("no-such-id") == Binding()


def test_record_about_nothing_known_is_unbound(write_records) -> None:
    binding = bind(write_records, documentation="Widgets explode when overheated.")
    assert binding == Binding() and binding.status == "unbound"


def test_names_inside_longer_identifiers_or_words_do_not_count(write_records) -> None:
    binding = bind(
        write_records,
        errorMessage="cubek_interpolate_backward failed in my_ctc_loss_v2",
        documentation="interpolation of ctc_losses and AsyncPolicyish things",
    )
    assert binding == Binding()


def test_snake_case_file_path_binds_the_camel_case_api(write_records) -> None:
    # the panic half names no burn file, so only the knowledge half can bind (by words)
    binding = bind(
        write_records,
        filePath=None,
        documentation="See crates/burn-rl/src/policy/async_policy.rs: its load_record panics.",
    )
    assert binding.panic_rules == ()
    assert binding.knowledge_rules == (ASYNC,) and binding.knowledge_by == "words"
    assert binding.status == "partial"


def test_a_passing_mention_of_another_rule_does_not_bind(write_records) -> None:
    binding = bind(
        write_records,
        documentation="RouterChannel::change_client_backend panics on unsigned ints.",
        triggerScenarios="Moving a U32 tensor with change_client_backend between devices.",
        solutions=["Cast to I64 before change_client_backend.", "Unlike ctc_loss, no limit."],
    )
    assert binding.knowledge_rules == (ROUTER,)


def test_equally_strong_rules_tie_and_a_tie_binds_nothing(write_records) -> None:
    binding = bind(write_records, documentation="Both AsyncPolicy and RouterChannel are involved.")
    assert binding == Binding()


def test_only_the_strongest_rule_binds(write_records) -> None:
    binding = bind(
        write_records,
        documentation="AsyncPolicy wraps a policy; RouterChannel moves it.",
        triggerScenarios="AsyncPolicy::load_record",
    )
    assert binding.knowledge_rules == (ASYNC,) and binding.knowledge_by == "words"


def test_a_panic_half_is_never_bound_by_words(write_records) -> None:
    binding = bind(
        write_records,
        errorMessage="ctc_loss failed: CTCLoss with ctc_loss_backward and max_target_len",
        sourceCode="let x = ctc_loss(a, b, c, d, 0);\nlet y = ctc_alpha_beta(a, b);",
    )
    assert binding.panic_rules == () and binding.panic_by == ""


def test_name_helpers() -> None:
    assert snake_case("AsyncPolicy") == "async_policy"
    assert snake_case("CTCLossConfig") == "ctc_loss_config"
    assert snake_case("ctc_loss") == "ctc_loss"
    assert api_weight("interpolate") == 0.5
    assert api_weight("InterpolateMode") == api_weight("ctc_loss") == 1.0


def test_seed_advisories_sit_on_the_wrong_fields() -> None:
    catalog = load_catalog().catalog
    fields = {
        rid: {a.field for a in catalog.advisories(rid)} for rid in (r.id for r in catalog.records)
    }
    assert {"exampleFix", "validationCode", "solutions"} <= fields["2d90c97bb9ee521c"]
    assert {"exampleFix", "validationCode", "triggerScenarios"} <= fields["98e8605c71c1dd9c"]
    assert {"exampleFix", "solutions"} <= fields["22a18ddf8713058a"]
    assert catalog.never_apply("22a18ddf8713058a", "exampleFix")
    assert not catalog.never_apply("22a18ddf8713058a", "documentation")
    notes = " ".join(a.note for a in catalog.advisories("98e8605c71c1dd9c"))
    assert "U32 and U64 are not migratable" in notes


def test_advisory_does_not_follow_a_corrected_record(write_records) -> None:
    path = write_records(
        "fixed.json",
        record("22a18ddf8713058a", exampleFix="use InterpolateMode::Nearest when training"),
    )
    catalog = load_catalog([path], include_default=False).catalog
    assert catalog.advisories("22a18ddf8713058a") == ()
    assert catalog.advisories("unknown") == ()


# -- knowledge halves name a rule's call precisely, or bind nowhere --------------------------

RESHAPE = "reshape-incompatible-shape"
RESHAPE_PANIC = {
    "errorMessage": "=== Tensor Operation Error ===\n  Operation: 'Reshape'\n  Reason:\n    1. "
    "The given shape doesn't have the same number of elements as the current shape. {} \n",
    "filePath": "crates/burn-tensor/src/tensor/api/check.rs",
    "lineNumber": 1497,
}
DEVICE_KNOWLEDGE = {
    "documentation": "Tensor::to_device moves a Tensor to another Device; a tensor created on "
    "one device and used with a Tensor on another must be moved with to_device first.",
    "triggerScenarios": "Calling Tensor::to_device with a Device of a backend that is not built.",
    "solutions": ["Create every Tensor on the same Device.", "Use tensor.to_device(&device)."],
}


def test_a_tensor_op_panic_half_does_not_take_knowledge_about_a_device_method(
    write_records,
) -> None:
    binding = bind(write_records, **RESHAPE_PANIC, **DEVICE_KNOWLEDGE)
    assert binding.panic_rules == (RESHAPE,) and binding.panic_by == "site"
    assert binding.knowledge_rules == ()  # names `Tensor`, never `reshape`
    about_reshape = dict(DEVICE_KNOWLEDGE, solutions=["Check numel before Tensor::reshape."])
    assert bind(write_records, **RESHAPE_PANIC, **about_reshape) == Binding(
        (RESHAPE,), (RESHAPE,), "site", "site"
    )


def test_words_bind_a_tensor_rule_only_by_its_method(write_records) -> None:
    assert bind(write_records, **DEVICE_KNOWLEDGE).knowledge_rules == ()
    precise = bind(
        write_records,
        documentation="Tensor::reshape panics when the new shape has another number of "
        "elements; reshape with -1 infers one dimension.",
    )
    assert precise.knowledge_rules == (RESHAPE,) and precise.knowledge_by == "words"
    method_only = bind(write_records, documentation="Call reshape on the array, not squeeze.")
    assert method_only.knowledge_rules == ()  # a method without its type names nothing


def _corpus(slug: str) -> dict[str, object]:
    data: dict[str, object] = json.loads((CORPUS / slug / "record.json").read_text())["record"]
    return data


def _fields(slug: str) -> dict[str, object]:
    """A corpus record's fields for `bind` (which gives the record its own id)."""
    return {k: v for k, v in _corpus(slug).items() if k != "id"}


KAIMING = "initializer-kaiming-without-fan"


def test_an_initializer_record_binds_no_config_rule(write_records) -> None:
    """The Kaiming initializer record's advice names LinearConfig, EmbeddingConfig, Conv
    configs and `init`: none of those rules' panics is its panic; the hand-written rule for
    its own panic site is."""
    rec = _corpus("initializer-kaiming-without-fan")
    path = write_records("kaiming.json", rec)
    loaded = load_catalog([path], include_default=False)
    before = derived_rules()
    outcomes = register_derived(loaded.catalog.records, loaded.files_print)
    try:
        binding = loaded.catalog.binding(str(rec["id"]))
        derived = outcomes[str(rec["id"])]
        own = (derived.spec.id,) if isinstance(derived, Derived) else (KAIMING,)
        assert binding.rules == own
        # with its knowledge moved onto an unrelated site, it names no config rule (its
        # knowledge is still about the Kaiming rule's panic)
        moved = dict(_fields("initializer-kaiming-without-fan"), filePath="crates/widgets/x.rs")
        assert set(bind(write_records, **moved).knowledge_rules) <= {KAIMING}
    finally:
        set_derived_rules(before)


def test_initializer_advice_naming_configs_binds_no_config_rule(write_records) -> None:
    advice = bind(
        write_records,
        documentation="Initializer::KaimingUniform needs a fan: Conv2dConfig::init and "
        "LinearConfig::init pass it through init_with, a bare Initializer::init does not.",
        triggerScenarios="Conv2dConfig::new([3, 16], [3, 3]).with_initializer(Initializer::"
        "KaimingNormal { gain: 1.0, fan_out_only: false }).init(&device) works; "
        "Initializer::KaimingNormal { .. }.init([16, 3], &device) panics.",
        exampleFix="let conv = Conv2dConfig::new([3, 16], [3, 3])\n"
        "    .with_initializer(Initializer::KaimingUniform { gain: 1.0, fan_out_only: false })\n"
        "    .init(&device);",
    )
    assert advice.knowledge_rules == (KAIMING,)  # the Kaiming rule's, no config rule's


def test_a_record_quoting_two_asserts_binds_to_the_one_it_is_about(write_records) -> None:
    """The multi-margin margin record quotes `assertions()`, whose second assert is the
    `p` rule's guard; its message is the first assert's: it is not the `p` rule's record."""
    binding = bind(write_records, **_fields("multi-margin-margin-negative"))
    assert "multi-margin-p-unsupported" not in binding.rules  # its own derived rule, if any
    p_binding = bind(write_records, **_fields("multi-margin-p-unsupported"))
    p_rule = ("multi-margin-p-unsupported",)
    assert p_binding == Binding(p_rule, p_rule, "site", "site")


def test_a_shared_check_text_of_another_operation_does_not_bind() -> None:
    """`The axes must be unique.` is the reason of both `permute`'s and `flip`'s checks."""
    catalog = load_catalog([CORPUS / "flip-duplicate-axes"], include_default=False).catalog
    flip = str(_corpus("flip-duplicate-axes")["id"])
    assert "permute-duplicate-axes" not in catalog.binding(flip).rules
    catalog = load_catalog([CORPUS / "permute-duplicate-axes"], include_default=False).catalog
    permute = str(_corpus("permute-duplicate-axes")["id"])
    assert catalog.binding(permute).panic_rules == ("permute-duplicate-axes",)


def test_a_guard_and_its_own_older_message_still_bind(write_records) -> None:
    """A quote whose guard and message are one assert binds by the guard, though the message
    (v0.21's wording) is not the site's."""
    binding = bind(
        write_records,
        errorMessage="max_timescale must be greater than length",
        messagePattern="max_timescale must be greater than length",
        filePath="crates/burn-nn/src/modules/pos_encoding.rs",
        sourceCode='    assert!(d_model % 2 == 0, "d_model must be even");\n    assert!(\n'
        "        max_timescale >= length,\n"
        '        "max_timescale must be greater than length"\n    );',
    )
    assert binding.panic_rules == ("positional-encoding-timescale-below-length",)
