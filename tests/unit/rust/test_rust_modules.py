"""modules: a file's place in its crate, and names reached through other module files."""

from __future__ import annotations

from pathlib import Path

import pytest

from panic_lens.rust.facts import FileFacts
from panic_lens.rust.modules import module_path


@pytest.mark.parametrize(
    ("rel", "expected"),
    [
        ("src/lib.rs", ()),
        ("src/main.rs", ()),
        ("src/a.rs", ("a",)),
        ("src/a/mod.rs", ("a",)),
        ("src/a/b.rs", ("a", "b")),
        ("src/bin/tool.rs", None),
        ("tests/it.rs", None),
    ],
)
def test_module_path(tmp_path: Path, rel: str, expected: tuple[str, ...] | None) -> None:
    assert module_path(tmp_path / rel, tmp_path / "src") == expected


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")


def resolve_in(root: Path, rel: str, name: str) -> str | None:
    file = root / rel
    return FileFacts.build(file.read_bytes(), str(file)).resolve(name)


def test_crate_super_and_out_of_line_mods(tmp_path: Path) -> None:
    write(tmp_path, {
        "Cargo.toml": '[package]\nname = "x"\n',
        "src/lib.rs": "pub mod prelude;\nmod a;\npub mod inline { pub mod leaf; }\n",
        "src/prelude.rs": "pub use burn::rl::AsyncPolicy;\n",
        "src/a.rs": "use crate::prelude::*;\nuse super::prelude::AsyncPolicy as Up;\n",
        "src/inline/leaf.rs": "pub use burn_rl::Policy;\n",
        "src/bin/tool.rs": "use crate::prelude::AsyncPolicy;\n",
    })  # fmt: skip
    assert resolve_in(tmp_path, "src/a.rs", "AsyncPolicy") == "burn::rl::AsyncPolicy"
    assert resolve_in(tmp_path, "src/a.rs", "Up") == "burn::rl::AsyncPolicy"
    assert resolve_in(tmp_path, "src/lib.rs", "inline::leaf::Policy") == "burn::rl::Policy"
    assert (
        resolve_in(tmp_path, "src/lib.rs", "crate::prelude::AsyncPolicy") == "burn::rl::AsyncPolicy"
    )
    assert resolve_in(tmp_path, "src/bin/tool.rs", "AsyncPolicy") is None  # its own crate root


def test_glob_cycles_between_files_end(tmp_path: Path) -> None:
    write(tmp_path, {
        "Cargo.toml": '[package]\nname = "x"\n',
        "src/lib.rs": "mod a;\nmod b;\n",
        "src/a.rs": "pub use crate::b::*;\n",
        "src/b.rs": "pub use crate::a::*;\n",
    })  # fmt: skip
    assert resolve_in(tmp_path, "src/a.rs", "AsyncPolicy") is None


def test_missing_module_files_resolve_to_nothing(tmp_path: Path) -> None:
    write(tmp_path, {
        "Cargo.toml": '[package]\nname = "x"\n',
        "src/lib.rs": "mod gone;\nuse gone::AsyncPolicy;\n",
    })  # fmt: skip
    assert resolve_in(tmp_path, "src/lib.rs", "AsyncPolicy") is None
