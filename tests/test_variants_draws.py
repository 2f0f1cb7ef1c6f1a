"""Scenario tests for the variants that change what is drawn and when a round ends: RULES 2.4
``jokers``, 2.5 ``seven_in_reserve``, 2.6 ``marathon`` and the ``classic`` preset. Each test names its rule.

With 4 players the dealt ranks are K Q J 2; in ``KINGS_AT_0`` seat 0 holds four kings, QH at seat 1
starts and QS at seat 2 sends the passing left.
"""

from __future__ import annotations

import pytest

from kdm.cards import JOKER
from kdm.engine import IllegalAction
from kdm.errors import OptionError
from kdm.plugins.kilo.testing import ScriptedKilo
from kdm.plugins.seven_in_reserve import RESERVING, KeepSeven
from tests.helpers.deals import KINGS_AT_0, SEAT_2_LAST


def lose_rounds(table: ScriptedKilo, rounds: int, keep: bool | None = None) -> None:
    """Seat 0 slaps four kings and seat 2 is the slowest, ``rounds`` times. Asked whether to keep a
    first 7 in reserve, seat 2 answers ``keep``, or lets its time run out (None)."""
    for _ in range(rounds):
        table.deal(KINGS_AT_0)
        table.everyone_slaps(0, SEAT_2_LAST)
        if table.state.phase == RESERVING:
            table.fire("keep_seven") if keep is None else table.act(KeepSeven(seat=2, keep=keep))


# --- 2.4 jokers -------------------------------------------------------------------------------------


def test_rule_2_4_two_jokers_join_the_pile() -> None:
    table = ScriptedKilo(4, variants=["jokers"])
    table.deal()
    assert table.pile().count(JOKER) == 2
    assert len(table.pile()) == 36 + 2


def test_rule_2_4_a_joker_drawn_weighs_1000_by_default() -> None:
    table = ScriptedKilo(4, variants=["jokers"])
    table.start(pile_top=[JOKER])
    lose_rounds(table, 1)
    assert table.draws == [(2, JOKER, False)]
    assert table.state.scores[2] == 1000


def test_rule_2_4_joker_kilos_option_sets_the_weight() -> None:
    table = ScriptedKilo(4, {"joker_kilos": 50}, variants=["jokers"])
    table.start(pile_top=[JOKER, "9H"])
    lose_rounds(table, 2)
    assert table.state.scores[2] == 59
    with pytest.raises(OptionError, match="joker_kilos"):
        ScriptedKilo(4, {"joker_kilos": -1}, variants=["jokers"])


def test_rule_2_4_a_joker_is_flushed_like_any_kilo_card() -> None:
    table = ScriptedKilo(4, {"rounds": 3}, variants=["jokers"])
    table.start(pile_top=[JOKER, "7S"])
    lose_rounds(table, 2)
    assert table.draws == [(2, JOKER, False), (2, "7S", True)]
    assert table.state.scores[2] == 0 and table.pile()[-2:] == ["7S", JOKER]


def test_rule_2_4_without_the_variant_a_joker_cannot_be_drawn() -> None:
    table = ScriptedKilo(4)
    table.deal()
    assert JOKER not in table.pile()
    assert table.rules.caller("kdm_card_kilos")(card=JOKER, options=table.state.options) is None


# --- 2.5 seven in reserve ---------------------------------------------------------------------------


def test_rule_2_5_a_first_seven_is_kept_in_reserve_worth_nothing() -> None:
    table = ScriptedKilo(4, variants=["seven_in_reserve"])
    table.start(pile_top=["7H"])
    lose_rounds(table, 1)
    assert table.kilos(2) == ["7H"] and table.state.scores[2] == 0
    assert table.last("drew")["reserve"] == "offered" and table.last("reserve_answered")["keep"]
    view = table.engine.view(0, table.deck.knowledge(table.state, 0))
    assert view.rules["seven_in_reserve"].seats == (2,)


def test_rule_2_5_the_next_draw_and_the_reserved_seven_go_under_the_pile() -> None:
    table = ScriptedKilo(4, {"rounds": 3}, variants=["seven_in_reserve"])
    table.start(pile_top=["7H", "AS"])
    lose_rounds(table, 2)
    assert table.draws == [(2, "7H", False), (2, "AS", True)]
    assert table.kilos(2) == [] and table.state.scores[2] == 0
    assert table.pile()[-2:] == ["AS", "7H"]  # laid in that order, the 7 deepest
    assert table.last("drew")["reserve"] == "flushed"


def test_rule_2_5_a_seven_onto_kilos_flushes_as_in_the_base_game() -> None:
    table = ScriptedKilo(4, {"rounds": 3}, variants=["seven_in_reserve"])
    table.start(pile_top=["9D", "7C"])
    lose_rounds(table, 2)
    assert table.draws == [(2, "9D", False), (2, "7C", True)]
    assert "reserve" not in table.last("drew")


def test_rule_2_5_a_seven_right_after_a_flush_is_a_first_seven_again() -> None:
    table = ScriptedKilo(4, {"rounds": 4}, variants=["seven_in_reserve"])
    table.start(pile_top=["9D", "7C", "7D"])
    lose_rounds(table, 3)
    assert table.draws == [(2, "9D", False), (2, "7C", True), (2, "7D", False)]
    assert table.last("drew")["reserve"] == "offered" and table.state.scores[2] == 0


def test_rule_2_5_a_seven_drawn_onto_a_reserved_seven_flushes_both() -> None:
    table = ScriptedKilo(4, {"rounds": 3}, variants=["seven_in_reserve"])
    table.start(pile_top=["7H", "7S"])
    lose_rounds(table, 2)
    assert table.draws == [(2, "7H", False), (2, "7S", True)] and table.kilos(2) == []


def test_rule_2_5_the_reserve_flush_follows_flush_to_shuffle() -> None:
    table = ScriptedKilo(4, {"rounds": 3, "flush_to": "shuffle"}, variants=["seven_in_reserve"])
    table.start(pile_top=["7H", "AS"])
    lose_rounds(table, 2)
    assert table.last("shuffled")["zone"] == "pile" and len(table.pile()) == 36


def test_rule_2_5_the_reserve_is_offered_the_table_waits_and_a_seven_not_kept_counts_seven() -> None:
    """RULES 2.5: the player *may* keep the 7: the table asks and waits (``reserve_answer_ms``); a 7 not
    kept counts 7 kilos, and the next draw is an ordinary one."""
    table = ScriptedKilo(4, {"rounds": 3, "reserve_answer_ms": 3000}, variants=["seven_in_reserve"])
    table.start(pile_top=["7H", "9D"])
    table.deal(KINGS_AT_0)
    table.everyone_slaps(0, SEAT_2_LAST)
    assert table.state.phase == RESERVING
    (duty,) = table.engine.awaiting()
    assert (duty.kind, duty.seat, duty.after_ms) == ("keep_seven", 2, 3000)
    for wrong in (KeepSeven(seat=1, keep=True), KeepSeven(seat=3, keep=False)):
        with pytest.raises(IllegalAction, match="has no 7 to keep in reserve now"):
            table.act(wrong)
    table.act(KeepSeven(seat=2, keep=False))
    assert table.state.scores[2] == 7 and table.kilos(2) == ["7H"]
    assert table.last("round_over")["round"] == 1  # the round ended once the answer came
    assert table.describe_last("reserve_answered") == "seat 2 counts the 7: 7 kilos"
    lose_rounds(table, 1)
    assert table.state.scores[2] == 16 and "reserve" not in table.last("drew")


def test_rule_2_5_without_the_variant_a_first_seven_counts_seven() -> None:
    table = ScriptedKilo(4)
    table.start(pile_top=["7H"])
    lose_rounds(table, 1)
    assert table.state.scores[2] == 7


# --- 2.6 marathon -----------------------------------------------------------------------------------


def marathon(players: int = 4, **options: object) -> ScriptedKilo:
    table = ScriptedKilo(players, options, variants=["marathon"])
    table.deal(KINGS_AT_0 if players == 4 else ())
    return table


def test_rule_2_6_the_round_goes_on_after_a_window() -> None:
    table = marathon()
    table.everyone_slaps(0, SEAT_2_LAST)
    assert table.last("judged")["valid"] and table.draws[0][0] == 2
    assert table.state.phase == "passing" and table.state.round == 1
    assert table.effects[-1] == {"kind": "passing_resumed"}
    assert [len(hand) for hand in table.state.hands] == [4, 4, 4, 4]
    assert table.state.turn == 1  # passing resumes where it stopped: the starter passes


def test_rule_2_6_an_instigator_keeps_passing_but_may_not_instigate_again() -> None:
    table = marathon()
    table.everyone_slaps(0, SEAT_2_LAST)
    table.lap()  # seat 0 passes on its turn like everyone
    assert table.kilo.checkpoint and table.kilo.barred == [0]
    digest = table.engine.digest()
    with pytest.raises(IllegalAction, match="may not open a window again"):
        table.slap(0, at=5000.0)
    assert table.engine.digest() == digest
    view = table.engine.view(0, table.deck.knowledge(table.state, 0))
    assert view.rules["kilo"].barred == (0,)


def test_rule_2_6_an_instigator_still_slaps_in_windows_others_open() -> None:
    table = marathon()
    table.everyone_slaps(0, SEAT_2_LAST)
    table.pass_any(1)  # off the checkpoint
    table.everyone_slaps(3, {0: 100.0, 1: 120.0, 2: 130.0})
    judged = table.last("judged")
    assert not judged["valid"] and judged["losers"] == [3]


def test_rule_2_6_a_false_slap_does_not_bar_its_instigator() -> None:
    table = marathon()
    table.pass_any(1)
    table.slap(3, at=10.0)
    table.close()
    assert table.kilo.barred == [] and table.state.phase == "passing"


def test_rule_2_6_the_round_ends_after_marathon_max_slaps_windows_default_n_minus_1() -> None:
    table = marathon()
    for slapper in (3, 0, 2):  # three false slaps: windows count whatever their outcome
        assert table.state.round == 1 and table.state.phase == "passing"
        table.pass_any(table.state.turn)
        table.slap(slapper, at=10.0)
        table.close()
    assert table.last("round_over")["round"] == 1 and table.state.phase == "dealing"


def test_rule_2_6_marathon_max_slaps_option() -> None:
    table = marathon(marathon_max_slaps=1)
    table.everyone_slaps(0, SEAT_2_LAST)
    assert table.state.phase == "dealing"
    with pytest.raises(OptionError, match="marathon_max_slaps"):
        ScriptedKilo(4, {"marathon_max_slaps": 0}, variants=["marathon"])


def test_rule_2_6_the_round_ends_when_every_player_has_shown_a_combo() -> None:
    # 3 players, one rank each: every seat instigates a valid slap in turn; QH and QS at seat 1.
    hands = [["KH", "KS", "KD", "KC"], ["QH", "QS", "QD", "QC"], ["JH", "JS", "JD", "JC"]]
    table = ScriptedKilo(3, {"marathon_max_slaps": 10}, variants=["marathon"])
    table.deal(hands)
    for instigator in (0, 1, 2):
        others = {seat: 100.0 + 10 * seat for seat in range(3) if seat != instigator}
        table.everyone_slaps(instigator, others)
        assert table.last("judged")["valid"]
    assert table.kilo.barred == [0, 1, 2] and table.state.phase == "dealing"
    assert table.last("round_over")["round"] == 1


# --- 2.6 the classic preset -------------------------------------------------------------------------


def test_rule_2_6_classic_is_marathon_passing_left_and_reshuffling() -> None:
    table = ScriptedKilo(4, variants=["classic"])
    assert table.rules.names == ["kilo", "classic", "marathon"]
    options = table.state.options
    assert (options["direction"], options["flush_to"]) == ("left", "shuffle")
    hands = [KINGS_AT_0[2], KINGS_AT_0[1], KINGS_AT_0[0], KINGS_AT_0[3]]  # QS at seat 0: right is shorter
    table.deal(hands)
    assert table.last("passing_started")["direction"] == "left"
    table.everyone_slaps(2, {0: 150.0, 1: 300.0, 3: 200.0})
    assert table.state.phase == "passing"  # marathon


def test_rule_2_6_classic_options_given_explicitly_still_win() -> None:
    table = ScriptedKilo(4, {"direction": "right"}, variants=["classic"])
    assert table.state.options["direction"] == "right" and table.state.options["flush_to"] == "shuffle"
