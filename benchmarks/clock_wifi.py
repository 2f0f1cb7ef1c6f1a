"""How far each laptop's agreed clock is from its leader's, on the test LAN's Wi-Fi (issue 28).

Four laptops (``tests.helpers.netns.NamespaceLan(4, link=PROFILE)``) run one consensus node each, every
one a voter, with no game. The laptops are namespaces of one machine and share its monotonic clock, so
the true offset between any two is 0, and each follower's estimate of its leader's clock
(``Node.clock.offset_ms``, what a press's ``t_sync`` is stamped with) is its error. Every follower's
estimate is read every ``--every-s`` seconds, first with the table at rest, then while one follower
proposes a small entry every ``--gap-ms`` (a table in play), each phase for ``--seconds``.

Prints one JSON object per profile and phase: the error's median, 95th percentile and largest over every
reading (|offset|, ms), the error bound the estimate gives itself (half its best round trip) at the
median, and how many readings were further off than their own bound (none should be: the laptops share
one clock, so the leader's time lies within the round trip of every sample). Several trees (each a
checkout with its own ``.venv``) are measured in turn, each on a LAN of its own. Needs root (network
namespaces), as the LAN tests do.

    sudo .venv/bin/python benchmarks/clock_wifi.py [--trees . /tmp/kdm-before] [--profiles wifi bad]
        [--seconds 30] [--gap-ms 50] [--runs 1]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from consensus_latency import _line, voter  # this folder's

from kdm.net.raft_log import MemoryStorage

ROOT = Path(__file__).resolve().parent.parent


async def _child(index: int, founder: str | None, address: str, args: argparse.Namespace) -> None:
    """One laptop's node: print its id, join the founder, say when it votes, wait for ``go``, then
    print its clock's readings as JSON lines (and propose, as follower 1 in the busy phase), then
    ``done``."""
    node = await voter(index, founder, MemoryStorage(), address)
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, sys.stdin.readline)  # go
    for phase in ("rest", "busy"):
        proposing = phase == "busy" and index == 1
        ends, number = time.monotonic() + args.seconds, 0
        next_reading = time.monotonic() + args.every_s
        while time.monotonic() < ends:
            if proposing:
                node.propose(f"{index} {number}".encode())
                number += 1
            await asyncio.sleep(args.gap_ms / 1000 if proposing else args.every_s)
            if time.monotonic() >= next_reading:
                next_reading += args.every_s
                leading = node.is_leader
                reading = {"phase": phase, "leads": leading, "offset": node.clock.offset_ms,
                           "error": node.clock.error_ms}  # fmt: skip
                print(json.dumps(reading), flush=True)
    print("done", flush=True)
    await node.stop()


def one_lan(tree: Path, profile: str, args: argparse.Namespace) -> list[dict[str, Any]]:
    """Every follower reading of one LAN of ``tree``'s nodes."""
    from tests.helpers.netns import NamespaceLan

    python = str(tree / ".venv" / "bin" / "python")
    with NamespaceLan(args.laptops, link=profile) as lan:
        processes: list[subprocess.Popen[str]] = []
        founder = ""
        for index in range(args.laptops):
            child = [python, __file__, "--child", str(index), "--address", lan.address(index)]
            child += [
                "--seconds",
                str(args.seconds),
                "--gap-ms",
                str(args.gap_ms),
                "--every-s",
                str(args.every_s),
            ]
            child += ["--founder", founder] if founder else []
            process = lan.run(
                index, child, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=tree
            )
            processes.append(process)
            founder = founder or _line(process)
            if index:
                _line(process)
            _line(process)  # a voter now
        time.sleep(args.settle_s)
        for process in processes:
            assert process.stdin is not None
            process.stdin.write("go\n")
            process.stdin.flush()
        readings = []
        for process in processes:
            while (line := _line(process)) != "done":
                readings.append(json.loads(line))
        for process in processes:
            process.wait(10)
    return [reading for reading in readings if not reading["leads"]]


def summary(readings: list[dict[str, Any]]) -> dict[str, Any]:
    estimated = [reading for reading in readings if reading["offset"] is not None]
    errors = sorted(abs(reading["offset"]) for reading in estimated)
    if not errors:
        return {"readings": len(readings), "with_an_estimate": 0}
    return {
        "readings": len(readings),
        "with_an_estimate": len(errors),
        "error_ms_p50": round(statistics.median(errors), 3),
        "error_ms_p95": round(errors[int(0.95 * (len(errors) - 1))], 3),
        "error_ms_max": round(errors[-1], 3),
        "bound_ms_p50": round(statistics.median(reading["error"] for reading in estimated), 3),
        # Cristian's bound holds for any sample of a clock both ends share: an error past it is a bug.
        "past_its_bound": sum(1 for reading in estimated if abs(reading["offset"]) > reading["error"] + 1e-6),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--trees", type=Path, nargs="+", default=[Path(".")], help="checkouts, each with .venv"
    )
    parser.add_argument("--profiles", nargs="+", default=["wifi"])
    parser.add_argument("--laptops", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=30.0, help="each phase's length")
    parser.add_argument("--gap-ms", type=float, default=50.0, help="between two entries in the busy phase")
    parser.add_argument("--every-s", type=float, default=0.5, help="between two readings of a clock")
    parser.add_argument(
        "--settle-s", type=float, default=5.0, help="after the last voter, before the readings"
    )
    parser.add_argument("--runs", type=int, default=1, help="LANs per tree and profile, taking turns")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--founder", help=argparse.SUPPRESS)
    parser.add_argument("--address", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        asyncio.run(_child(args.child, args.founder, args.address, args))
        return
    sys.path.insert(0, str(ROOT))
    from tests.helpers.netns import NamespaceLan

    reason = NamespaceLan.skip_reason()
    if reason is not None:
        raise SystemExit(f"cannot build the test LAN: {reason}")
    gathered: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for _run in range(args.runs):
        for profile in args.profiles:
            for tree in (tree.resolve() for tree in args.trees):
                gathered.setdefault((str(tree), profile), []).extend(one_lan(tree, profile, args))
    for (tree, profile), readings in gathered.items():
        for phase in ("rest", "busy"):
            figure = {"figure": "clock_error", "tree": tree, "profile": profile, "phase": phase}
            print(json.dumps({**figure, **summary([r for r in readings if r["phase"] == phase])}), flush=True)


if __name__ == "__main__":
    main()
