"""Binding each record half to rules, and the advisories shown next to known-wrong advice."""

from __future__ import annotations

from records_factory import record

from panic_lens.catalog import Binding, load_catalog
from panic_lens.catalog.binding import api_weight, snake_case

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
    # every record the project wrote is about one rule's panic, both halves
    written = [r for r in catalog.records if r.written_by == "panic-lens"]
    assert written and all(statuses[r.id] == "bound" for r in written)


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


def test_equally_strong_rules_both_bind_in_registry_order(write_records) -> None:
    binding = bind(
        write_records, documentation="Both InterpolateOptions and CTCLossConfig are involved."
    )
    assert binding.knowledge_rules == (CTC, INTERP)


def test_the_stronger_rule_comes_first(write_records) -> None:
    binding = bind(
        write_records,
        documentation="AsyncPolicy wraps a policy; RouterChannel moves it.",
        triggerScenarios="AsyncPolicy::load_record",
    )
    assert binding.knowledge_rules == (ASYNC, ROUTER)


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
