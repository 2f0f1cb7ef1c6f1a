"""The plugin kit (``kdm.testing``, and the base game's ``kdm.plugins.kilo.testing``): a house rule written
in a
test is tested in a few lines, with the ``kdm_table`` fixture, ``play`` for bots-only games and
``check_cards`` for card conservation."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from kdm.events import Deal
from kdm.hookspecs import hookimpl
from kdm.options import TableOption
from kdm.plugins.kilo.testing import ScriptedKilo, check_cards
from kdm.testing import ScriptedTable, check_places, play

pytest_plugins = ["pytester"]


class LightAces:
    """A house rule written in the test: aces weigh ``ace_kilos``."""

    NAME = "lightaces"

    @staticmethod
    @hookimpl
    def kdm_table_options() -> list[TableOption]:
        return [TableOption("ace_kilos", int, 1, "what an ace weighs", minimum=0)]

    @staticmethod
    @hookimpl
    def kdm_card_kilos(card: str, options: dict[str, Any]) -> int | None:
        return int(options["ace_kilos"]) if card.startswith("A") else None


def test_kit_table_with_a_plugin_written_in_the_test() -> None:
    table = ScriptedKilo(4, {"ace_kilos": 5}, plugins=[LightAces()], variants=["jokers"])
    assert table.rules.names == ["kilo", "jokers", "lightaces"]
    table.start(pile_top=["AH", "JOKER"])
    table.deal([["KH", "KS", "KD", "KC"]])
    table.everyone_slaps(0, {1: 100.0, 2: 300.0, 3: 200.0})
    assert table.draws == [(2, "AH", False)] and table.state.scores[2] == 5


def test_kit_fires_timers_only_when_told() -> None:
    table = ScriptedKilo(4, variants=["spoons"])
    table.deal([["KH", "KS", "KD", "KC"]])
    table.everyone_slaps(0, {1: 100.0, 3: 200.0}, kind="grab")
    assert table.state.phase == "window"
    with pytest.raises(AssertionError, match="awaits no 'go' timer"):
        table.fire("go")
    table.fire("close")
    assert table.last("judged")["losers"] == [2]


def test_kit_plays_bots_only_games_with_the_plugin() -> None:
    result = play(
        players=5, variants=["seven_in_reserve"], options={"rounds": 3}, seed=4, plugins=[LightAces()]
    )
    again = play(5, ["seven_in_reserve"], {"rounds": 3}, 4, [LightAces()])
    assert result.rounds == 3 and (again.digest, again.summary) == (result.digest, result.summary)


def test_kit_check_cards_notices_a_lost_card() -> None:
    table = ScriptedKilo(4, variants=["piles"])
    table.deal()
    check_cards(table)
    table.state.zones["pile/1"].pop()
    with pytest.raises(AssertionError, match="lost or made"):
        check_cards(table)


def test_kit_arranges_hidden_faces_and_settles_a_game_mode_s_reveals() -> None:
    table = ScriptedTable(4, variants=["kems"])
    table.fire("ready_time")  # the teams' time to agree their signs (RULES 3.2) ends: the first deal
    table.act(Deal(seed=b"arranged"), settle=False)
    live = [t for hand in table.state.hands for t in hand] + table.state.zones["talon"]
    before = Counter(table.deck.faces[t] for t in live)
    table.arrange(dict(zip(table.state.hands[1], ["KH", "KS", "KD", "2C"], strict=True)))
    assert table.hand(1) == ["KH", "KS", "KD", "2C"]
    assert Counter(table.deck.faces[t] for t in live) == before  # the same cards, swapped
    effects = table.settle()  # seat 1 checks first: Kem's reveal shows its three kings for it
    assert effects[0] == {"kind": "redrawn", "seat": 1, "cards": ["KH", "KS", "KD"]}
    assert table.state.phase == "hunt"
    with pytest.raises(ValueError, match="not a hidden card"):
        table.arrange({table.state.zones["table"][0]: "2S"})  # face up: the log knows it
    check_places(table)


AUTHOR_CONFTEST = 'pytest_plugins = ["kdm.plugins.kilo.testing"]\n'
AUTHOR_TEST = """
from kdm.hookspecs import hookimpl


class NoFeints:
    NAME = "nofeints"

    @staticmethod
    @hookimpl
    def kdm_apply(engine, event):
        if event.kind == "feint":
            raise __import__("kdm.engine").engine.IllegalAction("no feints at this house")
        return None


def test_house_rule(kdm_table):
    table = kdm_table(4, plugins=[NoFeints()])
    table.deal()
    try:
        table.feint(0, at=1.0)
    except Exception as error:
        assert "no feints" in str(error)
    table.slap(1, at=2.0)
    table.close()
    assert len(table.draws) == 1


def test_a_lost_card_fails_the_test_at_teardown(kdm_table):
    table = kdm_table(4)
    table.deal()
    table.state.zones["pile"].pop()
"""


def test_kit_fixture_for_plugin_authors(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(AUTHOR_CONFTEST)
    pytester.makepyfile(test_house=AUTHOR_TEST)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(["*lost or made*"])
