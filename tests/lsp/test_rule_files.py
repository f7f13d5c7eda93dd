"""User rule folders in the editor (lsp/rule_files.py): loaded from the settings and from
Cargo.toml, reloaded when a rule file changes, a bad rule file shown on the file itself."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from lsp_helpers import diagnostics, eventually, initialize, make_crate, open_doc, preset, uri_of
from lsprotocol import types
from pytest_lsp import LanguageClient

RULES = Path(__file__).parents[1] / "unit" / "commands" / "data" / "rules_pass"
RULE_ID = "max-pool-zero-stride"
EXAMPLE = (RULES / f"{RULE_ID}.rs").read_text()
BROKEN = "[[panic_site]]\n"  # a rule file with no id, title, summary...


def codes(ds: list[types.Diagnostic]) -> list[tuple[int, object]]:
    return [(d.range.start.line, d.code) for d in ds]


def flagged(ds: list[types.Diagnostic]) -> bool:
    return codes(ds) == [(6, RULE_ID), (7, RULE_ID), (10, RULE_ID)]


def setup(tmp_path: Path, manifest: str | None = None) -> tuple[Path, Path]:
    """A rules folder beside a crate whose src/lib.rs is the rule's example."""
    rules = Path(shutil.copytree(RULES, tmp_path / "rules"))
    (rules / f"{RULE_ID}.rs").unlink()  # examples are for `rules test`, not needed here
    root = make_crate(tmp_path / "ws", {"src/lib.rs": EXAMPLE}, manifest)
    return rules, root


def changed(client: LanguageClient, path: Path, kind: types.FileChangeType) -> None:
    event = types.FileEvent(uri=uri_of(path), type=kind)
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[event]))


async def rule_file_diagnostics(
    client: LanguageClient, path: Path, accept
) -> list[types.Diagnostic]:
    return await diagnostics(client, uri_of(path), accept)


async def test_rules_from_the_settings_run_on_open_documents(
    client: LanguageClient, tmp_path: Path
) -> None:
    _, root = setup(tmp_path)  # the folder is named relative to the workspace folder
    await initialize(client, root, {"scope": "openFiles", "rules": ["../rules"]})
    uri = open_doc(client, root / "src/lib.rs")
    found = await diagnostics(client, uri, flagged)
    assert {d.source for d in found} == {"panic-lens"}
    assert found[0].message == "max_pool1d with stride = 0"


async def test_rules_from_the_cargo_metadata_run(client: LanguageClient, tmp_path: Path) -> None:
    manifest = (
        '[package]\nname = "app"\nversion = "0.1.0"\n\n'
        '[package.metadata.panic-lens]\nrules = ["../rules"]\n'
    )
    _, root = setup(tmp_path, manifest)
    await initialize(client, root, {"scope": "openFiles"})
    uri = open_doc(client, root / "src/lib.rs")
    await diagnostics(client, uri, flagged)


async def test_a_bad_rule_file_is_a_diagnostic_on_it_until_fixed(
    client: LanguageClient, tmp_path: Path
) -> None:
    rules, root = setup(tmp_path)
    rule = rules / f"{RULE_ID}.toml"
    good = rule.read_text()
    rule.write_text(good.replace('severity = "warning"', 'severity = "fatal"'))
    await initialize(client, root, {"scope": "openFiles", "rules": [str(rules)]})
    uri = open_doc(client, root / "src/lib.rs")
    assert await diagnostics(client, uri, lambda ds: True) == []  # the server lives on
    [diag] = await rule_file_diagnostics(client, rule, lambda ds: len(ds) == 1)
    line = good.splitlines().index('severity = "warning"')
    assert diag.range == types.Range(
        start=types.Position(line, 0), end=types.Position(line, len('severity = "fatal"'))
    )
    assert (diag.source, diag.code, diag.severity) == (
        "panic-lens",
        "rule-file",
        types.DiagnosticSeverity.Error,
    )
    assert diag.message == "severity: 'fatal' is not one of error, warning, information, hint"
    rule.write_text(good)
    changed(client, rule, types.FileChangeType.Changed)
    assert await rule_file_diagnostics(client, rule, lambda ds: not ds) == []
    await diagnostics(client, uri, flagged)  # the fixed rule runs


# Mistakes only the load-time check sees (rules/language/check.py): (the change to the rule
# file, the text its line starts with, what the diagnostic says)
CHECKED = [
    (("stride == 0", "stride == "), "condition", "Syntax error"),
    (("stride == 0", "size(stride) > 'x'"), "condition", "applied to '(int, string)'"),
    (("stride == 0", "strid == 0"), "condition", "did you mean `stride`?"),
    (("external = true", "external = false"), "call", "max_pool1d` is no burn function"),
    (("{stride}", "{stride +}"), "message", "the hole {stride +} does not compile"),
    (('{stride}"', '{stride}"\n\n[[fix]]\ntitle = "t"\nreplace = "strid"\nwith = "1"'),
     "replace", "did you mean `stride`?"),
]  # fmt: skip


@pytest.mark.parametrize("client", ["vscode"], indirect=True)  # pull and push: test above
@pytest.mark.parametrize(("change", "starts", "says"), CHECKED, ids=[c[2] for c in CHECKED])
async def test_a_rule_that_does_not_check_is_a_diagnostic_on_its_line(
    client: LanguageClient, tmp_path: Path, change: tuple[str, str], starts: str, says: str
) -> None:
    rules, root = setup(tmp_path)
    rule = rules / f"{RULE_ID}.toml"
    text = rule.read_text()
    assert change[0] in text
    rule.write_text(text.replace(change[0], change[1], 1))
    await initialize(client, root, {"scope": "openFiles", "rules": [str(rules)]})
    uri = open_doc(client, root / "src/lib.rs")
    assert await diagnostics(client, uri, lambda ds: True) == []  # the broken rule does not run
    [diag] = await rule_file_diagnostics(client, rule, lambda ds: len(ds) == 1)
    line = rule.read_text().splitlines()[diag.range.start.line]
    assert line.startswith(starts) and says in diag.message and diag.code == "rule-file"


async def test_a_changed_rule_file_reanalyses_open_documents(
    client: LanguageClient, tmp_path: Path
) -> None:
    rules, root = setup(tmp_path)
    await initialize(client, root, {"scope": "openFiles", "rules": [str(rules)]})
    uri = open_doc(client, root / "src/lib.rs")
    await diagnostics(client, uri, flagged)
    rule = rules / f"{RULE_ID}.toml"
    rule.write_text(rule.read_text().replace("stride == 0", "stride == 1"))
    changed(client, rule, types.FileChangeType.Changed)
    await diagnostics(client, uri, lambda ds: codes(ds) == [(8, RULE_ID)])
    added = rules / "broken.toml"
    added.write_text(BROKEN)
    changed(client, added, types.FileChangeType.Created)
    [diag] = await rule_file_diagnostics(client, added, lambda ds: len(ds) == 1)
    assert diag.code == "rule-file"
    rule.unlink()
    changed(client, rule, types.FileChangeType.Deleted)
    assert await diagnostics(client, uri, lambda ds: not ds) == []


async def test_a_settings_change_loads_the_new_folders(
    client: LanguageClient, tmp_path: Path
) -> None:
    rules, root = setup(tmp_path)
    await initialize(client, root, {"scope": "openFiles"})
    uri = open_doc(client, root / "src/lib.rs")
    assert await diagnostics(client, uri, lambda ds: True) == []
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"panicLens": {"rules": [str(rules)]}})
    )
    await diagnostics(client, uri, flagged)
    registrations = getattr(client, "registrations", [])
    if preset(client) == "vscode":  # dynamic registration allowed; it follows the settings
        method = types.WORKSPACE_DID_CHANGE_WATCHED_FILES
        [reg] = await eventually(
            lambda: [r for r in registrations if r.method == method],
            lambda rs: len(rs) == 1 and len(rs[0].register_options["watchers"]) == 4,
        )
        assert f"{rules}/*.toml" in [w["globPattern"] for w in reg.register_options["watchers"]]
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"panicLens": {"rules": []}})
    )
    assert await diagnostics(client, uri, lambda ds: not ds) == []


@pytest.mark.parametrize("client", ["vscode"], indirect=True)  # client-independent
async def test_a_missing_rules_folder_is_a_message(client: LanguageClient, tmp_path: Path) -> None:
    _, root = setup(tmp_path)
    await initialize(client, root, {"scope": "openFiles", "rules": [str(tmp_path / "gone")]})
    uri = open_doc(client, root / "src/lib.rs")
    assert await diagnostics(client, uri, lambda ds: True) == []
    [shown] = client.messages
    assert shown.message == f"panic-lens: {tmp_path / 'gone'}: no such rules folder or file"


async def test_the_severity_setting_may_name_a_user_rule(
    client: LanguageClient, tmp_path: Path
) -> None:
    rules, root = setup(tmp_path)
    options = {"scope": "openFiles", "rules": [str(rules)], "severity": {RULE_ID: "hint"}}
    await initialize(client, root, options)
    uri = open_doc(client, root / "src/lib.rs")
    found = await diagnostics(client, uri, flagged)
    assert {d.severity for d in found} == {types.DiagnosticSeverity.Hint}
    assert client.messages == []  # no "unknown rule" complaint


async def test_a_cargo_toml_naming_a_rules_folder_loads_it(
    client: LanguageClient, tmp_path: Path
) -> None:
    rules, root = setup(tmp_path)
    await initialize(client, root, {"scope": "openFiles"})
    uri = open_doc(client, root / "src/lib.rs")
    assert await diagnostics(client, uri, lambda ds: True) == []
    manifest = root / "Cargo.toml"
    manifest.write_text(
        manifest.read_text() + '\n[package.metadata.panic-lens]\nrules = ["../rules"]\n'
    )
    changed(client, manifest, types.FileChangeType.Changed)
    await diagnostics(client, uri, flagged)
    if preset(client) == "vscode":  # the new folder is watched
        method = types.WORKSPACE_DID_CHANGE_WATCHED_FILES
        registrations = getattr(client, "registrations", [])
        await eventually(
            lambda: [r for r in registrations if r.method == method],
            lambda rs: (
                len(rs) == 1
                and f"{rules}/*.toml"
                in [w["globPattern"] for w in rs[0].register_options["watchers"]]
            ),
        )


@pytest.mark.parametrize("client", ["vscode"], indirect=True)  # client-independent
async def test_one_settings_change_may_add_a_folder_and_set_its_rules_severity(
    client: LanguageClient, tmp_path: Path
) -> None:
    rules, root = setup(tmp_path)
    await initialize(client, root, {"scope": "openFiles"})
    uri = open_doc(client, root / "src/lib.rs")
    assert await diagnostics(client, uri, lambda ds: True) == []
    settings = {"panicLens": {"rules": [str(rules)], "severity": {RULE_ID: "hint"}}}
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=settings))
    found = await diagnostics(client, uri, flagged)
    assert {d.severity for d in found} == {types.DiagnosticSeverity.Hint}
    assert client.messages == []  # no "unknown rule" complaint
