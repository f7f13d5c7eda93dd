"""Settings and records for the server: initializationOptions, workspace/configuration, catalog.

Invalid settings are shown once as a message and fall back to the defaults; bad records are
shown in one message, listed in the log, and the rest of the catalog keeps working.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from panic_lens.settings import SECTION, Settings, in_use, layered, parse_settings, section_of

if TYPE_CHECKING:
    from panic_lens.lsp.session import PanicLensServer

logger = logging.getLogger(__name__)

# A client that never answers workspace/configuration must not keep documents unanalysed.
CONFIG_TIMEOUT_S = 2.0


def initial_settings(init_options: Any) -> Settings:
    """Settings from initializationOptions alone; errors are shown by refresh_settings."""
    settings = parse_settings(section_of(init_options)).settings
    apply_log_level(settings.log_level)
    return settings


async def refresh_settings(ls: PanicLensServer, pushed: Any = None) -> bool:
    """Recompute settings: initializationOptions < workspace/configuration (or `pushed`).

    Returns True when the effective settings changed. Refreshes can overlap (the one after
    `initialized` and a workspace/didChangeConfiguration each wait for their pull): the result
    of one asked for before the settings in effect is dropped, so a pull answered late never
    undoes a newer change.
    """
    ls.settings_asked += 1
    asked = ls.settings_asked
    raw = [section_of(ls.init_options)]
    if pushed is not None and section_of(pushed) is not pushed:
        raw.append(section_of(pushed))
    elif ls.client_supports("workspace.configuration"):
        raw.append(await _pull_configuration(ls))
    if asked < ls.settings_applied:
        return False  # a change asked for later is in effect already
    ls.settings_applied = asked
    settings, errors = layered(raw)
    if settings.rules != ls.settings.rules:  # the rules first: `severity` may name them
        from panic_lens.lsp import rule_files

        rule_files.load(ls, settings.rules)
        settings, errors = layered(raw)
    if errors:
        _show(ls, types.MessageType.Warning, "panic-lens settings: " + "; ".join(errors))
    changed = settings != ls.settings
    ls.settings = settings
    apply_log_level(settings.log_level)
    return changed


async def _pull_configuration(ls: PanicLensServer) -> Any:
    params = types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)])
    try:
        values = await asyncio.wait_for(ls.workspace_configuration_async(params), CONFIG_TIMEOUT_S)
    except TimeoutError:
        logger.warning("workspace/configuration: no answer in %.0f s", CONFIG_TIMEOUT_S)
        return None
    except Exception as exc:  # a client that fails the request must not stop the server
        logger.warning("workspace/configuration failed: %s", exc)
        return None
    return values[0] if values else None


def apply_log_level(level: str) -> None:
    names = {"error": logging.ERROR, "warning": logging.WARNING, "info": logging.INFO}
    logging.getLogger("panic_lens").setLevel(names.get(level, logging.DEBUG))


def record_paths(ls: PanicLensServer) -> list[Path]:
    """The records in use besides the shipped ones (`settings.in_use`, as every command reads
    them): settings.records, relative paths taken from the first workspace folder, then the
    `records` of each workspace folder's Cargo.toml tables."""
    roots = ls.workspace_roots()
    root = roots[0] if roots else None
    rules = ls.settings.rules
    return list(in_use(rules, ls.settings.records, root, [str(r) for r in roots]).records)


def reload_catalog(ls: PanicLensServer) -> None:
    """Load the default records plus settings.records; report bad ones once, keep the rest.

    What a first start after an install or an upgrade does once (check the rule files,
    derive the records' rules) runs in a child process that fills the cache folder, which
    this one then reads: the server does not keep the memory that work takes for good."""
    from panic_lens.catalog import load_catalog
    from panic_lens.catalog.derive import derive_apart, register_derived

    result = load_catalog(record_paths(ls), include_default=True)
    ls.catalog = result.catalog
    # records no rule covers become checks
    derive_apart(result.catalog.records, result.files_print)
    ls.derived_outcomes = register_derived(result.catalog.records, result.files_print)
    errors = [str(e) for e in result.errors]
    for line in errors:
        logger.error("record error: %s", line)
    if errors and frozenset(errors) != ls.reported_record_errors:
        count = f"{len(errors)} record error{'s' if len(errors) > 1 else ''}"
        first = errors[0]
        text = f"panic-lens: {count}; bad records are skipped (details in the log). First: {first}"
        _show(ls, types.MessageType.Error, text)
    ls.reported_record_errors = frozenset(errors)


def _show(ls: PanicLensServer, kind: types.MessageType, text: str) -> None:
    logger.warning("%s", text)
    ls.window_show_message(types.ShowMessageParams(type=kind, message=text))
