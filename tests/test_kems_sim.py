"""``kdm sim --variant kems``: its JSON contract and determinism for 4, 6 and 8 players; Kem's bots in
simulated games; and the Kem's bot league (``benchmarks/kems_league.py``) runs and prints its figures."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kdm.agents import Decision
from kdm.deck import PrivateNote
from kdm.plugins.kems.events import Gesture
from kdm.plugins.kems.view import Signs
from kdm.sim import Simulation
from tests.helpers.cli import sim_json

CONTRACT = ["players", "seed", "deals", "events", "seconds", "teams", "winner", "calls", "digest"]
CALLS = {
    "kems": ["confirmed", "failed"],
    "double": ["confirmed", "failed"],
    "contre": ["confirmed", "failed", "void"],
}
LEAGUE = Path(__file__).resolve().parent.parent / "benchmarks" / "kems_league.py"


@pytest.mark.parametrize("players", [4, 6, 8])
def test_kems_sim_json_has_exactly_the_contract_fields(
    capsys: pytest.CaptureFixture[str], players: int
) -> None:
    result = sim_json(capsys, "--variant", "kems", "--players", str(players), "--seed", "1")
    assert sorted(result) == sorted(CONTRACT)
    assert (result["players"], result["seed"]) == (players, 1)
    for name in ("deals", "events"):
        count = result[name]
        assert isinstance(count, int) and count > 0
    assert isinstance(result["seconds"], float)
    teams = result["teams"]
    assert isinstance(teams, list) and len(teams) == players // 2
    for team, entry in enumerate(teams):
        assert sorted(entry) == ["score", "seats"]
        assert entry["seats"] == [team, team + players // 2]  # partners sit opposite (RULES 3.1)
        assert isinstance(entry["score"], int)
    scores = [entry["score"] for entry in teams]
    winner = result["winner"]
    assert isinstance(winner, int) and scores[winner] == max(scores) >= 10  # the default target
    calls = result["calls"]
    assert isinstance(calls, dict) and sorted(calls) == sorted(CALLS)
    for call, results in CALLS.items():
        assert sorted(calls[call]) == sorted(results)
        assert all(isinstance(count, int) and count >= 0 for count in calls[call].values())
    # Every deal ends with one call that shows a whole hand (RULES 3.5), and points come only
    # from calls: the scores add up to what the calls won and lost.
    shown = sum(calls[c]["confirmed"] + calls[c]["failed"] for c in ("kems", "double"))
    shown += calls["contre"]["confirmed"] + calls["contre"]["void"]
    assert shown == result["deals"]
    points = calls["kems"]["confirmed"] - calls["kems"]["failed"]
    points += 2 * (calls["double"]["confirmed"] - calls["double"]["failed"])
    points += calls["contre"]["confirmed"] - calls["contre"]["failed"]
    assert sum(scores) == points
    digest = result["digest"]
    assert isinstance(digest, str) and len(digest) == 64 and int(digest, 16) >= 0


@pytest.mark.parametrize("players", [4, 6, 8])
def test_kems_sim_same_seed_same_output_but_seconds(capsys: pytest.CaptureFixture[str], players: int) -> None:
    args = ("--variant", "kems", "--players", str(players), "--seed", "7")
    first, second = sim_json(capsys, *args), sim_json(capsys, *args)
    first.pop("seconds"), second.pop("seconds")
    assert first == second
    other = sim_json(capsys, "--variant", "kems", "--players", str(players), "--seed", "8")
    assert other["digest"] != first["digest"]


def test_a_decoy_planned_before_the_signs_changed_is_never_the_sign() -> None:
    """A bot plans its next decoy gesture ahead; if its team's sign then becomes that very gesture (the
    note of a partner whose laptop came back, handed on again), making it would tell the partner « I
    have a Kem's »: it makes another one."""
    simulation = Simulation(4, 3, "greedy", {}, ["kems"])
    engine, deck, bot = simulation.engine, simulation.deck, simulation.bots[2]

    def decided() -> object:
        view = engine.view(bot.seat, deck.knowledge(engine.state, bot.seat))
        return engine.rules.caller("kdm_bot_decide")(view=view, bot=bot)

    def planned() -> Gesture:
        decision = decided()
        assert isinstance(decision, Decision) and isinstance(decision.event, Gesture), decision
        return decision.event

    for _ in range(1000):  # on to a moment of the hunt when the bot's next move is a decoy
        decision = decided()
        if (
            engine.state.phase == "hunt"
            and isinstance(decision, Decision)
            and isinstance(decision.event, Gesture)
        ):
            break
        simulation.step()

    decoy = planned()
    assert planned() == decoy  # a plan stays the same while the bot waits
    deck.note(PrivateNote(sender=0, to=2, data=Signs((decoy.gesture,), None, 0).note_data()))
    assert planned().gesture != decoy.gesture


@pytest.mark.processes
def test_kems_league_prints_one_figure_per_condition() -> None:
    done = subprocess.run(
        [sys.executable, str(LEAGUE), "--deals", "12", "--target", "3"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    figures = [json.loads(line) for line in done.stdout.splitlines()]
    assert [figure["signs"] for figure in figures] == ["fixed", "vary"]
    for figure in figures:
        assert figure["figure"] == "kems_league" and figure["players"] == 4
        assert figure["deals"] == 12 and figure["games"] >= 12 // 10
        signed = figure["signed_deals"]
        assert 0 <= signed <= figure["deals"]
        assert sorted(figure["signing_team"]) == ["double", "kems"]
        contre = figure["watchers"]["contre"]
        assert sorted(contre) == ["beaten", "called", "confirmed", "failed", "void"]
        ended = contre["confirmed"] + contre["failed"] + contre["void"] + contre["beaten"]
        assert ended <= contre["called"]
        assert figure["catch_rate"] == round(contre["confirmed"] / max(1, signed), 3)
        assert figure["seconds"] >= 0


def test_kems_bots_err_like_people_so_every_scoring_path_is_played() -> None:
    """A bot's profile misreads a gesture now and then (a wrong « Kem's ! ») and bluffs (a Contre on no
    evidence), so ordinary games score failed calls too, not only confirmed ones (issue 13)."""
    calls: dict[str, dict[str, int]] = {}
    for seed in range(23):
        summary = Simulation(4, seed, "greedy", {}, ["kems"]).run().summary
        for call, counts in summary["calls"].items():
            for result, count in counts.items():
                calls.setdefault(call, {}).setdefault(result, 0)
                calls[call][result] += count
    assert calls["kems"]["failed"] > 0 and calls["contre"]["failed"] > 0
    # Slips, not chaos: most calls are still right.
    assert calls["kems"]["confirmed"] > 4 * calls["kems"]["failed"]
    assert calls["contre"]["confirmed"] > 4 * calls["contre"]["failed"]
