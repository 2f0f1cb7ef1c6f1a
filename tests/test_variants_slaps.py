"""Scenario tests for the variants that change the slap and the draw: RULES 2.2 ``spoons`` and 2.3
``piles``. Each test names its rule.

With 4 players the dealt ranks are K Q J 2; in ``KINGS_AT_0`` seat 0 holds four kings, QH at seat 1
starts and QS at seat 2 sends the passing left.
"""

from __future__ import annotations

import pytest

from kdm.engine import IllegalAction
from kdm.plugins.kilo.events import Draw
from kdm.plugins.kilo.testing import ScriptedKilo

KINGS_AT_0 = [
    ["KH", "KS", "KD", "KC"],
    ["QH", "JH", "2H", "QD"],
    ["QS", "JS", "2S", "JD"],
    ["QC", "JC", "2C", "2D"],
]


def spoons(**options: object) -> ScriptedKilo:
    table = ScriptedKilo(4, options, variants=["spoons"])
    table.start(pile_top=["9H", "8S"])
    table.deal(KINGS_AT_0)
    return table


def view(table: ScriptedKilo, seat: int = 0) -> object:
    return table.engine.view(seat, table.deck.knowledge(table.state, seat))


# --- 2.2 spoons -------------------------------------------------------------------------------------


def test_rule_2_2_there_are_n_minus_1_objects() -> None:
    for players in (3, 4, 10):
        table = ScriptedKilo(players, variants=["spoons"])
        table.deal()
        assert view(table).rules["spoons"].objects == players - 1  # type: ignore[attr-defined]


def test_rule_2_2_one_grabs_instead_of_slapping() -> None:
    table = spoons()
    digest = table.engine.digest()
    with pytest.raises(IllegalAction, match="grab"):
        table.slap(0, at=1000.0)
    assert table.engine.digest() == digest
    assert table.grab(0, at=1000.0)[0]["kind"] == "grabbed"


def test_rule_2_2_the_window_closes_when_the_last_object_is_taken() -> None:
    table = spoons(grab_grace_ms=0)
    table.everyone_slaps(0, {1: 150.0, 3: 200.0}, kind="grab")  # seat 2 does not grab at all
    judged = table.last("judged")
    assert judged["valid"] and judged["losers"] == [2]
    assert table.draws == [(2, "9H", False)]


def test_rule_2_2_after_the_last_object_a_grace_lets_an_earlier_grab_count() -> None:
    table = spoons()  # grab_grace_ms=250 by default
    table.everyone_slaps(0, {1: 150.0, 3: 400.0}, kind="grab")
    assert table.state.phase == "window"
    (duty,) = table.engine.awaiting()
    assert duty.kind == "close" and duty.after_ms == 250
    holders = view(table).rules["spoons"].holders  # type: ignore[attr-defined]
    assert holders == (0, 1, 3)
    # Seat 2's grab is logged last but it reached first: it takes the object seat 3 thought it had.
    table.grab(2, at=0.0, trigger=table.seq_of("grabbed", 0), rt=300.0)
    judged = table.last("judged")
    assert judged["valid"] and judged["losers"] == [3]


def test_rule_2_2_when_the_grace_runs_out_the_seat_without_an_object_loses() -> None:
    table = spoons()
    table.everyone_slaps(0, {1: 150.0, 3: 200.0}, kind="grab")
    table.fire("close")
    assert table.last("judged")["losers"] == [2]


def test_rule_2_2_a_false_first_grab_makes_its_instigator_the_loser() -> None:
    table = spoons(grab_grace_ms=0)
    table.pass_card(1, "JH")  # off the checkpoint
    table.everyone_slaps(3, {0: 100.0, 1: 120.0}, kind="grab")
    judged = table.last("judged")
    assert not judged["valid"] and judged["losers"] == [3]


def test_rule_2_2_first_grab_at_a_checkpoint_without_a_combo_is_false() -> None:
    table = spoons(grab_grace_ms=0)
    table.everyone_slaps(1, {0: 100.0, 3: 120.0}, kind="grab")
    assert table.last("judged")["losers"] == [1]


def test_rule_2_2_feints_work_as_in_the_base_game() -> None:
    table = spoons(grab_grace_ms=0)
    table.pass_card(1, "JH")
    table.feint(0, at=1000.0)
    table.grab(3, at=0.0, trigger=table.seq_of("feinted", 0), rt=180.0)  # fooled
    opener = table.seq_of("grabbed", 3)
    table.grab(0, at=0.0, trigger=opener, rt=100.0)
    table.grab(2, at=0.0, trigger=opener, rt=150.0)
    assert table.last("judged")["losers"] == [3]


def test_rule_2_2_a_timeout_before_the_objects_are_taken_makes_every_empty_hand_a_loser() -> None:
    table = spoons()
    table.everyone_slaps(0, {3: 200.0}, kind="grab")
    table.close()
    assert table.last("judged")["losers"] == [1, 2]


# --- 2.3 piles --------------------------------------------------------------------------------------


def piles(players: int = 4, tops: tuple[tuple[str, ...], ...] = (), **options: object) -> ScriptedKilo:
    table = ScriptedKilo(players, options, variants=["piles"])
    table.start(piles=tops)
    table.deal(KINGS_AT_0 if players == 4 else ())
    return table


def test_rule_2_3_the_pile_is_split_into_n_minus_1_piles_at_the_start() -> None:
    table = piles()
    assert table.kilo.piles == ("pile/0", "pile/1", "pile/2")
    assert [len(table.pile(i)) for i in range(3)] == [12, 12, 12]
    table = piles(players=5)  # 32 cards in 4 piles
    assert [len(table.pile(i)) for i in range(4)] == [8, 8, 8, 8]
    assert "pile" not in table.state.zones


def test_rule_2_3_the_split_is_made_once_per_game() -> None:
    table = piles()
    table.pass_any(1)
    table.slap(1, at=1.0)
    table.close()
    table.event("choose_pile", seat=1, pile=2)
    table.deal()
    assert [len(table.pile(i)) for i in range(3)] == [12, 12, 11]


def test_rule_2_3_the_last_player_draws_from_the_pile_they_choose() -> None:
    table = piles(tops=(("9H",), ("8S",), ("AD",)))
    table.everyone_slaps(0, {1: 150.0, 2: 300.0, 3: 200.0})  # seat 2 has no pile left to cover
    assert table.last("judged")["losers"] == [2]
    assert table.state.phase == "drawing" and table.engine.awaiting() == []  # waits for the choice
    assert view(table).rules["piles"].choosing == 2  # type: ignore[attr-defined]
    table.event("choose_pile", seat=2, pile=1)
    assert table.draws == [(2, "8S", False)]
    assert [len(table.pile(i)) for i in range(3)] == [12, 11, 12]


def test_rule_2_3_only_the_loser_chooses_and_only_a_pile_with_cards() -> None:
    table = piles()
    table.everyone_slaps(0, {1: 150.0, 2: 300.0, 3: 200.0})
    top = table.state.zones["pile/0"][-1]
    with pytest.raises(IllegalAction, match="choose a pile"):
        table.act(Draw(seat=2, token=top, card=table.deck.faces[top]))
    with pytest.raises(IllegalAction, match="no pile to choose"):
        table.event("choose_pile", seat=1, pile=0)
    with pytest.raises(IllegalAction, match="no pile 3"):
        table.event("choose_pile", seat=2, pile=3)
    table.state.zones["pile/1"].clear()  # as if every card of pile 1 had been drawn
    with pytest.raises(IllegalAction, match="no pile 1"):
        table.event("choose_pile", seat=2, pile=1)


def test_rule_2_3_the_draw_comes_from_the_chosen_pile_only() -> None:
    table = piles()
    table.everyone_slaps(0, {1: 150.0, 2: 300.0, 3: 200.0})
    table.act(table.rules.codec.decode({"kind": "choose_pile", "seat": 2, "pile": 1}), settle=False)
    other = table.state.zones["pile/0"][-1]
    draw = Draw(seat=2, token=other, card=table.deck.faces[other])
    with pytest.raises(IllegalAction, match="not the ones dealt"):  # the open deck rebuilds the draw owed
        table.act(draw)
    with pytest.raises(IllegalAction, match="not on top of a pile this seat may draw from"):
        table.engine.apply(draw)  # and the rules refuse it themselves, as at a fair table


def test_rule_2_3_a_flush_goes_under_the_pile_drawn_from() -> None:
    table = piles(tops=(("9D",), ("7C",)), rounds=3)
    table.everyone_slaps(0, {1: 150.0, 2: 300.0, 3: 200.0})
    table.event("choose_pile", seat=2, pile=0)
    table.deal(KINGS_AT_0)
    table.everyone_slaps(0, {1: 150.0, 2: 300.0, 3: 200.0})
    table.event("choose_pile", seat=2, pile=1)
    assert table.draws == [(2, "9D", False), (2, "7C", True)]
    assert table.pile(1)[-2:] == ["7C", "9D"] and len(table.pile(1)) == 13
    assert len(table.pile(0)) == 11 and len(table.pile(2)) == 12


def test_rule_2_3_flush_to_shuffle_reshuffles_the_pile_drawn_from_only() -> None:
    table = piles(tops=(("9D",), ("7C",)), rounds=3, flush_to="shuffle")
    pile_2 = list(table.state.zones["pile/2"])
    table.everyone_slaps(0, {1: 150.0, 2: 300.0, 3: 200.0})
    table.event("choose_pile", seat=2, pile=0)
    table.deal(KINGS_AT_0)
    table.everyone_slaps(0, {1: 150.0, 2: 300.0, 3: 200.0})
    table.event("choose_pile", seat=2, pile=1)
    assert table.last("shuffled")["zone"] == "pile/1" and len(table.pile(1)) == 13
    assert table.state.zones["pile/2"] == pile_2


def test_rule_2_3_with_one_pile_left_there_is_nothing_to_choose() -> None:
    table = piles(tops=((), (), ("AH",)))
    table.state.zones["pile/0"].clear()
    table.state.zones["pile/1"].clear()
    table.everyone_slaps(0, {1: 150.0, 2: 300.0, 3: 200.0})
    # Only seat 0 covers a pile (the one with cards); the others lose and draw from it, in slap order,
    # with no pile to choose (RULES 2.3).
    assert table.last("judged")["losers"] == [1, 3, 2]
    assert [(seat, card) for seat, card, _flush in table.draws][:1] == [(1, "AH")]
    assert [seat for seat, _card, _flush in table.draws] == [1, 3, 2]
    assert view(table).rules["piles"].choosing is None  # type: ignore[attr-defined]


def test_rule_2_3_an_empty_pile_cannot_be_covered() -> None:
    table = piles(tops=(("9H",), ("8S",), ("AD",)))
    table.state.zones["pile/1"].clear()  # as if every card of pile 1 had been drawn
    table.everyone_slaps(0, {1: 150.0, 2: 300.0, 3: 200.0})  # 0 and 1 cover the two piles with cards
    assert table.last("judged")["losers"] == [3, 2]  # both left without one, in slap order
    assert view(table).rules["piles"].choosing == 3  # type: ignore[attr-defined]
    table.event("choose_pile", seat=3, pile=0)
    assert view(table).rules["piles"].choosing == 2  # type: ignore[attr-defined]
    table.event("choose_pile", seat=2, pile=2)
    assert table.draws == [(3, "9H", False), (2, "AD", False)]


def test_rule_2_3_one_who_never_slapped_loses_after_those_without_a_pile() -> None:
    table = piles()
    table.state.zones["pile/2"].clear()
    table.slap(0, at=1000.0)
    opener = table.seq_of("slapped", 0)
    table.slap(1, at=0.0, trigger=opener, rt=150.0)
    table.slap(3, at=0.0, trigger=opener, rt=200.0)
    table.close()  # seat 2 never slapped; seat 3 found no pile to cover
    assert table.last("judged")["losers"] == [3, 2]


def test_rule_2_3_rounds_pile_plays_until_every_pile_is_empty() -> None:
    table = piles(rounds="pile")
    for name in ("pile/0", "pile/1"):
        table.state.zones[name].clear()
    del table.state.zones["pile/2"][:-1]
    table.everyone_slaps(0, {1: 150.0, 2: 300.0, 3: 200.0})
    assert table.engine.over
