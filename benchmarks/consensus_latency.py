"""Commit latency of the consensus layer alone: N kdm nodes, one process each, and no game.

``network.py``'s commit latency is taken inside a ``kdm selfplay`` game, where every commit wakes ten
processes that apply it and let their bots look, all on the machine's cores. This figure takes the game
away and keeps everything else a commit goes through: separate processes on 127.0.0.1, CurveZMQ, the
leader's screening, a log on disk (``FileStorage``, synced as Raft needs). Follower-proposers propose one
small entry at a time at a steady pace and time it from ``propose`` to applied on themselves, as a
player's action is timed in a game. Comparing the two says how much of a game's latency is the
consensus's and how much is the shared cores'.

Prints one JSON object per size, with p50 and p99 in ms, then the floor under them: a round trip
between two processes through the same transport (``ZmqTransport``: CurveZMQ, asyncio), back to back
and after a pause like the one between two commits.

    python benchmarks/consensus_latency.py [--peers 4 10] [--entries 400] [--proposers 1] [--gap-ms 20]
                                           [--in-memory]
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
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from kdm.net.node import Node, address_of, listen
from kdm.net.raft_log import MemoryStorage, Storage
from kdm.net.storage import FileStorage

# Outside a namespace the benchmarks keep to loopback, like the tests (tests/conftest.py).
os.environ.setdefault("KDM_INTERFACE", "127.0.0.1")
TABLE = "bench"


async def voter(
    index: int,
    founder: str | None,
    storage: Storage,
    address: str = "127.0.0.1",
    committed: Callable[[bytes], None] | None = None,
) -> Node:
    """One node of a bench table, listening on ``address``: it prints its id, joins ``founder`` (None:
    it founds the table), and prints ``voter`` once it votes; ``committed`` hears every entry applied."""
    transport = await listen(address)
    voters = (transport.node_id,) if founder is None else (founder,)
    node = Node(transport, TABLE, storage, voters=voters, seed=index, address_of=address_of)

    def on_commit(data: bytes) -> None:
        if committed is not None:
            committed(data)
        if data.startswith(b"voter "):  # the voters approve each newcomer that asks; the leader makes it one
            newcomer = data[6:].decode()
            node.approve("add_voter", newcomer)
            node.promote(newcomer)

    node.on_commit = on_commit
    await node.start(contact=founder)
    print(transport.node_id, flush=True)
    while founder is not None and transport.node_id not in node.raft.voters:
        node.propose(b"voter " + transport.node_id.encode())
        await asyncio.sleep(0.05)
    print("voter", flush=True)
    return node


async def _child(index: int, founder: str | None, folder: Path, on_disk: bool) -> None:
    """One node: print its id, join the founder, say when it votes, then obey commands on stdin:
    ``propose COUNT GAP_MS`` (answers with the latencies, as JSON) or ``stop``."""
    applied: dict[bytes, float] = {}
    waiting: dict[bytes, asyncio.Event] = {}

    def committed(data: bytes) -> None:
        applied[data] = time.perf_counter()
        if data in waiting:
            waiting[data].set()

    storage = FileStorage(folder / f"node{index}.log") if on_disk else MemoryStorage()
    node = await voter(index, founder, storage, committed=committed)
    loop = asyncio.get_running_loop()
    while True:
        command = (await loop.run_in_executor(None, sys.stdin.readline)).split()
        if not command or command[0] == "stop":
            break
        count, gap_ms = int(command[1]), float(command[2])
        latencies = []
        for number in range(count):
            data = f"{node.node_id} {number}".encode()
            waiting[data] = done = asyncio.Event()
            started = time.perf_counter()
            while not done.is_set():  # a proposal can be lost with a leader; retry as a peer does
                node.propose(data)
                try:
                    await asyncio.wait_for(done.wait(), 1.0)
                except asyncio.TimeoutError:
                    continue
            latencies.append((applied[data] - started) * 1000)
            await asyncio.sleep(gap_ms / 1000)
        print(json.dumps(latencies), flush=True)
    await node.stop()


async def _echo() -> None:
    """Send back whatever arrives, to whoever sent it, until ``stop``."""
    transport = await listen("127.0.0.1")
    print(transport.node_id, flush=True)
    while True:
        sender, data = await transport.recv()
        transport.connect(sender, address_of(sender))
        transport.send(sender, data)
        if data == b"stop":
            break
    await transport.close()


async def _round_trips(count: int, gap_ms: float) -> dict[str, object]:
    echo = subprocess.Popen([sys.executable, __file__, "--echo"], stdout=subprocess.PIPE, text=True)
    transport = await listen("127.0.0.1")
    try:
        other = _line(echo)
        transport.connect(other, address_of(other))
        samples = []
        for _ in range(count):
            started = time.perf_counter()
            transport.send(other, b"x" * 200)  # about the size of a small append
            await transport.recv()
            samples.append((time.perf_counter() - started) * 1000)
            await asyncio.sleep(gap_ms / 1000)
        transport.send(other, b"stop")
        await transport.recv()
    finally:
        await transport.close()
        echo.wait(10)
    return {"figure": "transport_round_trip", "gap_ms": gap_ms, **_percentiles(samples)}


def _percentiles(samples: list[float]) -> dict[str, object]:
    samples = sorted(samples)
    return {
        "samples": len(samples),
        "p50_ms": round(statistics.median(samples), 2),
        "p99_ms": round(samples[int(0.99 * (len(samples) - 1))], 2),
        "max_ms": round(samples[-1], 2),
    }


def _spawn(index: int, founder: str | None, folder: Path, on_disk: bool) -> subprocess.Popen[str]:
    command = [sys.executable, __file__, "--child", str(index), "--folder", str(folder)]
    command += [] if on_disk else ["--in-memory"]
    if founder is not None:
        command += ["--founder", founder]
    return subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def _line(process: subprocess.Popen[str]) -> str:
    assert process.stdout is not None
    line = process.stdout.readline()
    if not line:
        raise RuntimeError(f"a node exited early (status {process.wait()})")
    return line.strip()


def stop(processes: list[subprocess.Popen[str]]) -> None:
    """Tell every node still running to stop, then wait for each (10 s at most, then kill it)."""
    for process in processes:
        if process.stdin is not None and process.poll() is None:
            with contextlib.suppress(BrokenPipeError):
                process.stdin.write("stop\n")
                process.stdin.close()
    for process in processes:
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()


def measure(peers: int, entries: int, proposers: int, gap_ms: float, on_disk: bool) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="kdm-consensus-") as folder:
        founder = _spawn(0, None, Path(folder), on_disk)
        processes = [founder]
        try:
            founder_id = _line(founder)
            _line(founder)
            for index in range(1, peers):
                processes.append(_spawn(index, founder_id, Path(folder), on_disk))
                _line(processes[-1])
                _line(processes[-1])
            time.sleep(1.0)  # let the joins' catch-up traffic end before timing
            chosen = processes[1 : 1 + proposers]
            for process in chosen:
                assert process.stdin is not None
                process.stdin.write(f"propose {entries} {gap_ms}\n")
                process.stdin.flush()
            samples = [latency for process in chosen for latency in json.loads(_line(process))]
        finally:
            stop(processes)
    return {
        "figure": "consensus_latency",
        "peers": peers,
        "proposers": proposers,
        "gap_ms": gap_ms,
        "log": "file" if on_disk else "memory",
        **_percentiles(samples),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peers", type=int, nargs="+", default=[4, 10])
    parser.add_argument("--entries", type=int, default=400, help="per proposer")
    parser.add_argument("--proposers", type=int, default=1, help="followers proposing at once")
    parser.add_argument("--gap-ms", type=float, default=20.0, help="pause after each commit")
    parser.add_argument("--in-memory", action="store_true", help="logs in memory, never synced")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--echo", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--founder", help=argparse.SUPPRESS)
    parser.add_argument("--folder", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        asyncio.run(_child(args.child, args.founder, args.folder, not args.in_memory))
        return
    if args.echo:
        asyncio.run(_echo())
        return
    for peers in args.peers:
        print(
            json.dumps(measure(peers, args.entries, args.proposers, args.gap_ms, not args.in_memory)),
            flush=True,
        )
    for gap_ms in (0.0, args.gap_ms):
        print(json.dumps(asyncio.run(_round_trips(args.entries, gap_ms))), flush=True)


if __name__ == "__main__":
    main()
