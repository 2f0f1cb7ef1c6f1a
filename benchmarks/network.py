"""Network figures on loopback: commit latency, failover, join, and one peer's footprint.

Prints one JSON object per figure:
- ``commit_latency``: ``kdm selfplay`` with 4 and 10 bot peers (separate processes): every game action
  from propose to applied on the proposing peer, p50 and p99;
- ``failover``: five consensus nodes in one process over zmq on 127.0.0.1; the leader stops dead
  (its sockets closed, no goodbye); time until a follower's proposal commits again;
- ``join``: a node joins a running table: from its first hello to its seat being committed;
- ``footprint``: RSS and CPU use of one idle ``kdm host`` waiting in its lobby for 10 seconds.

    python benchmarks/network.py [--skip-selfplay]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from kdm.manager import installed_plugins
from kdm.net.node import Node, address_of, listen
from kdm.net.raft_log import MemoryStorage
from kdm.peer import Peer

# Outside a namespace the benchmarks keep to loopback, like the tests (tests/conftest.py): nothing they
# start multicasts or listens on the machine's own interfaces.
os.environ.setdefault("KDM_INTERFACE", "127.0.0.1")


def commit_latency(peers: int, rounds: int) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-m", "kdm", "selfplay", "--peers", str(peers), "--rounds", str(rounds), "--json"],
        capture_output=True, text=True, timeout=900, check=True,
    )  # fmt: skip
    result = json.loads(done.stdout)
    return {"figure": "commit_latency", "peers": peers, "rounds": rounds, **result["commit_latency_ms"],
            "digests_equal": len(set(result["digests"])) == 1, "seconds": result["seconds"]}  # fmt: skip


async def _cluster(size: int) -> list[Node]:
    nodes: list[Node] = []
    for index in range(size):
        transport = await listen("127.0.0.1")
        founder = (transport.node_id if index == 0 else nodes[0].node_id,)
        nodes.append(
            Node(transport, "bench", MemoryStorage(), voters=founder, seed=index, address_of=address_of)
        )
    await nodes[0].start()
    while not nodes[0].is_leader:
        await asyncio.sleep(0.005)
    for node in nodes[1:]:
        await node.start(contact=nodes[0].node_id)
        while node.node_id not in nodes[0].raft.voters or node.node_id not in node.raft.voters:
            # a newcomer only learns until the voters approve it (the application's word) and it votes
            for voter in nodes:
                voter.approve("add_voter", node.node_id)
            nodes[0].promote(node.node_id)
            await asyncio.sleep(0.005)
    return nodes


async def failover_once(size: int) -> float:
    nodes = await _cluster(size)
    committed: dict[str, asyncio.Event] = {node.node_id: asyncio.Event() for node in nodes}
    for node in nodes:
        node.on_commit = lambda data, node_id=node.node_id: (
            committed[node_id].set() if data == b"after" else None
        )
    await asyncio.sleep(0.3)  # settle: everyone has heard a heartbeat
    leader = next(node for node in nodes if node.is_leader)
    survivors = [node for node in nodes if node is not leader]
    started = time.perf_counter()
    await leader.stop()
    proposer = survivors[0]
    while not committed[proposer.node_id].is_set():
        proposer.propose(b"after")
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(committed[proposer.node_id].wait(), 0.05)
    elapsed = time.perf_counter() - started
    for node in survivors:
        await node.stop()
    return elapsed * 1000


async def join_once() -> float:
    installed = installed_plugins()
    nodes = await _cluster(3)
    peers = []
    for node in nodes:
        peer = Peer(node, installed)
        node.on_commit = peer.committed
        peer.start()
        peers.append(peer)
    from kdm.manager import Rules

    peers[0].create_table("bench", 4, {}, Rules.for_table())
    for peer in peers[1:]:
        peer.join_table()
    while len(peers[0].record.seats) < 3:
        await asyncio.sleep(0.005)
    transport = await listen("127.0.0.1")
    newcomer = Node(
        transport, "bench", MemoryStorage(), voters=(nodes[0].node_id,), seed=9, address_of=address_of
    )
    peer = Peer(newcomer, installed)
    newcomer.on_commit = peer.committed
    started = time.perf_counter()
    await newcomer.start(contact=nodes[0].node_id)
    peer.start()
    peer.join_table()
    while peer.seat is None:
        await asyncio.sleep(0.001)
    elapsed = time.perf_counter() - started
    for each in [*peers, peer]:
        await each.stop()
    for node in [*nodes, newcomer]:
        await node.stop()
    return elapsed * 1000


def footprint(seconds: float = 10.0) -> dict[str, object]:
    host = subprocess.Popen(
        [sys.executable, "-m", "kdm", "host", "--headless", "--no-advertise", "--interface", "127.0.0.1",
         "--players", "4"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        assert host.stdout is not None
        host.stdout.readline()
        time.sleep(2.0)  # let start-up finish before measuring idle use
        ticks = os.sysconf("SC_CLK_TCK")
        before = _cpu_ticks(host.pid)
        time.sleep(seconds)
        used = (_cpu_ticks(host.pid) - before) / ticks
        rss_kib = int(next(line for line in Path(f"/proc/{host.pid}/status").read_text().splitlines()
                           if line.startswith("VmRSS")).split()[1])  # fmt: skip
    finally:
        host.terminate()
        host.wait()
    return {
        "figure": "footprint",
        "rss_mib": round(rss_kib / 1024, 1),
        "idle_cpu_percent": round(100 * used / seconds, 2),
    }


def _cpu_ticks(pid: int) -> int:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime


def _summary(samples_ms: list[float]) -> dict[str, object]:
    return {"runs": len(samples_ms), "median_ms": round(statistics.median(samples_ms), 1),
            "max_ms": round(max(samples_ms), 1)}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-selfplay", action="store_true")
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    if not args.skip_selfplay:
        for peers, rounds in ((4, 5), (10, 3)):
            print(json.dumps(commit_latency(peers, rounds)), flush=True)
    failovers = [asyncio.run(failover_once(5)) for _ in range(args.repeat)]
    print(json.dumps({"figure": "failover", "nodes": 5, **_summary(failovers)}), flush=True)
    joins = [asyncio.run(join_once()) for _ in range(args.repeat)]
    print(json.dumps({"figure": "join", **_summary(joins)}), flush=True)
    if sys.platform.startswith("linux"):
        print(json.dumps(footprint()), flush=True)


if __name__ == "__main__":
    main()
