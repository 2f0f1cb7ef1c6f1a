"""Slap fairness: does the computed loser match the truly slowest player when the network is unfair?

Each window is played through the real engine. A simulated network gives every message a one-way delay
drawn from ``--delay-ms`` (default 1–60 ms, drawn anew per message), every peer a clock offset within
±``--offset-ms`` (default 500), estimated with the peers' own Cristian estimator from eight pings. Seat
0 slaps a combo; the leader commits it; each other player sees it after its downlink delay and a redraw,
reacts with a human reaction time, and its slap reaches the leader after its uplink delay. The engine
orders slaps by effective time (DESIGN 5.6); the baseline orders them by arrival at the leader.

Printed: one JSON object per player count, with the share of windows whose loser is the player with the
slowest true reaction, over windows where that player was at least ``--gap-ms`` (default 10) slower than
the next slowest.

    python benchmarks/fairness.py [--windows 1000] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import random

from kdm.net.clock import ClockEstimator, ClockSample
from kdm.plugins.kilo.events import Slap
from kdm.plugins.kilo.testing import ScriptedKilo

KINGS = ["KH", "KS", "KD", "KC"]


def one_window(
    players: int, rng: random.Random, delay: tuple[float, float], offset: float
) -> dict[str, object]:
    def hop() -> float:
        return rng.uniform(*delay)

    offsets = [rng.uniform(-offset, offset) for _ in range(players)]  # local clock = true time + offset
    leader = rng.randrange(players)
    estimates = []
    for seat in range(players):
        estimator = ClockEstimator()
        now = rng.uniform(0, 1000)
        for _ping in range(8):
            to_leader, back = (0.0, 0.0) if seat == leader else (hop(), hop())
            sent_true = now
            server = sent_true + to_leader + offsets[leader]
            received_true = sent_true + to_leader + back
            estimator.add(ClockSample(sent_true + offsets[seat], server, received_true + offsets[seat]))
            now += 500
        estimates.append(estimator)

    def agreed(seat: int, true_time: float) -> float:
        return estimates[seat].to_reference(true_time + offsets[seat])

    press0 = 10_000.0
    arrive0 = press0 + (0.0 if leader == 0 else hop())
    commit = arrive0  # the leader commits and sends the commit index at once
    slaps = []
    truth: dict[int, float] = {}
    for seat in range(1, players):
        applied = commit + (0.0 if seat == leader else hop())
        shown = applied + rng.uniform(2.0, 20.0)  # the redraw that paints it
        reaction = max(120.0, rng.gauss(300.0, 70.0))
        press = shown + reaction
        measured = reaction + rng.uniform(0.0, 1.0)  # key stamped when read
        arrive = press + (0.0 if seat == leader else hop())
        truth[seat] = reaction
        slaps.append((arrive, seat, measured, press))
    slaps.sort()
    table = ScriptedKilo(players, {"slap_timeout_ms": 60000})
    table.deal([KINGS])
    table.act(Slap(seat=0, t_sync=agreed(0, press0)))
    opener = table.seq_of("slapped", 0)
    for _arrive, seat, measured, press in slaps:
        table.act(Slap(seat=seat, t_sync=agreed(seat, press), trigger=opener, rt=measured))
    slowest = sorted(truth.items(), key=lambda item: item[1])
    return {
        "gap": slowest[-1][1] - slowest[-2][1] if len(slowest) > 1 else float("inf"),
        "slowest": slowest[-1][0],
        "computed": table.last("judged")["losers"][0],
        "by_arrival": slaps[-1][1],
    }


def measure(
    players: int, windows: int, seed: int, delay: tuple[float, float], offset: float, gap: float
) -> dict[str, object]:
    rng = random.Random(f"fairness:{seed}:{players}")
    results = [one_window(players, rng, delay, offset) for _ in range(windows)]
    eligible = [r for r in results if float(r["gap"]) >= gap]  # type: ignore[arg-type]
    right = sum(r["computed"] == r["slowest"] for r in eligible)
    by_arrival = sum(r["by_arrival"] == r["slowest"] for r in eligible)
    return {
        "figure": "slap_fairness",
        "players": players,
        "windows": windows,
        "eligible_windows": len(eligible),
        "min_gap_ms": gap,
        "one_way_delay_ms": list(delay),
        "clock_offset_ms": offset,
        "effective_time_correct": round(right / len(eligible), 4),
        "arrival_order_correct": round(by_arrival / len(eligible), 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--windows", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--delay-ms", type=float, nargs=2, default=(1.0, 60.0))
    parser.add_argument("--offset-ms", type=float, default=500.0)
    parser.add_argument("--gap-ms", type=float, default=10.0)
    args = parser.parse_args()
    for players in (4, 10):
        figure = measure(players, args.windows, args.seed, tuple(args.delay_ms), args.offset_ms, args.gap_ms)
        print(json.dumps(figure), flush=True)


if __name__ == "__main__":
    main()
