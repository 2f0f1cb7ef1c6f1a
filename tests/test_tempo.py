"""People's pace (issue "A first evening that works"): where a person sits, a checkpoint holds
``checkpoint_ms`` before the next pass, a round's result stays ``round_pause_ms`` before the next
deal, a press for a window that has closed never counts in the next round, and bots react and think
like people. A bots-only table has none of it and plays as fast as before.

Seats are people through ``ScriptedKilo(people=...)``, as the record marks them when a game starts.
"""

from __future__ import annotations

import random

import pytest

from kdm.agents import PEOPLE_REACTION_MS, PEOPLE_THINK_MS, Bot, Profile
from kdm.engine import IllegalAction
from kdm.plugins.kilo.events import Pass, Resume
from kdm.plugins.kilo.testing import ScriptedKilo

# Seat 0 holds four kings; QH at seat 1 starts; QS at seat 2 (passing goes left).
KINGS_AT_0 = [
    ["KH", "KS", "KD", "KC"],
    ["QH", "JH", "2H", "QD"],
    ["QS", "JS", "2S", "JD"],
    ["QC", "JC", "2C", "2D"],
]
NO_COMBO = [
    ["KH", "KS", "KD", "QC"],
    ["QH", "JH", "2H", "QD"],
    ["QS", "JS", "2S", "JD"],
    ["KC", "JC", "2C", "2D"],
]


def people_table(hands: list[list[str]] = NO_COMBO, **options: object) -> ScriptedKilo:
    table = ScriptedKilo(4, options, people=(0,))
    table.deal(hands)
    return table


def timers(table: ScriptedKilo) -> list[tuple[str, float | None]]:
    return [(duty.kind, duty.after_ms) for duty in table.engine.awaiting() if duty.after_ms is not None]


def test_a_checkpoint_holds_checkpoint_ms_before_the_next_pass_where_a_person_sits() -> None:
    table = people_table(checkpoint_ms=1500)
    # The moment after the deal is a checkpoint: it holds, by a table timer every peer agrees on.
    assert timers(table) == [("resume", 1500)]
    assert table.engine.view(1, table.deck.knowledge(table.state, 1)).rules["kilo"].holding
    with pytest.raises(IllegalAction, match="checkpoint holds"):
        table.pass_card(1, "JH")
    table.fire("resume")
    assert table.last("hold_over") and timers(table) == []
    table.lap()  # back at the checkpoint: it holds again
    assert timers(table) == [("resume", 1500)]
    with pytest.raises(IllegalAction, match="checkpoint holds"):
        table.pass_any(1)
    # A slap during the hold is a slap at a checkpoint, as ever.
    table.slap(0, at=1000.0)
    assert table.state.phase == "window"


def test_between_two_checkpoints_nothing_holds() -> None:
    table = people_table()
    table.fire("resume")
    table.pass_card(1, "JH")
    assert timers(table) == []
    table.pass_any(2)  # the pass goes straight on: only a checkpoint holds


def test_a_rounds_end_holds_round_pause_ms_with_its_result_before_the_next_deal() -> None:
    table = people_table(KINGS_AT_0, round_pause_ms=3000, rounds=2)
    table.slap(0, at=1000.0)
    opener = table.seq_of("slapped", 0)
    for seat in (1, 2, 3):
        table.slap(seat, at=0.0, trigger=opener, rt=200.0 + seat)
    assert table.last("round_over")["round"] == 1
    assert table.state.phase == "resting" and timers(table) == [("resume", 3000)]
    assert not any(duty.kind == "deal" for duty in table.engine.awaiting())
    table.fire("resume")
    assert table.state.phase == "dealing" and table.last("rested")["round"] == 1


def test_a_bots_only_table_neither_holds_nor_rests() -> None:
    table = ScriptedKilo(4, {"rounds": 2})
    table.deal(KINGS_AT_0)
    assert timers(table) == []
    table.pass_card(1, "JH")  # straight away
    table.lap()
    assert timers(table) == []
    table.slap(1, at=1000.0)  # a false slap ends the round
    table.close()
    assert table.state.phase == "dealing"
    with pytest.raises(IllegalAction, match="no pause"):
        table.act(Resume())


def test_pauses_of_zero_ms_are_off() -> None:
    table = people_table(checkpoint_ms=0)
    assert timers(table) == []
    table.pass_card(1, "JH")


def test_a_press_made_in_a_round_that_is_over_is_refused_not_a_false_slap() -> None:
    table = people_table(KINGS_AT_0, round_pause_ms=0, rounds=3)
    table.slap(0, at=1000.0, round=1)
    opener = table.seq_of("slapped", 0)
    for seat in (1, 2):
        table.slap(seat, at=0.0, trigger=opener, rt=250.0, round=1)
    table.close()
    table.deal(NO_COMBO)
    table.fire("resume")
    digest = table.engine.digest()
    # Seat 3's Space for round 1's window arrives in round 2: it is dropped, it opens nothing.
    with pytest.raises(IllegalAction, match="round 1, which is over"):
        table.slap(3, at=5000.0, trigger=opener, rt=400.0, round=1)
    with pytest.raises(IllegalAction, match="round 1, which is over"):
        table.slap(3, at=5000.0, round=1)  # pressed before the window was painted: the round says
    assert table.engine.digest() == digest and table.state.phase == "passing"
    table.slap(3, at=6000.0, round=2)  # a press of this round is judged as ever (a false slap)
    assert table.state.phase == "window"


def test_a_press_answering_a_closed_window_of_this_round_is_refused() -> None:
    # marathon: the round goes on after a window; a late answer to it is not a new window.
    table = ScriptedKilo(4, {"checkpoint_ms": 0}, variants=["marathon"], people=(0,))
    table.deal(KINGS_AT_0)
    table.slap(0, at=1000.0, round=1)
    opener = table.seq_of("slapped", 0)
    for seat in (1, 2):
        table.slap(seat, at=0.0, trigger=opener, rt=250.0, round=1)
    table.close()
    assert table.state.phase == "passing"
    digest = table.engine.digest()
    with pytest.raises(IllegalAction, match="window that has closed"):
        table.slap(3, at=0.0, trigger=opener, rt=900.0, round=1)
    assert table.engine.digest() == digest


def test_rule_1_2_7_a_slapper_fooled_by_a_feint_at_a_checkpoint_is_fooled_not_short_of_a_combo() -> None:
    table = ScriptedKilo(4)
    table.deal(NO_COMBO)  # a checkpoint: everyone holds four, nobody a combo
    table.feint(0, at=500.0)
    table.slap(3, at=0.0, trigger=table.seq_of("feinted", 0), rt=200.0)  # fooled
    opener = table.seq_of("slapped", 3)
    for seat in (0, 1, 2):
        table.slap(seat, at=0.0, trigger=opener, rt=250.0)
    judged = table.last("judged")
    assert not judged["valid"] and judged["losers"] == [3] and judged["reason"] == "feint"
    assert "fooled by a feint" in table.describe_last("judged")
    assert "had no combo" not in table.describe_last("judged")


def test_rule_1_2_6_a_false_slap_at_a_checkpoint_without_a_feint_had_no_combo() -> None:
    table = ScriptedKilo(4)
    table.deal(NO_COMBO)
    table.feint(0, at=500.0)
    table.lap()  # a feint before the last pass does not count: back at a checkpoint
    table.slap(3, at=0.0)
    table.close()
    assert table.last("judged")["reason"] == "no_combo"


# --- bots at people's pace ----------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(20))
def test_a_bot_at_peoples_pace_reacts_and_thinks_like_a_person(seed: int) -> None:
    bot = Bot(1, seed=bytes([seed]))
    before = bot.timing
    bot.pace_for_people()
    low, high = PEOPLE_REACTION_MS
    reactions = [bot.reaction_ms() for _ in range(200)]
    assert all(low <= r <= high for r in reactions)
    think_low, think_high = PEOPLE_THINK_MS
    thoughts = [bot.think_ms() for _ in range(200)]
    assert all(think_low <= t <= think_high for t in thoughts)
    assert max(thoughts) - min(thoughts) > 500  # still a spread, drawn from the bot's profile
    assert bot.timing.fooled_chance == before.fooled_chance  # only its pace changes


def test_a_quick_bot_stays_quicker_than_a_slow_one_at_peoples_pace() -> None:
    quick = Profile(reaction_ms=230.0, think_ms=(210.0, 750.0)).at_peoples_pace()
    slow = Profile(reaction_ms=410.0, think_ms=(390.0, 1350.0)).at_peoples_pace()
    assert quick.reaction_ms < slow.reaction_ms and quick.think_ms[1] < slow.think_ms[1]


def test_the_driver_paces_bots_where_a_person_sits_and_holds_their_pass_until_the_hold_ends() -> None:
    table = ScriptedKilo(4, people=(0,))
    bots = {seat: Bot(seat, seed=b"tempo") for seat in (1, 2, 3)}
    table.driver.bots.update(bots)
    table.deal(NO_COMBO)
    table.driver.wake(range(4))
    assert all(bot.paced for bot in bots.values())
    assert 1 not in table.driver.plans  # the starter holds its pass while the checkpoint holds
    effects = table.fire("resume")
    table.driver.wake(table.driver.concerned(effects))
    plan = table.driver.plans[1]
    assert isinstance(plan.decision.event, Pass)
    assert PEOPLE_THINK_MS[0] <= plan.decision.delay_ms <= PEOPLE_THINK_MS[1]


def test_the_driver_leaves_bots_at_their_own_pace_at_a_bots_only_table() -> None:
    table = ScriptedKilo(4)
    bot = Bot(1, seed=b"tempo", profile=Profile.drawn(random.Random(1)))
    table.driver.bots[1] = bot
    table.deal(NO_COMBO)
    table.driver.wake([1])
    assert not bot.paced and isinstance(table.driver.plans[1].decision.event, Pass)


def test_passing_all_at_once_has_no_hold_of_the_checkpoint_its_go_is_the_pace() -> None:
    table = ScriptedKilo(
        4, {"go_interval_ms": 2000, "direction": "left"}, variants=["all_at_once"], people=(0,)
    )
    table.deal(NO_COMBO)
    assert table.kilo.hold is None and [kind for kind, _after in timers(table)] == ["go"]


def test_every_pause_of_a_game_is_a_timer_of_its_own() -> None:
    """A host starts a table timer once per (kind, ref): a pause whose ref had served before (a round
    number equal to an earlier hold's seq) would never be proposed, and the table would stall."""
    table = people_table(KINGS_AT_0, rounds=4)
    refs = []
    for _round in range(3):
        refs += [duty.ref for duty in table.engine.awaiting() if duty.kind == "resume"]
        table.fire("resume")  # the checkpoint after the deal
        table.slap(1, at=1000.0)  # a false slap ends the round
        table.close()
        refs += [duty.ref for duty in table.engine.awaiting() if duty.kind == "resume"]
        table.fire("resume")  # the rest after the round
        table.deal(NO_COMBO)
    assert len(refs) == 6 and len(set(refs)) == 6
