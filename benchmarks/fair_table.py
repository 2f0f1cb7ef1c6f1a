"""The fair deck at a real table: bot peers as separate processes on 127.0.0.1 (``kdm selfplay --deck
fair``), each measuring what its deck waits for (``kdm.fair.table.Timings``), on its own clock:

- ``shuffle_deal_ms``: from a round's shuffle starting (the deal applied) to the seat reading its whole
  hand: every seat's two passes in turn through the log, then every other process's keys for its cards;
- ``private_pass_ms``: from a card passed into a seat's hand (the pass applied there) to its face read:
  the added latency of a private pass (with the open deck a face is known at once);
- ``public_draw_ms``: from a card awaited face up (a draw from the pile) to its face shown, every seat's
  key in the log: the added latency of a public draw;
- ``audit_ms``: one process checking one shuffle once its secrets are in (done after the round);
- ``turn_ms``: one seat's turn in a shuffle, the computing alone (a deal waits for 2 × peers of them in
  a row, plus the hops between them).

Each figure is summed up over every peer and every run (median, 90th percentile, min, max, count), per
table size. With ``--open``, each run's seed is also played with the open deck, the two taking turns, and
``fair_over_open`` gives what the fair deck costs a whole game: the fair games' wall time over the open
games' (``wall``, processes' start included), and per game event applied (``per_event``: the two decks
deal different cards, so the same seed plays games of different lengths). Prints one JSON object per
table size.

    python benchmarks/fair_table.py [--peers 4 10] [--runs 3] [--rounds 2] [--open]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
from pathlib import Path
from typing import Any

from kdm.selfplay import selfplay

FIGURES = ("shuffle_deal_ms", "private_pass_ms", "public_draw_ms", "audit_ms", "turn_ms")


def spread(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    if not ordered:
        return {"count": 0}
    return {
        "median": round(statistics.median(ordered), 1),
        "p90": round(ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))], 1),
        "min": round(ordered[0], 1),
        "max": round(ordered[-1], 1),
        "count": len(ordered),
    }


def one_game(peers: int, rounds: int, seed: int, deck: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """One ``kdm selfplay`` game: its summary, and every peer's report."""
    with tempfile.TemporaryDirectory(prefix="kdm-fair-bench-") as scratch:
        keep = Path(scratch) / "game"
        result = selfplay(peers, rounds, seed=seed, deck=deck, keep=keep)
        if len(set(result["digests"])) != 1 or result.get("unfinished"):
            raise SystemExit(f"the {peers}-peer table did not agree: {result}")
        return result, [json.loads(report.read_text()) for report in sorted(keep.glob("peer*.json"))]


def one_size(peers: int, runs: int, rounds: int, open_too: bool = False) -> dict[str, object]:
    measured: dict[str, list[float]] = {figure: [] for figure in FIGURES}
    cheats: list[str] = []
    # Per deck, each game's wall time, and its game events summed (one peer's count: every peer applies
    # them all).
    seconds: dict[str, list[float]] = {"fair": [], "open": []}
    events = {"fair": 0, "open": 0}
    for run in range(runs):
        # The two decks take turns, so that a machine slowing down weighs on both alike.
        for deck in ("fair", "open") if open_too else ("fair",):
            result, reports = one_game(peers, rounds, run, deck)
            seconds[deck].append(result["seconds"])
            events[deck] += reports[0]["events"]
            if deck == "open":
                continue
            cheats += result["cheats"]
            for report in reports:
                for figure, values in report.get("fair_ms", {}).items():
                    measured.setdefault(figure, []).extend(values)
    figures: dict[str, object] = {
        "figure": "fair_table",
        "peers": peers,
        "runs": runs,
        "rounds": rounds,
        "cheats": cheats,
        "game_s": spread(seconds["fair"]),
        **{figure: spread(values) for figure, values in measured.items()},
    }
    if open_too:
        fair_s, open_s = sum(seconds["fair"]), sum(seconds["open"])
        figures["open_game_s"] = spread(seconds["open"])
        figures["fair_over_open"] = {
            "wall": round(fair_s / open_s, 3),
            "per_event": round((fair_s / events["fair"]) / (open_s / events["open"]), 3),
        }
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peers", type=int, nargs="+", default=[4, 10])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--open", action="store_true", help="play each seed with the open deck too")
    args = parser.parse_args()
    os.environ.setdefault("KDM_INTERFACE", "127.0.0.1")
    for peers in args.peers:
        print(json.dumps(one_size(peers, args.runs, args.rounds, args.open)), flush=True)


if __name__ == "__main__":
    main()
