"""Tables with variants (RULES 2): which combinations are allowed and which are refused (and why),
presets and requirements, and ``kdm sim --variant NAME... --json`` for every variant: bots play it to
the end, and the same seed gives the same game."""

from __future__ import annotations

import json
import types
from typing import Any

import pytest

from kdm.cli import main
from kdm.errors import PluginError, TableError
from kdm.hookspecs import hookimpl
from kdm.manager import Rules, plugin_from
from kdm.plugins.kilo.testing import ScriptedKilo
from kdm.sim import simulate

VARIANTS = ("all_at_once", "spoons", "piles", "jokers", "seven_in_reserve", "marathon", "classic")


def sim_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert main(["sim", *args, "--json"]) == 0
    result: dict[str, Any] = json.loads(capsys.readouterr().out)
    result.pop("seconds")
    return result


@pytest.mark.parametrize("variant", VARIANTS)
def test_rule_2_each_variant_plays_in_kdm_sim_deterministically_per_seed(
    capsys: pytest.CaptureFixture[str], variant: str
) -> None:
    args = ("--players", "5", "--rounds", "3", "--seed", "7", "--variant", variant)
    first, second = sim_json(capsys, *args), sim_json(capsys, *args)
    assert first == second and first["rounds"] == 3 and len(first["draws"]) >= 3
    other = sim_json(capsys, "--players", "5", "--rounds", "3", "--seed", "8", "--variant", variant)
    assert other["digest"] != first["digest"]


@pytest.mark.parametrize("players", [3, 6, 10])
def test_rule_2_bots_play_every_variant_together_where_allowed(players: int) -> None:
    allowed = ["all_at_once", "spoons", "jokers", "seven_in_reserve", "classic"]
    result = simulate(players, 2, seed=players, variants=allowed, options={"go_interval_ms": 1200})
    assert result.rounds == 2
    result = simulate(players, 2, seed=players, variants=["piles", "jokers", "marathon", "all_at_once"])
    assert result.rounds == 2


def test_rule_2_jokers_spoons_and_all_at_once_work_together() -> None:
    table = ScriptedKilo(4, {"direction": "left", "grab_grace_ms": 0},
                          variants=["jokers", "spoons", "all_at_once"])  # fmt: skip
    table.start(pile_top=["JOKER"])
    table.deal([["KH", "KS", "KD", "KC"]])
    table.pass_card(0, "KH")
    table.everyone_slaps(0, {1: 100.0, 3: 120.0}, kind="grab")
    assert table.last("judged")["valid"] and table.draws == [(2, "JOKER", False)]
    assert table.state.scores[2] == 1000


def test_rule_2_spoons_and_piles_are_refused_together_with_the_reason(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(TableError, match="spoons and piles both say what a slap is"):
        ScriptedKilo(4, variants=["spoons", "piles"])
    assert main(["sim", "--variant", "spoons", "--variant", "piles"]) == 2
    assert "choose one" in capsys.readouterr().err


#: A stand-in for another game mode (such as Kem's): it replaces the base game.
OTHER_GAME = types.SimpleNamespace(NAME="othergame", KDM_MODE=True)


@pytest.mark.parametrize("variant", VARIANTS)
def test_rule_2_variants_are_refused_at_a_table_of_another_game(variant: str) -> None:
    # A variant requires the base game, so the table would play two: it is told which brought which.
    with pytest.raises(
        TableError, match=rf"one game: choose othergame, or kilo \(which .*{variant}.* plays\)"
    ):
        Rules.for_table([variant], [plugin_from(OTHER_GAME)])


def test_rule_2_6_classic_brings_marathon_and_unknown_names_list_the_plugins() -> None:
    assert Rules.for_table(["classic"]).names == ["kilo", "classic", "marathon"]
    assert Rules.for_table(["marathon", "classic"]).names == ["kilo", "classic", "marathon"]
    with pytest.raises(
        PluginError, match="unknown variant 'marathn'; installed plugins: all_at_once, classic"
    ):
        Rules.for_table(["marathn"])


class RightHanded:
    """A house preset that passes right: it disagrees with ``classic``."""

    NAME = "righthanded"

    @staticmethod
    @hookimpl
    def kdm_option_defaults(players: int) -> dict[str, Any]:
        return {"direction": "right"}


def test_two_presets_that_disagree_are_an_error_unless_the_option_is_given() -> None:
    rules = Rules.for_table(["classic"], [plugin_from(RightHanded())])
    with pytest.raises(PluginError, match="classic sets direction=left and righthanded sets direction=right"):
        rules.resolve(4, {})
    assert rules.resolve(4, {"direction": "left"})["direction"] == "left"


def test_variant_options_are_declared_by_their_plugins() -> None:
    owners = {option.name: option.plugin for option in Rules.for_table(VARIANTS[:-1]).options()}
    assert {name: owners[name] for name in
            ("go_interval_ms", "grab_grace_ms", "joker_kilos", "marathon_max_slaps")} == {
        "go_interval_ms": "all_at_once", "grab_grace_ms": "spoons",
        "joker_kilos": "jokers", "marathon_max_slaps": "marathon",
    }  # fmt: skip
