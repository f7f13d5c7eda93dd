"""burn_index: burn's configs (fields, defaults, public paths, init types) read from source."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from burn_tree import BURN, write_burn_tree

from panic_lens.rust import burn_index
from panic_lens.rust.burn_index import (
    BurnIndexError,
    build_index,
    dumps,
    load_index,
    resolved_names,
)
from panic_lens.rust.facts import FileFacts

SHIPPED = (
    Path(burn_index.__file__).resolve().parents[1] / "rules" / "data" / "burn-0.22.0-pre.2.json"
)


def resolver_path(use: str, call: str) -> str | None:
    """The path panic-lens's resolver gives the call `call(..)` of a file that writes `use`."""
    src = f"use {use};\nfn f() {{ {call}(); }}\n".encode()
    facts = FileFacts.build(src)
    name = call.rsplit("::", 1)[-1]
    (site,) = [s for s in facts.calls() if s.name == name]
    return site.path


# -- a small burn-like tree ----------------------------------------------------------------


@pytest.fixture
def tree_index(tmp_path: Path) -> dict[str, Any]:
    return build_index(write_burn_tree(tmp_path))


def test_configs_fields_in_order_with_defaults_as_written(tree_index) -> None:
    assert tree_index["format"] == 1
    assert tree_index["burn"] == "9.1.0"
    conv = tree_index["configs"]["burn::nn::conv::Conv2dConfig"]
    assert conv["file"] == "crates/burn-nn/src/modules/conv/conv2d.rs"
    assert conv["line"] == 10  # the line of `pub struct Conv2dConfig`
    assert conv["fields"] == [
        {"name": "channels", "type": "[usize; 2]"},
        {"name": "kernel_size", "type": "[usize; 2]"},  # whitespace runs read as one space
        {"name": "stride", "type": "[usize; 2]", "default": "[1, 1]"},
        {"name": "groups", "type": "usize", "default": "1"},
        {"name": "padding", "type": "PaddingConfig2d", "default": "PaddingConfig2d::Valid"},
        {"name": "mask_value", "type": "f32", "default": "-1.0e4"},
        {"name": "label", "type": "String", "default": '"quoted"'},
        {"name": "output_size", "type": "Option<[usize; 2]>", "option": True},
        {
            "name": "dropout",
            "type": "core::option::Option<f64>",
            "default": "None",
            "option": True,
        },
    ]
    assert tree_index["configs"]["burn::nn::DropoutConfig"]["fields"] == [
        {"name": "prob", "type": "f64"}
    ]


def test_only_configs_a_user_can_name_are_indexed(tree_index) -> None:
    # HiddenConfig: pub in a private module nobody re-exports; ChecksConfig: pub(crate)
    # module; TestUtilsConfig, InTestsConfig: `#[cfg(test)]` modules; TestOnlyConfig: a
    # `tests` folder; PaddingConfig2d: an enum
    assert sorted(tree_index["configs"]) == [
        "burn::nn::DropoutConfig",
        "burn::nn::conv::Conv2dConfig",
    ]


def test_paths_follow_pub_mod_and_pub_use_from_every_crate_root(tree_index) -> None:
    configs = tree_index["configs"]
    assert configs["burn::nn::conv::Conv2dConfig"]["paths"] == [
        "burn_nn::conv::Conv2dConfig",  # shortest first
        "burn::nn::conv::Conv2dConfig",
        "burn_nn::modules::conv::Conv2dConfig",
        "burn::nn::modules::conv::Conv2dConfig",
    ]
    assert configs["burn::nn::DropoutConfig"]["paths"] == [
        "burn_nn::DropoutConfig",
        "burn::nn::DropoutConfig",
        "burn_nn::extra::Dropout2Config",  # `pub use .. as`
        "burn_nn::modules::DropoutConfig",
        "burn::nn::extra::Dropout2Config",
        "burn::nn::modules::DropoutConfig",
    ]


def test_the_key_is_what_the_resolver_gives_user_code(tree_index) -> None:
    assert resolver_path("burn::nn::conv::Conv2dConfig", "Conv2dConfig::new") == (
        "burn::nn::conv::Conv2dConfig::new"
    )
    for key, entry in tree_index["configs"].items():
        shortest = next(p for p in entry["paths"] if p.startswith("burn::"))
        name = shortest.rsplit("::", 1)[-1]
        assert resolver_path(shortest, f"{name}::new") == f"{key}::new"


def test_init_types_and_the_modules_they_make(tree_index) -> None:
    conv = tree_index["configs"]["burn::nn::conv::Conv2dConfig"]
    assert conv["init"] == "burn::nn::conv::Conv2d"
    # other pub methods returning a Module struct; not `describe` (String), not private ones
    assert conv["inits"] == {
        "init": "burn::nn::conv::Conv2d",
        "init_other": "burn::nn::conv::Conv2d",
    }
    dropout = tree_index["configs"]["burn::nn::DropoutConfig"]
    assert dropout["init"] == "burn::nn::Dropout"
    # Dropout here does not derive Module: no reverse entry
    assert tree_index["modules"] == {"burn::nn::conv::Conv2d": "burn::nn::conv::Conv2dConfig"}


def test_resolved_names_map_every_path_to_the_key(tree_index) -> None:
    names = resolved_names(tree_index)
    assert names["burn::nn::extra::Dropout2Config"] == "burn::nn::DropoutConfig"
    assert names["burn::nn::DropoutConfig"] == "burn::nn::DropoutConfig"
    assert names["burn::nn::conv::Conv2dConfig"] == "burn::nn::conv::Conv2dConfig"
    assert resolver_path("burn_nn::extra::Dropout2Config", "Dropout2Config::new") == (
        "burn::nn::extra::Dropout2Config::new"
    )


def test_an_init_returning_no_struct_of_burn_has_no_init(tmp_path: Path) -> None:
    dropout = (
        "#[derive(Config, Debug)]\npub struct DropoutConfig {\n    pub prob: f64,\n}\n"
        "impl DropoutConfig {\n    pub fn init(&self) -> Result<u8, String> { todo!() }\n}\n"
    )
    index = build_index(
        write_burn_tree(tmp_path, {"crates/burn-nn/src/modules/dropout.rs": dropout})
    )
    entry = index["configs"]["burn::nn::DropoutConfig"]
    assert "init" not in entry
    assert "inits" not in entry


def test_glob_cycles_end_and_restricted_names_stay_in_their_crate(tmp_path: Path) -> None:
    config = "#[derive(Config, Debug)]\npub{} struct {}Config {{\n    pub x: u8,\n}}\n"
    files = {
        "crates/burn-nn/src/lib.rs": "pub mod a;\npub mod b;\npub use a::*;\n",
        # a and b name each other and glob each other
        "crates/burn-nn/src/a.rs": "pub use crate::b;\npub use crate::b::*;\n"
        + config.format("", "A")
        + config.format("(crate)", "CrateOnly"),
        "crates/burn-nn/src/b.rs": "pub use crate::a;\npub use crate::a::*;\n",
        "crates/burn-rl/Cargo.toml": '[package]\nname = "burn-rl"\n',
        "crates/burn-rl/src/lib.rs": "pub use burn_nn::*;\n",
    }
    index = build_index(write_burn_tree(tmp_path, files))
    assert sorted(index["configs"]) == ["burn::nn::AConfig"]  # not CrateOnlyConfig
    paths = index["configs"]["burn::nn::AConfig"]["paths"]
    assert paths[:4] == [
        "burn_nn::AConfig",
        "burn_rl::AConfig",
        "burn::nn::AConfig",
        "burn_nn::a::AConfig",
    ]
    assert {"burn_nn::b::AConfig", "burn_nn::a::b::AConfig", "burn_rl::b::a::AConfig"} <= set(paths)
    # a module appears once in a path
    assert not {"burn_nn::a::b::a::AConfig", "burn_nn::a::a::AConfig"} & set(paths)


def test_the_shortest_burn_path_decides_the_key(tmp_path: Path) -> None:
    # `use burn_nn;` binds the crate (not itself); `super::` leaves the inline module
    facade = (
        "pub use burn_core::*;\nuse burn_nn;\n"
        "pub mod nn {\n    pub use burn_nn::*;\n}\n"
        "pub mod short {\n    pub use super::burn_nn::conv::*;\n}\n"
    )
    index = build_index(write_burn_tree(tmp_path, {"crates/burn/src/lib.rs": facade}))
    conv = index["configs"]["burn::short::Conv2dConfig"]
    assert conv["paths"][:3] == [
        "burn::short::Conv2dConfig",
        "burn_nn::conv::Conv2dConfig",
        "burn::nn::conv::Conv2dConfig",
    ]
    assert resolver_path("burn::short::Conv2dConfig", "Conv2dConfig::new") == (
        "burn::short::Conv2dConfig::new"
    )


def test_test_crates_and_proc_macro_crates_are_not_read(tmp_path: Path) -> None:
    config = "#[derive(Config, Debug)]\npub struct TestConfig {\n    pub x: u8,\n}\n"
    files = {
        "crates/burn-no-std-tests/Cargo.toml": '[package]\nname = "burn-no-std-tests"\n',
        "crates/burn-no-std-tests/src/lib.rs": config,
        "crates/burn-derive/Cargo.toml": (
            '[package]\nname = "burn-derive"\n[lib]\nproc-macro = true\n'
        ),
        "crates/burn-derive/src/lib.rs": config,
    }
    index = build_index(write_burn_tree(tmp_path, files))
    assert not any(key.endswith("TestConfig") for key in index["configs"])


def test_the_output_is_deterministic_compact_json(tmp_path: Path) -> None:
    root = write_burn_tree(tmp_path)
    text = dumps(build_index(root))
    assert text == dumps(build_index(root))
    data = json.loads(text)
    assert text == json.dumps(data, sort_keys=True, separators=(",", ":")) + "\n"
    assert list(data) == ["burn", "configs", "format", "modules"]


def test_a_folder_that_is_no_burn_checkout_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(BurnIndexError, match="no crates/ folder"):
        build_index(tmp_path)
    write_burn_tree(tmp_path, {"Cargo.toml": "[workspace]\n"})
    with pytest.raises(BurnIndexError, match=r"Cargo\.toml: workspace\.package\.version"):
        build_index(tmp_path)


# -- load_index ------------------------------------------------------------------------------


def test_load_index_reads_what_build_index_writes(tmp_path: Path, tree_index) -> None:
    path = tmp_path / "index.json"
    path.write_text(dumps(tree_index), encoding="utf-8")
    assert load_index(path) == tree_index


def _broken(index: dict[str, Any], where: str, value: Any) -> dict[str, Any]:
    data = json.loads(json.dumps(index))
    keys = where.split("/")
    target = data
    for key in keys[:-1]:
        target = target[int(key)] if isinstance(target, list) else target[key]
    if value is KeyError:
        del target[keys[-1]]
    else:
        target[keys[-1]] = value
    return data


@pytest.mark.parametrize(
    ("where", "value", "message"),
    [
        ("format", 2, "format: expected 1, found 2"),
        ("burn", KeyError, "burn: expected a non-empty string"),
        ("configs", [], "configs: expected an object"),
        (
            "configs/burn::nn::DropoutConfig/fields/0/name",
            KeyError,
            r"configs\.burn::nn::DropoutConfig\.fields\[0\]\.name: expected a non-empty string",
        ),
        (
            "configs/burn::nn::DropoutConfig/fields/0/option",
            False,
            r"configs\.burn::nn::DropoutConfig\.fields\[0\]\.option: expected true",
        ),
        (
            "configs/burn::nn::DropoutConfig/paths",
            [],
            r"configs\.burn::nn::DropoutConfig\.paths: expected a non-empty list",
        ),
        (
            "configs/burn::nn::DropoutConfig/line",
            "5",
            r"configs\.burn::nn::DropoutConfig\.line: expected a line number",
        ),
        (
            "modules/burn::nn::conv::Conv2d",
            "burn::nn::Nothing",
            r"modules\.burn::nn::conv::Conv2d: burn::nn::Nothing is not a config",
        ),
    ],
)
def test_load_index_names_the_file_and_the_key(
    tmp_path: Path, tree_index, where: str, value: Any, message: str
) -> None:
    path = tmp_path / "index.json"
    path.write_text(json.dumps(_broken(tree_index, where, value)), encoding="utf-8")
    with pytest.raises(BurnIndexError, match=f"^{path}: {message}"):
        load_index(path)


def test_load_index_of_a_file_that_is_not_json(tmp_path: Path) -> None:
    path = tmp_path / "index.json"
    path.write_text("{", encoding="utf-8")
    with pytest.raises(BurnIndexError, match=f"^{path}: not JSON"):
        load_index(path)
    with pytest.raises(BurnIndexError, match="cannot read"):
        load_index(tmp_path / "missing.json")


# -- the real burn ---------------------------------------------------------------------------

needs_burn = pytest.mark.skipif(
    not (BURN / "crates" / "burn-nn").is_dir(), reason="no burn checkout (set BURN_CHECKOUT)"
)


@pytest.fixture(scope="module")
def burn() -> dict[str, Any]:
    return build_index(BURN)


def names(entry: dict[str, Any]) -> list[str]:
    return [f["name"] for f in entry["fields"]]


@needs_burn
def test_the_shipped_index_is_a_fresh_build_of_its_burn(burn) -> None:
    assert SHIPPED.name == f"burn-{burn['burn']}.json"
    assert SHIPPED.read_text(encoding="utf-8") == dumps(burn)
    assert load_index(SHIPPED) == burn


@needs_burn
def test_burn_conv2d_config(burn) -> None:
    conv = burn["configs"]["burn::nn::conv::Conv2dConfig"]
    assert conv["file"] == "crates/burn-nn/src/modules/conv/conv2d.rs"
    assert names(conv) == [
        "channels", "kernel_size", "stride", "dilation", "groups", "padding", "bias",
        "initializer",
    ]  # fmt: skip
    fields = {f["name"]: f for f in conv["fields"]}
    assert fields["channels"] == {"name": "channels", "type": "[usize; 2]"}
    assert fields["stride"]["default"] == "[1, 1]"
    assert fields["groups"] == {"name": "groups", "type": "usize", "default": "1"}
    assert fields["padding"]["default"] == "PaddingConfig2d::Valid"
    assert fields["bias"] == {"name": "bias", "type": "bool", "default": "true"}  # `default = true`
    assert fields["initializer"]["default"].startswith("Initializer::KaimingUniform{")
    assert conv["init"] == "burn::nn::conv::Conv2d"
    assert "burn_nn::modules::conv::Conv2dConfig" in conv["paths"]
    assert burn["modules"]["burn::nn::conv::Conv2d"] == "burn::nn::conv::Conv2dConfig"


@needs_burn
def test_burn_group_norm_dropout_cross_entropy(burn) -> None:
    configs = burn["configs"]
    group = configs["burn::nn::GroupNormConfig"]
    assert names(group) == ["num_groups", "num_channels", "epsilon", "affine"]
    assert {"burn::nn::GroupNormConfig", "burn::nn::norm::GroupNormConfig"} <= set(group["paths"])
    assert group["init"] == "burn::nn::GroupNorm"
    assert configs["burn::nn::DropoutConfig"]["fields"] == [{"name": "prob", "type": "f64"}]
    loss = configs["burn::nn::loss::CrossEntropyLossConfig"]
    options = [f["name"] for f in loss["fields"] if f.get("option")]
    assert options == ["pad_tokens", "weights", "smoothing"]
    assert {"name": "logits", "type": "bool", "default": "true"} in loss["fields"]
    rope = configs["burn::nn::RotaryEncodingConfig"]
    assert rope["inits"]["init_with_frequency_scaling"] == "burn::nn::RotaryEncoding"


@needs_burn
def test_every_burn_key_is_what_the_resolver_gives_its_shortest_path(burn) -> None:
    for key, entry in burn["configs"].items():
        shortest = next(p for p in entry["paths"] if p.startswith("burn::"))
        name = shortest.rsplit("::", 1)[-1]
        assert resolver_path(shortest, f"{name}::new") == f"{key}::new", key
    names = resolved_names(burn)
    assert names["burn::nn::norm::GroupNormConfig"] == "burn::nn::GroupNormConfig"
