"""The table screen when seats change hands: a player away and back, a player returning to their seat
after a restart, and a player refused a seat who watches instead (headless, over a fake log)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import msgpack

from kdm.bots import Bot
from kdm.events import Feint
from kdm.identity import Identity
from kdm.manager import Rules, installed_plugins
from kdm.peer import Peer, local_time_ms
from kdm.tui.text import say
from tests.test_tui import FakeLog, FakeNode, Screen80x24, Table, run, until

KEYS = [Identity.ephemeral() for _ in range(4)]


@asynccontextmanager
async def keyed_table() -> AsyncIterator[Table]:
    """Four players, each with a key (so that a seat can be taken back), seat 0 on screen, passing."""
    log = FakeLog()
    installed = installed_plugins()
    peers = [Peer(FakeNode(log, f"n{i}"), installed, name=f"player{i}", identity=KEYS[i]) for i in range(4)]
    log.peers = peers
    for peer in peers:
        peer.start(takeover_after_s=None)
    peers[0].create_table("kitchen", 4, {"rounds": 3, "slap_timeout_ms": 500}, Rules.for_table())
    for peer in peers[1:]:
        await asyncio.sleep(0)
        peer.join_table("n0")
    await until(lambda: len(peers[0].record.seats) == 4, "four seats taken")
    scene = Table(log, peers, "en", Screen80x24())
    scene.open(0)
    try:
        peers[0].start_game()
        await until(lambda: peers[0].view() is not None and scene.state.phase == "passing", "passing")
        await scene.shows(say("en", "hand"))
        yield scene
    finally:
        await scene.close()
        for peer in log.peers:
            await peer.stop()


def restart(t: Table, seat: int) -> Peer:
    """``seat``'s process dies and its player starts kdm again: a new node, the same key, the log read."""
    log = t.log
    old = t.peers[seat]
    new = Peer(FakeNode(log, f"n{seat}b"), installed_plugins(), name=f"player{seat}", identity=KEYS[seat])
    log.peers = [new if peer is old else peer for peer in log.peers]
    t.peers[seat] = new
    new.start(takeover_after_s=None)
    new.table = "n0"
    for entry in log.entries:
        new.committed(msgpack.packb(entry, use_bin_type=True))
    return new


def test_a_player_away_is_marked_and_what_the_stand_in_did_stays_its_own() -> None:
    async def scene() -> None:
        async with keyed_table() as t:
            t.log.peers.remove(t.peers[2])  # its process is gone: it hears nothing more
            t.peers[0].take_over(2, Bot(2, "greedy", seed=b"t"))
            await t.shows("player2 is away: bot 2 plays")
            assert re.search(r"2 player2 .* away", t.text())
            before, during = 0, t.state.seq
            await t.act(0, Feint(seat=0, t_sync=local_time_ms()))  # an event while the bot stands in
            assert t.screen.name(2) == "bot 2"  # who acts for the seat now
            restart(t, 2).join_table()
            await t.shows("player2 takes their seat back")
            assert not re.search(r"2 player2 .* away", t.text())
            assert t.peers[2].seat == 2 and t.peers[2].rejoined
            # What was done at the seat stays under the name of whoever did it.
            names = [t.screen.name(2, before), t.screen.name(2, during), t.screen.name(2)]
            assert names == ["player2", "bot 2", "player2"]

    run(scene)


def test_the_player_who_comes_back_sees_their_seat_again() -> None:
    async def scene() -> None:
        async with keyed_table() as t:
            await t.close()
            back = restart(t, 2)
            t.open(2)
            back.join_table()
            await t.shows("you take your seat back, player2")
            await t.shows(say("en", "hand"))
            assert "player2 (you)" in t.text()

    run(scene)


def test_a_player_refused_a_seat_watches_the_public_table_and_no_hand() -> None:
    async def scene() -> None:
        async with keyed_table() as t:
            await t.close()
            watcher = Peer(
                FakeNode(t.log, "n9"), installed_plugins(), name="zoe", identity=Identity.ephemeral()
            )
            t.log.peers.append(watcher)
            t.peers.append(watcher)
            watcher.start(takeover_after_s=None)
            for entry in t.log.entries:
                watcher.committed(msgpack.packb(entry, use_bin_type=True))
            t.open(4)
            watcher.join_table("n0")
            await t.shows("Watch the game without playing? (y/n)")
            assert "the game has already started" in t.text()
            await t.press("y", lambda: t.screen.watching, "watching")
            await t.shows("you are watching")
            text = t.text()
            assert "player0" in text and "player3" in text and "(you)" not in text
            assert say("en", "hand") not in text  # no hand on a spectator's screen
            await t.press("q", lambda: t.screen.left, "a spectator leaves without a question")

    run(scene)


def test_a_player_refused_a_seat_may_leave_instead() -> None:
    async def scene() -> None:
        async with keyed_table() as t:
            await t.close()
            watcher = Peer(FakeNode(t.log, "n9"), installed_plugins(), name="zoe")
            t.log.peers.append(watcher)
            t.peers.append(watcher)
            for entry in t.log.entries:
                watcher.committed(msgpack.packb(entry, use_bin_type=True))
            t.open(4)
            watcher.join_table("n0")
            await t.shows("Watch the game without playing? (y/n)")
            await t.press("n", lambda: t.screen.left, "leaving")
            assert not t.screen.watching

    run(scene)
