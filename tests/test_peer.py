"""Peers over a fake consensus: the table record, commit-reveal seeds, duties and bots, without a network.

``kdm.testing.FakeLog`` commits every proposal at once, in one order, and delivers it to every peer: what
Raft gives, minus the network. Several peers with bots play a whole game and end with the same digest.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable
from typing import Any

import msgpack
import pytest

from kdm import entries
from kdm.agents import Bot, Profile
from kdm.entries import Act, Chat, EntryId, Takeover, Vouch
from kdm.events import Event
from kdm.host import Input, Output, Tick
from kdm.host.io import Propose
from kdm.host.proposals import RELAY_T_SYNC_BOUND_MS
from kdm.identity import Identity
from kdm.manager import Rules, installed_plugins
from kdm.net.clock import ClockEstimator, ClockSample, monotonic_ms
from kdm.net.keys import NodeKeys, new_keys
from kdm.notices import Created, Rejected, Seated, TookOver
from kdm.peer import CHAT_BURST, CHAT_WINDOW_MS, CLOCK_SETTLE_MS, RETRY_S, Peer
from kdm.plugins.kilo.events import Slap
from kdm.record import TableRecord, commitment
from kdm.replay import replayed
from kdm.testing import FakeLog, FakeNode, run_virtual
from tests.helpers.peers import bot_peers, quick_bot
from tests.modified_clients import lying_once


async def seat_everyone(peers: list[Peer], options: dict[str, Any], table: str = "") -> None:
    """The first peer creates « kitchen » with ``options`` (the base game), the others join it (at
    ``table``, its id, when given: a claim with the player's key), until every seat is taken."""
    peers[0].create_table("kitchen", len(peers), options, Rules.for_table())
    await asyncio.sleep(0)
    for peer in peers[1:]:
        peer.join_table(table)
    while len(peers[0].record.seats) < len(peers):
        await asyncio.sleep(0.001)


async def seated_table(**start: Any) -> list[Peer]:
    """Four peers on one fake log, ``n0`` leading, started (with ``start``) and seated at a one-round
    table of the base game."""
    log = FakeLog()
    peers = [Peer(log.node(f"n{i}"), installed_plugins()) for i in range(4)]
    log.peers, log.leader = peers, "n0"
    for peer in peers:
        peer.start(**start)
    await seat_everyone(peers, {"rounds": 1})
    return peers


async def play(
    players: int,
    rounds: int,
    kill: int | None = None,
    before_start: Callable[[list[Peer]], None] | None = None,
) -> list[Peer]:
    """A whole game between bot peers; ``kill`` names a seat whose process dies in round 2;
    ``before_start`` sees the peers once every seat is taken."""
    log = FakeLog()
    peers = bot_peers(log, players, b"peer-test")
    for peer in peers:
        peer.start(takeover_after_s=0.2)
    await seat_everyone(peers, {"rounds": rounds, "slap_timeout_ms": 200})
    if before_start is not None:
        before_start(peers)
    peers[0].start_game()
    survivors = peers
    if kill is not None:
        while peers[0].record.engine is None or peers[0].record.engine.state.round < 2:
            await asyncio.sleep(0.001)
        victim = peers[kill]
        log.gone.add(victim.node.node_id)
        await victim.stop()
        survivors = [peer for peer in peers if peer is not victim]
        log.leader = survivors[0].node.node_id  # if the leader died, the next one leads
    await asyncio.wait_for(asyncio.gather(*(p.finished.wait() for p in survivors)), timeout=60)
    for peer in survivors:
        await peer.stop()
    return survivors


@pytest.mark.parametrize(("lost", "election_s"), [(2, 0.0), (0, 0.7)])
def test_a_lost_seat_that_must_act_is_played_within_two_seconds_of_its_silence(
    lost: int, election_s: float
) -> None:
    """A seat's process dies when it is that seat's turn to pass (its player was slow to choose): with
    the peers' default watch, a stand-in passes for it within 2 s of the last thing heard from it. Seat
    2's process is a follower; seat 0's leads, and the next leader is elected 0.7 s after it died (a
    failover here takes 0.55–0.9 s): it heard the old leader to the end, so it takes that seat without
    first waiting to hear the others."""

    async def scene() -> float:
        log = FakeLog()
        peers = []
        for i in range(4):
            bot = Bot(i, "greedy", seed=b"stall-test")
            slow = i == lost  # the seat is still thinking when its process dies
            bot.profile = Profile(
                reaction_ms=200, reaction_spread_ms=5, think_ms=(60_000, 60_001) if slow else (300, 600)
            )
            peers.append(Peer(log.node(f"n{i}"), installed_plugins(), bot=bot))
        log.peers, log.leader = peers, "n0"
        for peer in peers:
            peer.start()
        await seat_everyone(peers, {"rounds": 2})
        peers[0].start_game()
        watcher = peers[1]
        state = lambda: watcher.record.engine.state  # type: ignore[union-attr]  # noqa: E731
        while watcher.record.engine is None or not (state().phase == "passing" and state().turn == lost):
            await asyncio.sleep(0.001)
        seq, died = state().seq, monotonic_ms()
        log.gone.add(f"n{lost}")
        log.silent_since[f"n{lost}"] = died
        await peers[lost].stop()
        if lost == 0:
            log.leader = ""  # an election
            await asyncio.sleep(election_s)
            log.leader = "n1"
        while not (state().seq > seq and state().turn != lost):  # the seat passed (its stand-in did)
            await asyncio.sleep(0.001)
        assert watcher.record.seats[lost].node == f"{log.leader}#{lost}"
        stall = monotonic_ms() - died
        for peer in peers:
            if peer is not peers[lost]:
                await peer.stop()
        return stall

    stall_ms = run_virtual(scene())
    assert stall_ms <= 2000.0, f"seat {lost} stood still {stall_ms:.0f} ms"


def test_the_leader_takes_no_takeover_from_another_and_no_press_timed_far_from_its_clock() -> None:
    """Issue 12: what only the leader can check, it checks before an entry goes in the log. Another
    seated node's takeover is refused (a stand-in is the leader's call); so is a slap whose agreed time
    is seconds from the leader's clock when it arrives (forged: a trip takes milliseconds), once the
    others have had time to learn that clock."""

    async def scene() -> list[str | None]:
        peers = await seated_table()
        peers[0].start_game()
        codec = peers[0].record.rules.codec

        def slap(off_ms: float) -> bytes:
            event = codec.encode(Slap(seat=1, t_sync=monotonic_ms() + off_ms))
            return entries.encode(Act(EntryId("n1", 99), event=event))

        takeover = entries.encode(Takeover(EntryId("n1#2", 1), seat=2, commit=bytes(32)))
        early = [peers[0].screen_proposal("n1", slap(-5000.0))]  # the leader just started leading
        await asyncio.sleep(CLOCK_SETTLE_MS / 1000 + 1)
        screened = [
            peers[0].screen_proposal("n1", data)
            for data in (takeover, slap(-5000.0), slap(4000.0), slap(-40.0))
        ]
        for peer in peers:
            await peer.stop()
        return early + screened

    early, takeover, forged_early, forged_late, honest = run_virtual(scene())
    assert early is None and honest is None
    assert takeover == "only the leader takes a seat over"
    assert forged_early == "a press timed -5000 ms from the leader's clock (at most 1000 ms off)"
    assert forged_late == "a press timed +4000 ms from the leader's clock (at most 1000 ms off)"


def test_a_voter_relays_to_the_leader_only_what_an_honest_leader_takes() -> None:
    """A voter gives the leader what another voter relays (its leader did not append it in time) and
    holds it against the leader if it never comes (``kdm.net.node``, a leader that stalls): so it
    relays nothing an honest leader could refuse, or a cheater's relays would depose honest leaders.
    Chat lines, takeovers, copies of entries in the log and a seatless node's relays are refused; a
    press only within ``RELAY_T_SYNC_BOUND_MS`` of the agreed clock, which the leader, a trip later,
    takes; and whatever the relay screen lets through, the leader's screen does too, after a hiccup of
    950 ms as well (``RELAYED_T_SYNC_BOUND_MS``: before, a hiccup of 300 ms had an honest leader refuse
    presses a cheater relayed near the bound, and the voters that watched them depose it). The press's
    own author still has the leader's 1 s."""

    Compared = list[tuple[float, str | None, str | None, str | None]]

    async def scene() -> tuple[list[str | None], Compared, list[str | None], bool, bool]:
        peers = await seated_table()
        peers[0].start_game()
        await asyncio.sleep(CLOCK_SETTLE_MS / 1000 + 1)
        leader, voter = peers[0], peers[2]
        codec = leader.record.rules.codec

        def slap(off_ms: float, counter: int = 99) -> bytes:
            event = codec.encode(Slap(seat=1, t_sync=monotonic_ms() + off_ms))
            return entries.encode(Act(EntryId("n1", counter), event=event))

        chat = entries.encode(Chat(EntryId("n1", 98), seat=1, text="hello"))
        takeover = entries.encode(Takeover(EntryId("n1#2", 1), seat=2, commit=bytes(32)))
        applied = next(iter(voter.record.applied_ids))
        copy = entries.encode(Act(EntryId(*applied), event=codec.encode(Slap(seat=0, t_sync=monotonic_ms()))))
        refusals = [
            voter.screen_relay("n1", data) for data in (chat, takeover, copy, slap(0.0), b"\x00nonsense")
        ]
        refusals.append(voter.screen_relay("stranger:1", slap(0.0)))
        compared = []
        for off in range(-1500, 1501, 100):
            relayed = voter.screen_relay("n1", slap(off, 100 + off))
            await asyncio.sleep(0.05)  # a trip to the leader
            at_the_leader = leader.screen_proposal("n3", slap(off - 50, 100 + off))
            after_a_hiccup = leader.screen_proposal("n3", slap(off - 50 - 950, 100 + off))
            compared.append((off, relayed, at_the_leader, after_a_hiccup))
        # the same press, 1.1 s and 1.8 s old, from its author and relayed by another voter
        bounds = [
            leader.screen_proposal(sender, slap(off)) for off in (-1100, -1800) for sender in ("n1", "n3")
        ]
        settled = voter.settled(copy), voter.settled(slap(0.0))
        for peer in peers:
            await peer.stop()
        return refusals, compared, bounds, *settled

    refusals, compared, bounds, copy_settled, fresh_settled = run_virtual(scene())
    chat, takeover, copy, fresh, nonsense, stranger = refusals
    assert chat is not None and "chat line" in chat
    assert takeover is not None and "only the leader" in takeover
    assert copy == "already in the log" and copy_settled and not fresh_settled
    assert fresh is None and nonsense is not None and nonsense.startswith("not an entry")
    assert stranger == "a node without a seat relays nothing"
    for off, relayed, at_the_leader, after_a_hiccup in compared:
        assert (relayed is None) == (abs(off) <= RELAY_T_SYNC_BOUND_MS), (off, relayed)
        if relayed is None:
            assert at_the_leader is None and after_a_hiccup is None, (off, at_the_leader, after_a_hiccup)
    assert any(at_the_leader is None and relayed is not None for _, relayed, at_the_leader, _ in compared)
    author_late, relayed_late, author_older, relayed_older = bounds
    assert author_late == "a press timed -1100 ms from the leader's clock (at most 1000 ms off)"
    assert relayed_late is None
    assert author_older is not None and relayed_older == (
        "a press timed -1800 ms from the leader's clock (at most 1700 ms off)"
    )


def test_a_press_announced_to_the_voters_is_made_whether_its_author_proposes_it_or_not(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The word a presser sends the voters (``PRESSED``) carries its signed entry, and binds: every voter
    proposes the press at once, so a press its author announced and did not propose is judged by the
    table all the same. Before, the word was a digest and bound the author to nothing: a modified kdm
    announced a slap every few tens of milliseconds, proposed none, and once another seat opened a
    window proposed the last it announced before, counted as made then. A word whose entry is not the
    press it names, or whose press is timed further from the agreed clock than a relay is given on (a
    press forged seconds early: the leader's own copy would pass it unscreened), or is over the entry
    limit, is dropped with its reason by every voter: no early stamp, and nothing proposed."""
    caplog.set_level(logging.INFO, logger="kdm.peer")

    async def scene() -> tuple[list[bool], list[list[bool]], list[bool], list[bool]]:
        peers = await seated_table()
        peers[0].start_game()
        await asyncio.sleep(CLOCK_SETTLE_MS / 1000 + 1)  # every voter knows the agreed clock
        author = peers[1].host
        assert author.seat is not None and author.record.engine is not None

        def announced(counter: int, off_ms: float = 0.0, pad: int = 0) -> tuple[Any, dict[str, Any], bytes]:
            assert author.seat is not None and author.record.engine is not None
            slap = Slap(seat=author.seat, t_sync=author.clock.agreed_ms() + off_ms,
                        round=author.record.engine.state.round)  # fmt: skip
            event = author.record.rules.codec.encode(slap)
            key = (author.me.identity, counter)
            data = entries.encode(Act(EntryId(*key), event=event), author.sign, author.table)
            if pad:  # a field nothing reads, to make the word larger than an entry may be
                data = msgpack.packb(
                    {**msgpack.unpackb(data, raw=False), "pad": b"x" * pad}, use_bin_type=True
                )
            return key, event, data

        key, event, data = announced(10_000)
        author.stamps.pressed(author.me, key, event, data)  # the word, and no proposal
        bad = [announced(10_001), announced(10_002, off_ms=-5000.0), announced(10_003, pad=20_000)]
        misnamed_key = bad[0][0]
        author.stamps.pressed(author.me, misnamed_key, event, data)  # names another press than its entry
        for bad_key, bad_event, bad_data in bad[1:]:
            author.stamps.pressed(author.me, bad_key, bad_event, bad_data)
        peers[1].flush()
        await asyncio.sleep(0.2)
        heard = [key in peer.host.stamps.heard for peer in peers if peer is not peers[1]]
        dropped = [
            [bad_key in peer.host.stamps.heard for peer in peers if peer is not peers[1]]
            for bad_key, *_ in bad
        ]
        judged = [key in peer.record.applied_ids or key in peer.record.refused_ids for peer in peers]
        await asyncio.sleep(1.0)
        judged_bad = [
            bad_key in peer.record.applied_ids or bad_key in peer.record.refused_ids
            for peer in peers for bad_key, *_ in bad
        ]  # fmt: skip
        for peer in peers:
            await peer.stop()
        return heard, dropped, judged, judged_bad

    heard, dropped, judged, judged_bad = run_virtual(scene())
    assert heard == [True] * 3 and dropped == [[False] * 3] * 3
    assert judged == [True] * 4 and not any(judged_bad)
    said = [record.getMessage() for record in caplog.records]
    for reason in ("its entry is not the press it names", "ms from the agreed clock", "bytes"):
        assert sum(reason in line for line in said) == 3, (reason, said)


@pytest.mark.parametrize("swapped", [False, True])
def test_an_early_stamp_counts_only_for_the_very_press_announced(swapped: bool) -> None:
    """A voter stamps a press as made when its word reached it only if the log holds, under its id, the
    entry the word carried. The author announces a slap (with keys the table refuses, when ``swapped``),
    the voters' own copies are lost on the way (as a leader that holds them would lose them), and 200 ms
    later the author proposes the clean slap under the same id: it is the one the log holds. Its stamps
    say it was seen when the log held it, not when the word came: a swap buys nothing. The slap
    announced as it is proposed keeps the word's time."""

    async def scene() -> tuple[list[int], dict[str, int], float]:
        peers = await seated_table()
        peers[0].start_game()
        await asyncio.sleep(CLOCK_SETTLE_MS / 1000 + 1)
        author, log = peers[1].host, peers[1].node.log  # type: ignore[attr-defined]
        assert author.seat is not None and author.record.engine is not None
        slap = Slap(seat=author.seat, t_sync=author.clock.agreed_ms(), round=author.record.engine.state.round)
        event = author.record.rules.codec.encode(slap)
        author.me.counter += 1
        key = (author.me.identity, author.me.counter)
        clean = entries.encode(Act(EntryId(*key), event=event), author.sign, author.table)
        said = entries.encode(Act(EntryId(*key), event=event, keys=b"junk"), author.sign, author.table)
        voters = {peer.node.node_id for peer in peers if peer is not peers[1]}
        log.unheard |= voters  # their copies of the word's press never reach the log
        author.stamps.pressed(author.me, key, event, said if swapped else clean)
        peers[1].flush()
        await asyncio.sleep(0.2)
        log.unheard.clear()
        author.out.append(Propose(clean))
        peers[1].flush()
        await asyncio.sleep(0.5)
        vouches = [
            row
            for row in log.decoded()
            if row.get("t") == Vouch.TYPE and (row["press"], row["counter"]) == key
        ]
        heard = {
            peer.node.node_id: round(peer.host.stamps.heard[key][1] * 1000)
            for peer in peers
            if key in peer.host.stamps.heard
        }
        for peer in peers:
            await peer.stop()
        return [vouch["seen_us"] - heard[vouch["id"][0]] for vouch in vouches], heard, slap.t_sync

    late, heard, _t_sync = run_virtual(scene())
    assert len(late) == 3 and len(heard) == 3
    if swapped:
        assert all(lateness >= 150_000 for lateness in late), late  # µs: stamped when the log held it
    else:
        assert late == [0, 0, 0]


def test_a_leader_that_was_stopped_takes_presses_as_old_as_its_stop_and_no_older() -> None:
    """Found by tests/test_adversary.py on a busy machine: a leader whose own loop was stopped or
    starved past ``STALL_FACTOR`` started its clock's settling over, and for 3 s took any press time,
    a cheater's forged one too. The others' estimates of its clock still hold after its stop; what
    differs is that presses made meanwhile reach it as late as it was stopped long."""

    async def scene() -> list[str | None]:
        peers = await seated_table(takeover_after_s=None)  # the test looks at the seats for the leader
        peers[0].start_game()
        leader, codec = peers[0], peers[0].record.rules.codec
        leader.host.takeovers.look_at_seats(1.2, late=False)
        leader.flush()

        def slap(off_ms: float) -> bytes:
            event = codec.encode(Slap(seat=1, t_sync=monotonic_ms() + off_ms))
            return entries.encode(Act(EntryId("n1", 99), event=event))

        await asyncio.sleep(CLOCK_SETTLE_MS / 1000 + 1)
        leader.host.takeovers.look_at_seats(1.2, late=True, slept_ms=2000.0)  # it was stopped for 2 s
        leader.flush()
        screened = [leader.screen_proposal("n1", slap(off)) for off in (-2500.0, -5000.0, 1500.0)]
        await asyncio.sleep(CLOCK_SETTLE_MS / 1000 + 0.5)  # long after it woke
        screened.append(leader.screen_proposal("n1", slap(-2500.0)))
        for peer in peers:
            await peer.stop()
        return screened

    made_while_stopped, forged, ahead, late = run_virtual(scene())
    assert made_while_stopped is None
    assert forged == "a press timed -5000 ms from the leader's clock (at most 3000 ms off)"
    assert ahead == "a press timed +1500 ms from the leader's clock (at most 1000 ms off)"
    assert late == "a press timed -2500 ms from the leader's clock (at most 1000 ms off)"


def test_bot_peers_play_a_game_to_the_same_digest() -> None:
    peers = run_virtual(play(4, 3))
    digests = {peer.record.engine.digest() for peer in peers}  # type: ignore[union-attr]
    assert len(digests) == 1
    engine = peers[0].record.engine
    assert engine is not None and engine.over and engine.state.round == 3
    assert [peer.seat for peer in peers] == [0, 1, 2, 3]


def test_a_gone_players_seat_is_taken_over_and_the_game_finishes() -> None:
    survivors = run_virtual(play(4, 3, kill=2))
    assert len({peer.record.engine.digest() for peer in survivors}) == 1  # type: ignore[union-attr]
    record = survivors[0].record
    assert record.engine is not None and record.engine.over and record.engine.state.round == 3
    assert record.seats[2].node == "n0#2"  # the leader's process plays seat 2 now
    assert [agent.seat for agent in survivors[0].agents] == [0, 2]


def test_a_seat_that_shows_false_faces_is_refused_by_every_peer_and_the_game_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Issue 12, checked claims: with the open deck every peer knows the faces, so a seat that calls,
    draws or shows a card it was not dealt is refused the same way everywhere, and plays on honestly.
    Every process lies once, at the first card it reveals (someone calls a queen in the first round)."""
    lies: list[Event] = []
    with caplog.at_level(logging.INFO, logger="kdm.peer"):
        peers = run_virtual(play(4, 3, before_start=lambda peers: lying_once(peers, lies)))
    assert lies
    assert len({peer.record.engine.digest() for peer in peers}) == 1  # type: ignore[union-attr]
    # A drawn card or a shown hand names its faces (kdm_claimed_faces): refused for the card it misnames.
    refusals = caplog.text.count(": it claims faces that are not the ones dealt") + len(
        re.findall(r": it names card \d+ \S+, but card \d+ is", caplog.text)
    )
    assert refusals == 4 * len(lies)  # by every peer, the liar's own included
    # A replay of the log refuses the lies too, and ends where the table did: it applied them once.
    assert isinstance(peers[0].node, FakeNode)
    table, replay = peers[0].record.engine, replayed(peers[0].node.log.entries).engine
    assert table is not None and replay is not None and replay.digest() == table.digest()


def test_a_reveal_on_its_way_is_not_proposed_again_when_another_entry_of_its_seat_is_refused() -> None:
    """Found by tests/test_adversary.py: any refusal of a seat's entry made its process owe again every
    reveal of that moment, so a reveal already on its way was proposed twice, and the second, judged
    once the table had moved on, was refused as a lie ("claims faces that are not the ones dealt")."""

    class HeldLog(FakeLog):
        held: list[bytes] | None = None

        def commit(self, data: bytes) -> None:
            if self.held is None:
                super().commit(data)
            else:
                self.held.append(data)

    def called(data: list[bytes]) -> list[str]:
        """The queens called in ``data``, in order."""
        events = [getattr(entries.decode(item), "event", {}) for item in data]
        return [event["card"] for event in events if event.get("kind") == "announce"]

    async def scene() -> list[bytes]:
        log = HeldLog()
        peers = [Peer(log.node(f"n{i}"), installed_plugins()) for i in range(3)]
        log.peers, log.leader = peers, "n0"
        await seat_everyone(peers, {"rounds": 1})
        log.held = []
        peers[0].start_game()
        while not called(log.held):  # each held entry committed in turn, until a queen is called
            FakeLog.commit(log, log.held.pop(0))
            for _ in range(10):
                await asyncio.sleep(0)
        first = next(i for i, item in enumerate(log.held) if called([item]))
        caller = next(peer for peer in peers if peer.node.node_id == entries.decode(log.held[first]).id.node)
        caller.act(Slap(seat=caller.seat or 0))  # no slapping while the queens are called: refused
        log.held.insert(first, log.held.pop())  # ... and committed before the call on its way
        held, log.held = log.held, None
        for data in held:
            log.commit(data)
        for _ in range(100):
            await asyncio.sleep(0)
        return [data for data in log.entries if entries.decode(data).id.node == caller.node.node_id]

    cards = called(run_virtual(scene()))
    assert cards and len(cards) == len(set(cards)), cards  # each queen it holds, called once


def test_the_leaders_seat_is_taken_over_by_the_next_leader() -> None:
    survivors = run_virtual(play(4, 3, kill=0))
    assert len({peer.record.engine.digest() for peer in survivors}) == 1  # type: ignore[union-attr]
    assert survivors[0].record.seats[0].node == "n1#0"


def test_a_player_cut_off_gets_their_seat_back_when_they_hear_the_table_again() -> None:
    """A laptop that sleeps or loses Wi-Fi: a bot stands in meanwhile, then the player plays again."""

    async def scene() -> list[Peer]:
        log = FakeLog()
        peers = bot_peers(log, 4, b"peer-test")
        for peer in peers:
            peer.start(takeover_after_s=0.2)
        await seat_everyone(peers, {"rounds": 3, "slap_timeout_ms": 200}, table="n0")
        peers[0].start_game()
        while peers[0].record.engine is None or peers[0].record.engine.state.round < 2:
            await asyncio.sleep(0.001)
        log.gone.add("n2")
        while not peers[0].record.seats[2].away:
            await asyncio.sleep(0.001)  # the leader hears nothing from n2: a bot stands in
        stood_in = peers[0].record.engine.state.seq  # type: ignore[union-attr]
        while peers[0].record.engine.state.seq < stood_in + 10:  # type: ignore[union-attr]
            await asyncio.sleep(0.001)  # ... and plays a while
        log.come_back("n2")
        await asyncio.wait_for(asyncio.gather(*(p.finished.wait() for p in peers)), timeout=60)
        for peer in peers:
            await peer.stop()
        return peers

    peers = run_virtual(scene())
    assert len({peer.record.engine.digest() for peer in peers}) == 1  # type: ignore[union-attr]
    seat = peers[0].record.seats[2]
    assert (seat.node, seat.away) == ("n2", False)
    assert peers[2].seat == 2 and peers[2].rejoined
    assert peers[0].agents[1].seat is None  # the stand-in stopped


def test_entries_are_applied_once_even_if_committed_twice() -> None:
    record = TableRecord(installed_plugins())
    create = {
        "t": "create",
        "id": ["h", 1],
        "name": "t",
        "players": 3,
        "options": {},
        "plugins": {"kilo": "0.1.0"},
    }
    record.plugins = {}
    assert [type(n) for n in record.apply(create)] == [Created]
    join = {"t": "join", "id": ["h", 2], "name": "h", "commit": commitment(b"x")}
    assert [type(n) for n in record.apply(join)] == [Seated]
    assert record.apply(join) == []
    assert len(record.seats) == 1


@pytest.mark.parametrize(
    ("entry", "reason"),
    [
        ({"t": "nope", "id": ["a", 1]}, "unknown type"),
        ({"t": "join", "id": "a"}, "id must be"),
        ({"t": "join", "id": ["a", 1], "commit": b"x"}, "malformed join entry: commit must be 32 bytes"),
        ({"t": "join", "id": ["a", 1], "commit": bytes(32)}, "there is no table"),
        ({"t": "join", "id": ["a", 1], "commit": bytes(32), "bot": "yes"}, "bot must be bool"),
        ({"t": "reveal", "id": ["a", 1], "k": 0, "nonce": b"n"}, "reveal entry without next"),
        (
            {"t": "create", "id": ["a", 1], "name": "t", "players": 4, "options": {}, "plugins": {"kilo": 1}},
            "plugins must map names to versions",
        ),
        ("text", "not a map"),
    ],
)
def test_malformed_entries_are_refused_with_a_reason(entry: object, reason: str) -> None:
    (notice,) = TableRecord(installed_plugins()).apply(entry)
    assert isinstance(notice, Rejected) and reason in notice.reason


def test_a_table_needing_a_missing_plugin_says_which() -> None:
    record = TableRecord(installed_plugins())
    create = {
        "t": "create",
        "id": ["h", 1],
        "name": "t",
        "players": 4,
        "options": {},
        "plugins": {"kilo": "0.1.0", "no-such-rule": "1.2"},
    }
    (notice,) = record.apply(create)
    assert notice.reason == "this table uses plugin no-such-rule 1.2, which is not installed here"


def table_of_three() -> TableRecord:
    """A 3-seat table created by node "a" and joined by "a", "b" and "c" (nonce = the node's name)."""
    record = TableRecord(installed_plugins())
    plugins = {"kilo": installed_plugins()["kilo"].version}
    record.apply(
        {"t": "create", "id": ["a", 1], "name": "t", "players": 3, "options": {}, "plugins": plugins}
    )
    for node in "abc":
        record.apply({"t": "join", "id": [node, 2], "commit": commitment(node.encode())})
    return record


def test_full_table_and_started_game_refuse_joins_and_a_bad_reveal_is_named() -> None:
    record = table_of_three()
    (full,) = record.apply({"t": "join", "id": ["d", 1], "commit": commitment(b"d")})
    assert full.reason == "table 't' is full (3 players)"
    record.apply({"t": "start", "id": ["a", 3]})
    (late,) = record.apply({"t": "join", "id": ["e", 1], "commit": commitment(b"e")})
    assert "already started" in late.reason
    (cheat,) = record.apply({"t": "reveal", "id": ["b", 3], "k": 0, "nonce": b"not b", "next": bytes(32)})
    assert cheat.reason == "seat 1 (b) revealed a nonce that does not match its commitment"


def test_nobody_acts_for_another_seat() -> None:
    record = table_of_three()
    record.apply({"t": "start", "id": ["a", 3]})
    for node in "abc":
        record.apply(
            {
                "t": "reveal",
                "id": [node, 4],
                "k": 0,
                "nonce": node.encode(),
                "next": commitment(b"1" + node.encode()),
            }
        )
    assert record.engine is not None and record.engine.state.phase == "dealing"
    slap = {"kind": "slap", "seat": 2, "t_sync": 1.0}
    (refused,) = record.apply({"t": "event", "id": ["a", 5], "event": slap})
    assert refused.reason == "a cannot act for seat 2"
    seeded = msgpack.unpackb(msgpack.packb({"kind": "deal", "seed": b"mine"}), raw=False)
    (refused,) = record.apply({"t": "event", "id": ["a", 6], "event": seeded})
    assert "seeds come from reveals" in refused.reason


class KeyedNode(FakeNode):
    """A fake node with a key of its own, at a table whose id carries one: its entries are signed, and
    a takeover needs the voters' word (asked for and given by direct messages)."""

    def __init__(self, log: FakeLog, port: int, keys: NodeKeys, table: str = "") -> None:
        super().__init__(log, f"127.0.0.1:{port}~{keys.token}")
        self.keys, self.table = keys, table or self.node_id


def test_at_a_signed_table_the_leader_takes_a_seat_over_only_with_a_quorums_word() -> None:
    """The leader asks whether a live seat is silent: the other voter hears it and says nothing, and
    nothing is proposed. Then seat 2's process dies: the leader's own word and seat 1's, asked for,
    go in the takeover, which every peer applies; the seat stood still no longer than before."""

    async def scene() -> tuple[list[Takeover], dict[str, Any], float]:
        log = FakeLog()
        founder_keys = new_keys()
        founder = KeyedNode(log, 40000, founder_keys)
        nodes = [founder] + [KeyedNode(log, 40000 + i, new_keys(), founder.table) for i in (1, 2)]
        peers = []
        for i, node in enumerate(nodes):
            bot = Bot(i, "greedy", seed=b"word")
            bot.profile = Profile(reaction_ms=200, reaction_spread_ms=5, think_ms=(300, 600))
            peers.append(Peer(node, installed_plugins(), bot=bot))
        log.peers, log.leader = peers, founder.node_id
        for peer in peers:
            peer.start()
        # Rounds enough that the game is still on when seat 2 dies: at three seats a round may end at
        # its first passes (twelve cards of three ranks: a combo comes soon), two of them within the
        # leader's settling.
        await seat_everyone(peers, {"rounds": 10}, table=founder.table)
        peers[0].start_game()
        leading = peers[0]
        state = lambda: peers[1].record.engine.state  # type: ignore[union-attr]  # noqa: E731
        watch = leading.host.takeovers
        while watch.leading_since is None or monotonic_ms() - watch.leading_since < 1500:
            await asyncio.sleep(0.01)  # past the leader's settling: it judges every seat's silence
        leading.take_over_with_word(1, "live")
        asked_at = len(log.entries)
        while not (state().phase == "passing" and state().turn == 2):
            assert state().phase != "over", "the game ended before seat 2 was to pass"
            await asyncio.sleep(0.001)  # meanwhile the other voter, asked, said nothing
        assert 1 in leading.host.takeovers.words and peers[1].record.seats[1].node == nodes[1].node_id
        lost, died = nodes[2].node_id, monotonic_ms()
        log.gone.add(lost)
        log.silent_since[lost] = died
        await peers[2].stop()
        while peers[1].record.seats[2].node == lost:
            assert state().phase != "over", "the game ended before seat 2 was taken over"
            await asyncio.sleep(0.001)
        stall = monotonic_ms() - died
        for peer in peers[:2]:
            await peer.stop()
        taken = [
            entry for entry in map(entries.decode, log.entries[asked_at:]) if isinstance(entry, Takeover)
        ]
        return taken, {node.node_id: i for i, node in enumerate(nodes)}, stall

    taken, index_of, stall_ms = run_virtual(scene())
    (takeover,) = taken  # none of the live seat
    assert takeover.seat == 2 and sorted(index_of[signer] for signer in takeover.silence) == [0, 1]
    assert stall_ms <= 2000.0, f"seat 2 stood still {stall_ms:.0f} ms"


def test_a_process_whose_seat_was_taken_may_still_take_over_others() -> None:
    """The cut-off follower that comes back and then leads must be able to seat bots for the dead."""
    record = table_of_three()
    record.apply({"t": "start", "id": ["a", 3]})
    (took,) = record.apply({"t": "takeover", "id": ["a#1", 1], "seat": 1, "commit": commitment(b"x")})
    assert isinstance(took, TookOver) and record.seats[1].node == "a#1"
    (again,) = record.apply({"t": "takeover", "id": ["b#0", 1], "seat": 0, "commit": commitment(b"y")})
    assert isinstance(again, TookOver) and record.seats[0].node == "b#0"
    (stranger,) = record.apply({"t": "takeover", "id": ["z#2", 1], "seat": 2, "commit": commitment(b"z")})
    assert stranger.reason == "z holds no seat: a node without one proposes nothing but its own join"


def test_a_takeover_asked_for_by_a_leader_that_lost_its_lead_is_never_proposed_again() -> None:
    """A leader cut off (or stopped) judges everyone silent; what it proposed then must not reach the
    next leader through the retries once it follows."""

    class CutOff(FakeNode):
        def __init__(self, log: FakeLog, node_id: str) -> None:
            super().__init__(log, node_id)
            self.leading = True
            self.proposed: list[bytes] = []

        @property
        def is_leader(self) -> bool:
            return self.leading

        def propose(self, data: bytes) -> bool:
            self.proposed.append(data)
            return False  # nothing gets through: it is cut off

    async def scene() -> tuple[CutOff, Peer]:
        log = FakeLog()
        node = CutOff(log, "n0")
        peer = Peer(node, installed_plugins())
        peer.start(takeover_after_s=None)
        peer.take_over(2, Bot(2, "greedy", seed=b"t"))
        assert [msgpack.unpackb(data)["t"] for data in node.proposed] == ["takeover"]
        node.leading = False
        peer.host.takeovers.forget()  # what the seat watcher does as soon as this process follows
        node.proposed.clear()
        peer.retry_pending(monotonic_ms() + 60_000)  # long after: anything still pending goes again
        await peer.stop()
        return node, peer

    node, peer = run_virtual(scene())
    assert node.proposed == [] and not peer.agents[1].asking


def test_a_join_that_reaches_the_log_before_the_table_is_asked_again_once_it_exists() -> None:
    """A joiner asks "which table?" as soon as the founder listens, and its join can be committed before
    the founder's create (once in ~60 starts): it used to be refused for good, and the table waited."""

    async def scene() -> tuple[FakeLog, Peer, Peer]:
        log = FakeLog()
        installed = installed_plugins()
        founder, early = Peer(log.node("n0"), installed), Peer(log.node("n1"), installed)
        log.peers, log.leader = [founder, early], "n0"
        early.join_table("n0")
        founder.create_table("kitchen", 3, {}, Rules.for_table())
        for _ in range(1000):  # loop turns, each delivering what was committed
            if early.seat is not None:
                break
            await asyncio.sleep(0)
        return log, founder, early

    log, founder, early = run_virtual(scene())
    assert [msgpack.unpackb(entry)["t"] for entry in log.entries] == ["join", "create", "join", "join"]
    assert {seat.node for seat in founder.record.seats} == {"n0", "n1"} and early.seat is not None


def test_a_player_started_twice_plays_from_the_newest_process_and_the_old_one_lets_go() -> None:
    """The same key in two processes (kdm started again while the first still ran): the seat goes to
    the newest, and the old one does not ask for it back (they would take it from each other forever)."""

    async def scene() -> tuple[FakeLog, list[Peer]]:
        log = FakeLog()
        installed = installed_plugins()
        key = Identity.ephemeral()
        peers = [Peer(log.node("n0"), installed), Peer(log.node("n1"), installed, identity=key)]
        log.peers, log.leader = peers, "n0"
        peers[0].create_table("kitchen", 3, {}, Rules.for_table())
        peers[1].join_table("n0")
        await asyncio.sleep(0)
        again = Peer(log.node("n1b"), installed, identity=key)
        log.peers = [*peers, again]
        for data in log.entries:
            again.committed(data)
        again.join_table("n0")
        for _ in range(200):
            await asyncio.sleep(0)
        return log, [*peers, again]

    log, (founder, first, again) = run_virtual(scene())
    joins = [
        msgpack.unpackb(entry)["id"][0] for entry in log.entries if msgpack.unpackb(entry)["t"] == "join"
    ]
    assert joins == ["n0", "n1", "n1b"]  # nobody asked again
    assert (first.seat, again.seat) == (None, 1) and founder.record.seats[1].node == "n1b"


def game_over_scene(comes_back: bool) -> tuple[list[Peer], Peer | None]:
    """Seat 2's process dies once the game is over, before its ``done`` reaches the log (a laptop shut
    at the final screen); with ``comes_back`` its player starts kdm again, under a new node."""

    async def scene() -> tuple[list[Peer], Peer | None]:
        log = FakeLog()
        installed = installed_plugins()
        keys = [Identity.ephemeral() for _ in range(4)]
        peers = [
            Peer(log.node(f"n{i}"), installed, bot=quick_bot(i, b"peer-test"), identity=keys[i])
            for i in range(4)
        ]
        log.peers, log.leader = peers, "n0"
        for peer in peers:
            peer.start(takeover_after_s=0.2)
        await seat_everyone(peers, {"rounds": 1, "slap_timeout_ms": 200}, table="n0")
        victim = peers[2]
        proposing = victim.node.propose

        def dies_at_the_end(data: bytes) -> bool:
            engine = victim.record.engine
            if engine is not None and engine.over:
                log.gone.add("n2")
                return False
            return proposing(data)

        victim.node.propose = dies_at_the_end  # type: ignore[method-assign]
        peers[0].start_game()
        while "n2" not in log.gone:
            await asyncio.sleep(0.001)
        await victim.stop()
        survivors = [peer for peer in peers if peer is not victim]
        again = None
        if comes_back:
            again = Peer(log.node("n2b"), installed, bot=Bot(2, "greedy", seed=b"back"), identity=keys[2])
            log.peers = [*survivors, again]
            again.start(takeover_after_s=0.2)
            for data in log.entries:
                again.committed(data)
            again.join_table("n0")
            survivors.append(again)
        await asyncio.wait_for(asyncio.gather(*(p.finished.wait() for p in survivors)), timeout=60)
        for peer in survivors:
            await peer.stop()
        return survivors, again

    return run_virtual(scene())


def test_a_player_gone_after_the_game_ended_does_not_keep_the_table_waiting() -> None:
    survivors, _ = game_over_scene(comes_back=False)
    assert all(peer.finished.is_set() for peer in survivors)
    assert len({peer.record.engine.digest() for peer in survivors}) == 1  # type: ignore[union-attr]


def test_a_player_back_after_the_game_ended_says_done_and_the_table_finishes() -> None:
    survivors, again = game_over_scene(comes_back=True)
    assert again is not None and again.seat == 2 and again.finished.is_set()
    assert len({peer.record.engine.digest() for peer in survivors}) == 1  # type: ignore[union-attr]


class FreshLeaderNode(FakeNode):
    """A follower hears only its leader: once it leads, it has heard nothing from the other followers
    for as long as it followed, until their first answers to its heartbeats (``lag_s`` here); the
    leader it followed it heard to the end."""

    lag_s = 0.1
    led_since: float | None = None

    @property
    def is_leader(self) -> bool:
        leads = self.log.leader == self.node_id
        if leads and self.led_since is None:
            self.led_since = asyncio.get_running_loop().time()
        return leads

    def silent_ms(self, node_id: str) -> float:
        led = self.led_since
        fresh = self.is_leader and led is not None and asyncio.get_running_loop().time() - led < self.lag_s
        heard = (self.node_id, self.followed)  # itself, and the leader it followed until now
        return 1e9 if fresh and node_id not in heard else super().silent_ms(node_id)


def test_a_new_leader_takes_no_seat_from_the_followers_it_never_heard_as_a_follower() -> None:
    """Found by the chaos soak: of 231 takeovers in one game, 162 came in the first entries of a new
    leader's term, up to 7 at once while at most 3 processes were under a fault."""

    async def scene() -> list[Peer]:
        log = FakeLog()
        installed = installed_plugins()
        peers = []
        for i in range(4):
            node = FreshLeaderNode(log, f"n{i}") if i == 1 else log.node(f"n{i}")
            peers.append(Peer(node, installed, bot=quick_bot(i, b"peer-test")))
        log.peers, log.leader = peers, "n0"
        for peer in peers:
            peer.start(takeover_after_s=0.2)
        await seat_everyone(peers, {"rounds": 2, "slap_timeout_ms": 200}, table="n0")
        peers[0].start_game()
        while peers[0].record.engine is None or peers[0].record.engine.state.round < 2:
            await asyncio.sleep(0.001)
        log.leader = "n1"  # n0 steps down (everyone is alive): n1 leads, and has heard nobody yet
        await asyncio.wait_for(asyncio.gather(*(p.finished.wait() for p in peers)), timeout=60)
        for peer in peers:
            await peer.stop()
        return peers

    peers = run_virtual(scene())
    assert not any(seat.away for seat in peers[0].record.seats)
    assert len(peers[1].agents) == 1  # no stand-in was ever made


def test_a_process_catching_up_acts_on_no_past_state_and_asks_its_seat_back_once_caught_up() -> None:
    """A process started again replays the log (``Node.catching_up``): a takeover of its seat long ago
    must not make it ask for the seat back then (it did, at every takeover replayed, and retried each:
    the soak's log grew to 94,000 entries). Once it has applied all the table committed, it asks once."""

    async def scene() -> tuple[int, int, str]:
        log = FakeLog()
        peers = bot_peers(log, 3, b"catch-up")
        for peer in peers:
            peer.start(takeover_after_s=None)
        await seat_everyone(peers, {"rounds": 3, "slap_timeout_ms": 200}, table="n0")
        peers[0].start_game()
        while peers[0].record.engine is None or peers[0].record.engine.state.round < 2:
            await asyncio.sleep(0.001)

        def joins_by_n1() -> int:
            return sum(1 for data in log.entries if msgpack.unpackb(data)["t"] == "join" and
                       msgpack.unpackb(data)["id"][0] == "n1")  # fmt: skip

        async def until(condition: Callable[[], bool]) -> None:
            async def poll() -> None:
                while not condition():
                    await asyncio.sleep(0.001)

            await asyncio.wait_for(poll(), 10)  # virtual seconds

        before = joins_by_n1()
        peers[1].node.catching_up = True  # type: ignore[attr-defined]
        peers[0].take_over(1, Bot(1, "greedy", seed=b"stand-in"))
        await until(lambda: peers[1].record.seats[1].node == "n0#1")
        await asyncio.sleep(0.2)  # the table plays on while n1 replays
        while_behind = joins_by_n1() - before
        peers[1].node.catching_up = False  # type: ignore[attr-defined]
        await until(lambda: peers[1].record.seats[1].node == "n1")
        after = joins_by_n1() - before
        holder = peers[1].record.seats[1].node
        await asyncio.wait_for(asyncio.gather(*(p.finished.wait() for p in peers)), timeout=60)
        for peer in peers:
            await peer.stop()
        return while_behind, after, holder

    while_behind, after, holder = run_virtual(scene())
    assert (while_behind, after, holder) == (0, 1, "n1")


def test_a_player_back_with_an_entry_of_before_still_on_its_way_asks_its_seat_back_once_caught_up() -> None:
    """A laptop that slept with a press of its player's on its way (found by
    test_a_leader_that_slept_takes_no_seat_from_the_players_it_stopped_hearing, 3 runs in 8 under load):
    back, it catches up on the takeover of its seat while that entry is still unanswered. It must ask
    for its seat back all the same; it took the entry for its join on its way and never asked, or asked
    only when something else made it look again (26 s later, or after the game's end)."""

    async def scene() -> str:
        log = FakeLog()
        peers = bot_peers(log, 3, b"asleep")
        for peer in peers:
            peer.start(takeover_after_s=None)
        await seat_everyone(peers, {"rounds": 3, "slap_timeout_ms": 200}, table="n0")
        peers[0].start_game()
        while peers[0].record.engine is None or peers[0].record.engine.state.round < 2:
            await asyncio.sleep(0.001)
        log.gone.add("n1")
        log.unheard.add("n1")
        peers[1].say("one moment")  # its entry, on its way when the laptop slept, never arrives
        peers[1].node.catching_up = True  # type: ignore[attr-defined]
        peers[0].take_over(1, Bot(1, "greedy", seed=b"stand-in"))
        while peers[0].record.seats[1].node != "n0#1":
            await asyncio.sleep(0.001)
        log.unheard.discard("n1")
        log.come_back("n1")  # awake: it hears the table again and replays what it missed
        while peers[1].record.seats[1].node != "n0#1":
            await asyncio.sleep(0.001)
        peers[1].node.catching_up = False  # type: ignore[attr-defined]

        async def seat_back() -> None:
            while peers[0].record.seats[1].node != "n1":
                await asyncio.sleep(0.001)

        try:
            await asyncio.wait_for(seat_back(), 5)  # virtual seconds; a stand-in waits for 1.2 s
        finally:
            for peer in peers:
                await peer.stop()
        return peers[0].record.seats[1].node

    assert run_virtual(scene()) == "n1"


def test_what_was_put_off_while_catching_up_is_done_though_no_entry_follows() -> None:
    """The start of a game applied while catching up owes the first shuffle's reveals; when the entries
    after it are ones the peer is not handed (a membership change, a new leader's empty entry), no
    entry comes to say it is current: it looks again itself. Found by CI under load: four bot peers
    froze at "the game starts", every reveal put off."""

    async def scene() -> int:
        log = FakeLog()
        peers = [
            Peer(log.node(f"n{i}"), installed_plugins(), bot=Bot(i, "greedy", seed=b"put-off"))
            for i in range(3)
        ]
        log.peers, log.leader = peers, "n0"
        for peer in peers:
            peer.start(takeover_after_s=None)
        await seat_everyone(peers, {"rounds": 1})
        for peer in peers:
            peer.node.catching_up = True  # type: ignore[attr-defined]
        peers[0].start_game()
        while not all(peer.record.started for peer in peers):
            await asyncio.sleep(0.001)
        reveals_while_behind = sum(1 for data in log.entries if msgpack.unpackb(data)["t"] == "reveal")
        for peer in peers:
            peer.node.catching_up = False  # type: ignore[attr-defined]
        await asyncio.wait_for(asyncio.gather(*(p.finished.wait() for p in peers)), timeout=60)
        for peer in peers:
            await peer.stop()
        return reveals_while_behind

    assert run_virtual(scene()) == 0


def test_the_leader_lets_in_a_few_chat_lines_at_a_time_from_one_node() -> None:
    """Words are for people: a node's sixth line within 10 s is dropped by the leader (a flood would
    only grow everyone's log); another node's line, and a line once the window has passed, go in."""

    async def scene() -> list[str | None]:
        peers = await seated_table()

        def line(node: str, counter: int) -> bytes:
            return entries.encode(Chat(EntryId(node, 100 + counter), seat=int(node[1]), text="hi"))

        screened = [peers[0].screen_proposal("n1", line("n1", i)) for i in range(6)]
        screened.append(peers[0].screen_proposal("n2", line("n2", 0)))
        await asyncio.sleep(CHAT_WINDOW_MS / 1000)
        screened.append(peers[0].screen_proposal("n1", line("n1", 6)))
        for peer in peers:
            await peer.stop()
        return screened

    screened = run_virtual(scene())
    assert screened[:5] == [None] * 5 and screened[6:] == [None, None]
    assert screened[5] == f"more than {CHAT_BURST} chat lines in 10 s"


class HoldingNode(FakeNode):
    """A node whose proposals wait until the test lets them go (``hold``): a process started again
    before the table has taken it back, its join on its way."""

    def __init__(self, log: FakeLog, node_id: str) -> None:
        super().__init__(log, node_id)
        self.hold = True
        self.held: list[bytes] = []

    def propose(self, data: bytes) -> bool:
        if self.hold:
            self.held.append(data)
            return True
        return super().propose(data)

    def let_go(self) -> None:
        self.hold = False
        for data in self.held:
            self.log.commit(data)
        self.held = []


def test_a_player_started_again_asks_for_their_seat_once_though_a_takeover_comes_meanwhile() -> None:
    """A player's process killed and started again proposes its join at once; the stand-in's takeover
    reached it while that join was on its way, and it proposed a second: both committed, every screen
    said "is back" and "takes seat 2 back" twice, a fair table dealt the round again twice, and the
    second commitment made the first one's reveal a lie. One join per return."""

    async def scene() -> tuple[list[str], list[str], tuple[str, bool]]:
        log = FakeLog()
        key = Identity.ephemeral()
        installed = installed_plugins()
        peers = [
            Peer(log.node(f"n{i}"), installed, bot=quick_bot(i, b"once"), identity=key if i == 2 else None)
            for i in range(3)
        ]
        log.peers, log.leader = peers, "n0"
        for peer in peers:
            peer.start(takeover_after_s=None)
        await seat_everyone(peers, {"rounds": 2, "slap_timeout_ms": 200}, table="n0")
        peers[0].start_game()
        while peers[0].record.engine is None or peers[0].record.engine.state.round < 2:
            await asyncio.sleep(0.001)
        log.gone.add("n2")
        await peers[2].stop()  # killed: what it had applied is on its disk
        node = HoldingNode(log, "n2")
        said: list[str] = []
        again = Peer(node, installed, bot=quick_bot(2, b"again"), identity=key, first_counter=1 << 32,
                     on_notice=lambda notice: said.append(type(notice).__name__))  # fmt: skip
        for data in log.entries:
            again.committed(data)
        log.peers = [peers[0], peers[1], again]
        log.gone.discard("n2")
        again.start(takeover_after_s=None)
        again.join_table("n0")  # on its way: the table has not taken this process back yet
        peers[0].take_over(2, Bot(2, "greedy", seed=b"stand-in"))
        while peers[0].record.seats[2].node != "n0#2":
            await asyncio.sleep(0.001)
        await asyncio.sleep(0.1)
        # The join reaches the log inside a slap window, say: the seat is theirs at the next pause, and
        # what this process put off while catching up meanwhile must not ask for it again.
        engines = [peer.record.engine for peer in (peers[0], peers[1], again)]
        for engine in engines:
            engine.player_may_return = lambda seat: False  # type: ignore[method-assign,union-attr]
        node.let_go()
        while 2 not in again.record.returning:
            await asyncio.sleep(0.001)
        again.host.put_off = True
        again.host.caught_up()
        again.flush()
        for engine in engines:
            del engine.player_may_return  # type: ignore[union-attr]
        await asyncio.wait_for(asyncio.gather(*(p.finished.wait() for p in (peers[0], peers[1], again))), 60)
        for peer in (peers[0], peers[1], again):
            await peer.stop()
        joins = [
            msgpack.unpackb(data)["id"][0]
            for data in log.entries
            if msgpack.unpackb(data)["t"] == "join" and msgpack.unpackb(data)["id"][1] >= 1 << 32
        ]
        seat = peers[0].record.seats[2]
        return joins, said, (seat.node, seat.away)

    joins, said, seat = run_virtual(scene())
    assert joins == ["n2"]
    assert (said.count("Returning"), said.count("Returned")) == (1, 1)
    assert seat == ("n2", False)


class DroppingNode(FakeNode):
    """A node whose leader drops what it proposes (counted): a press the leader found too old."""

    def __init__(self, log: FakeLog, node_id: str) -> None:
        super().__init__(log, node_id)
        self.dropping = False
        self.proposed = 0

    def propose(self, data: bytes) -> bool:
        if not self.dropping:
            return super().propose(data)
        self.proposed += 1
        return True


def test_a_press_too_old_for_the_leader_is_not_proposed_again() -> None:
    """After a restart, a player's first press was timed seconds from the leader's clock: the leader
    dropped it, and its process proposed it again every 0.25 s for 400 s, each time older (-3.2 s, then
    -268 s), and its bot waited on it. A press the leader can no longer take is given up, and its bot
    thinks again; a press still in time is proposed again (the leader may have failed)."""

    async def scene() -> tuple[tuple[int, int], tuple[int, int]]:
        log = FakeLog()
        installed = installed_plugins()
        node = DroppingNode(log, "n1")
        peers = [Peer(log.node("n0"), installed), Peer(node, installed), Peer(log.node("n2"), installed)]
        log.peers, log.leader = peers, "n0"
        await seat_everyone(peers, {"rounds": 1})
        peers[0].start_game()
        node.dropping = True
        now = monotonic_ms()
        peers[1].act(Slap(seat=1, t_sync=now - 3210.0))  # stamped on a clock 3.2 s behind
        peers[1].act(Slap(seat=1, t_sync=now - 20.0))
        for retry in range(1, 4):  # within a second of the press in time
            peers[1].retry_pending(now + retry * RETRY_S * 1000)
        within = (node.proposed, len(peers[1].host.proposals.pending))
        peers[1].retry_pending(now + 1250.0)  # the leader would take neither now
        return within, (node.proposed, len(peers[1].host.proposals.pending))

    within, after = run_virtual(scene())
    assert within == (2 + 3, 1)  # each once, then the one in time at each retry
    assert after == (5, 0)


#: How long a test lets a bot hold its press back for a clock that never comes before it gives it one.
HELD_FOR_S = 2.0


class UnsyncedNode(FakeNode):
    """A follower that has not heard the leader's clock yet (``clock.offset_ms`` is None)."""

    def __init__(self, log: FakeLog, node_id: str) -> None:
        super().__init__(log, node_id)
        self.clock = ClockEstimator()


def test_a_process_presses_only_once_its_clock_is_agreed_with_the_leaders() -> None:
    """A process started again (or under a new leader) knows only its own clock until the leader's
    first pong: a press stamped then is off by however far the two clocks are apart. Its bots'
    presses wait for the clock; their passes do not."""

    async def scene() -> tuple[int, int, bool, int]:
        log = FakeLog()
        installed = installed_plugins()
        node = UnsyncedNode(log, "n1")
        peers = [
            Peer(node if i == 1 else log.node(f"n{i}"), installed, bot=quick_bot(i, b"clock"))
            for i in range(3)
        ]
        log.peers, log.leader = peers, "n0"
        for peer in peers:
            peer.start(takeover_after_s=None)
        await seat_everyone(peers, {"rounds": 4, "slap_timeout_ms": 200})
        peers[0].start_game()

        def acts_of_seat_1(kind: str) -> int:
            acts = [entry for entry in map(msgpack.unpackb, log.entries) if entry["t"] == "event"]
            return sum(1 for act in acts if act["id"][0] == "n1" and act["event"]["kind"] == kind)

        loop = asyncio.get_running_loop()
        held_since: float | None = None  # since when seat 1's bot has held a due press back
        while peers[0].record.engine is None or peers[0].record.engine.state.round < 3:
            driver = peers[1].driver
            if driver is None or not peers[1].host.press_due(monotonic_ms()):
                held_since = None
            elif held_since is None:
                held_since = loop.time()
            elif loop.time() - held_since > HELD_FOR_S:
                # Its bot holds a combo at a checkpoint where it is to pass: its slap is its only
                # plan, and the table waits for it (whether that comes depends on the deal).
                break
            await asyncio.sleep(0.001)
        unsynced = acts_of_seat_1("slap"), acts_of_seat_1("pass"), held_since is not None
        now = monotonic_ms()
        node.clock.add(ClockSample(sent=now, server_time=now, received=now))
        await asyncio.wait_for(asyncio.gather(*(p.finished.wait() for p in peers)), timeout=60)
        for peer in peers:
            await peer.stop()
        return *unsynced, acts_of_seat_1("slap")

    slaps_unsynced, passes_unsynced, held, slaps = run_virtual(scene())
    assert slaps_unsynced == 0
    assert passes_unsynced > 0 or held  # its passes went on, unless a held press was all it had to do
    assert slaps > 0


def test_a_tick_that_may_wait_comes_at_a_wake_up_the_process_has_anyway() -> None:
    """Issue 'Light on the CPU': a tick that may come late (a follower's quiet work,
    ``Takeovers.slack_ms``) comes at the first message heard once it is due (``Peer.heard``, a
    heartbeat at rest), and its timer is dropped: no wake-up of its own. Heard sooner, nothing comes;
    heard nothing, its timer brings it at the latest."""

    async def scene() -> tuple[list[float], list[float]]:
        log = FakeLog()
        peer = Peer(log.node("n0"), installed_plugins())
        start = peer.clock.local_ms()
        deadlines = {"early": start + 100.0, "late": start + 700.0}
        ticks: list[float] = []

        def step(given: Input) -> list[Output]:
            assert isinstance(given, Tick)
            ticks.append(peer.clock.local_ms() - start)
            deadlines["early"] += 2000.0  # the next net, two seconds on
            deadlines["late"] += 2000.0
            return []

        host: Any = peer.host
        host.step = step
        host.deadlines_ms = lambda: (deadlines["early"], deadlines["late"])
        peer._arm()
        await asyncio.sleep(0.05)
        peer.heard()  # not due yet
        await asyncio.sleep(0.1)
        peer.heard()  # due: the tick comes now, at this wake-up
        heard = list(ticks)
        await asyncio.sleep(3.0)  # nothing heard: the next comes at its latest
        return heard, ticks

    heard, ticks = run_virtual(scene())
    assert heard == [pytest.approx(150.0, abs=1.0)]
    assert ticks == [pytest.approx(150.0, abs=1.0), pytest.approx(2700.0, abs=1.0)]
