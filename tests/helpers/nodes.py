"""Real consensus nodes and peers in one process: bot peers find each other, join and play a whole table
over a transport the test chooses (the in-memory network or zmq on 127.0.0.1).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

from kdm.agents import Bot, Profile
from kdm.manager import Rules, installed_plugins
from kdm.net.node import Node
from kdm.net.raft_log import MemoryStorage
from kdm.net.transport import Transport
from kdm.peer import Peer

FAST = Profile(reaction_ms=15, reaction_spread_ms=3, think_ms=(30, 60), feint_chance=0.02, fooled_chance=0.2)


async def play_table(
    players: int,
    rounds: int,
    make_transport: Callable[[int], Transport],
    address: Callable[[str], str],
    variants: Sequence[str] = (),
    options: dict[str, Any] | None = None,
    profile: Profile = FAST,
) -> list[Peer]:
    """Bot peers found, join and play a whole table; returns them once every one saw the end."""
    installed = installed_plugins()
    nodes: list[Node] = []
    peers: list[Peer] = []
    transports_seen: list[str] = []
    for i in range(players):
        transport = make_transport(i)
        await transport.start()
        bot = Bot(i, "greedy", seed=b"node-test", profile=profile)
        founder = (transport.node_id if i == 0 else transports_seen[0],)
        transports_seen.append(transport.node_id)
        node = Node(transport, "t1", MemoryStorage(), voters=founder, seed=i, address_of=address)
        peer = Peer(node, installed, bot=bot)
        node.on_commit = peer.committed
        node.on_direct = peer.received_direct
        node.on_leader = peer.leader_changed
        nodes.append(node)
        peers.append(peer)
    await nodes[0].start()
    for node in nodes[1:]:
        await node.start(contact=nodes[0].node_id)
    for peer in peers:
        peer.start()
    while not nodes[0].is_leader:
        await asyncio.sleep(0.01)
    rules = Rules.for_table(variants)
    # Kilo de merde's own defaults; a game mode without rounds (Kem's) plays to its target instead.
    defaults = {
        name: value for name, value in (("rounds", rounds), ("slap_timeout_ms", 1000)) if rules.declares(name)
    }
    table_options = {**defaults, **(options or {})}
    peers[0].create_table("kitchen", players, table_options, rules)
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
