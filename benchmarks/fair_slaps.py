"""Slap fairness between processes on laptops joined by the test LAN's Wi-Fi (``tests/helpers/wifi.py``):
is the table's loser the player who truly reacted last, and what would ordering by arrival have given?

Four laptops (``NamespaceLan(4, link=PROFILE)``), each running ``kdm`` as a player who lets a bot play
(``--headless --as-bot greedy``, no other flag), play a game of ``--rounds`` rounds. Afterwards the
founder's committed log is replayed (``kdm.replay``), and each slap window the table judged valid, where
every seat slapped, is looked at:

- the truth: each follower's reaction to the window's first slap, as its own process measured it
  between seeing that slap and pressing (``Slap.rt``; every seat here is honest, so its claim is its
  reaction), and the window counted only where the slowest reacted at least ``--gap-ms`` after the
  next slowest;
- ``effective``: whether the table's loser (ordered by effective time, DESIGN 5.6) is the slowest;
- ``arrival``: whether the last slap to reach the log (the order the leader took them in: their
  arrival there) is the slowest's.

Prints one JSON object per profile. Needs root (network namespaces), as the LAN tests do.

    python benchmarks/fair_slaps.py [--profiles wifi bad] [--rounds 30] [--gap-ms 20]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from kdm.notices import Applied, Notice
from kdm.plugins.kilo.events import Slap
from kdm.record import TableRecord
from kdm.replay import read_committed, replayed

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository root, for `tests`

from tests.helpers.lan import PLAYER, Kdm
from tests.helpers.netns import NamespaceLan

LAPTOPS = 4


def play(profile: str, rounds: int) -> Path:
    """One game on a LAN of ``profile``; the founder's log file, copied out before the LAN goes."""
    with NamespaceLan(LAPTOPS, link=profile) as lan:
        options = ["--option", f"rounds={rounds}"]
        players = [Kdm(lan, 0, "host", "--table", "bench", "--players", str(LAPTOPS), *options, *PLAYER)]
        players[0].says(lambda line: line.startswith("leader: "), "its leadership")
        for laptop in range(1, LAPTOPS):
            players.append(Kdm(lan, laptop, "join", "bench", *PLAYER))
            players[0].says(lambda line, seat=laptop: line.endswith(f"takes seat {seat}"), f"seat {laptop}")
        for player in players:
            player.summary()
        logs = (lan.home(0) / ".local" / "share" / "kdm" / "tables").glob("*.log")
        log = max(logs, key=lambda path: path.stat().st_size)  # the table's (a lobby keeps none)
        kept = Path(f"/tmp/kdm-fair-slaps-{profile}-{time.time_ns()}.log")
        kept.write_bytes(log.read_bytes())
        return kept


def windows(log: Path) -> list[dict[str, Any]]:
    """Each window the table judged, with its slaps in log order: (seat, trigger, rt, seq)."""
    data, _chained = read_committed(log)
    judged: list[dict[str, Any]] = []
    slaps: list[tuple[int, int | None, float | None, int]] = []

    def heard(_record: TableRecord, notice: Notice) -> None:
        if not isinstance(notice, Applied):
            return
        if isinstance(notice.event, Slap):
            slaps.append((notice.event.seat, notice.event.trigger, notice.event.rt, notice.seq))
        for effect in notice.effects:
            if effect["kind"] == "judged":
                judged.append({**effect, "slaps": list(slaps)})
                slaps.clear()

    replayed(data, heard)
    return judged


def figures(judged: list[dict[str, Any]], gap_ms: float) -> dict[str, Any]:
    counted = effective = arrival = 0
    for window in judged:
        slaps = window["slaps"]
        if not window["valid"] or len({seat for seat, *_ in slaps}) < LAPTOPS or len(window["losers"]) != 1:
            continue
        opener = slaps[0]
        followers = [
            (seat, rt) for seat, trigger, rt, _seq in slaps[1:] if trigger == opener[3] and rt is not None
        ]
        if len(followers) != LAPTOPS - 1:
            continue  # a slap that answered something else (a feint): no one reaction to compare
        ranked = sorted(followers, key=lambda follower: follower[1])
        if ranked[-1][1] - ranked[-2][1] < gap_ms:
            continue
        slowest = ranked[-1][0]
        counted += 1
        effective += window["losers"] == [slowest]
        arrival += slaps[-1][0] == slowest

    def share(n: int) -> float | None:
        return round(100.0 * n / counted, 1) if counted else None

    return {
        "windows_judged": len(judged), "windows_counted": counted,
        "effective_pct": share(effective), "arrival_pct": share(arrival),
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profiles", nargs="+", default=["wifi", "bad"])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--gap-ms", type=float, default=20.0)
    args = parser.parse_args()
    skip = NamespaceLan.skip_reason()
    if skip:
        sys.exit(f"fair_slaps: {skip}")
    for profile in args.profiles:
        started = time.monotonic()
        log = play(profile, args.rounds)
        result = figures(windows(log), args.gap_ms)
        log.unlink()
        print(json.dumps({
            "figure": "fair_slaps", "profile": profile, "rounds": args.rounds, "gap_ms": args.gap_ms,
            **result, "seconds": round(time.monotonic() - started, 1),
        }), flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
