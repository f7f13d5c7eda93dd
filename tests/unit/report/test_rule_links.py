"""No front end links a rule page that does not exist (issue 37): the editor's diagnostic
`codeDescription` and hover, SARIF's `help` and `helpUri`, and `explain`, for a shipped rule,
a user's rule and a rule derived from a record. A rule without a page is shown inline (its
summary, its panic site, the records bound to it); a rule file's `docs` (a web address or a
file) and `[doc]` text are used where they are given."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from panic_lens.catalog import Catalog, load_catalog
from panic_lens.catalog.derive import register_derived
from panic_lens.commands.knowledge import rule_lines
from panic_lens.diagnostics import LineIndex, diagnostic_json
from panic_lens.engine import analyze
from panic_lens.lsp.markdown import hover_markdown
from panic_lens.model import Finding, HoverFact
from panic_lens.report import Sources, render_sarif
from panic_lens.rules import meta
from panic_lens.rules.language.load import use_rule_folders
from panic_lens.rules.language.spec import RuleFileError, read_rule_file

STORY = Path(__file__).parents[1] / "commands" / "data" / "one_story"
USER_RULE = "swap-dims-bounds"
SWAP = STORY / "src" / "main.rs"
DROPOUT = "use burn::nn::DropoutConfig;\nfn f() { let _ = DropoutConfig::new(50.0).init(); }\n"
WEB = "https://example.org/rules/swap-dims-bounds.html"
LINK = re.compile(r"\]\(([^)\s]+)\)|(file://\S+)|rule doc: (\S+)")


@pytest.fixture(autouse=True)
def _registry() -> Iterator[None]:
    added, derived = meta.added_rules(), meta.derived_rules()
    yield
    meta.set_added_rules(added)
    meta.set_derived_rules(derived)


def emitted(finding: Finding, source: str, catalog: Catalog) -> dict[str, str]:
    """Everything each front end says of the finding's rule, by front end."""
    index = LineIndex.of(source, "utf-16")
    diag = diagnostic_json(finding, index, "file:///x.rs", lambda p: None, lambda p: p)
    fact = HoverFact(finding.rule, finding.span, "api", (), flagged=True)
    sarif = json.loads(render_sarif([finding], [], Sources()))
    [descriptor] = [
        r for r in sarif["runs"][0]["tool"]["driver"]["rules"] if r["id"] == finding.rule
    ]
    return {
        "codeDescription": diag.get("codeDescription", {}).get("href", ""),
        "hover": hover_markdown(fact, finding, catalog),
        "sarif help": descriptor["help"]["markdown"],
        "sarif helpUri": descriptor.get("helpUri", ""),
        "explain": "\n".join(rule_lines([finding.rule])),
    }


def links(text: str) -> list[str]:
    return [next(g for g in m.groups() if g) for m in LINK.finditer(text)]


def assert_every_link_exists(said: dict[str, str], web: tuple[str, ...] = ()) -> None:
    for where, text in said.items():
        for link in [text] if where in ("codeDescription", "sarif helpUri") and text else []:
            assert _exists(link, web), (where, link)
        for link in links(text):
            assert _exists(link, web), (where, link)


def _exists(link: str, web: tuple[str, ...]) -> bool:
    if link.startswith("file:"):
        return Path(unquote(urlparse(link).path)).is_file()
    if "://" in link:
        return link in web or link.startswith("https://github.com/tracel-ai/burn/")
    return Path(link).is_file()


def finding_of(source: str, path: Path, rule: str, catalog: Catalog) -> Finding:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(source)
    found = [f for f in analyze(source, str(path), catalog=catalog).findings if f.rule == rule]
    assert found, rule
    return found[0]


def test_a_shipped_rule_links_its_page(tmp_path: Path) -> None:
    catalog = load_catalog().catalog
    finding = finding_of(DROPOUT, tmp_path / "a.rs", "dropout-probability-range", catalog)
    said = emitted(finding, DROPOUT, catalog)
    assert said["codeDescription"].endswith("/dropout-probability-range.md")
    assert "[Rule `dropout-probability-range`](file://" in said["hover"]
    assert said["sarif help"].startswith("# ")  # the page itself
    assert "rule doc: " in said["explain"]
    assert_every_link_exists(said)


def test_a_user_rule_without_a_page_is_shown_inline(tmp_path: Path) -> None:
    assert use_rule_folders([STORY / "my-rules"]).errors == ()
    catalog = load_catalog([STORY / "myrecords"]).catalog
    source = SWAP.read_text()
    finding = finding_of(source, tmp_path / "src" / "main.rs", USER_RULE, catalog)
    said = emitted(finding, source, catalog)
    assert said["codeDescription"] == "" and said["sarif helpUri"] == ""
    summary = "Tensor::swap_dims panics when a dim is not below the tensor's rank."
    for where in ("hover", "sarif help", "explain"):
        assert summary in said[where], where
        assert "panic site in burn: crates/burn-tensor/src/tensor/api/check.rs" in said[where]
    assert "records bound to it: a5a5a5a5a5a5a5a5" in said["sarif help"]
    assert_every_link_exists(said)


def test_a_derived_rule_is_shown_inline(tmp_path: Path) -> None:
    catalog = load_catalog([STORY / "myrecords"]).catalog
    register_derived(catalog.records)
    source = SWAP.read_text()
    [derived] = [r.id for r in meta.derived_rules() if r.spec.derived_from == "a5a5a5a5a5a5a5a5"]
    finding = finding_of(source, tmp_path / "src" / "main.rs", derived, catalog)
    said = emitted(finding, source, catalog)
    assert said["codeDescription"] == "" and said["sarif helpUri"] == ""
    assert f"docs/rules/{derived}.md" not in "".join(said.values())
    for where in ("hover", "sarif help", "explain"):
        assert "derived from record a5a5a5a5a5a5a5a5" in said[where], where
    assert_every_link_exists(said)


def user_rule(tmp_path: Path, head: str, tail: str = "") -> Path:
    """The user rule with top-level keys `head` and tables `tail` added."""
    folder = tmp_path / "rules"
    folder.mkdir(parents=True, exist_ok=True)
    text = (STORY / "my-rules" / f"{USER_RULE}.toml").read_text()
    path = folder / f"{USER_RULE}.toml"
    path.write_text(head + text + tail)
    return folder


def test_docs_as_a_web_address_is_linked_everywhere(tmp_path: Path) -> None:
    assert use_rule_folders([user_rule(tmp_path, f'docs = "{WEB}"\n')]).errors == ()
    catalog = load_catalog([STORY / "myrecords"]).catalog
    source = SWAP.read_text()
    finding = finding_of(source, tmp_path / "src" / "main.rs", USER_RULE, catalog)
    said = emitted(finding, source, catalog)
    assert said["codeDescription"] == said["sarif helpUri"] == WEB
    assert f"[Rule `{USER_RULE}`]({WEB})" in said["hover"]
    assert f"rule doc: {WEB}" in said["explain"]
    assert_every_link_exists(said, web=(WEB,))


def test_docs_as_a_file_and_a_doc_text(tmp_path: Path) -> None:
    folder = user_rule(tmp_path, 'docs = "pages/swap.md"\n')
    (folder / "pages").mkdir()
    (folder / "pages" / "swap.md").write_text("# swap-dims-bounds\n\nKeep dims below the rank.\n")
    assert use_rule_folders([folder]).errors == ()
    catalog = load_catalog([STORY / "myrecords"]).catalog
    source = SWAP.read_text()
    finding = finding_of(source, tmp_path / "src" / "main.rs", USER_RULE, catalog)
    said = emitted(finding, source, catalog)
    assert said["codeDescription"] == (folder / "pages" / "swap.md").resolve().as_uri()
    assert said["sarif help"].startswith("# swap-dims-bounds\n\nKeep dims below the rank.")
    assert said["sarif helpUri"] == ""  # a local file is not where the report is read
    assert_every_link_exists(said)

    text = '\n[doc]\ntext = """\nUse `-1` for the last dimension.\n"""\n'
    assert use_rule_folders([user_rule(tmp_path / "b", "", text)]).errors == ()
    said = emitted(finding, source, catalog)
    for where in ("hover", "sarif help", "explain"):
        assert "Use `-1` for the last dimension." in said[where], where
    assert said["codeDescription"] == ""


@pytest.mark.parametrize(
    ("head", "tail", "key"),
    [
        ('docs = "missing.md"\n', "", "docs"),
        ("", '\n[doc]\ntxt = "x"\n', "doc.txt"),
        ("doc = 3\n", "", "doc"),
    ],
)
def test_a_bad_docs_key_names_file_line_and_key(
    tmp_path: Path, head: str, tail: str, key: str
) -> None:
    folder = user_rule(tmp_path, head, tail)
    with pytest.raises(RuleFileError) as caught:
        read_rule_file(folder / f"{USER_RULE}.toml")
    assert caught.value.key == key and caught.value.line > 0


def test_no_shipped_rule_links_a_missing_page() -> None:
    from panic_lens.catalog.ruledocs import doc_link

    for info in meta.SHIPPED:
        link = doc_link(info)
        assert link is not None and _exists(link, ()), info.id
