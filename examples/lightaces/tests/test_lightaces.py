"""Light aces: an ace drawn weighs ``ace_kilos`` (default 0); every other card keeps its weight.

The tables come from kdm's plugin kit (the ``kdm_table`` fixture, see ``conftest.py``) and pick the
rule by its entry-point name, as ``kdm sim --variant lightaces`` does, so they test the installed plugin.
"""

from __future__ import annotations

from typing import Any

import pytest

from kdm.errors import OptionError
from kdm.manager import Rules


def draw_by_seat_2(kdm_table: Any, top: str, **table: Any) -> Any:
    """A table where seat 2 draws ``top``: seat 0 holds four kings and slaps, seat 2 slaps last."""
    scripted = kdm_table(4, **table)
    scripted.start(pile_top=[top])
    scripted.deal([["KH", "KS", "KD", "KC"]])
    scripted.everyone_slaps(0, {1: 100.0, 2: 300.0, 3: 200.0})
    assert scripted.draws == [(2, top, False)]
    return scripted


def test_an_ace_weighs_nothing_by_default(kdm_table: Any) -> None:
    assert draw_by_seat_2(kdm_table, "AH", variants=["lightaces"]).state.scores[2] == 0


def test_the_table_says_what_an_ace_weighs(kdm_table: Any) -> None:
    table = draw_by_seat_2(kdm_table, "AS", options={"ace_kilos": 3}, variants=["lightaces"])
    assert table.state.scores[2] == 3


def test_without_the_rule_an_ace_weighs_100(kdm_table: Any) -> None:
    assert draw_by_seat_2(kdm_table, "AH").state.scores[2] == 100


def test_other_cards_keep_their_weight(kdm_table: Any) -> None:
    table = draw_by_seat_2(kdm_table, "9D", options={"ace_kilos": 3}, variants=["lightaces"])
    assert table.state.scores[2] == 9


def test_a_joker_keeps_the_weight_its_variant_gives(kdm_table: Any) -> None:
    table = draw_by_seat_2(kdm_table, "JOKER", options={"ace_kilos": 3}, variants=["lightaces", "jokers"])
    assert table.state.scores[2] == 1000


def test_the_option_is_declared_and_checked(kdm_table: Any) -> None:
    (option,) = [option for option in Rules.for_table(["lightaces"]).options() if option.name == "ace_kilos"]
    assert (option.plugin, option.type, option.default) == ("lightaces", int, 0)
    refusal = "option ace_kilos: '-1' is not allowed; use an integer of at least 0"
    with pytest.raises(OptionError, match=refusal):
        kdm_table(4, {"ace_kilos": "-1"}, variants=["lightaces"])
