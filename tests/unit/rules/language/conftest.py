"""A small burn config table for the rule-language tests (the shipped one is built from
burn's source; these tests must not depend on its details)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from panic_lens.rules import meta
from panic_lens.rules.language import configs, plan
from panic_lens.rules.language.spec import read_rule_file

TABLE = {
    "burn": "0.22.0-pre.2",
    "configs": {
        "burn::nn::conv::Conv2dConfig": {
            "paths": ["burn::nn::conv::Conv2dConfig", "burn::nn::Conv2dConfig"],
            "init": "burn::nn::conv::Conv2d",
            "fields": [
                {"name": "channels", "type": "[usize; 2]"},
                {"name": "kernel_size", "type": "[usize; 2]"},
                {"name": "stride", "type": "[usize; 2]", "default": "[1, 1]"},
                {"name": "groups", "type": "usize", "default": "1"},
                {"name": "padding", "type": "PaddingConfig2d", "default": "PaddingConfig2d::Valid"},
                {"name": "bias", "type": "bool", "default": "true"},
            ],
        },
        "burn::nn::DropoutConfig": {
            "paths": ["burn::nn::DropoutConfig"],
            "init": "burn::nn::Dropout",
            "fields": [{"name": "prob", "type": "f64"}],
        },
        "burn::nn::loss::CrossEntropyLossConfig": {
            "paths": ["burn::nn::loss::CrossEntropyLossConfig"],
            "init": "burn::nn::loss::CrossEntropyLoss",
            "fields": [
                {"name": "pad_tokens", "type": "Option<Vec<usize>>", "option": True},
                {"name": "smoothing", "type": "Option<f32>", "option": True},
                {"name": "logits", "type": "bool", "default": "true"},
            ],
        },
    },
}


@pytest.fixture
def table(monkeypatch: pytest.MonkeyPatch) -> Iterator[configs.ConfigTable]:
    """The small table in place of the shipped one. The rules' plans read the table (which
    paths a config's `where` binds) and are kept per rule: the shipped rules' plans made with
    this table must not outlive the test (nor earlier ones be used in it), or a later test
    sees a shipped rule that binds none of the shipped configs this table lacks."""
    loaded = configs.table_from_data(TABLE, "test table")
    monkeypatch.setattr(configs, "table", lambda: loaded)
    _forget_plans()
    yield loaded
    _forget_plans()


def _forget_plans() -> None:
    plan._PLANS.clear()
    meta._generation[0] += 1  # the tables computed from the rules' plans (`per_rule_set`)


@pytest.fixture
def add_rule(tmp_path: Path, table: configs.ConfigTable) -> Iterator[object]:
    """add_rule(toml_text) registers the rule for the test and returns its RuleInfo."""
    added: list[str] = []

    def add(text: str) -> meta.RuleInfo:
        path = tmp_path / f"rule{len(added)}.toml"
        path.write_text(text, encoding="utf-8")
        info = meta.info_from_spec(read_rule_file(path))
        meta.add_rule(info)
        added.append(info.id)
        return info

    yield add
    for rule_id in added:
        meta.remove_rule(rule_id)
