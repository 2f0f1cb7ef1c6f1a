"""What one message costs in ``ZmqTransport``: round trips between two processes (issue 28, items 1 and 2).

Two processes on 127.0.0.1, each with a ``ZmqTransport`` as kdm makes them (``kdm.net.node.listen``:
CurveZMQ, a ROUTER to listen, a DEALER per peer): one sends a 120-byte payload, the other sends it back,
``--round-trips`` times, on asyncio as a node does. Figures:

- ``cpu_us_per_round_trip``: both processes' CPU (every thread: zmq's I/O threads and CurveZMQ
  included, ``getrusage``) for ``--round-trips`` round trips less that for a fifth as many, per round
  trip of the difference (start-up and connection taken off): two sends and two receives. The
  machine's mood moves it: take several runs, nothing else running.
- with ``--callgrind``, ``instructions_per_round_trip`` instead: the instructions valgrind's callgrind
  counts in both processes, split the same way. The same code counts the same whatever else the
  machine does (the kernel's share is not counted).

Several trees (each a checkout with its own ``.venv``) are measured in turn. Prints one JSON object per
run. Nothing here asserts on time.

    python benchmarks/transport_cost.py [--trees . /tmp/kdm-before] [--round-trips 3000] [--runs 3]
        [--callgrind]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import subprocess
import sys
from pathlib import Path

from callgrind import instructions  # this folder's

# Outside a namespace the benchmarks keep to loopback, like the tests (tests/conftest.py).
os.environ.setdefault("KDM_INTERFACE", "127.0.0.1")
PAYLOAD = b"x" * 120


def _cpu_s() -> float:
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime


async def _echo(round_trips: int, to_parent: int) -> None:
    from kdm.net.node import address_of, listen

    transport = await listen("127.0.0.1")
    os.write(to_parent, (transport.node_id + "\n").encode())
    for _ in range(round_trips + 1):  # the first one introduces the other end
        sender, data = await transport.recv()
        transport.connect(sender, address_of(sender))
        transport.send(sender, data)
    await asyncio.sleep(0.5)  # the last answer leaves before the sockets close
    await transport.close()


async def _ping(round_trips: int, echo_id: str) -> None:
    from kdm.net.node import address_of, listen

    transport = await listen("127.0.0.1")
    transport.connect(echo_id, address_of(echo_id))
    transport.send(echo_id, PAYLOAD)
    await transport.recv()
    for _ in range(round_trips):
        transport.send(echo_id, PAYLOAD)
        await transport.recv()
    await transport.close()


def pair(round_trips: int) -> None:
    """Run in a tree's python: the echo forked off, then the pings; both processes' CPU printed."""
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(read_end)
        asyncio.run(_echo(round_trips, write_end))
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end) as echo:
        echo_id = echo.readline().strip()
    asyncio.run(_ping(round_trips, echo_id))
    os.waitpid(child, 0)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(json.dumps({"cpu_s": _cpu_s() + children.ru_utime + children.ru_stime}))


def _run(tree: Path, round_trips: int, callgrind: bool) -> float:
    """CPU seconds, or instructions with ``callgrind``, of two processes of ``tree`` (its own venv's
    kdm) that make ``round_trips`` round trips, start-up included."""
    command = [
        str(tree / ".venv" / "bin" / "python"),
        str(Path(__file__).resolve()),
        "--pair",
        str(round_trips),
    ]
    if not callgrind:
        done = subprocess.run(command, capture_output=True, text=True, check=True, cwd=tree)
        return float(json.loads(done.stdout.splitlines()[-1])["cpu_s"])
    return float(instructions(command, tree))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--trees", type=Path, nargs="+", default=[Path(".")], help="checkouts, each with .venv"
    )
    parser.add_argument("--round-trips", type=int, default=3000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--callgrind", action="store_true", help="count instructions under valgrind")
    parser.add_argument("--pair", type=int, help=argparse.SUPPRESS)  # (the measured processes themselves)
    args = parser.parse_args()
    if args.pair is not None:
        pair(args.pair)
        return
    trees = [tree.resolve() for tree in args.trees]
    for _ in range(args.runs):
        for tree in trees:  # in turn, so the machine's mood falls on every tree
            few = max(1, args.round_trips // 5)
            counted = _run(tree, args.round_trips, args.callgrind) - _run(tree, few, args.callgrind)
            per_round_trip = counted / (args.round_trips - few)
            if args.callgrind:
                figure = {"instructions_per_round_trip": round(per_round_trip)}
            else:
                figure = {"cpu_us_per_round_trip": round(per_round_trip * 1e6, 1)}
            print(json.dumps({"figure": "transport_round_trip", "tree": str(tree), **figure}), flush=True)


if __name__ == "__main__":
    sys.exit(main())
