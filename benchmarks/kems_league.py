"""Kem's bot league: how often watching bots catch a sign, against one fixed sign and against varied signs.

Four-player bots-only games of Kem's (``kdm.sim.Simulation``: open deck, simulated time). One team
watches (``kems_watch``: it learns which gesture came just before the opponents' confirmed calls, and
calls Contre Kem's when an opponent makes it); the other team does not watch and signs either ``fixed``
(one sign for the whole game) or ``vary`` (a new sign every deal). The teams swap roles from one game
to the next, and both conditions play the same seeds. Games go to ``--target`` points and new ones
start until ``--deals`` deals have been played (the last game stops there).

Printed: one JSON object per condition, with
- ``signed_deals``: deals in which a bot of the signing team held four of a kind and made its team's
  sign, each a chance to be caught;
- ``signing_team``: its Kem's and Double Kem's calls, confirmed and failed;
- ``watchers``: the call windows in which they called Contre Kem's (both watchers may call on one
  sign: one window), and how those ended: confirmed, failed, ``void`` (the accused's partner held
  four too), or ``beaten`` (another call came first: the signer's partner's Kem's, most often);
- ``catch_rate``: confirmed Contres / signed deals: how often a sign made is caught; and the same
  over the deals signed after the watchers' first catch of the game (``..._after_a_catch``), once
  they know the sign.

    python benchmarks/kems_league.py [--deals 1000] [--target 10] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from collections import Counter
from collections.abc import Sequence
from typing import Any

from kdm.engine import Effect
from kdm.events import Event
from kdm.manager import Rules
from kdm.plugins.kems.events import Gesture
from kdm.plugins.kems.rules import kems, team_of
from kdm.plugins.kems.view import team_signs
from kdm.sim import Simulation

PLAYERS = 4
CONDITIONS = ("fixed", "vary")


def league(signs: str, deals: int, target: int, seed: int) -> dict[str, Any]:
    """Play games until ``deals`` deals are done, the signing team signing ``signs``."""
    rules = Rules.for_table(["kems"])
    tally = Tally()
    started = time.perf_counter()
    games = 0
    while tally.count["deals"] < deals:
        simulation = Simulation(PLAYERS, seed + games, "greedy", {"target": target}, rules=rules)
        tally.new_game(simulation, watchers=games % 2)
        games += 1
        for bot in simulation.bots:
            watching = team_of(bot.seat, PLAYERS) == tally.watchers
            bot.memory["kems_watch"] = watching
            bot.memory["kems_signs"] = "fixed" if watching else signs
        while not simulation.engine.over and tally.count["deals"] < deals:
            simulation.step(tally.listen)
    count = tally.count
    return {
        "figure": "kems_league",
        "signs": signs,
        "players": PLAYERS,
        "target": target,
        "deals": count["deals"],
        "games": games,
        "signed_deals": count["signed deals"],
        "signing_team": {
            call: {result: count[f"signers {call} {result}"] for result in ("confirmed", "failed")}
            for call in ("kems", "double")
        },
        "watchers": {
            "contre": {
                what: count[f"watchers contre {what}"]
                for what in ("called", "confirmed", "failed", "void", "beaten")
            }
        },
        "catch_rate": rate(count["watchers contre confirmed"], count["signed deals"]),
        "signed_deals_after_a_catch": count["signed deals after a catch"],
        "catch_rate_after_a_catch": rate(count["caught after a catch"], count["signed deals after a catch"]),
        "seconds": round(time.perf_counter() - started, 2),
    }


def rate(part: int, whole: int) -> float | None:
    return round(part / whole, 3) if whole else None


class Tally:
    """Counts what happens in league games, by team role (``watchers`` or the signing team)."""

    def __init__(self) -> None:
        self.count: Counter[str] = Counter()
        self.simulation: Simulation | None = None
        self.watchers = 0
        self.signed_deal = -1
        #: Whether the watchers caught a sign earlier in this game.
        self.caught = False
        #: The open call window: whether a watcher called Contre Kem's in it.
        self.watcher_contre = False

    def new_game(self, simulation: Simulation, watchers: int) -> None:
        self.simulation, self.watchers, self.signed_deal, self.caught = simulation, watchers, -1, False

    def listen(self, _now: float, event: Event, effects: Sequence[Effect]) -> None:
        assert self.simulation is not None
        state = self.simulation.engine.state
        if isinstance(event, Gesture) and team_of(event.seat, PLAYERS) != self.watchers:
            # The referee's eye: the signing team's own agreement says whether this gesture is its sign.
            agreed = team_signs(
                self.simulation.deck.knowledge(state, event.seat), event.seat, PLAYERS, kems(state).deals
            )
            if event.gesture in agreed.signs and self.signed_deal != kems(state).deals:
                self.signed_deal = kems(state).deals
                self.count["signed deals"] += 1
                self.count["signed deals after a catch"] += self.caught
        for effect in effects:
            self.effect(effect)

    def effect(self, effect: Effect) -> None:
        kind, count = effect["kind"], self.count
        if kind == "round_over":
            count["deals"] += 1
        elif kind == "called" and effect["call"] == "contre" and self.watching(effect["seat"]):
            if not self.watcher_contre:  # both watchers may call on one sign: one Contre counts
                count["watchers contre called"] += 1
            self.watcher_contre = True
        elif kind == "call_judged":
            if self.watcher_contre and not (self.watching(effect["seat"]) and effect["call"] == "contre"):
                count["watchers contre beaten"] += 1  # another call came first
            self.watcher_contre = False
        elif kind == "call_result":
            role = "watchers" if effect["team"] == self.watchers else "signers"
            count[f"{role} {effect['call']} {effect['result']}"] += 1
            if role == "watchers" and effect["call"] == "contre" and effect["result"] == "confirmed":
                count["caught after a catch"] += self.caught
                self.caught = True

    def watching(self, seat: int) -> bool:
        return team_of(seat, PLAYERS) == self.watchers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=1000, help="deals per condition (default 1000)")
    parser.add_argument("--target", type=int, default=10, help="points that end a game (default 10)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first game (default 0)")
    args = parser.parse_args()
    machine = {"python": platform.python_version(), "machine": platform.machine(), "cpus": os.cpu_count()}
    for signs in CONDITIONS:
        print(json.dumps({**league(signs, args.deals, args.target, args.seed), **machine}), flush=True)


if __name__ == "__main__":
    main()
