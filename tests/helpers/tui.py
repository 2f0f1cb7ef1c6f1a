"""Scenes of the terminal table, headless: pipe input, an 80×24 ``DummyOutput``, and a fake consensus.

Peers share a ``kdm.testing.FakeLog`` whose agreed clock is ``AGREED_OFFSET_MS`` from the local one (so
that a test can tell the two apart); seat 0 is played from the keyboard through the real ``TableApp``,
the other seats act when a test tells them to, so every scene is exact. What the player would see is
read from the renderer's last screen. Shared by the ``test_tui*`` modules and the Kem's screen's.
"""

from __future__ import annotations

import argparse
import asyncio
import string
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import ExitStack, asynccontextmanager
from typing import Any

from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.input.base import PipeInput
from prompt_toolkit.output import DummyOutput

from kdm.events import Event
from kdm.manager import Rules, installed_plugins
from kdm.peer import Peer
from kdm.plugins.kilo.events import Pass
from kdm.plugins.kilo.screen.state import KiloPlay
from kdm.testing import FakeLog, run_virtual
from kdm.tui.app import TableApp
from kdm.tui.command import add_play_parser
from kdm.tui.text import say

DEADLINE_S = 10.0
#: How far the fake agreed clock is from the local one.
AGREED_OFFSET_MS = 1000.0


class Screen80x24(DummyOutput):
    def __init__(self) -> None:
        self.size = Size(rows=24, columns=80)

    def get_size(self) -> Size:
        return self.size


async def until(condition: Callable[[], bool], what: str) -> None:
    """Wait for ``condition`` on the loop, failing after a deadline."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + DEADLINE_S
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.002)


class Table:
    """Peers at one table; seat ``me`` on screen (seat 0 unless the test sits elsewhere)."""

    def __init__(self, log: FakeLog, peers: list[Peer], lang: str, output: Any) -> None:
        self.log, self.peers, self.lang, self.output = log, peers, lang, output
        self.me = 0
        self.app: TableApp
        self.keys: PipeInput
        self._running: asyncio.Task[None] | None = None
        self._pipe = ExitStack()

    def open(self, seat: int, add_bot: Callable[[], bool] | None = None) -> None:
        """Show seat ``seat``'s screen, played from a fresh pipe of keys."""
        self.me, self.keys = seat, self._pipe.enter_context(create_pipe_input())
        self.app = TableApp(self.peers[seat], self.lang, input=self.keys, output=self.output, add_bot=add_bot)
        self._running = asyncio.get_running_loop().create_task(self.app.run(errors_on_screen=False))
        self.screen = self.app.screen

    async def close(self) -> None:
        if self._running is None:
            return
        future = self.app.application.future
        if future is None:
            self._running.cancel()  # the screen never got going: the test has failed already
        elif not future.done():
            self.app.application.exit()
        await asyncio.wait([self._running], timeout=DEADLINE_S)
        self._pipe.close()
        self._running = None

    async def sit(self, seat: int) -> None:
        """Play from seat ``seat`` instead: its peer's screen, opened on the game as it stands."""
        await self.close()
        self.open(seat)
        await self.shows(say(self.lang, "hand"))

    @property
    def play(self) -> KiloPlay:
        """The base game's part of the screen (its chosen card, the window's result): its game screen's."""
        game = self.app.game_screen()
        assert game is not None and isinstance(game.state, KiloPlay), "the base game's screen is not up"
        return game.state

    @property
    def state(self) -> Any:
        engine = self.peers[0].record.engine
        assert engine is not None
        return engine.state

    def text(self) -> str:
        """What the terminal shows now, as plain text."""
        rendered = self.app.application.renderer.last_rendered_screen
        if rendered is None:
            return ""  # not drawn yet, or drawn and closed
        size = self.app.application.output.get_size()
        rows = rendered.data_buffer
        return "\n".join(
            "".join(rows[y][x].char for x in range(size.columns)).rstrip() for y in range(size.rows)
        )

    async def press(self, keys: str, then: Callable[[], bool], what: str) -> None:
        self.keys.send_text(keys)
        await until(then, what)

    async def shows(self, text: str) -> None:
        """Wait until ``text`` is on screen (painted, not only applied)."""
        await until(lambda: text in self.text(), f"{text!r} on screen; the screen is:\n{self.text()}")

    async def act(self, seat: int, event: Event) -> None:
        seq = self.state.seq
        self.peers[seat].act(event)
        await until(lambda: self.state.seq > seq, f"seat {seat}'s {event.kind} applied")

    async def others_pass_until_my_turn(self) -> None:
        while not (self.state.phase == "passing" and self.state.turn == self.me):
            await until(lambda: self.state.phase == "passing", "passing")
            turn = self.state.turn
            if turn != self.me:
                await self.act(turn, Pass(seat=turn, token=self.state.hands[turn][0]))

    async def away_from_checkpoint(self) -> None:
        """Let the seat to move pass once, so that not every hand holds 4: a slap now is false."""
        turn = self.state.turn
        await self.act(turn, Pass(seat=turn, token=self.state.hands[turn][0]))
        await until(lambda: not self.state.rules["kilo"].checkpoint, "a pass away from the checkpoint")


async def seated_peers(
    players: int,
    options: dict[str, Any],
    rules: Rules,
    seated: int | None = None,
) -> tuple[FakeLog, list[Peer]]:
    """``players`` peers on one log, the first at the table « kitchen » it made with ``options`` and
    ``rules``, ``seated`` of them (all) seated."""
    seated = players if seated is None else seated
    log = FakeLog(agreed_offset_ms=AGREED_OFFSET_MS)
    installed = installed_plugins()
    peers = [Peer(log.node(f"n{i}"), installed, name=f"player{i}") for i in range(players)]
    log.peers = peers
    for peer in peers:
        peer.start(takeover_after_s=None)
    peers[0].create_table("kitchen", players, options, rules)
    for peer in peers[1:seated]:
        await asyncio.sleep(0)
        peer.join_table()
    await until(lambda: len(peers[0].record.seats) == seated, f"{seated} seats taken")
    return log, peers


@asynccontextmanager
async def table(
    lang: str = "en",
    output: Any = None,
    rounds: int = 3,
    seated: int | None = None,
    add_bot: Callable[[], bool] | None = None,
    variants: Sequence[str] = (),
    options: dict[str, Any] | None = None,
    players: int = 4,
) -> AsyncIterator[Table]:
    """``players`` peers (four) at a table playing ``variants`` with ``options``, seat 0 on screen; with
    fewer ``seated`` the screen opens on the waiting room and the game does not start."""
    seated = players if seated is None else seated
    # A test's key press comes within a few ms of the paint, quicker than any person: the table's
    # minimum reaction time (tested with the rules) would refuse it. The pauses for people (tested with
    # the rules and in tests/test_tempo.py) are off unless a test asks for them.
    chosen = {"rounds": rounds, "slap_timeout_ms": 500, "min_reaction_ms": 0, "checkpoint_ms": 0,
              "round_pause_ms": 0, **(options or {})}  # fmt: skip
    log, peers = await seated_peers(players, chosen, Rules.for_table(variants), seated)
    scene = Table(log, peers, lang, output or Screen80x24())
    scene.open(0, add_bot)
    try:
        if seated == players:
            peers[0].start_game()
            await until(lambda: peers[0].view() is not None and scene.state.phase == "passing", "passing")
            await scene.shows(say(lang, "hand"))
        else:
            await scene.shows(say(lang, "waiting_room"))
        yield scene
    finally:
        await scene.close()
        for peer in peers:
            await peer.stop()


async def _failing_on_loose_errors(scene: Callable[[], Awaitable[None]]) -> None:
    """``scene``, stopped at the first exception that reaches the event loop's handler (raised in a
    callback, or in a task nobody awaits: a peer applying an entry, the screen painting), which then
    fails the test with it: the scene would otherwise wait for its deadline, or for ever."""
    loop, main = asyncio.get_running_loop(), asyncio.current_task()
    assert main is not None
    loose: list[dict[str, Any]] = []

    def stop(_loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        loose.append(context)
        main.cancel()

    loop.set_exception_handler(stop)
    try:
        await asyncio.wait_for(scene(), 60)
    except asyncio.CancelledError:
        if not loose:
            raise
    finally:
        loop.set_exception_handler(None)
    if loose:
        first = loose[0]
        raise AssertionError(f"unhandled in the event loop: {first['message']}") from first.get("exception")


def run(scene: Callable[[], Awaitable[None]]) -> None:
    """Play ``scene`` on virtual time: the table's timers and the bots' thinking take no real time."""
    run_virtual(_failing_on_loose_errors(scene))


def run_real(scene: Callable[[], Awaitable[None]]) -> None:
    """Play ``scene`` on the real clock: for a scene that waits on a real process (virtual time would
    jump to its deadline while the process runs)."""
    asyncio.run(_failing_on_loose_errors(scene))


def hand_faces(scene: Table) -> list[str]:
    view = scene.peers[scene.me].view()
    assert view is not None
    return [face for _token, face in view.hand if face]


def assert_both_languages(catalogue: Mapping[str, tuple[str, str]]) -> None:
    """Every string of ``catalogue`` exists in English and French, with the same fields, in 80 columns."""
    fields = string.Formatter()
    for key, (english, french) in catalogue.items():
        assert english and french, key
        names_en = {name for _lit, name, _spec, _conv in fields.parse(english) if name}
        names_fr = {name for _lit, name, _spec, _conv in fields.parse(french) if name}
        assert names_en == names_fr, key
        for line in (english + "\n" + french).splitlines():
            assert len(line) <= 78, f"{key}: {line!r} does not fit 80 columns"


def play_args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="kdm")
    add_play_parser(parser.add_subparsers(dest="command", required=True))
    return parser.parse_args(["play", *argv])
