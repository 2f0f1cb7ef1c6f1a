"""Scenario tests for RULES 2.1 ``all_at_once`` (« Tous en même temps »): every seat chooses a card, and
at each GO every chosen card goes to the next seat at once. Each test names its rule.

With 4 players the dealt ranks are K Q J 2; in ``KINGS_AT_0`` seat 0 holds four kings and QH at seat 1
makes seat 1 the starter.
"""

from __future__ import annotations

import pytest

from kdm.engine import IllegalAction
from kdm.plugins.kilo.events import Pass
from kdm.plugins.kilo.testing import ScriptedKilo

KINGS_AT_0 = [
    ["KH", "KS", "KD", "KC"],
    ["QH", "JH", "2H", "QD"],
    ["QS", "JS", "2S", "JD"],
    ["QC", "JC", "2C", "2D"],
]
CHOICES = {0: "KH", 1: "JH", 2: "JS", 3: "2D"}


def all_at_once(**options: object) -> ScriptedKilo:
    table = ScriptedKilo(4, options, variants=["all_at_once"])
    table.deal(KINGS_AT_0)
    return table


def sizes(table: ScriptedKilo) -> list[int]:
    return [len(hand) for hand in table.state.hands]


def test_rule_2_1_a_pass_only_chooses_a_card_any_seat_any_time() -> None:
    table = all_at_once(direction="left")
    assert table.state.turn is None  # nobody passes in turn
    effects = table.pass_card(3, "2D")
    assert effects[0] == {"kind": "chose", "seat": 3, "token": effects[0]["token"]}
    table.pass_card(3, "QC")  # a seat may change its mind before GO
    assert sizes(table) == [4, 4, 4, 4] and "2D" in table.hand(3)
    with pytest.raises(IllegalAction, match="does not hold"):
        table.act(Pass(seat=3, token=table.state.hands[0][0]))


def test_rule_2_1_at_go_every_chosen_card_goes_to_the_neighbour_at_once() -> None:
    table = all_at_once(direction="left")
    for seat, card in CHOICES.items():
        table.pass_card(seat, card)
    went = table.event("go", seat=1)[0]
    assert went["kind"] == "went" and went["picked"] == []
    for seat, card in CHOICES.items():
        assert card in table.hand((seat + 1) % 4) and card not in table.hand(seat)
    assert sizes(table) == [4, 4, 4, 4]
    assert "GO" in (table.rules.describe(went, "fr") or "")


def test_rule_2_1_a_seat_that_has_not_chosen_gives_a_card_the_table_picks() -> None:
    def played() -> tuple[list[int], list[str]]:
        table = all_at_once(direction="right")
        for seat in (0, 1, 2):
            table.pass_card(seat, CHOICES[seat])
        went = table.event("go", seat=1)[0]
        return went["picked"], table.hand(2)

    picked, hand = played()
    assert picked == [3]
    given = [card for card in hand if card in KINGS_AT_0[3]]
    assert len(given) == 1  # seat 3 gave exactly one of its cards to seat 2 (passing right)
    assert played() == (picked, hand)  # picked from the round's agreed seed: the same everywhere


def test_rule_2_1_the_starter_chooses_the_direction() -> None:
    table = all_at_once()  # direction=toward-queen-of-spades: meaningless at once, the starter chooses
    with pytest.raises(IllegalAction, match="has not chosen the direction"):
        table.event("go", seat=1)
    with pytest.raises(IllegalAction, match="the starter"):
        table.event("steer", seat=0, direction="right")
    with pytest.raises(IllegalAction, match="left or right"):
        table.event("steer", seat=1, direction="up")
    table.event("steer", seat=1, direction="right")
    with pytest.raises(IllegalAction, match="already set"):
        table.event("steer", seat=1, direction="left")
    table.pass_card(0, "KH")
    table.event("go", seat=1)
    assert "KH" in table.hand(3)


def test_rule_2_1_a_fixed_direction_needs_no_choice() -> None:
    table = all_at_once(direction="right")
    with pytest.raises(IllegalAction, match="already set"):
        table.event("steer", seat=1, direction="left")


def test_rule_2_1_by_default_only_the_starter_calls_go() -> None:
    table = all_at_once(direction="left")
    with pytest.raises(IllegalAction, match=r"the starter \(seat 1\) calls GO"):
        table.event("go", seat=0)
    with pytest.raises(IllegalAction, match="calls GO"):
        table.event("go")
    assert table.engine.awaiting() == []  # no timer: the table waits for the starter


def test_rule_2_1_go_interval_ms_makes_the_table_call_go() -> None:
    table = all_at_once(direction="left", go_interval_ms=1500)
    (duty,) = table.engine.awaiting()
    assert (duty.kind, duty.after_ms, duty.seat) == ("go", 1500, None)
    with pytest.raises(IllegalAction, match="the table calls GO"):
        table.event("go", seat=1)
    table.pass_card(0, "KH")
    table.fire("go")
    assert "KH" in table.hand(1)
    (after,) = table.engine.awaiting()
    assert after.kind == "go" and after.ref != duty.ref  # the next interval counts from this GO


def test_rule_2_1_the_timer_waits_for_the_starter_to_choose_the_direction() -> None:
    table = all_at_once(go_interval_ms=1500)
    assert table.engine.awaiting() == []
    table.event("steer", seat=1, direction="left")
    assert [duty.kind for duty in table.engine.awaiting()] == ["go"]


def test_rule_2_1_every_moment_between_two_gos_is_a_checkpoint() -> None:
    table = all_at_once(direction="left")
    table.pass_card(0, "KH")  # chosen, not given: seat 0 still holds four kings
    table.everyone_slaps(0, {1: 150.0, 2: 300.0, 3: 200.0})
    judged = table.last("judged")
    assert judged["valid"] and judged["losers"] == [2]


def test_rule_2_1_after_a_go_it_is_still_a_checkpoint() -> None:
    table = all_at_once(direction="left")
    for seat, card in CHOICES.items():
        if seat != 3:
            table.pass_card(seat, card)
    table.pass_card(3, "QC")
    table.event("go", seat=1)  # seat 0 gave KH and got QC: no combo any more
    table.everyone_slaps(0, {1: 150.0, 2: 300.0, 3: 200.0})
    judged = table.last("judged")
    assert not judged["valid"] and judged["losers"] == [0]
    assert table.last("hand_shown")["seat"] == 0  # at a checkpoint the hand is shown
