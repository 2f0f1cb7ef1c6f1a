"""Kem's over the network: bot peers play a whole game and agree, and a team's secret sign travels
only between the two partners' processes (RULES 3.2): never in the log, never to an opponent."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from typing import Any

import msgpack
import pytest
from nacl.public import Box, PrivateKey, PublicKey

from kdm.agents import Bot
from kdm.cards import rank_of
from kdm.events import Event
from kdm.host import Agent, TableHost
from kdm.identity import Identity
from kdm.manager import Rules, installed_plugins
from kdm.net.node import node_codec
from kdm.net.transport import MemoryNetwork, MemoryTransport
from kdm.peer import Peer
from kdm.plugins.kems import bots as kems_bots
from kdm.plugins.kems.events import Call, Exchange, ShowTwo
from kdm.plugins.kems.rules import partner_of, team_of
from kdm.plugins.kems.view import team_signs
from kdm.testing import FakeLog, run_virtual
from kdm.vouching import PRESSED
from tests.helpers.kems import dealing_pairs
from tests.helpers.nodes import play_table

FAST_KEMS = {"target": 2, "sweep_after_ms": 150, "call_window_ms": 100}


class Wiretap:
    """Every message the memory network carries, and every entry the table committed."""

    def __init__(self) -> None:
        self.network = MemoryNetwork(delay=0.002)
        self.sent: list[tuple[str, str, bytes]] = []

    def transport(self, index: int) -> MemoryTransport:
        transport = self.network.transport(f"n{index}")
        send = transport.send

        def tapped(to: str, payload: bytes) -> None:
            self.sent.append((transport.node_id, to, payload))
            send(to, payload)

        transport.send = tapped  # type: ignore[method-assign]
        return transport


def play(players: int, tap: Wiretap) -> list[Peer]:
    return run_virtual(
        play_table(players, 0, tap.transport, lambda n: f"memory://{n}", variants=["kems"], options=FAST_KEMS)
    )


def seat_of(peers: list[Peer]) -> dict[str, int]:
    return {peer.node.node_id: peer.seat for peer in peers if peer.seat is not None}


def test_rule_3_kems_bot_peers_play_a_whole_game_over_the_network_and_agree() -> None:
    tap = Wiretap()
    peers = play(4, tap)
    engines = [peer.record.engine for peer in peers]
    assert all(engine is not None and engine.over for engine in engines)
    assert len({engine.digest() for engine in engines if engine is not None}) == 1
    state = engines[0].state if engines[0] is not None else None
    assert state is not None and max(state.scores) >= FAST_KEMS["target"]


def test_rule_3_2_a_teams_sign_goes_only_to_the_partner_sealed_and_never_into_the_log() -> None:
    tap = Wiretap()
    peers = play(4, tap)
    seats = seat_of(peers)
    codec = node_codec("t1")
    directs: list[tuple[str, str, dict[str, Any]]] = []
    for sender, to, payload in tap.sent:
        # Raft messages carry every log entry; direct ones are sealed: a listener reads no note.
        assert b"presign" not in payload and b"signs" not in payload
        envelope = codec.decode(payload, claimed_sender=sender)
        if envelope.kind == "direct":
            body = msgpack.unpackb(envelope.body["data"], raw=False)
            if body.get("t") != PRESSED:  # word of a press to every voucher: no note
                directs.append((sender, to, body))
    assert directs, "the partners agreed their signs by direct message"
    for sender, to, body in directs:
        # From a seat to its partner's process, and to nobody else.
        assert seats[to] == partner_of(seats[sender], 4) == body["to"]
        assert body["sender"] == body["via"] == seats[sender] and set(body) == {"sender", "to", "via", "box"}
    agreed: dict[int, tuple[str, ...]] = {}
    for peer in peers:
        engine = peer.record.engine
        assert engine is not None and peer.seat is not None
        own = team_signs(peer.deck.knowledge(engine.state, peer.seat), peer.seat, 4).signs
        assert own, f"seat {peer.seat} knows its team's sign"
        agreed[peer.seat] = own
        for note in peer.deck.notes.get(peer.seat, []):
            assert team_of(note.sender, 4) == team_of(peer.seat, 4) == team_of(note.to, 4)
        for other in range(4):
            if team_of(other, 4) != team_of(peer.seat, 4):
                assert peer.deck.notes.get(other, []) == []  # this process knows no note of theirs
    for seat, signs in agreed.items():
        assert agreed[partner_of(seat, 4)] == signs  # both partners read the same sign


def test_a_note_that_is_not_sealed_for_this_seat_is_dropped() -> None:
    tap = Wiretap()
    peers = play(4, tap)
    by_seat = {peer.seat: peer for peer in peers}
    receiver, partner = by_seat[2], by_seat[0]
    before = list(receiver.deck.notes.get(2, []))
    forged = Box(PrivateKey.generate(), PublicKey(receiver.record.seats[2].box_key)).encrypt(
        msgpack.packb({"signs": ["wink"], "presign": None, "deal": 9})
    )
    message = {"sender": 0, "to": 2, "box": bytes(forged)}
    receiver.received_direct(partner.node.node_id, msgpack.packb(message))  # a key that is not seat 0's
    receiver.received_direct(by_seat[1].node.node_id, msgpack.packb(message))  # not seat 0's process
    receiver.received_direct(partner.node.node_id, b"\xc1 not msgpack")
    assert receiver.deck.notes.get(2, []) == before


def test_rule_3_2_a_players_new_process_learns_the_sign_again_and_a_stand_in_never_does() -> None:
    """Seat 1's laptop dies: the bot that stands in runs in the leader's process, an opponent's (seat
    0), which must not learn team 1's sign; the player's new process, back at the seat, learns it
    again from seat 3, the partner."""

    def signs(peer: Peer, seat: int) -> tuple[str, ...]:
        engine = peer.record.engine
        assert engine is not None
        return team_signs(peer.deck.knowledge(engine.state, seat), seat, 4).signs

    async def until(condition: Any, what: str) -> None:
        for _ in range(20_000):
            if condition():
                return
            await asyncio.sleep(0.001)
        raise AssertionError(f"timed out waiting for {what}")

    async def scene() -> None:
        log = FakeLog()
        installed = installed_plugins()
        keys = [Identity.ephemeral() for _ in range(4)]
        peers = [
            Peer(log.node(f"n{i}"), installed, bot=Bot(i, "greedy", seed=b"k"), identity=keys[i])
            for i in range(4)
        ]
        log.peers, log.leader = peers, "n0"
        for peer in peers:
            peer.start(takeover_after_s=0.2)
        quiet = {"target": 50, "sweep_after_ms": 600_000, "call_window_ms": 0}
        peers[0].create_table("kitchen", 4, quiet, Rules.for_table(["kems"]))
        for peer in peers[1:]:
            await asyncio.sleep(0)
            peer.join_table("n0")
        await until(lambda: len(peers[0].record.seats) == 4, "four seats")
        peers[0].start_game()
        await until(lambda: all(signs(peer, peer.seat or 0) for peer in peers), "every team's sign")
        team = signs(peers[3], 3)
        assert signs(peers[1], 1) == team

        log.gone.add("n1")
        await until(lambda: peers[0].record.seats[1].away, "a stand-in for seat 1")
        stood_in = peers[0].record.engine.state.seq  # type: ignore[union-attr]
        await until(lambda: peers[0].record.engine.state.seq > stood_in + 5, "the stand-in plays")  # type: ignore[union-attr]
        # What it knows of team 1 is only what its own bot said as seat 1 (it may agree a sign anew).
        assert all(note.sender == 1 for note in peers[0].deck.notes.get(1, []))

        back = Peer(log.node("n1b"), installed, bot=Bot(1, "greedy", seed=b"k"), identity=keys[1])
        await peers[1].stop()
        log.peers = [peers[0], back, peers[2], peers[3]]
        back.start(takeover_after_s=None)
        for data in log.entries:  # the new process catches up from the log
            back.committed(data)
        back.join_table("n0")
        await until(lambda: back.seat == 1, "the player back at seat 1")
        await until(lambda: signs(back, 1) == signs(peers[3], 3) != (), "the player told the sign again")
        assert back.rejoined
        for peer in log.peers:
            await peer.stop()

    run_virtual(scene())


def test_an_exchange_that_names_false_faces_is_refused_by_every_peer(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 12, checked claims: a seat lays cards face up under faces they do not have; every peer
    knows the true faces (the open deck) and refuses the exchange the same way; the game goes on."""
    honest = TableHost.act
    lies: list[Exchange] = []

    def act(self: TableHost, event: Event, agent: Agent | None = None) -> None:
        if isinstance(event, Exchange) and self.node.node_id == "n1" and event.cards and len(lies) < 2:
            event = dataclasses.replace(event, cards=tuple("KS" if c != "KS" else "2C" for c in event.cards))
            lies.append(event)
        honest(self, event, agent)

    monkeypatch.setattr(TableHost, "act", act)
    with caplog.at_level(logging.INFO, logger="kdm.peer"):
        peers = play(4, Wiretap())
    assert lies
    assert len({peer.record.engine.digest() for peer in peers if peer.record.engine is not None}) == 1
    assert caplog.text.count("n1's exchange: it names card") == 4 * len(lies)


def test_rule_3_5_an_accused_who_shows_two_cards_of_one_rank_is_refused_by_every_peer(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """RULES 3.5, claims checked: the accused shows two cards « of different ranks where they can ». Seat 1's
    process answers each Contre against it with two cards of one rank; every peer knows the true faces (the
    open deck) and refuses it for that reason, the same way; the seat then answers as the rules say (its
    own process, when its time is up) and every game ends on one digest. The test sets what it needs: every
    hand dealt holds a pair (its first two cards share a rank), and seat 1's opponents accuse it at once."""

    players, accused = 4, 1
    honest_catch, honest_act = kems_bots._catch_sign, TableHost.act
    lies: list[ShowTwo] = []

    def catch(view: Any, table: Any, bot: Bot, watch: Any) -> Any:
        opponent = team_of(view.seat, players) != team_of(accused, players)
        if view.phase == "hunt" and opponent and view.seat not in table.barred and not table.calls:
            return kems_bots.Decision(Call(seat=view.seat, call="contre", target=accused), bot.think_ms())
        return honest_catch(view, table, bot, watch)

    def act(self: TableHost, event: Event, agent: Agent | None = None) -> None:
        engine = self.record.engine
        if isinstance(event, ShowTwo) and event.seat == accused and engine is not None and len(lies) < 3:
            faces = self.deck.knowledge(engine.state, accused).faces
            hand = engine.state.hands[accused]
            pair = next(
                (
                    (a, b)
                    for i, a in enumerate(hand)
                    for b in hand[i + 1 :]
                    if rank_of(faces[a]) == rank_of(faces[b])
                ),
                None,
            )
            if pair is not None and all(pair != lie.tokens for lie in lies):
                event = dataclasses.replace(event, tokens=pair)
                lies.append(event)
        honest_act(self, event, agent)

    dealing_pairs(monkeypatch, players)
    monkeypatch.setattr(kems_bots, "_catch_sign", catch)
    monkeypatch.setattr(TableHost, "act", act)
    with caplog.at_level(logging.INFO, logger="kdm.peer"):
        peers = play(players, Wiretap())
    assert lies, "seat 1 was never accused while holding a pair"
    assert len({peer.record.engine.digest() for peer in peers if peer.record.engine is not None}) == 1
    reason = "'s show_two: the two cards shown for a failed Contre Kem's are of different ranks (RULES 3.5)"
    assert caplog.text.count(reason) == players * len(lies)
