"""A warm `check` of an unchanged tree replays the stored report: byte for byte the report of a
run without the cache, and every change the report depends on makes it run for real."""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from panic_lens import batch, cache, cli
from panic_lens.commands import replay
from panic_lens.rust import crate as rust_crate

REPO = Path(__file__).resolve().parents[2]
APP = REPO / "examples" / "burn-app"
Run = tuple[int, str, str]


@pytest.fixture(autouse=True)
def no_racy_margin(monkeypatch: pytest.MonkeyPatch) -> None:
    """The test's files are seconds young; store runs anyway (settle() waits a tick)."""
    monkeypatch.setattr(cache, "RACY_NS", 0)


def settle() -> None:
    """Let the filesystem clock tick past the last write, so a later write has a new ctime."""
    time.sleep(0.05)


@pytest.fixture
def app(tmp_path: Path) -> Path:
    """A copy of examples/burn-app (findings of every rule) inside a workspace folder."""
    root = tmp_path / "ws" / "burn-app"
    shutil.copytree(APP, root)
    settle()
    return root


def check(capsys: pytest.CaptureFixture[str], *argv: str) -> Run:
    # Each CLI run is a fresh process; here, forget crate contexts read by earlier runs
    # (rust.crate's in-process memo does not notice a workspace or lock file appearing).
    rust_crate._cache.clear()
    rust_crate._toml_cache.clear()
    rust_crate._lock_cache.clear()
    code = cli.main(["check", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def truth(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *argv: str) -> Run:
    """The report of a run without the cache, in the tree's current state."""
    with monkeypatch.context() as m:
        m.setenv("PANIC_LENS_NO_CACHE", "1")
        return check(capsys, *argv)


def replayed(capsys: pytest.CaptureFixture[str], *argv: str) -> Run | None:
    """The stored report of `check argv`, or None when it would run for real."""
    code = replay.replay(["check", *argv])
    out = capsys.readouterr()
    return None if code is None else (code, out.out, out.err)


def stored(capsys: pytest.CaptureFixture[str], *argv: str) -> Run:
    """Run for real (storing the run), then the replay must give the same bytes."""
    assert replayed(capsys, *argv) is None, "nothing stored yet for this state"
    first = check(capsys, *argv)
    settle()
    assert replayed(capsys, *argv) == first
    return first


@pytest.mark.parametrize("fmt", ["json", "text", "sarif"])
def test_replay_is_the_no_cache_report_byte_for_byte(
    app: Path,
    fmt: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    argv = ("--format", fmt, str(app))
    expected = truth(capsys, monkeypatch, *argv)
    assert expected[0] == 1 and "ctc-target-capacity" in expected[1]
    assert stored(capsys, *argv) == expected

    def analysing(*args: object, **kwargs: object) -> None:
        raise AssertionError("a replayed run analyses nothing")

    monkeypatch.setattr(batch, "check_paths", analysing)
    assert check(capsys, *argv) == expected  # through the CLI, nothing imported or analysed


def test_another_command_line_or_folder_is_not_replayed(
    app: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    stored(capsys, "--format", "json", str(app))
    assert replayed(capsys, "--format", "text", str(app)) is None
    assert replayed(capsys, "--format", "json", "--fail-on", "never", str(app)) is None
    monkeypatch.chdir(app)
    assert replayed(capsys, "--format", "json", str(app)) is None


def test_young_files_store_nothing(
    app: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cache, "RACY_NS", 3_600 * 10**9)  # everything counts as just written
    check(capsys, "--format", "json", str(app))
    assert replayed(capsys, "--format", "json", str(app)) is None


def test_cache_off_stores_and_replays_nothing(
    app: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    stored(capsys, "--format", "json", str(app))
    monkeypatch.setenv("PANIC_LENS_NO_CACHE", "1")
    assert replayed(capsys, "--format", "json", str(app)) is None


def test_a_corrupt_run_is_ignored(
    app: Path, private_cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ("--format", "json", str(app))
    first = stored(capsys, *argv)
    for run in (private_cache / "runs").glob("*.run"):
        run.write_bytes(run.read_bytes()[:100])
    assert replayed(capsys, *argv) is None
    assert check(capsys, *argv) == first


def test_runs_live_in_the_cache_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("PANIC_LENS_CACHE_DIR")
    if sys.platform == "linux":
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert replay.runs_dir() == str(cache.default_dir() / "runs")


def _edit_rs(app: Path) -> None:
    """Same size, mtime restored: only ctime tells (the width no longer overflows)."""
    file = app / "src" / "train.rs"
    before = file.stat()
    text = file.read_text()
    assert "= 5_000;" in text
    file.write_text(text.replace("= 5_000;", "= 4_000;", 1))
    os.utime(file, ns=(before.st_atime_ns, before.st_mtime_ns))


def _new_rs(app: Path) -> None:
    (app / "src" / "extra.rs").write_text(
        "use burn::tensor::module::ctc_loss;\n"
        "pub fn f(lp: Tensor<3>, d: &Device) -> Tensor<1> {\n"
        "    let t = Tensor::<2, Int>::ones([4, 6000], d);\n"
        "    ctc_loss(lp, t, il, tl, 0)\n}\n"
    )


def _delete_rs(app: Path) -> None:
    (app / "src" / "router.rs").unlink()


def _edit_manifest(app: Path) -> None:
    manifest = app / "Cargo.toml"
    manifest.write_text(manifest.read_text().replace('"wgpu"', '"ndarray"'))


def _lock_in_crate(app: Path) -> None:
    (app / "Cargo.lock").write_text('[[package]]\nname = "burn"\nversion = "0.20.0"\n')


def _workspace_lock_above(app: Path) -> None:
    (app.parent / "Cargo.toml").write_text('[workspace]\nmembers = ["burn-app"]\n')
    (app.parent / "Cargo.lock").write_text('[[package]]\nname = "burn"\nversion = "0.20.0"\n')


def _workspace_above(app: Path) -> None:
    (app.parent / "Cargo.toml").write_text(
        '[workspace]\nmembers = ["burn-app"]\n\n[workspace.metadata.panic-lens]\n'
        'severity = { "ctc-target-capacity" = "off" }\n'
    )


def _nested_crate(app: Path) -> None:
    nested = app / "src" / "Cargo.toml"
    nested.write_text('[package]\nname = "nested"\nversion = "0.1.0"\n')


def _subfolder(app: Path) -> None:
    (app / "src" / "more").mkdir()
    shutil.copy(app / "src" / "train.rs", app / "src" / "more" / "copy.rs")


@pytest.mark.parametrize(
    "change",
    [_edit_rs, _new_rs, _delete_rs, _edit_manifest, _lock_in_crate, _workspace_lock_above,
     _workspace_above, _nested_crate, _subfolder],
)  # fmt: skip
def test_every_change_runs_for_real_and_gives_the_new_report(
    app: Path,
    change: Callable[[Path], None],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    argv = ("--format", "json", str(app))
    before = stored(capsys, *argv)
    change(app)
    settle()
    after = truth(capsys, monkeypatch, *argv)
    assert replayed(capsys, *argv) is None
    assert check(capsys, *argv) == after
    settle()
    assert replayed(capsys, *argv) == after  # and the new state is stored in turn
    if change is not _nested_crate:  # a crate inside src/ changes nothing the report shows
        assert after != before, "the change is one the report shows"


def test_a_crate_file_outside_the_checked_path_counts(
    make_crate: Callable[..., Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Checking one file: a neighbour in the crate's src/ giving an alias changes the report."""
    crate = make_crate(
        "app",
        {
            "src/lib.rs": "pub mod a;\n",
            "src/a.rs": (
                "use burn::prelude::*;\n"
                "pub fn run(lp: Tensor<3>, device: &Device) -> Tensor<1> {\n"
                "    let targets = Tensor::<2, Int>::ones([4, 5000], device);\n"
                "    let il = Tensor::<1, Int>::full([4], 10, device);\n"
                "    let tl = Tensor::<1, Int>::full([4], 5000, device);\n"
                "    crate::lossy(lp, targets, il, tl, 0)\n}\n"
            ),
        },
    )
    settle()
    argv = ("--format", "json", str(crate / "src" / "a.rs"))
    before = stored(capsys, *argv)
    (crate / "src" / "lib.rs").write_text(
        "pub mod a;\npub use burn::tensor::module::ctc_loss as lossy;\n"
    )
    settle()
    after = truth(capsys, monkeypatch, *argv)
    assert after != before
    assert replayed(capsys, *argv) is None
    assert check(capsys, *argv) == after


def test_a_records_file_counts(
    app: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    records = tmp_path / "records.jsonl"
    records.write_text("")
    settle()
    argv = ("--format", "json", "--records", str(records), str(app))
    stored(capsys, *argv)
    records.write_text("{not json\n")
    settle()
    after = truth(capsys, monkeypatch, *argv)
    assert "record error" in after[2]
    assert replayed(capsys, *argv) is None
    assert check(capsys, *argv) == after


@pytest.mark.parametrize("during", ["edit a checked file", "remove a workspace manifest above"])
def test_a_change_during_the_run_stores_nothing(
    app: Path,
    during: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The run read the old state; the stats after it show the new one: never pair them."""
    workspace = app.parent / "Cargo.toml"
    workspace.write_text('[workspace]\nmembers = ["burn-app"]\n')
    settle()
    real = batch.check_paths

    def changing(*args: object, **kwargs: object) -> object:
        result = real(*args, **kwargs)  # type: ignore[arg-type]
        if during == "edit a checked file":
            train = app / "src" / "train.rs"
            train.write_text(train.read_text().replace("= 5_000;", "= 4_000;", 1))
        else:
            workspace.unlink()
        return result

    monkeypatch.setattr(batch, "check_paths", changing)
    argv = ("--format", "json", str(app))
    check(capsys, *argv)
    assert replayed(capsys, *argv) is None
