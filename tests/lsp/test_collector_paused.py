"""collector_paused holds the cycle collector off inside its block and restores its state."""

from __future__ import annotations

import asyncio
import gc

import pytest

from panic_lens.lsp.session import collector_paused


def test_collector_is_off_inside_and_back_on_after() -> None:
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(ValueError), collector_paused():
        raise ValueError("analysis failed")
    assert gc.isenabled()


def test_a_collector_turned_off_elsewhere_stays_off() -> None:
    gc.disable()
    try:
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


# -- the start-up's thresholds (cli.main raises them for `serve`; the first publish restores) --


@pytest.fixture
def thresholds():  # type: ignore[no-untyped-def]
    before = gc.get_threshold()
    yield
    gc.set_threshold(*before)


@pytest.mark.usefixtures("thresholds")
def test_serve_starts_with_rare_collections(monkeypatch: pytest.MonkeyPatch) -> None:
    from panic_lens import cli

    seen: list[tuple[int, int, int]] = []
    monkeypatch.setattr(cli, "_dispatch", lambda argv: seen.append(gc.get_threshold()) or 0)
    gc.set_threshold(700, 10, 10)
    cli.main(["explain", "x"])
    cli.main(["serve", "--stdio"])
    assert seen == [(700, 10, 10), (50_000, 20, 100)]


@pytest.mark.usefixtures("thresholds")
def test_the_first_publish_sets_the_usual_thresholds_again() -> None:

    from panic_lens.lsp.session import FileResult, LineIndex, PanicLensServer
    from panic_lens.rules.base import Analysis

    server = PanicLensServer()
    sent: list[tuple[str, dict[str, object]]] = []
    server.notify_json = lambda method, params: sent.append((method, params))  # type: ignore[method-assign]
    gc.set_threshold(50_000, 20, 100)
    server.collector_deferred = True
    result = FileResult("file:///a.rs", "/a.rs", 1, LineIndex.of("", "utf-16"), Analysis(), "r")

    async def publish_then_yield() -> None:
        server.publish(result)
        assert gc.get_threshold() == (50_000, 20, 100)  # not before the message is out
        await asyncio.sleep(0.01)

    asyncio.run(publish_then_yield())
    assert len(sent) == 1
    assert gc.get_threshold() == (700, 10, 10) and not server.collector_deferred
    gc.set_threshold(50_000, 20, 100)
    server.start_collector()  # once only: a later change of the thresholds is left alone
    assert gc.get_threshold() == (50_000, 20, 100)
