"""What a table of nodes at rest costs in the node's own code, counted the same every time (issue 28).

``--peers`` nodes (every one a voter) over the in-memory network (``kdm.net.transport.MemoryNetwork``,
2 ms a message) in virtual time (``kdm.testing.run_virtual``): no zmq, no disk, no clock of the machine,
so what is counted is Raft, the node's loops and asyncio's: the heartbeats, their answers, the clock
pings, the timers. Run for ``--seconds`` of the table at rest and for a sixth of that: the difference,
per second, is what the table does a second at rest (start-up, joins and the election taken off),
counted as the instructions valgrind's callgrind counts, or with ``--calls`` (no valgrind needed) as the
Python and built-in function calls ``sys.setprofile`` sees. The same code counts the same whatever
else the machine does. Several trees (each a checkout with its own ``.venv``) are counted in turn.
Prints one JSON object per tree.

    python benchmarks/node_at_rest.py [--trees . /tmp/kdm-before] [--peers 4] [--seconds 60] [--calls]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
from pathlib import Path

from callgrind import instructions  # this folder's


async def _table_at_rest(peers: int, seconds: float) -> None:
    # As ``kdm.testing.memory_table`` does, written out: the trees measured may be older than it.
    from kdm.net.node import Node
    from kdm.net.raft_log import MemoryStorage
    from kdm.net.transport import MemoryNetwork

    network = MemoryNetwork(delay=0.002)
    founding = tuple(f"n{index}:{index + 1}" for index in range(peers))
    nodes = [
        Node(
            network.transport(name),
            "t1",
            MemoryStorage(),
            voters=founding,
            address_of=lambda n: f"memory://{n}",
        )
        for name in founding
    ]
    for node in nodes:
        await node.transport.start()
    for node in nodes:
        await node.start()
    while len({node.raft.leader for node in nodes}) != 1 or nodes[0].raft.leader is None:
        await asyncio.sleep(0.05)
    await asyncio.sleep(2.0 + seconds)  # (the last commits of the election settled first)
    for node in nodes:
        await node.stop()


def _count_calls(peers: int, seconds: float) -> None:
    """Run the table, counting every function call; print the count."""
    from kdm.testing import run_virtual

    calls = 0

    def count(_frame: object, event: str, _arg: object) -> None:
        nonlocal calls
        if event in ("call", "c_call"):
            calls += 1

    sys.setprofile(count)
    try:
        run_virtual(_table_at_rest(peers, seconds))
    finally:
        sys.setprofile(None)
    print(calls)


def _counted(tree: Path, peers: int, seconds: float, calls: bool) -> int:
    """What ``tree``'s table counts, start-up included: instructions, or calls with ``calls``."""
    command = [str(tree / ".venv" / "bin" / "python"), str(Path(__file__).resolve())]
    command += ["--run", str(peers), str(seconds)] + (["--calls"] if calls else [])
    if calls:
        done = subprocess.run(command, capture_output=True, text=True, check=True, cwd=tree)
        return int(done.stdout.split()[-1])
    return instructions(command, tree)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--trees", type=Path, nargs="+", default=[Path(".")], help="checkouts, each with .venv"
    )
    parser.add_argument("--peers", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=60.0, help="virtual seconds at rest, counted")
    parser.add_argument("--calls", action="store_true", help="count function calls, not instructions")
    parser.add_argument("--run", nargs=2, help=argparse.SUPPRESS)  # (the counted process itself)
    args = parser.parse_args()
    if args.run is not None:
        if args.calls:
            _count_calls(int(args.run[0]), float(args.run[1]))
        else:
            from kdm.testing import run_virtual

            run_virtual(_table_at_rest(int(args.run[0]), float(args.run[1])))
        return
    short = args.seconds / 6
    what = "calls_per_second" if args.calls else "instructions_per_second"
    for tree in (tree.resolve() for tree in args.trees):
        long_count = _counted(tree, args.peers, args.seconds, args.calls)
        counted = long_count - _counted(tree, args.peers, short, args.calls)
        figure = {"figure": "node_table_at_rest", "tree": str(tree), "peers": args.peers}
        print(json.dumps({**figure, what: round(counted / (args.seconds - short))}), flush=True)


if __name__ == "__main__":
    sys.exit(main())
