"""Engine speed: events/s and rounds/s of bots-only games, for 4 and 10 players, on one core.

Prints one JSON object per figure:
- ``sim``: whole games as ``kdm sim`` plays them (engine + greedy bots + the simulated table);
- ``replay``: the engine alone, applying the same recorded events to a fresh table.

A game mode without rounds (Kem's plays deals to a target) gets no ``rounds`` option, and its deals
count as rounds; give it player counts it allows (``--variant kems --players 4 --players 8``).

    python benchmarks/sim.py [--games N] [--rounds R] [--variant NAME]... [--players N]... [--profile K]

``--profile K`` also prints, per player count, the K functions whole games spend most of their own time
in (cProfile, one more run of the same games): where the next speed-up is.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import platform
import pstats
import time

from kdm.engine import Engine
from kdm.events import Event
from kdm.manager import Rules
from kdm.sim import Simulation


def measure(players: int, games: int, rounds: int, variants: list[str]) -> list[dict[str, object]]:
    rules = Rules.for_table(variants)
    # As ``kdm sim`` does: only a game of rounds has a ``rounds`` option.
    options = {"rounds": rounds} if rules.declares("rounds") else {}
    logs: list[list[Event]] = []
    events = played_rounds = 0
    sim_seconds = 0.0
    for seed in range(games):
        log: list[Event] = []
        simulation = Simulation(players, seed, "greedy", options, rules=rules)
        started = time.perf_counter()
        result = simulation.run(lambda _now, event, _effects, log=log: log.append(event))
        sim_seconds += time.perf_counter() - started
        events += result.events
        played_rounds += result.rounds or (result.summary or {}).get("deals", 0)
        logs.append(log)
    replay_seconds = 0.0
    for log in logs:
        engine = Engine(rules, players, options)
        started = time.perf_counter()
        for event in log:
            engine.apply(event)
        replay_seconds += time.perf_counter() - started
    common = {
        "players": players,
        "variants": variants,
        "games": games,
        "events": events,
        "rounds": played_rounds,
    }
    return [
        figure("sim", common, sim_seconds, events, played_rounds),
        figure("replay", common, replay_seconds, events, played_rounds),
    ]


def profile(players: int, games: int, rounds: int, variants: list[str], top: int) -> dict[str, object]:
    """The ``top`` functions by own time over the same whole games, under cProfile."""
    rules = Rules.for_table(variants)
    options = {"rounds": rounds} if rules.declares("rounds") else {}
    profiler = cProfile.Profile()
    profiler.enable()
    for seed in range(games):
        Simulation(players, seed, "greedy", options, rules=rules).run()
    profiler.disable()
    stats = pstats.Stats(
        profiler
    ).stats  # (path, line, function) -> (primitive, calls, own, cumulative, callers)
    rows = sorted(stats.items(), key=lambda item: item[1][2], reverse=True)[:top]
    lines = [
        {"function": f"{os.path.basename(path)}:{line}({name})", "calls": calls, "own_s": round(own, 3),
         "cumulative_s": round(cumulative, 3)}
        for (path, line, name), (_primitive, calls, own, cumulative, _callers) in rows
    ]  # fmt: skip
    return {"figure": "profile", "players": players, "variants": variants, "games": games, "top": lines}


def figure(
    name: str, common: dict[str, object], seconds: float, events: int, rounds: int
) -> dict[str, object]:
    return {
        "figure": name,
        **common,
        "seconds": round(seconds, 3),
        "events_per_s": round(events / seconds),
        "rounds_per_s": round(rounds / seconds, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--variant", action="append", default=[])
    parser.add_argument("--players", action="append", type=int, help="player counts (default 4 and 10)")
    parser.add_argument("--profile", type=int, default=0, metavar="K", help="also print the top K functions")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core, as the figure says
    machine = {"python": platform.python_version(), "machine": platform.machine(), "cpus": os.cpu_count()}
    for players in args.players or (4, 10):
        for figure in measure(players, args.games, args.rounds, args.variant):
            print(json.dumps({**figure, **machine}), flush=True)
        if args.profile:
            print(
                json.dumps(profile(players, args.games, args.rounds, args.variant, args.profile)), flush=True
            )


if __name__ == "__main__":
    main()
