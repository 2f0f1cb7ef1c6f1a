"""The Kem's screen over the fake consensus (``tests/helpers/tui.py``): a table of peers with seat 0 on
screen while the teams choose their signs, and the steps that take a scene on to the hunt.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from kdm.manager import Rules
from kdm.plugins.kems.events import TeamReady
from kdm.plugins.kems.rules import kems
from kdm.plugins.kems.screen.state import KemsPlay
from kdm.plugins.kems.screen.text import say
from kdm.tui.panels import LEFT_COLUMN
from tests.helpers.tui import (
    Screen80x24,
    Table,
    seated_peers,
    until,
)

#: Timers out of the way unless a test wants them: no sweep question by itself; a call is judged at once.
#: A test's key press comes within a few ms of the paint, quicker than the table's minimum reaction.
QUIET_TABLE = {"sweep_after_ms": 600_000, "call_window_ms": 0, "min_reaction_ms": 0}


@asynccontextmanager
async def kems_table(
    lang: str = "en", output: Any = None, options: dict[str, Any] | None = None, players: int = 4
) -> AsyncIterator[Table]:
    """``players`` peers playing Kem's with ``options``, seat 0 on screen while the teams choose their
    signs, before the game (RULES 3.2): ``agree_sign`` goes on to the hunt."""
    chosen = {**QUIET_TABLE, **(options or {})}
    log, peers = await seated_peers(players, chosen, Rules.for_table(["kems"]))
    scene = Table(log, peers, lang, output or Screen80x24())
    scene.open(0)
    try:
        peers[0].start_game()
        await until(lambda: peers[0].view() is not None and scene.state.phase == "signing", "the signs' time")
        await scene.shows(say(lang, "hand"))
        yield scene
    finally:
        await scene.close()
        for peer in peers:
            await peer.stop()


def play(t: Table) -> KemsPlay:
    """What the Kem's screen holds between key presses (it is showing)."""
    game = t.app.game_screen()
    assert game is not None and isinstance(game.state, KemsPlay), "the Kem's screen is not showing"
    return game.state


async def agree_sign(t: Table, keys: str = "c") -> None:
    """Seat 0's sign chooser opened by itself: choose with ``keys`` (winks by default) and send it; the
    other teams agree theirs, and the game begins (the hunt is open)."""
    await t.shows(say(t.screen.lang, "signs_title"))
    await t.press(keys + "\r", lambda: not play(t).signs_open, "the sign sent")
    await others_agree(t)


async def others_agree(t: Table) -> None:
    """The other teams' first seats say their signs are agreed: the game begins (the hunt opens)."""
    await until(lambda: 0 in kems(t.state).agreed, "our team's agreement committed")
    for seat in range(1, t.state.players // 2):
        await t.act(seat, TeamReady(seat=seat))
    await until(lambda: t.state.phase == "hunt", "the hunt")


def left_column(t: Table) -> str:
    """The players and table panels as one line of words (their lines wrap at the column's width)."""
    return " ".join(" ".join(line[:LEFT_COLUMN].split()) for line in t.text().splitlines())


async def left_shows(t: Table, text: str) -> None:
    await until(lambda: text in left_column(t), f"{text!r} on the left; the screen is:\n{t.text()}")
