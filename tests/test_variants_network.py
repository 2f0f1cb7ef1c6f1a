"""Variants at networked tables (RULES 2, DESIGN 5): bot peers play whole games with variants over the
in-memory network; the record rebuilds each peer's rules from the plugins the table recorded (presets
included), peers fulfil the variants' duties (a chosen pile's draw, the grab grace's close) and every
peer ends with the same digest."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest

from kdm.bots import Bot, Profile
from kdm.manager import Rules, installed_plugins
from kdm.net.node import Node
from kdm.net.raft_log import MemoryStorage
from kdm.net.transport import MemoryNetwork
from kdm.peer import Peer

#: Quick bots, but thinking longer than the 120 ms reaction floor: a marathon instigator who passes on
#: faster than anyone can slap would keep every later checkpoint from being slapped.
FAST = Profile(
    reaction_ms=15, reaction_spread_ms=3, think_ms=(150, 200), feint_chance=0.02, fooled_chance=0.2
)


async def play_table(players: int, variants: Sequence[str], options: dict[str, Any]) -> list[Peer]:
    network = MemoryNetwork(delay=0.002)
    installed = installed_plugins()
    nodes: list[Node] = []
    peers: list[Peer] = []
    for i in range(players):
        transport = network.transport(f"n{i}")
        await transport.start()
        node = Node(
            transport, "t1", MemoryStorage(), voters=("n0",), seed=i, address_of=lambda n: f"memory://{n}"
        )
        peer = Peer(node, installed, bot=Bot(i, "greedy", seed=b"variants", profile=FAST))
        node.on_commit = peer.committed
        nodes.append(node)
        peers.append(peer)
    await nodes[0].start()
    for node in nodes[1:]:
        await node.start(contact="n0")
    for peer in peers:
        peer.start()
    while not nodes[0].is_leader:
        await asyncio.sleep(0.01)
    peers[0].create_table("kitchen", players, options, Rules.for_table(variants))
    for peer in peers[1:]:
        peer.join_table()
    while len(peers[0].record.seats) < players:
        await asyncio.sleep(0.01)
    peers[0].start_game()
    try:
        await asyncio.wait_for(asyncio.gather(*(p.finished.wait() for p in peers)), timeout=90)
    finally:
        for peer in peers:
            await peer.stop()
        for node in nodes:
            await node.stop()
    return peers


@pytest.mark.parametrize(
    "variants",
    [("spoons", "jokers", "seven_in_reserve", "classic"), ("piles", "all_at_once", "marathon")],
    ids=["spoons+jokers+seven_in_reserve+classic", "piles+all_at_once+marathon"],
)
def test_rule_2_bot_peers_play_variants_to_the_same_digest(variants: tuple[str, ...]) -> None:
    options = {"rounds": 1, "slap_timeout_ms": 1000}
    peers = asyncio.run(play_table(4, variants, options))
    digests = {peer.record.engine.digest() for peer in peers if peer.record.engine is not None}
    assert len(digests) == 1
    engine = peers[0].record.engine
    assert engine is not None and engine.over and engine.state.round == 1
    assert set(variants) <= set(engine.rules.names)
