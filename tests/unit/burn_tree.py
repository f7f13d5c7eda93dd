"""Small burn-like checkouts written into a folder, for the config index's tests."""

from __future__ import annotations

import os
from pathlib import Path

from records_factory import REPO

# A burn checkout next to this repository, or wherever BURN_CHECKOUT points.
BURN = Path(os.environ.get("BURN_CHECKOUT", REPO.parent / "burn-checkout"))

CONV2D = """\
use burn_core as burn;

use crate::PaddingConfig2d;
use burn::config::Config;
use burn::module::Module;
use burn::tensor::backend::Backend;

/// Configuration of a [Conv2d].
#[derive(Config, Debug)]
pub struct Conv2dConfig {
    /// The number of channels.
    pub channels: [usize; 2],
    /// A doc comment
    /// over two lines.
    pub kernel_size: [usize;   2],
    #[config(default = "[1, 1]")]
    pub stride: [usize; 2],
    #[config(default = 1)]
    pub groups: usize,
    #[config(default = "PaddingConfig2d::Valid")]
    pub padding: PaddingConfig2d,
    #[config(default = -1.0e4)]
    pub mask_value: f32,
    #[config(default = "\\"quoted\\"")]
    pub label: String,
    pub output_size: Option<[usize; 2]>,
    #[config(default = "None")]
    pub dropout: core::option::Option<f64>,
}

#[derive(Module, Debug)]
pub struct Conv2d<B: Backend> {
    pub weight: B::FloatTensorPrimitive,
}

impl Conv2dConfig {
    pub fn init<B: Backend>(&self, device: &B::Device) -> Conv2d<B> {
        todo!()
    }
    pub fn init_other<B: Backend>(&self) -> Conv2d<B> {
        todo!()
    }
    pub fn describe(&self) -> String {
        todo!()
    }
    fn private_init<B: Backend>(&self) -> Conv2d<B> {
        todo!()
    }
}

/// Not reachable from outside the crate.
#[derive(Config, Debug)]
pub struct HiddenConfig {
    pub size: usize,
}
"""

DROPOUT = """\
use burn_core as burn;
use burn::config::Config;

#[derive(Debug, burn::config::Config)]
pub struct DropoutConfig {
    pub prob: f64,
}

#[derive(Clone, Debug)]
pub struct Dropout {
    pub prob: f64,
}

impl DropoutConfig {
    pub fn init(&self) -> Dropout {
        Dropout { prob: self.prob }
    }
}
"""

FILES = {
    "Cargo.toml": '[workspace]\nmembers = ["crates/*"]\n\n[workspace.package]\nversion = "9.1.0"\n',
    "crates/burn/Cargo.toml": '[package]\nname = "burn"\nversion.workspace = true\n',
    "crates/burn/src/lib.rs": (
        "pub use burn_core::*;\n\npub mod nn {\n    pub use burn_nn::*;\n}\n"
    ),
    "crates/burn-core/Cargo.toml": '[package]\nname = "burn-core"\n',
    "crates/burn-core/src/lib.rs": "pub mod config;\npub mod module;\n",
    "crates/burn-core/src/config.rs": "pub trait Config {}\n",
    "crates/burn-core/src/module.rs": "pub trait Module {}\n",
    "crates/burn-nn/Cargo.toml": '[package]\nname = "burn-nn"\n',
    "crates/burn-nn/src/lib.rs": (
        "pub mod modules;\npub use modules::*;\nmod padding;\npub use padding::*;\n"
        "pub(crate) mod checks;\n#[cfg(test)]\npub mod test_utils;\npub mod tests;\n"
        "pub mod extra {\n    pub use crate::modules::DropoutConfig as Dropout2Config;\n}\n"
    ),
    "crates/burn-nn/src/padding.rs": (
        "#[derive(Config, Debug)]\npub enum PaddingConfig2d {\n    Valid,\n}\n"
    ),
    "crates/burn-nn/src/checks.rs": (
        "#[derive(Config, Debug)]\npub struct ChecksConfig {\n    pub a: usize,\n}\n"
    ),
    "crates/burn-nn/src/test_utils.rs": (
        "#[derive(Config, Debug)]\npub struct TestUtilsConfig {\n    pub a: usize,\n}\n"
    ),
    "crates/burn-nn/src/tests/mod.rs": (
        "#[derive(Config, Debug)]\npub struct TestOnlyConfig {\n    pub a: usize,\n}\n"
    ),
    "crates/burn-nn/src/modules/mod.rs": "pub mod conv;\nmod dropout;\npub use dropout::*;\n",
    "crates/burn-nn/src/modules/conv/mod.rs": (
        "mod conv2d;\npub use conv2d::{Conv2d, Conv2dConfig};\n"
        '#[cfg(all(test, feature = "std"))]\npub mod fixtures {\n'
        "    #[derive(Config, Debug)]\n"
        "    pub struct InTestsConfig {\n        pub a: usize,\n    }\n"
        "}\n"
    ),
    "crates/burn-nn/src/modules/conv/conv2d.rs": CONV2D,
    "crates/burn-nn/src/modules/dropout.rs": DROPOUT,
}


def write_burn_tree(root: Path, files: dict[str, str] | None = None) -> Path:
    """A burn-like checkout at `root`: `FILES`, with `files` added or replaced."""
    for name, text in {**FILES, **(files or {})}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root
