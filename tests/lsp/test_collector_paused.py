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


# -- the start-up's collector (cli.main turns it off for `serve`; the first publish restores) --


@pytest.fixture
def collector():  # type: ignore[no-untyped-def]
    before = gc.get_threshold()
    yield
    gc.set_threshold(*before)
    gc.enable()


@pytest.mark.usefixtures("collector")
def test_serve_starts_with_the_collector_off(monkeypatch: pytest.MonkeyPatch) -> None:
    from panic_lens import cli

    seen: list[tuple[bool, bool]] = []

    def dispatch(argv: list[str], collector_off: bool = False) -> int:
        seen.append((gc.isenabled(), collector_off))
        return 0

    monkeypatch.setattr(cli, "_dispatch", dispatch)
    cli.main(["explain", "x"])
    cli.main(["serve", "--stdio"])
    assert seen == [(True, False), (False, True)]


@pytest.mark.usefixtures("collector")
def test_a_collector_already_off_is_not_claimed_by_serve(monkeypatch: pytest.MonkeyPatch) -> None:
    from panic_lens import cli

    seen: list[bool] = []
    monkeypatch.setattr(
        cli, "_dispatch", lambda argv, collector_off=False: seen.append(collector_off) or 0
    )
    gc.disable()
    cli.main(["serve", "--stdio"])
    assert seen == [False]  # so the first publish will not turn it on


def test_serve_parser_has_only_serve_and_the_full_parser_all() -> None:
    from panic_lens import cli

    serve_only = cli.build_parser("serve")
    assert serve_only.parse_args(["serve", "--tcp", "9000"]).tcp == "9000"
    with pytest.raises(SystemExit):
        serve_only.parse_args(["check"])
    full = cli.build_parser()
    assert full.parse_args(["check", "x.rs"]).command == "check"
    assert full.parse_args(["serve", "--stdio"]).stdio


@pytest.mark.usefixtures("collector")
def test_the_first_publish_turns_the_collector_on_after_one_full_pass(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from panic_lens.lsp.session import FileResult, LineIndex, PanicLensServer
    from panic_lens.model import Analysis

    server = PanicLensServer()
    sent: list[tuple[str, dict[str, object]]] = []
    server.notify_json = lambda method, params: sent.append((method, params))  # type: ignore[method-assign]
    passes: list[int] = []
    real_collect = gc.collect
    monkeypatch.setattr(gc, "collect", lambda *a: passes.append(len(a)) or real_collect(*a))
    gc.disable()
    gc.set_threshold(50_000, 20, 100)
    server.collector_deferred = True
    result = FileResult("file:///a.rs", "/a.rs", 1, LineIndex.of("", "utf-16"), Analysis(), "r")

    async def publish_then_yield() -> None:
        server.publish(result)
        assert not gc.isenabled() and not passes  # not before the message is out
        await asyncio.sleep(0.01)

    asyncio.run(publish_then_yield())
    assert len(sent) == 1
    assert passes == [0]  # one full collection (no generation argument)
    assert gc.isenabled() and gc.get_threshold() == (700, 10, 10)
    assert not server.collector_deferred
    gc.set_threshold(50_000, 20, 100)
    gc.disable()
    server.start_collector()  # once only: a later change is left alone
    assert gc.get_threshold() == (50_000, 20, 100) and not gc.isenabled()
