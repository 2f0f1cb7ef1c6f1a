"""The table screen when seats change hands: a player away and back, a player returning to their seat
after a restart, and a player refused a seat who watches instead (headless, over a fake log)."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from types import SimpleNamespace
from typing import Any

import pytest

from kdm import session
from kdm.agents import Bot
from kdm.identity import Identity
from kdm.manager import Rules, installed_plugins
from kdm.net.admission import FREE_WRONG_PINS
from kdm.net.clock import monotonic_ms
from kdm.notices import Seated, Voided
from kdm.peer import Peer
from kdm.plugins.kilo.events import Feint
from kdm.plugins.kilo.screen.text import say
from kdm.record import REPLAYED
from kdm.session import BotProcess, SessionConfig
from kdm.testing import FakeLog
from kdm.tui import app
from kdm.tui.app import TableUI
from tests.helpers.tui import AGREED_OFFSET_MS, DEADLINE_S, Screen80x24, Table, run, run_real, until

KEYS = [Identity.ephemeral() for _ in range(4)]


@asynccontextmanager
async def keyed_table() -> AsyncIterator[Table]:
    """Four players, each with a key (so that a seat can be taken back), seat 0 on screen, passing."""
    log = FakeLog(agreed_offset_ms=AGREED_OFFSET_MS)
    installed = installed_plugins()
    peers = [Peer(log.node(f"n{i}"), installed, name=f"player{i}", identity=KEYS[i]) for i in range(4)]
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
    new = Peer(log.node(f"n{seat}b"), installed_plugins(), name=f"player{seat}", identity=KEYS[seat])
    log.peers = [new if peer is old else peer for peer in log.peers]
    t.peers[seat] = new
    new.start(takeover_after_s=None)
    new.table = "n0"
    for data in log.entries:
        new.committed(data)
    return new


def test_a_player_away_is_marked_and_what_the_stand_in_did_stays_its_own() -> None:
    async def scene() -> None:
        async with keyed_table() as t:
            t.log.peers.remove(t.peers[2])  # its process is gone: it hears nothing more
            t.peers[0].take_over(2, Bot(2, "greedy", seed=b"t"))
            await t.shows("player2 is away: bot 2 plays")
            assert re.search(r"2 player2 .* away", t.text())
            before, during = 0, t.state.seq
            await t.act(0, Feint(seat=0, t_sync=monotonic_ms()))  # an event while the bot stands in
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
            watcher = Peer(t.log.node("n9"), installed_plugins(), name="zoe", identity=Identity.ephemeral())
            t.log.peers.append(watcher)
            t.peers.append(watcher)
            watcher.start(takeover_after_s=None)
            for data in t.log.entries:
                watcher.committed(data)
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
            watcher = Peer(t.log.node("n9"), installed_plugins(), name="zoe")
            t.log.peers.append(watcher)
            t.peers.append(watcher)
            for data in t.log.entries:
                watcher.committed(data)
            t.open(4)
            watcher.join_table("n0")
            await t.shows("Watch the game without playing? (y/n)")
            await t.press("n", lambda: t.screen.left, "leaving")
            assert not t.screen.watching

    run(scene)


@pytest.mark.processes
def test_a_bot_added_from_any_screen_runs_here_where_this_process_reaches_the_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The bug: a bot asked for by anyone but the founder was bound to the founder's address. The bot
    runs on this laptop, whose one vote is this process's: it names this node as its laptop."""
    started: list[tuple[str, SessionConfig, str, str]] = []

    def spawn(
        contact: str, config: SessionConfig, seed: int, name: str = "", laptop: str = "", **_: Any
    ) -> Any:
        started.append((contact, config, name, laptop))
        return subprocess.Popen([sys.executable, "-c", "pass"])

    monkeypatch.setattr(app, "spawn_bot", spawn)

    async def scene() -> None:
        async with keyed_table() as t:
            ui = TableUI()
            ui.app = t.app
            config = SessionConfig(interface=None, name="zoe")
            joiner = SimpleNamespace(
                contact="10.0.0.2:41000", config=config, node=SimpleNamespace(node_id="10.0.0.3:42000~zoe")
            )
            assert ui._add_bot(joiner)  # type: ignore[arg-type]
            await ui.stop_bots()

    run_real(scene)
    ((contact, config, name, laptop),) = started
    assert contact == "10.0.0.2:41000" and config.interface is None and name == "bot 1 of zoe"
    assert laptop == "10.0.0.3:42000~zoe"


@pytest.mark.processes
def test_the_screen_says_when_its_bot_sits_and_why_one_could_not() -> None:
    async def scene() -> None:
        async with keyed_table() as t:
            t.screen.own_bots.add("player3")
            t.screen.on_notice(Seated(node="n3", seat=3))
            assert t.screen.message == "your bot sits at seat 3"
            with tempfile.TemporaryFile() as errors:
                failing = session.spawn_bot(
                    "127.0.0.1:9", SessionConfig(interface="127.0.0.1"), 1, errors=errors
                )
                await asyncio.to_thread(failing.wait, DEADLINE_S)
                bot = BotProcess(failing, "bot 1 of me", errors)
                assert bot.failure() == "no table answered at 127.0.0.1:9"
                assert bot.failure() == ""  # said once

    run_real(scene)


def test_a_stand_in_is_never_called_by_the_name_of_a_bot_seated_at_the_table() -> None:
    """``kdm play --bots 3`` seats bots named "bot 1" to "bot 3"; the stand-in for a player away at seat
    1 was called "bot 1" too, and the log said "bot 1" of two players at once."""

    async def scene() -> None:
        async with keyed_table() as t:
            t.peers[0].record.seats[3].name = "bot 2"  # a bot this table seated, as --bots names them
            t.log.peers.remove(t.peers[2])
            t.peers[0].take_over(2, Bot(2, "greedy", seed=b"t"))
            await t.shows("player2 is away: the bot for player2 plays")
            assert t.screen.name(2) == "the bot for player2" and t.screen.player_name(3) == "bot 2"

    run(scene)


def test_a_round_dealt_again_is_said_once_and_rightly_for_a_player_away_and_one_back() -> None:
    """At a fair table a seat that changes hands voids the round in play. The screen said "keys left
    with their laptop" on a return too, and said it for a change of hands between rounds, when nothing
    is dealt again."""

    async def scene() -> None:
        async with keyed_table() as t:
            t.log.peers.remove(t.peers[2])
            t.peers[0].take_over(2, Bot(2, "greedy", seed=b"t"))
            await t.shows("player2 is away")
            t.screen.on_notice(Voided(seat=2, reason="…", code=REPLAYED))
            t.screen.on_notice(Voided(seat=2, reason="…"))  # between rounds: nothing dealt
            restart(t, 2).join_table()
            await t.shows("player2 takes their seat back")
            t.screen.on_notice(Voided(seat=2, reason="…", code=REPLAYED))
            said = [line.text for line in t.screen.log if "dealt again" in line.text]
            assert len(said) == 2, said
            assert "player2's keys left with their laptop" in said[0]
            assert "player2 is back with new keys" in said[1]

    run(scene)


def test_a_stranded_table_says_who_it_misses_and_goes_on_when_the_player_presses_g() -> None:
    """The issue "A first evening that works": a screen that changed nothing for 15 s once the other
    laptop died. Told the table cannot commit (``TableSession._check_stranded``), the screen names the
    players on the laptops not heard from, in its log and on a line that stays; ``G`` goes on without
    them (a person decides: the session's forced reconfiguration), and the line goes once the table
    commits again."""
    decided: list[bool] = []

    async def scene() -> None:
        async with keyed_table() as t:
            t.screen.go_on = lambda: decided.append(True) or True
            assert not t.screen.go_on_without_them()  # nothing to go on from: the table commits
            t.screen.show_stranded(["player2", "bot 1 of player2"])
            await t.shows("no news from player2, bot 1 of player2: G goes on without them (bots play)")
            said = [line.text for line in t.screen.log]
            assert (
                said[-1]
                == "the table cannot go on without player2, bot 1 of player2: no news from their laptops"
            )
            assert not decided  # no timer decides for the player
            await t.press("G", lambda: bool(decided), "the player's decision")
            await t.shows("going on without player2, bot 1 of player2: bots play their seats")
            t.screen.show_stranded([])
            await until(lambda: "bots play their seats" not in t.text(), "the line gone")
            assert t.screen.log[-1].text == "the table goes on"

    run(scene)
    assert decided == [True]


def test_someone_guessing_the_pin_is_named_on_screen_in_english_and_french() -> None:
    """Issue 25: a stranger guessing the PIN is seen. Told by the session (``kdm.net.node`` tells it
    once the table slowed down), the screen says who and how slowly the table checks now."""

    async def scene() -> None:
        async with keyed_table() as t:
            t.screen.show_pin_guesses("10.0.0.7", 12, 20.0)
            await t.shows("someone at 10.0.0.7 tried 12 wrong PINs")
            assert t.screen.log[-1].text == (
                "someone at 10.0.0.7 tried 12 wrong PINs: one checked every 20 s"
            )

    run(scene)
    assert say("fr", "pin_guesses", host="10.0.0.7", count=12, seconds="20") == (
        "quelqu'un à 10.0.0.7 : 12 PIN faux, un seul vérifié par 20 s"
    )


def test_a_friend_at_the_door_is_named_and_l_lets_them_in_but_never_the_guesser() -> None:
    """Issue 25: while a stranger slows the PIN checks, a seated player lets a named friend in from their
    screen. Told who waits at the door (``Node.on_door``), the screen names the friend with their
    address; ``L`` lets them in (the session asks the leader); the guesser waiting too is never the one
    offered, and once the friend is in, the line goes."""
    let: list[str] = []

    async def scene() -> None:
        async with keyed_table() as t:
            t.screen.let_in = lambda joiner: let.append(joiner) or True
            t.screen.show_door("10.0.0.7:41000~key", "Bob", FREE_WRONG_PINS + 9, gone=False)
            assert t.screen.at_the_door is None  # the guesser: no key lets it in
            t.screen.show_door("10.0.0.5:42000~key", "Alice", 0, gone=False)
            await t.shows("Alice at 10.0.0.5 waits for the PIN check: L lets them in now")
            await t.press("L", lambda: bool(let), "the player's decision")
            assert let == ["10.0.0.5:42000~key"]
            assert t.screen.log[-1].text == "you let Alice in"
            await until(lambda: "waits at the door" not in t.text(), "the line gone")
            t.screen.show_door("10.0.0.5:42000~key", "", 0, gone=True)
            assert t.screen.at_the_door is None

    run(scene)


def test_a_leader_that_takes_no_moves_is_named_on_screen_in_english_and_french() -> None:
    """A leader that heartbeats but appends none of the moves given it (``kdm.net.node``): told by
    the session, the screen names the players on its laptop and says that another leader is chosen."""

    async def scene() -> None:
        async with keyed_table() as t:
            t.screen.show_distrust("player2")
            await t.shows("player2 leads but takes no moves")
            assert t.screen.log[-1].text == "player2 leads but takes no moves: choosing another leader"

    run(scene)
    assert say("fr", "distrust", names="player2") == (
        "player2 mène mais ne prend aucun coup : on choisit un autre meneur"
    )
