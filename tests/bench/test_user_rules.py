"""Rules from rule folders in `check`'s accelerators: worker processes (forked or spawned) run
them, and the content-hash cache never answers from entries another rule set wrote."""

from __future__ import annotations

import multiprocessing
import shutil
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from panic_lens import batch, batch_workers
from panic_lens.cli import main
from panic_lens.rules import meta
from panic_lens.rules.language.load import use_rule_folders

RULES = Path(__file__).parents[1] / "unit" / "commands" / "data" / "rules_pass"
EXAMPLE = (RULES / "max-pool-zero-stride.rs").read_text()
RULE_ID = "max-pool-zero-stride"
FILLER = "pub fn helper_{i}(a: u64) -> u64 {{\n    let b = a * {i};\n    b + 1\n}}\n"


@pytest.fixture(autouse=True)
def _registry() -> Iterator[None]:
    before = meta.added_rules()
    yield
    meta.set_added_rules(before)


def crate(root: Path, files: int = 0) -> Path:
    """A crate with the rule's example in src/pool.rs and `files` more copies of it, each with
    filler (so the prefilter keeps them all)."""
    (root / "src").mkdir(parents=True)
    (root / "Cargo.toml").write_text('[package]\nname = "app"\nversion = "0.1.0"\n')
    for i in range(files):
        text = "".join(FILLER.format(i=i * 100 + j) for j in range(40))
        (root / "src" / f"m{i}.rs").write_text(EXAMPLE + text)
    (root / "src" / "pool.rs").write_text(EXAMPLE)
    return root


def lines(out: str) -> list[str]:
    return [line.split(": ", 1)[0] for line in out.splitlines() if f"[{RULE_ID}]" in line]


def test_a_changed_rule_file_changes_a_warm_run(tmp_path: Path, capsys) -> None:
    folder = Path(shutil.copytree(RULES, tmp_path / "rules"))
    root = crate(tmp_path / "app")
    argv = ["check", "--fail-on", "never", "--rules", str(folder), str(root)]
    assert main(argv) == 0
    first = lines(capsys.readouterr().out)
    assert len(first) == 3
    assert main(argv) == 0  # warm: answered from the cache
    assert lines(capsys.readouterr().out) == first
    rule = folder / "max-pool-zero-stride.toml"
    rule.write_text(rule.read_text().replace("stride == 0", "stride == 1"))
    assert main(argv) == 0
    assert lines(capsys.readouterr().out) == [f"{root / 'src' / 'pool.rs'}:9:5"]


def test_forked_workers_run_the_rules_of_a_folder(tmp_path: Path) -> None:
    root = crate(tmp_path / "app", 100)  # above the size at which check uses workers
    assert sum(p.stat().st_size for p in root.rglob("*.rs")) > batch.PARALLEL_MIN_BYTES
    assert use_rule_folders([RULES]).errors == ()
    result, stats = batch.run_check([root], jobs=2)
    assert stats.workers == 2
    assert len(result.findings) == 101 * 3
    assert {f.rule for f in result.findings} == {RULE_ID}


def test_a_spawned_worker_gets_the_rules_from_its_initializer(tmp_path: Path) -> None:
    """A spawned worker starts from the shipped rules; the initializer gives it the parent's."""
    root = crate(tmp_path / "app")
    path = str(root / "src" / "pool.rs")
    loaded = use_rule_folders([RULES])
    context = multiprocessing.get_context("spawn")
    initargs = (None, None, None, meta.added_rules())
    with ProcessPoolExecutor(1, context, batch_workers._init_worker, initargs) as pool:
        item = (path, EXAMPLE.encode(), None, None)
        done = pool.submit(batch_workers._analyse_in_worker, [item]).result()
    assert loaded.rules == meta.added_rules()
    [(_, analysis, _)] = done
    assert [f.rule for f in analysis.findings] == [RULE_ID] * 3
