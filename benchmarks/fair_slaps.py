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

Beside those, what the other voters' stamps (``kdm.vouching``) did to honest presses: the share of them
whose effective time is not what their claim alone gives (``moved_pct``, with the largest move), slaps
and feints alike; and for each honest reaction, how far behind the others it was (``behind_ms``: the time
from the last of its vouchers' showing its trigger to its reaching the first of them, less its own
reaction), with the share a slack of 15, 30, 60, 100 or 150 ms would have moved (``moved_pct_if``): the
price in honest presses of each slack a cheater could gain.

With ``--cheater``, laptop 2 runs the ``racer`` of ``tests/modified_clients.py`` (it waits until every
other seat has slapped, then claims it reacted to the window's first slap in 100 ms): the figure is then
its windows (``raced``), how often it was last and first after the opener, how often each honest seat was
last in the windows where all four slapped (the same profile of bot, for the 95 % intervals), and its
gain: the effective time its true reaction would have given, less the one the table gave it (``gain_ms``
at the median and the 95th percentile; negative: it lost by waiting).

Prints one JSON object per profile. Needs root (network namespaces), as the LAN tests do.

    python benchmarks/fair_slaps.py [--profiles wifi bad] [--rounds 30] [--gap-ms 20] [--cheater]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from kdm.engine import effective_time
from kdm.events import TimedEvent
from kdm.notices import Applied, Notice
from kdm.plugins.kilo import rules as kilo_rules
from kdm.plugins.kilo.events import Slap
from kdm.record import TableRecord
from kdm.replay import read_committed, replayed
from kdm.session import percentile
from kdm.vouching import SLACK_MS

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository root, for `tests`

from tests.helpers.attacks import client
from tests.helpers.lan import PLAYER, Kdm
from tests.helpers.netns import NamespaceLan
from tests.modified_clients import ATTACKS_ENV

LAPTOPS = 4
#: The racer's laptop, with ``--cheater``.
CHEATER = 2
#: The slacks whose price ``moved`` gives (``kdm.vouching.SLACK_MS`` is the table's).
SLACKS = (15, 30, 60, 100, 150)
#: A press: its seat, how much the stamps moved it, how much their times alone would have, and for a
#: reaction, how far behind the others it was (``moved``).
Move = tuple[int, float, float, float | None]
#: A move under this is the float's last digit (a press ordered just after one it came after).
MOVED_MS = 1.0


def play(profile: str, rounds: int, cheater: bool) -> Path:
    """One game on a LAN of ``profile``; the founder's log file, copied out before the LAN goes."""
    with NamespaceLan(LAPTOPS, link=profile) as lan:
        options = ["--option", f"rounds={rounds}"]
        players = [Kdm(lan, 0, "host", "--table", "bench", "--players", str(LAPTOPS), *options, *PLAYER)]
        players[0].says(lambda line: line.startswith("leader: "), "its leadership")
        for laptop in range(1, LAPTOPS):
            program = client("racer") if cheater and laptop == CHEATER else ()
            players.append(Kdm(lan, laptop, "join", "bench", *PLAYER, program=program))
            players[0].says(lambda line, seat=laptop: line.endswith(f"takes seat {seat}"), f"seat {laptop}")
        for player in players:
            player.summary()
        logs = (lan.home(0) / ".local" / "share" / "kdm" / "tables").glob("*.log")
        log = max(logs, key=lambda path: path.stat().st_size)  # the table's (a lobby keeps none)
        kept = Path(f"/tmp/kdm-fair-slaps-{profile}-{time.time_ns()}.log")
        kept.write_bytes(log.read_bytes())
        return kept


def windows(log: Path) -> tuple[list[dict[str, Any]], list[Move]]:
    """Each window the table judged, with its slaps in log order: (seat, trigger, rt, seq); and each
    press with its seat and how much the stamps moved it (effective time less the claim's alone), and
    how much the times they vouch for alone would have (without the order of arrival)."""
    data, _chained = read_committed(log)
    judged: list[dict[str, Any]] = []
    slaps: list[tuple[int, int | None, float | None, int]] = []
    moves: list[Move] = []

    def heard(record: TableRecord, notice: Notice) -> None:
        if not isinstance(notice, Applied):
            return
        event = notice.event
        if isinstance(event, TimedEvent) and record.engine is not None:
            reactions = kilo_rules.table(record.engine.state).reactions
            if notice.seq in reactions and event.vouched is not None:
                claimed = effective_time(reactions, dataclasses.replace(event, vouched=None))
                timed = effective_time(reactions, dataclasses.replace(event, vouched=dataclasses.replace(
                    event.vouched, after=0)))  # fmt: skip
                least, rt = event.vouched.least_rt, event.rt
                behind = None if least is None or rt is None else least + SLACK_MS - rt
                moves.append((event.seat, reactions[notice.seq] - claimed, timed - claimed, behind))
        if isinstance(event, Slap):
            slaps.append((event.seat, event.trigger, event.rt, notice.seq))
        for effect in notice.effects:
            if effect["kind"] == "judged":
                judged.append({**effect, "slaps": list(slaps)})
                slaps.clear()

    replayed(data, heard)
    return judged, moves


def moved(moves: list[Move], cheater: int | None) -> dict[str, Any]:
    """How many honest presses the stamps moved (of them, how many by the times alone), and by how much
    at most; how far behind the others honest reactions were, and what each slack would have moved."""
    honest = [(amount, timed) for seat, amount, timed, _behind in moves if seat != cheater]
    behind = sorted(late for seat, _amount, _timed, late in moves if seat != cheater and late is not None)
    shifted = [amount for amount, _timed in honest if amount > MOVED_MS]
    return {
        "presses": len(honest), "moved": len(shifted),
        "moved_by_times": sum(timed > MOVED_MS for _amount, timed in honest),
        "moved_pct": round(100.0 * len(shifted) / len(honest), 2) if honest else None,
        "moved_max_ms": round(max(shifted), 1) if shifted else 0.0,
        "behind_ms_p50": percentile(behind, 50), "behind_ms_p95": percentile(behind, 95),
        "behind_ms_max": round(behind[-1], 1) if behind else None,
        "moved_pct_if": {
            slack: round(100.0 * sum(late > slack for late in behind) / len(behind), 2) if behind else None
            for slack in SLACKS
        },
    }  # fmt: skip


def raced(judged: list[dict[str, Any]], attacks: list[dict[str, Any]]) -> dict[str, Any]:
    """The racer's windows: last and first after the opener, each honest seat's last, its gain."""
    made = {press["opener"]: press for press in attacks if press["attack"] == "claimed reaction"}
    full = [window for window in judged if len({seat for seat, *_ in window["slaps"]}) == LAPTOPS]
    last = dict.fromkeys(range(LAPTOPS), 0)
    ours = first = 0
    gains: list[float] = []
    for window in full:
        order = [seat for seat, _eff in window["order"]]
        last[order[-1]] += 1
        opener = window["slaps"][0][3]
        if opener not in made or order[0] == CHEATER:
            continue
        ours += 1
        first += order[1] == CHEATER
        times = dict(window["order"])
        press = made[opener]
        honest = times[order[0]] + (press["pressed"] - press["shown"])
        gains.append(honest - times[CHEATER])
    return {
        "windows_full": len(full), "raced": ours,
        "racer_first_pct": round(100.0 * first / ours, 1) if ours else None, "last_by_seat": last,
        "gain_ms_p50": percentile(sorted(gains), 50), "gain_ms_p95": percentile(sorted(gains), 95),
    }  # fmt: skip


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
    parser.add_argument("--cheater", action="store_true", help="laptop 2 runs the racer")
    args = parser.parse_args()
    skip = NamespaceLan.skip_reason()
    if skip:
        sys.exit(f"fair_slaps: {skip}")
    for profile in args.profiles:
        started = time.monotonic()
        with tempfile.TemporaryDirectory() as kept:
            attacks_file = Path(kept) / "attacks.jsonl"
            os.environ[ATTACKS_ENV] = str(attacks_file)  # what the racer writes down of its presses
            log = play(profile, args.rounds, args.cheater)
            attacks = (
                [json.loads(line) for line in attacks_file.read_text().splitlines()] if args.cheater else []
            )
        judged, moves = windows(log)
        result = {**figures(judged, args.gap_ms), **moved(moves, CHEATER if args.cheater else None)}
        if args.cheater:
            result.update(raced(judged, attacks))
        log.unlink()
        print(json.dumps({
            "figure": "fair_slaps", "profile": profile, "rounds": args.rounds, "gap_ms": args.gap_ms,
            "cheater": args.cheater, **result, "seconds": round(time.monotonic() - started, 1),
        }), flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
