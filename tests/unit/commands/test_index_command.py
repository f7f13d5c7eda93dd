"""`panic-lens index build`: the index of a burn checkout, to a file or to stdout."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from burn_tree import write_burn_tree

from panic_lens.cli import build_parser, main
from panic_lens.rust.burn_index import build_index, dumps, load_index


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_build_writes_the_index_file_and_prints_a_summary(tmp_path: Path, capsys) -> None:
    root = write_burn_tree(tmp_path / "burn")
    output = tmp_path / "index.json"
    code, out, err = run(capsys, "index", "build", str(root), "-o", str(output))
    assert code == 0, err
    text = output.read_text(encoding="utf-8")
    assert text == dumps(build_index(root))
    assert load_index(output)["burn"] == "9.1.0"
    size = len(text.encode())
    assert out == (
        f"burn 9.1.0: 2 configs, 10 fields, 2 with an init, 1 modules; {size} bytes -> {output}\n"
    )


def test_build_without_output_prints_the_index_and_the_summary_on_stderr(
    tmp_path: Path, capsys
) -> None:
    root = write_burn_tree(tmp_path)
    code, out, err = run(capsys, "index", "build", str(root))
    assert code == 0
    assert json.loads(out) == build_index(root)
    assert out.endswith("}\n")
    assert err.startswith("burn 9.1.0: 2 configs, 10 fields")


def test_build_of_what_is_no_burn_checkout_exits_2(tmp_path: Path, capsys) -> None:
    code, out, err = run(capsys, "index", "build", str(tmp_path / "missing"))
    assert (code, out) == (2, "")
    assert err == f"panic-lens index build: {tmp_path / 'missing'}: not a folder\n"
    code, _, err = run(capsys, "index", "build", str(tmp_path))
    assert code == 2
    assert "not a burn checkout (no crates/ folder)" in err
    root = write_burn_tree(tmp_path / "burn")
    code, _, err = run(capsys, "index", "build", str(root), "-o", str(tmp_path / "no" / "x.json"))
    assert code == 2
    assert "cannot write" in err


def test_index_is_a_subcommand_of_the_cli() -> None:
    args = build_parser().parse_args(["index", "build", "checkout", "-o", "out.json"])
    assert (args.command, args.index_command, args.checkout, args.output) == (
        "index",
        "build",
        "checkout",
        "out.json",
    )
    with pytest.raises(SystemExit):
        build_parser().parse_args(["index"])
