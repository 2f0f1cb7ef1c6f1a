"""Kem's over the network: bot peers play a whole game and agree, and a team's secret sign travels
only between the two partners' processes (RULES 3.2): never in the log, never to an opponent."""

from __future__ import annotations

import asyncio
from typing import Any

import msgpack

from kdm.net.node import node_codec
from kdm.net.transport import MemoryNetwork, MemoryTransport
from kdm.peer import Peer
from kdm.plugins.kems import partner_of, team_of
from kdm.plugins.kems_view import team_signs
from tests.test_node import play_table

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
    return asyncio.run(
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


def test_rule_3_2_a_teams_sign_goes_only_to_the_partner_never_into_the_log() -> None:
    tap = Wiretap()
    peers = play(4, tap)
    seats = seat_of(peers)
    codec = node_codec("t1")
    directs: list[tuple[str, str, dict[str, Any]]] = []
    for sender, to, payload in tap.sent:
        envelope = codec.decode(payload, claimed_sender=sender)
        if envelope.kind == "direct":
            directs.append((sender, to, msgpack.unpackb(envelope.body["data"], raw=False)))
        else:
            # Every log entry travels in raft messages: none of them holds a note.
            assert b"presign" not in payload
    assert directs, "the partners agreed their signs by direct message"
    for sender, to, note in directs:
        # From a seat to its partner's process, and to nobody else.
        assert seats[to] == partner_of(seats[sender], 4) == note["to"]
        assert note["sender"] == seats[sender]
    agreed = {seats[s]: tuple(note["data"]["signs"]) for s, _to, note in directs}
    for peer in peers:
        engine = peer.record.engine
        assert engine is not None and peer.seat is not None
        own = team_signs(peer.deck.knowledge(engine.state, peer.seat), peer.seat, 4).signs
        assert own and own in agreed.values()
        for note in peer.deck.notes.get(peer.seat, []):
            assert team_of(note.sender, 4) == team_of(peer.seat, 4) == team_of(note.to, 4)
        for other in range(4):
            if team_of(other, 4) != team_of(peer.seat, 4):
                assert peer.deck.notes.get(other, []) == []  # this process knows no note of theirs
