"""A rule's documentation, for every front end: a link only where the page exists, else the
rule's own text inline.

A rule's page is, in order: the `docs` of its rule file (a web address, or a file that
exists), its shipped page (`docs/rules/<id>.md`, for the shipped rules), or none. A rule
with no page (a user's rule without `docs`, a derived rule) is shown inline: its `[doc]`
text if it has one, else what the rule says of itself (title, summary, when it fires, its
panic sites in burn) and the records bound to it. No front end links a file that does not
exist.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from urllib.parse import unquote, urlparse

from panic_lens.catalog.coverage import origin_of
from panic_lens.rules.language.spec import WEB_ADDRESS
from panic_lens.rules.meta import RuleInfo


def doc_link(info: RuleInfo) -> str | None:
    """The address of the rule's page (a web address or a `file:` URI of a file that exists),
    or None when it has none."""
    docs = info.spec.docs if info.spec is not None else None
    if docs is None:
        return _file_uri(info.doc_path)
    if docs.startswith("file:"):
        return docs if Path(unquote(urlparse(docs).path)).is_file() else None
    return docs if WEB_ADDRESS.match(docs) else _file_uri(Path(docs))


def web_link(info: RuleInfo) -> str | None:
    """The rule's page when it is on the web (what a report read on another machine, SARIF,
    may link: a local file is not there)."""
    link = doc_link(info)
    return link if link is not None and link.startswith(("http://", "https://")) else None


def doc_page(info: RuleInfo) -> str | None:
    """The Markdown text of the rule's local page (its `docs` Markdown file, or its shipped
    page), if it has one."""
    docs = info.spec.docs if info.spec is not None else None
    if docs is not None and (WEB_ADDRESS.match(docs) or docs.startswith("file:")):
        return None
    path = info.doc_path if docs is None else Path(docs)
    if path.suffix.lower() not in (".md", ".markdown"):
        return None
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def rule_markdown(info: RuleInfo, record_ids: Sequence[str] = (), heading: str = "#") -> str:
    """The rule's documentation as Markdown: its page when it has a local one, else its `[doc]`
    text, else made from the rule itself, with `record_ids` (the records bound to it)."""
    page = doc_page(info)
    if page is not None:
        return page
    parts = [f"{heading} `{info.id}`: {info.title}", info.summary]
    doc = info.spec.doc if info.spec is not None else None
    if doc:
        parts.append(doc)
    lines = about_lines(info)
    if record_ids:
        lines.append(f"records bound to it: {', '.join(record_ids)}")
    parts.append("\n".join(f"- {line}" for line in lines))
    return "\n\n".join(p for p in parts if p) + "\n"


def about_lines(info: RuleInfo) -> list[str]:
    """What the rule says of itself besides its summary: when it fires, where, its origin."""
    out = []
    fires = info.spec.fires if info.spec is not None else None
    if fires:
        out.append(f"burn panics {fires}")
    for site in info.panic_sites:
        line = f":{site.line}" if site.line else ""
        out.append(f"panic site in burn: {site.file}{line} (`{site.guard}`)")
    out.append(f"rule: {origin_of(info)}")
    return out


def _file_uri(path: Path) -> str | None:
    return path.resolve().as_uri() if path.is_file() else None
