"""Snap's rules at a scripted table: the cards a test chooses, every event through the real engine."""

from __future__ import annotations

import pytest
from kdm_snap.rules import snap
from kdm_snap.view import SnapView
from snap_helpers import centre, flip, pile_size, slap, snap_table, top

from kdm.engine import IllegalAction
from kdm.errors import TableError
from kdm.testing import ScriptedTable, check_places


def view_of(table: ScriptedTable, seat: int) -> SnapView:
    part: SnapView = table.engine.view(seat, table.deck.knowledge(table.state, seat)).rules["snap"]
    return part


def test_the_deck_is_dealt_face_down_round_the_table() -> None:
    table = snap_table(3)
    assert [pile_size(table, seat) for seat in range(3)] == [18, 17, 17]
    assert table.state.scores == [18, 17, 17] and table.state.turn == 0
    assert not table.state.faces  # nobody knows a face, their own cards' included
    assert table.describe_last("dealt") == "the deck is dealt face down: 17 or 18 cards each"
    check_places(table)


def test_the_quickest_slap_on_a_pair_takes_the_centre_whatever_the_order_slaps_arrive_in() -> None:
    table = snap_table(3)
    table.arrange({top(table, 0): "7H", top(table, 1): "7S"})
    flip(table, 0)
    assert not table.last("turned")["pair"]
    flip(table, 1)
    assert table.last("turned")["pair"] and view_of(table, 2).pair
    assert table.state.turn == 2
    slap(table, 2, rt=300.0)  # committed first, but slower
    assert table.state.phase == "slapping"
    with pytest.raises(IllegalAction, match="turn"):
        flip(table, 2)  # no card is turned while a slap is judged
    slap(table, 1, rt=200.0)
    slap(table, 0, rt=250.0)  # every player has slapped: judged at once
    judged = table.last("slap_judged")
    assert judged["pair"] and judged["first"] == 1 and judged["taken"] == 2
    assert judged["order"] == [(1, 200.0), (0, 250.0), (2, 300.0)]
    assert centre(table) == [] and pile_size(table, 1) == 18 and table.state.scores == [17, 18, 17]
    under = table.state.zones["pile/1"][:2]  # the centre goes under the pile, in the order it lay
    assert [table.deck.faces[t] for t in under] == ["7H", "7S"]
    assert table.state.phase == "playing" and table.state.turn == 2  # the turn goes on where it was
    said = table.describe_last("slap_judged", "fr", names=["Ana", "Bea", "Chloé"])
    assert said == "Bea, le plus rapide, prend les 2 cartes du centre"
    check_places(table)


def test_a_slap_with_no_pair_costs_a_card_face_down_under_the_centre() -> None:
    table = snap_table(3)
    table.arrange({top(table, 0): "7H", top(table, 1): "8S"})
    flip(table, 0)
    flip(table, 1)
    paid = top(table, 2)
    slap(table, 2, rt=400.0)
    assert table.engine.awaiting()[0].kind == "snap_close"  # the others may still slap until it is up
    table.fire("snap_close")
    judged = table.last("slap_judged")
    assert not judged["pair"] and judged["paid"] == [2] and judged["taken"] == 0
    assert table.state.zones["centre"][0] == paid and pile_size(table, 2) == 16
    assert view_of(table, 0).centre == ("7H", "8S")  # the card paid lies face down: not shown
    assert table.describe_last("slap_judged", names=["Ana", "Bea", "Chloé"]) == (
        "no pair! Chloé puts a card under the centre"
    )
    with pytest.raises(IllegalAction, match="already slapped"):
        slap(table, 2, rt=500.0)  # one slap per card turned up
    check_places(table)


def test_a_slap_that_answers_a_covered_card_or_nothing_is_refused() -> None:
    table = snap_table(3)
    with pytest.raises(IllegalAction, match="nothing on the centre"):
        table.event("snap", seat=1, t_sync=0.0, trigger=None, rt=250.0)
    flip(table, 0)
    covered = snap(table.state).top_seq
    flip(table, 1)
    with pytest.raises(IllegalAction, match="covered since"):
        slap(table, 2, rt=250.0, trigger=covered)
    with pytest.raises(IllegalAction, match="how long after"):
        table.event("snap", seat=2, t_sync=0.0, trigger=snap(table.state).top_seq, rt=None)
    with pytest.raises(IllegalAction, match="seat 2's turn"):
        flip(table, 0)
    assert table.state.phase == "playing" and snap(table.state).window is None


def test_a_reaction_quicker_than_a_person_is_refused() -> None:
    table = ScriptedTable(2, variants=["snap"])  # the default min_reaction_ms
    table.start()
    flip(table, 0)
    with pytest.raises(IllegalAction, match="quicker than a person"):
        slap(table, 1, rt=40.0)


def test_with_no_card_left_a_player_may_slap_back_in_until_their_turn_comes() -> None:
    table = snap_table(3)
    # The bottom cards of seats 1 and 2 are their last ones: they make a pair at the 51st card.
    table.arrange({table.state.zones["pile/1"][0]: "5H", table.state.zones["pile/2"][0]: "5S"})
    for turn in range(51):
        flip(table, turn % 3)
    assert pile_size(table, 1) == 0 and pile_size(table, 2) == 0 and table.state.turn == 0
    assert table.last("turned")["pair"] and snap(table.state).out == []  # empty, but in until their turn
    slap(table, 1, rt=300.0)
    table.fire("snap_close")
    assert pile_size(table, 1) == 51 and table.state.scores == [1, 51, 0]
    flip(table, 0)  # seat 0 turns its last card
    assert table.state.turn == 1
    effects = flip(table, 1)
    outs = [effect["seat"] for effect in effects if effect["kind"] == "player_out"]
    assert outs == [2, 0]  # their turns came with no card: out, and seat 1 is the last in
    over = table.last("game_over")
    assert over["winners"] == [1] and over["reason"] == "last" and table.state.phase == "over"
    assert table.describe_last("game_over") == "game over (one player left in): seat 1 wins with 50 cards"
    check_places(table)


def test_after_max_turns_a_last_chance_to_slap_then_most_cards_wins_and_a_tie_shares_it() -> None:
    table = snap_table(2, max_turns=2)
    flip(table, 0)
    flip(table, 1)
    assert table.state.turn is None and table.state.phase == "playing"
    assert table.engine.awaiting()[0].kind == "snap_end"
    table.fire("snap_end")
    over = table.last("game_over")
    assert over["winners"] == [0, 1] and over["cards"] == [25, 25] and over["reason"] == "turns"
    assert table.describe_last("game_over", "fr") == (
        "partie terminée (tous les tours sont joués) : la place 0 et la place 1 gagnent avec 25 cartes"
    )


def test_a_pair_at_the_last_turn_is_still_won() -> None:
    table = snap_table(2, max_turns=2)
    table.arrange({top(table, 0): "QH", top(table, 1): "QD"})
    flip(table, 0)
    flip(table, 1)
    slap(table, 0, rt=350.0)
    slap(table, 1, rt=360.0)
    over = table.last("game_over")
    assert over["winners"] == [0] and over["cards"] == [27, 25] and over["reason"] == "turns"


@pytest.mark.parametrize("players", [1, 9])
def test_snap_is_played_by_two_to_eight(players: int) -> None:
    with pytest.raises(TableError, match="2 to 8 players"):
        ScriptedTable(players, variants=["snap"])


def test_when_every_pile_is_empty_the_centre_is_shuffled_and_dealt_again() -> None:
    table = snap_table(2)
    for turn in range(52):  # nobody slaps: every card ends in the centre
        flip(table, turn % 2)
    # Seat 0's turn came with every pile empty: nobody is out, the centre is dealt again from seat 0.
    assert snap(table.state).out == [] and table.state.phase == "playing" and table.state.turn == 0
    assert [pile_size(table, seat) for seat in range(2)] == [26, 26] and centre(table) == []
    assert not table.state.faces  # face down again, in an order nobody knows
    assert table.last("shuffled")["zone"] == "centre"
    assert table.describe_last("redealt") == (
        "every pile is empty: the centre is shuffled and dealt again, 26 cards each"
    )
    assert view_of(table, 1).centre == () and view_of(table, 1).top_seq is None
    flip(table, 0)  # the game goes on
    assert table.last("turned")["turns"] == 53
    check_places(table)
