"""Scenario tests for the base game, one or more per rule and option of RULES §1.

Each test names the rule it checks. Hands are written per seat; with 4 players the dealt ranks are
K Q J 2, so the sixteen dealt faces are every suit of those ranks.
"""

from __future__ import annotations

import pytest

from kdm.cards import faces_of_ranks, full_deck
from kdm.engine import IllegalAction
from kdm.errors import OptionError, TableError
from kdm.events import Withheld
from kdm.manager import Rules
from kdm.plugins.kilo.events import Pass
from kdm.plugins.kilo.rules import DEALT_RANKS, LEFT, PILE, RIGHT, passing_direction
from kdm.plugins.kilo.testing import ScriptedKilo

# Seat 0 holds four kings (a rank combo); QH at seat 1 starts; QS at seat 2 (one pass to the left).
KINGS_AT_0 = [
    ["KH", "KS", "KD", "KC"],
    ["QH", "JH", "2H", "QD"],
    ["QS", "JS", "2S", "JD"],
    ["QC", "JC", "2C", "2D"],
]


def dealt(hands: list[list[str]] = KINGS_AT_0, players: int = 4, **options: object) -> ScriptedKilo:
    table = ScriptedKilo(players, options)
    table.deal(hands)
    return table


def everyone_slaps(table: ScriptedKilo, first: int, reactions: dict[int, float]) -> None:
    """``first`` slaps at 1000 ms; the others react to it after the given times."""
    table.slap(first, at=1000.0)
    trigger = table.seq_of("slapped", first)
    for seat, rt in reactions.items():
        table.slap(seat, at=0.0, trigger=trigger, rt=rt)


# --- 1.1 Cards and players --------------------------------------------------------------------------


@pytest.mark.parametrize("players", range(3, 11))
def test_rule_1_1_dealt_ranks_and_pile_per_player_count(players: int) -> None:
    table = ScriptedKilo(players)
    table.deal()
    dealt_faces = sorted(face for seat in range(players) for face in table.hand(seat))
    assert dealt_faces == sorted(faces_of_ranks(DEALT_RANKS[players]))
    assert all(len(table.hand(seat)) == 4 for seat in range(players))
    assert sorted(table.pile() + dealt_faces) == sorted(full_deck())
    assert sum(face.startswith("7") for face in table.pile()) == 4  # the flushes stay in the pile


def test_rule_1_1_three_players_deal_kings_queens_jacks() -> None:
    assert DEALT_RANKS[3] == ("K", "Q", "J")
    assert DEALT_RANKS[10] == ("K", "Q", "J", "2", "3", "4", "5", "6", "8", "9")


def test_rule_1_1_card_values() -> None:
    table = ScriptedKilo(4)
    values = {
        card: table.rules.caller("kdm_card_kilos")(card=card, options=table.state.options)
        for card in ("2S", "10H", "JD", "QC", "KS", "AH")
    }
    assert values == {"2S": 2, "10H": 10, "JD": 11, "QC": 12, "KS": 13, "AH": 100}


def test_rule_1_1_pile_persists_across_rounds() -> None:
    table = dealt(rounds=3)
    pile_before = len(table.state.zones[PILE])
    table.slap(1, at=10.0)  # false slap before any pass? everyone holds 4: a checkpoint, but no combo
    table.close()
    assert len(table.state.zones[PILE]) == pile_before - 1
    table.deal()
    assert len(table.state.zones[PILE]) == pile_before - 1  # not re-formed by the next deal


# --- 1.2.2 and 1.2.3: the start and the direction ---------------------------------------------------


def test_rule_1_2_2_queen_of_hearts_starts_with_the_call() -> None:
    table = dealt()
    started = table.last("passing_started")
    assert started["starter"] == 1 and table.state.turn == 1
    assert "Dame de cœur" in (table.rules.describe(started, "en") or "")
    assert "Dame de cœur" in (table.rules.describe(started, "fr") or "")


def test_rule_1_2_3_direction_toward_queen_of_spades_in_fewer_passes() -> None:
    # starter 1, spades 0: right is one pass, left is three.
    assert passing_direction("toward-queen-of-spades", 4, starter=1, spades=0) == RIGHT
    assert passing_direction("toward-queen-of-spades", 4, starter=1, spades=2) == LEFT
    hands = [
        ["QS", "JS", "2S", "JD"],
        ["QH", "JH", "2H", "QD"],
        ["KH", "KS", "KD", "KC"],
        ["QC", "JC", "2C", "2D"],
    ]
    table = dealt(hands)
    assert table.last("passing_started")["direction"] == "right"


def test_rule_1_2_3_direction_tie_goes_left() -> None:
    # 4 players, starter 0, spades at 2: two passes either way.
    assert passing_direction("toward-queen-of-spades", 4, starter=0, spades=2) == LEFT
    hands = [
        ["QH", "JH", "2H", "QD"],
        ["KH", "KS", "KD", "KC"],
        ["QS", "JS", "2S", "JD"],
        ["QC", "JC", "2C", "2D"],
    ]
    assert dealt(hands).last("passing_started")["direction"] == "left"


def test_rule_1_2_3_starter_with_both_queens_goes_left() -> None:
    hands = [
        ["KH", "KS", "KD", "KC"],
        ["QH", "QS", "2H", "QD"],
        ["JH", "JS", "2S", "JD"],
        ["QC", "JC", "2C", "2D"],
    ]
    table = dealt(hands)
    assert table.last("passing_started") == {
        "kind": "passing_started",
        "round": 1,
        "starter": 1,
        "direction": "left",
    }


@pytest.mark.parametrize(("rule", "expected"), [("left", "left"), ("right", "right")])
def test_rule_1_2_3_fixed_direction_options(rule: str, expected: str) -> None:
    hands = [
        ["QS", "JS", "2S", "JD"],
        ["QH", "JH", "2H", "QD"],
        ["KH", "KS", "KD", "KC"],
        ["QC", "JC", "2C", "2D"],
    ]
    table = dealt(hands, direction=rule)
    assert table.last("passing_started")["direction"] == expected
    assert [e["card"] for e in table.effects if e["kind"] == "announced"] == ["QH"]  # QS need not be called


# --- 1.2.4 passing and the checkpoint ---------------------------------------------------------------


def test_rule_1_2_4_starter_passes_from_four_then_checkpoint() -> None:
    table = dealt()
    assert table.kilo.checkpoint  # just dealt: everyone holds 4
    effects = table.pass_card(1, "JH")
    assert effects[0]["to"] == 2 and not effects[0]["checkpoint"]
    assert [len(table.state.hands[s]) for s in range(4)] == [4, 3, 5, 4]
    assert "JH" in table.hand(2)
    table.pass_any(2)
    table.pass_any(3)
    assert [len(h) for h in table.state.hands] == [5, 3, 4, 4]
    effects = table.pass_any(0)  # the player just before the starter passes: checkpoint
    assert effects[0]["checkpoint"] and table.kilo.checkpoint
    assert [len(h) for h in table.state.hands] == [4, 4, 4, 4]
    assert table.state.turn == 1  # then the starter passes again, from 4


def test_rule_1_2_4_passing_out_of_turn_or_a_foreign_card_is_illegal() -> None:
    table = dealt()
    digest = table.engine.digest()
    with pytest.raises(IllegalAction, match="turn"):
        table.pass_card(0, "KH")
    with pytest.raises(IllegalAction, match="does not hold"):
        table.act(Pass(seat=1, token=table.state.hands[0][0]))
    assert table.engine.digest() == digest  # nothing changed


# --- 1.2.5 combos -------------------------------------------------------------------------------------


def test_rule_1_2_5_rank_combo_is_a_valid_slap() -> None:
    table = dealt()
    everyone_slaps(table, first=0, reactions={1: 150.0, 2: 300.0, 3: 200.0})
    judged = table.last("judged")
    assert judged["valid"] and judged["losers"] == [2]
    assert table.last("hand_shown")["cards"] == ["KH", "KS", "KD", "KC"]


def test_rule_1_2_5_suit_combo_is_a_valid_slap() -> None:
    hands = [
        ["KH", "QH", "JH", "2H"],
        ["QS", "KS", "JS", "2S"],
        ["KD", "QD", "JD", "2D"],
        ["KC", "QC", "JC", "2C"],
    ]
    table = dealt(hands)
    everyone_slaps(table, first=2, reactions={0: 150.0, 1: 300.0, 3: 200.0})
    assert table.last("judged")["valid"] and table.last("judged")["losers"] == [1]


def test_rule_1_2_5_suit_combos_off_makes_a_suit_slap_false() -> None:
    hands = [
        ["KH", "QH", "JH", "2H"],
        ["QS", "KS", "JS", "2S"],
        ["KD", "QD", "JD", "2D"],
        ["KC", "QC", "JC", "2C"],
    ]
    table = dealt(hands, suit_combos=False)
    everyone_slaps(table, first=2, reactions={0: 150.0, 1: 300.0, 3: 200.0})
    judged = table.last("judged")
    assert not judged["valid"] and judged["losers"] == [2]  # the instigator draws


# --- 1.2.6 slap windows -------------------------------------------------------------------------------


def test_rule_1_2_6_slap_before_the_checkpoint_is_false_and_the_instigator_draws() -> None:
    table = dealt()
    table.pass_card(1, "JH")  # now seat 1 holds 3 and seat 2 holds 5
    everyone_slaps(table, first=0, reactions={1: 150.0, 2: 300.0, 3: 200.0})
    judged = table.last("judged")
    assert not judged["valid"] and judged["losers"] == [0]
    assert judged["reason"] == "late"  # the pass that ended the deal's checkpoint was the last one
    assert not any(e["kind"] == "hand_shown" for e in table.effects)  # no need to show a hand
    assert table.draws == [(0, table.kilos(0)[0], False)]


def test_rule_1_2_6_each_judgement_says_why() -> None:
    """RULES 1.2.5-1.2.7: the table says why a window was judged so (the screen and the log show it)."""
    table = dealt()
    everyone_slaps(table, first=0, reactions={1: 150.0, 2: 300.0, 3: 200.0})  # four kings at 0
    assert table.last("judged")["reason"] == "combo"
    no_combo = dealt()
    everyone_slaps(no_combo, first=1, reactions={0: 150.0, 2: 300.0, 3: 200.0})
    assert no_combo.last("judged")["reason"] == "no_combo"
    assert "false slap by seat 1 (seat 1 had no combo)" in no_combo.describe_last("judged")
    later = dealt()
    later.pass_card(1, "JH")
    later.pass_any(later.state.turn)  # two passes past it
    everyone_slaps(later, first=0, reactions={1: 150.0, 2: 300.0, 3: 200.0})
    assert later.last("judged")["reason"] == "not_four"
    assert "(not every hand held four cards)" in later.describe_last("judged")
    assert "(les mains n'étaient pas toutes à quatre cartes)" in later.describe_last("judged", "fr")


def test_rule_1_2_6_valid_slap_where_one_player_never_slaps() -> None:
    table = dealt()
    table.slap(0, at=1000.0)
    trigger = table.seq_of("slapped", 0)
    table.slap(1, at=0.0, trigger=trigger, rt=900.0)  # slow, but slapped
    table.slap(3, at=0.0, trigger=trigger, rt=200.0)
    assert table.state.phase == "window"
    table.close()  # the leader's timeout: seat 2 never slapped
    judged = table.last("judged")
    assert judged["valid"] and judged["losers"] == [2]
    assert [seat for seat, _card, _flush in table.draws] == [2]


def test_rule_1_2_6_two_players_who_never_slap_both_draw() -> None:
    table = dealt()
    table.slap(0, at=1000.0)
    table.slap(3, at=0.0, trigger=table.seq_of("slapped", 0), rt=200.0)
    table.close()
    assert table.last("judged")["losers"] == [1, 2]
    assert [seat for seat, _card, _flush in table.draws] == [1, 2]


def test_rule_1_2_6_last_slapper_by_effective_time_not_by_arrival() -> None:
    table = dealt()
    table.slap(0, at=1000.0)
    trigger = table.seq_of("slapped", 0)
    # Seat 2's slap reaches the log first but its player reacted slowly (bad Wi-Fi the other way round).
    table.slap(2, at=1500.0, trigger=trigger, rt=450.0)
    table.slap(3, at=1490.0, trigger=trigger, rt=300.0)
    table.slap(1, at=1480.0, trigger=trigger, rt=400.0)
    order = [seat for seat, _eff in table.last("judged")["order"]]
    assert order == [0, 3, 1, 2]
    assert table.last("judged")["losers"] == [2]


def test_rule_1_2_6_without_trigger_the_sync_time_orders() -> None:
    table = dealt()
    table.slap(0, at=1000.0)
    table.slap(2, at=1100.0)
    table.slap(1, at=1300.0)
    table.slap(3, at=1200.0)
    assert table.last("judged")["losers"] == [1]


def test_rule_1_2_6_exact_ties_are_broken_the_same_way_everywhere() -> None:
    def loser() -> list[int]:
        table = dealt()
        everyone_slaps(table, first=0, reactions={1: 300.0, 2: 300.0, 3: 300.0})
        return list(table.last("judged")["losers"])

    assert loser() == loser()
    assert loser()[0] in (1, 2, 3)


def test_rule_1_2_6_window_closes_when_everyone_slapped_and_late_slaps_are_refused() -> None:
    table = dealt()
    everyone_slaps(table, first=0, reactions={1: 150.0, 2: 300.0, 3: 200.0})
    assert table.state.phase == "dealing"  # judged, drawn, round over
    with pytest.raises(IllegalAction):
        table.slap(1, at=5000.0)
    with pytest.raises(IllegalAction):
        table.close()


def test_rule_1_2_6_a_seat_slaps_once_per_window() -> None:
    table = dealt()
    table.slap(0, at=1000.0)
    with pytest.raises(IllegalAction, match="already"):
        table.slap(0, at=1001.0)


def test_rule_1_2_6_close_is_asked_after_slap_timeout() -> None:
    table = dealt(slap_timeout_ms=2500)
    effects = table.slap(0, at=1000.0)
    assert effects[0]["close_after_ms"] == 2500
    (duty,) = table.engine.awaiting()
    assert duty.kind == "close" and duty.after_ms == 2500


def test_rule_1_2_6_no_passing_while_a_window_is_open() -> None:
    table = dealt()
    table.slap(0, at=1000.0)
    with pytest.raises(IllegalAction, match="no passing"):
        table.pass_card(1, "JH")


# --- 1.2.7 feints -------------------------------------------------------------------------------------


def test_rule_1_2_7_feint_then_fooled_slap_is_false_and_the_fooled_draws() -> None:
    table = dealt()
    table.pass_card(1, "JH")
    table.feint(0, at=1000.0)
    feint = table.seq_of("feinted", 0)
    assert table.state.phase == "passing"  # a feint changes nothing by itself
    table.slap(3, at=0.0, trigger=feint, rt=180.0)  # fooled
    opener = table.seq_of("slapped", 3)
    for seat in (0, 1, 2):
        table.slap(seat, at=0.0, trigger=opener, rt=250.0)
    judged = table.last("judged")
    assert not judged["valid"] and judged["losers"] == [3]
    assert judged["reason"] == "feint" and "(fooled by a feint)" in table.describe_last("judged")


def test_rule_1_2_7_among_several_fooled_the_first_draws() -> None:
    table = dealt()
    table.pass_card(1, "JH")
    table.feint(0, at=1000.0)
    feint = table.seq_of("feinted", 0)
    table.slap(3, at=0.0, trigger=feint, rt=260.0)  # committed first but slower
    table.slap(2, at=0.0, trigger=feint, rt=190.0)
    table.close()
    assert table.last("judged")["losers"] == [2]


def test_rule_1_2_7_feint_at_a_checkpoint_fooling_a_combo_holder_is_a_valid_slap() -> None:
    table = dealt()
    table.feint(1, at=500.0)
    table.slap(0, at=0.0, trigger=table.seq_of("feinted", 1), rt=200.0)  # seat 0 does hold four kings
    opener = table.seq_of("slapped", 0)
    for seat, rt in ((1, 100.0), (2, 300.0), (3, 200.0)):
        table.slap(seat, at=0.0, trigger=opener, rt=rt)
    assert table.last("judged")["valid"] and table.last("judged")["losers"] == [2]


# --- 1.2.8 and 1.2.9: draws and the 7 ----------------------------------------------------------------


def test_rule_1_2_8_loser_draws_the_top_card_face_up() -> None:
    table = ScriptedKilo(4)
    table.start(pile_top=["AH"])
    table.deal(KINGS_AT_0)
    everyone_slaps(table, first=0, reactions={1: 150.0, 2: 300.0, 3: 200.0})
    assert table.draws == [(2, "AH", False)]
    assert table.kilos(2) == ["AH"] and table.state.scores[2] == 100


def test_rule_1_2_9_seven_as_first_kilo_card_counts_seven() -> None:
    table = ScriptedKilo(4)
    table.start(pile_top=["7H"])
    table.deal(KINGS_AT_0)
    everyone_slaps(table, first=0, reactions={1: 150.0, 2: 300.0, 3: 200.0})
    assert table.draws == [(2, "7H", False)]
    assert table.state.scores[2] == 7


def test_rule_1_2_9_seven_with_kilos_flushes_under_the_pile() -> None:
    table = ScriptedKilo(4, {"rounds": 5})
    table.start(pile_top=["9D", "AS", "7C"])
    for _ in range(3):  # seat 2 loses three rounds: 9D, AS, then the 7C flushes both
        table.deal(KINGS_AT_0)
        everyone_slaps(table, first=0, reactions={1: 150.0, 2: 300.0, 3: 200.0})
    assert table.draws == [(2, "9D", False), (2, "AS", False), (2, "7C", True)]
    assert table.kilos(2) == [] and table.state.scores[2] == 0
    assert table.pile()[-3:] == ["7C", "AS", "9D"]  # under the pile; 9D laid first, deepest
    assert len(table.pile()) == 36 - 3 + 3


def test_rule_1_4_a_seat_that_withheld_its_keys_is_charged_an_ace_that_no_seven_flushes() -> None:
    """The record charges a seat it took over for withholding a fair deck's keys (``Withheld``); the
    base game charges 100 kilos, kept apart from the cards in front of it."""
    table = ScriptedKilo(4, {"rounds": 5})
    table.start(pile_top=["9D", "7C"])
    table.deal(KINGS_AT_0)
    table.act(Withheld(seat=2))
    assert table.last("charged") == {"kind": "charged", "seat": 2, "kilos": 100}
    assert table.state.scores == [0, 0, 100, 0]
    assert table.describe_last("charged") == "seat 2 is charged 100 kg for holding the round up"
    assert table.describe_last("charged", "fr") == "la place 2 écope de 100 kg pour avoir retenu la manche"
    everyone_slaps(table, first=0, reactions={1: 150.0, 2: 300.0, 3: 200.0})
    assert table.state.scores[2] == 109
    table.deal(KINGS_AT_0)
    everyone_slaps(table, first=0, reactions={1: 150.0, 2: 300.0, 3: 200.0})
    assert table.draws[-1] == (2, "7C", True) and table.kilos(2) == []
    assert table.state.scores[2] == 100  # the 7 flushed the cards, not the charge
    with pytest.raises(IllegalAction, match="there is no seat 4"):
        table.act(Withheld(seat=4))


def test_rule_1_2_9_flush_to_shuffle_reshuffles_the_pile() -> None:
    table = ScriptedKilo(4, {"rounds": 5, "flush_to": "shuffle"})
    table.start(pile_top=["9D", "7C"])
    for _ in range(2):
        table.deal(KINGS_AT_0)
        everyone_slaps(table, first=0, reactions={1: 150.0, 2: 300.0, 3: 200.0})
    assert table.draws == [(2, "9D", False), (2, "7C", True)]
    reshuffle = table.last("shuffled")
    assert reshuffle["zone"] == PILE and len(reshuffle["tokens"]) == 36
    pile_tokens = table.state.zones[PILE]
    assert not any(t in table.state.faces for t in pile_tokens)  # faces hidden again
    assert sorted(table.pile()) == sorted(set(full_deck()) - set(faces_of_ranks("KQJ2")))


def test_rule_1_2_8_empty_pile_draws_nothing() -> None:
    table = ScriptedKilo(10, {"rounds": 100})
    table.deal()
    table.state.zones[PILE].clear()  # as if every card had been drawn
    table.pass_any(table.state.turn)  # off the checkpoint: any slap is false
    table.slap(0, at=1.0)
    table.close()
    assert table.draws == []
    assert table.last("judged")["losers"] == [0]
    assert table.state.phase == "dealing"


# --- 1.2.10 and 1.3: rounds, game end, winners --------------------------------------------------------


def test_rule_1_3_game_ends_after_rounds() -> None:
    table = ScriptedKilo(4, {"rounds": 2})
    table.start(pile_top=["3H", "5S"])
    for _ in range(2):
        table.deal(KINGS_AT_0)
        everyone_slaps(table, first=0, reactions={1: 150.0, 2: 300.0, 3: 200.0})
    assert table.engine.over
    over = table.last("game_over")
    assert over["scores"] == [0, 0, 8, 0] and over["winners"] == [0, 1, 3]


def test_rule_1_3_tied_winners_share_the_win() -> None:
    table = ScriptedKilo(4, {"rounds": 2})
    table.start(pile_top=["3H", "3S"])
    table.deal(KINGS_AT_0)
    everyone_slaps(table, first=0, reactions={1: 150.0, 2: 300.0, 3: 200.0})  # seat 2 draws 3H
    table.deal(KINGS_AT_0)
    everyone_slaps(table, first=0, reactions={1: 150.0, 2: 100.0, 3: 200.0})  # seat 3 draws 3S
    assert table.last("game_over")["winners"] == [0, 1]


def false_slap_round(table: ScriptedKilo, slapper: int) -> None:
    """A round where ``slapper`` slaps off the checkpoint and draws."""
    table.deal()
    table.pass_any(table.state.turn)
    table.slap(slapper, at=1.0)
    table.close()


def test_rule_1_3_rounds_pile_plays_until_the_pile_is_empty() -> None:
    # 10 players: the pile is the four 7s, 10s and aces. The 7s go first, each to a seat with no kilos,
    # so nothing is flushed and the pile empties after exactly 12 rounds.
    table = ScriptedKilo(10, {"rounds": "pile"})
    table.start(pile_top=["7S", "7H", "7D", "7C"])
    assert len(table.state.zones[PILE]) == 12  # 52 - 40 dealt
    rounds = 0
    while not table.engine.over:
        false_slap_round(table, rounds % 10)
        rounds += 1
        assert rounds <= 12
    assert table.state.zones[PILE] == [] and rounds == 12
    assert [card for _seat, card, _flush in table.draws][:4] == ["7S", "7H", "7D", "7C"]


def test_rule_1_3_rounds_pile_stops_at_max_rounds_when_the_pile_cannot_empty() -> None:
    table = ScriptedKilo(3, {"rounds": "pile", "max_rounds": 5})
    while not table.engine.over:
        false_slap_round(table, 0)
    assert table.state.round == 5 and table.state.zones[PILE]


def test_rule_1_3_unknown_option_and_bad_values_are_refused() -> None:
    with pytest.raises(OptionError, match="unknown option"):
        ScriptedKilo(4, {"colour": "red"})
    with pytest.raises(OptionError, match="one of bottom, shuffle"):
        ScriptedKilo(4, {"flush_to": "top"})
    with pytest.raises(TableError, match="players must be 3 to 10"):
        ScriptedKilo(2)


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_rule_1_2_6_non_finite_times_are_refused(bad: float) -> None:
    table = dealt()
    table.slap(0, at=1000.0)
    trigger = table.seq_of("slapped", 0)
    digest = table.engine.digest()
    with pytest.raises(IllegalAction, match="finite"):
        table.slap(3, at=0.0, trigger=trigger, rt=bad)
    with pytest.raises(IllegalAction, match="finite"):
        table.slap(3, at=bad)
    assert table.engine.digest() == digest


def test_a_reaction_quicker_than_a_person_is_refused_and_the_minimum_is_a_table_option() -> None:
    """A reaction time is what the reacting process says it was: a forged 5 ms would win every race."""
    table = dealt()
    table.slap(0, at=1000.0)
    trigger = table.seq_of("slapped", 0)
    digest = table.engine.digest()
    with pytest.raises(IllegalAction, match=r"a reaction in 99 ms is quicker than a person: .* 100 ms"):
        table.slap(3, at=0.0, trigger=trigger, rt=99.0)
    assert table.engine.digest() == digest
    table.slap(3, at=0.0, trigger=trigger, rt=100.0)
    anything_goes = dealt(min_reaction_ms=0)
    anything_goes.slap(0, at=1000.0)
    anything_goes.slap(3, at=0.0, trigger=anything_goes.seq_of("slapped", 0), rt=1.0)


def test_game_over_names_one_winner_or_several_in_both_languages() -> None:
    rules = Rules.for_table()
    one = {"kind": "game_over", "winners": [2], "scores": [100, 7, 0, 200]}
    two = {**one, "winners": [0, 2]}
    names = ["Ana", "Bea", "Chloé", "Dan"]
    assert (
        rules.describe(one, "en", names)
        == "game over: Chloé wins; Ana 100 kg, Bea 7 kg, Chloé 0 kg, Dan 200 kg"
    )
    assert rules.describe(two, "en", names).startswith("game over: Ana and Chloé win;")
    assert rules.describe(one, "fr", names).startswith("fin de la partie : Chloé gagne ; Ana 100 kg,")
    assert rules.describe(two, "fr", names).startswith("fin de la partie : Ana et Chloé gagnent ;")
    assert rules.describe(one, "en").startswith("game over: seat 2 wins;")  # nobody named yet
    assert rules.describe(one, "fr").startswith("fin de la partie : la place 2 gagne ;")


def test_the_log_speaks_of_people_by_name_in_full_sentences() -> None:
    """Issue 13: "Bea passes to Chloé", not "seat 1 passes to seat 2"; two Anas are told apart."""
    rules = Rules.for_table()
    names = ["Ana", "Bea", "Chloé", "Ana"]
    passed = {"kind": "passed", "seat": 1, "to": 2, "checkpoint": False}
    assert rules.describe(passed, "en", names) == "Bea passes to Chloé"
    assert rules.describe(passed, "fr", names) == "Bea passe à Chloé"
    judged = {"kind": "judged", "valid": True, "first": 0, "losers": [1, 3], "order": [], "reason": "combo"}
    assert rules.describe(judged, "en", names).endswith(": Bea and Ana (3) draw")
    assert rules.describe({**judged, "losers": [2]}, "fr", names).endswith(" : Chloé pioche")
    over = {"kind": "round_over", "round": 2, "scores": [3, 0, 12, 1]}
    assert (
        rules.describe(over, "en", names) == "round 2 over: Ana (0) 3 kg, Bea 0 kg, Chloé 12 kg, Ana (3) 1 kg"
    )


def test_rule_1_3_the_table_says_when_the_game_ends_as_it_starts() -> None:
    """RULES 1.3: with rounds=pile the table says, when it starts, that it stops after max_rounds."""
    counted = ScriptedKilo(4, {"rounds": 3})
    counted.start()
    assert counted.describe_last("game_started").endswith("; 3 rounds")
    to_the_end = ScriptedKilo(3, {"rounds": "pile", "max_rounds": 40})
    to_the_end.start()
    assert to_the_end.describe_last("game_started").endswith(
        "; play until the pile is empty, or 40 rounds at most"
    )
    assert to_the_end.describe_last("game_started", "fr").endswith(
        " ; on joue jusqu'à vider le tas, ou 40 manches au plus"
    )
