"""The base game's bots: greedy keeps the group closest to four, both slap combos at checkpoints,
react to slaps with seeded reaction times, feint, and are sometimes fooled."""

from __future__ import annotations

from dataclasses import replace

import pytest

from kdm.agents import Bot, Profile
from kdm.plugins.kilo import bots as kilo_bots
from kdm.plugins.kilo.bots import decide, greedy_pass
from kdm.plugins.kilo.events import Feint, Pass, Slap
from kdm.plugins.kilo.testing import ScriptedKilo
from kdm.sim import Simulation
from tests.modified_clients import QUICK_THINK_MS

CALM = Profile(feint_chance=0.0, fooled_chance=0.0)


def view_of(table: ScriptedKilo, seat: int):  # type: ignore[no-untyped-def]
    return table.engine.view(seat, table.deck.knowledge(table.state, seat))


def test_greedy_keeps_the_rank_it_is_closest_to_and_passes_the_least_useful_card() -> None:
    table = ScriptedKilo(4, {"suit_combos": False})
    table.deal(
        [
            ["QS", "JS", "2S", "JD"],
            ["QH", "JH", "JC", "2D"],
            ["KH", "KS", "KD", "QD"],
            ["QC", "KC", "2C", "2H"],
        ]
    )
    table.pass_card(1, "2D")  # seat 1 (QH) starts; seat 2 now holds three kings, QD and 2D
    bot = Bot(2, "greedy", profile=CALM)
    passed = table.deck.faces[greedy_pass(view_of(table, 2), bot)]
    assert passed in ("QD", "2D")
    assert bot.memory["target"] == "r:K"


def test_greedy_goes_for_a_suit_when_suit_combos_are_on() -> None:
    table = ScriptedKilo(4)
    table.deal(
        [
            ["QS", "JS", "2S", "JD"],
            ["QH", "KC", "JC", "2D"],
            ["KH", "JH", "2H", "QD"],
            ["QC", "KS", "2C", "KD"],
        ]
    )
    table.pass_card(1, "KC")
    bot = Bot(2, "greedy", profile=CALM)
    assert table.deck.faces[greedy_pass(view_of(table, 2), bot)] in ("QD", "KC")
    assert bot.memory["target"] == "s:H"


def test_bots_slap_a_combo_at_the_checkpoint_and_not_before() -> None:
    table = ScriptedKilo(4)
    table.deal([["KH", "KS", "KD", "KC"]])
    decision = decide(view_of(table, 0), Bot(0, "random", profile=CALM))
    assert decision is not None and decision.event == Slap(seat=0)
    table.pass_any(table.state.turn)  # off the checkpoint
    assert decide(view_of(table, 0), Bot(0, "random", profile=CALM)) is None


def test_bots_react_to_the_window_opener_with_their_reaction_time() -> None:
    table = ScriptedKilo(4)
    table.deal([["KH", "KS", "KD", "KC"]])
    table.slap(0, at=100.0)
    opener = table.seq_of("slapped", 0)
    bot = Bot(3, "greedy", profile=Profile(reaction_ms=300.0, reaction_spread_ms=0.0))
    decision = decide(view_of(table, 3), bot)
    assert decision is not None and decision.event == Slap(seat=3, trigger=opener)
    assert decision.delay_ms == 300.0


def test_the_player_to_move_passes_one_of_its_cards() -> None:
    table = ScriptedKilo(4)
    table.deal()
    starter = table.state.turn
    decision = decide(view_of(table, starter), Bot(starter, "random", profile=CALM))
    assert decision is not None and isinstance(decision.event, Pass)
    assert decision.event.token in table.state.hands[starter]
    assert decide(view_of(table, (starter + 2) % 4), Bot((starter + 2) % 4, profile=CALM)) is None


def test_a_bot_may_be_fooled_by_a_feint_but_never_by_its_own() -> None:
    table = ScriptedKilo(4)
    table.deal()
    table.pass_any(table.state.turn)
    table.feint(0, at=10.0)
    feint = table.seq_of("feinted", 0)
    gullible = Profile(fooled_chance=1.0, feint_chance=0.0)
    fooled = decide(view_of(table, 2), Bot(2, profile=gullible))
    assert fooled is not None and fooled.event == Slap(seat=2, trigger=feint)
    own = decide(view_of(table, 0), Bot(0, profile=gullible))
    assert own is None or not isinstance(own.event, Slap)


def test_a_bold_bot_feints_once_on_its_turn_then_passes() -> None:
    table = ScriptedKilo(4)
    table.deal()
    starter = table.state.turn
    bot = Bot(starter, profile=Profile(feint_chance=1.0, fooled_chance=0.0))
    first = decide(view_of(table, starter), bot)
    assert first is not None and first.event == Feint(seat=starter)
    table.feint(starter, at=5.0)
    second = decide(view_of(table, starter), bot)
    assert second is not None and isinstance(second.event, Pass)


def test_seeded_bots_feint_fool_and_react_over_a_long_game() -> None:
    kinds: dict[str, int] = {}
    fooled = 0

    def count(_now: float, event: object, effects: list[dict[str, object]]) -> None:
        nonlocal fooled
        for effect in effects:
            kinds[str(effect["kind"])] = kinds.get(str(effect["kind"]), 0) + 1
        if isinstance(event, Slap) and event.trigger is not None and event.rt is not None:
            assert 100.0 <= event.rt <= 1000.0  # a human-like reaction, measured from when it was shown
        if isinstance(event, Slap) and any(e["kind"] == "slapped" and e["opened"] for e in effects):
            fooled += event.trigger is not None

    Simulation(6, seed=4, options={"rounds": 60}).run(count)
    assert kinds["feinted"] > 0 and fooled > 0
    assert kinds["judged"] == 60 and kinds["hand_shown"] > 0


QUICK = 2  # the quick seat, the cheater's in tests/test_adversary.py


def test_a_seat_thinking_as_quickly_as_the_attackers_leaves_the_others_time_to_slap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The modified clients' bots think at ``QUICK_THINK_MS``. A starter that always passed before
    anyone could react (50-150 ms once) kept every combo at the checkpoints it left from being slapped,
    at a table of bots, which holds no checkpoint; with the cheater, which opens no window of its own,
    such a round ended only on a feint, and one played on past a test's deadline. Here the quick seat
    never opens a window, and every round it starts ends within a few dozen checkpoints."""
    honest = kilo_bots.slap_now
    monkeypatch.setattr(
        kilo_bots,
        "slap_now",
        lambda view, bot, table: None if bot.seat == QUICK else honest(view, bot, table),
    )
    checkpoints: list[int] = []  # of each round the quick seat started
    quick_starts = False

    def count(_now: float, _event: object, effects: list[dict[str, object]]) -> None:
        nonlocal quick_starts
        for effect in effects:
            if effect["kind"] == "passing_started":
                quick_starts = effect["starter"] == QUICK
                if quick_starts:
                    checkpoints.append(0)
            elif quick_starts and effect["kind"] == "passed" and effect["checkpoint"]:
                checkpoints[-1] += 1

    for seed in range(60):
        game = Simulation(3, seed=seed, options={"rounds": 2})
        game.bots[QUICK].profile = replace(game.bots[QUICK].timing, think_ms=QUICK_THINK_MS)
        game.run(count)
    assert len(checkpoints) >= 20, "the quick seat started too few rounds to tell"
    assert max(checkpoints) < 40, sorted(checkpoints)[-5:]
