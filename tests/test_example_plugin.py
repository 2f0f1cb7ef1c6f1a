"""The example third-party plugin (``examples/lightaces``), installed as a stranger's package would be:
the ``kdm`` program lists it and plays with it.

``make test`` installs it; elsewhere these tests skip, saying how to install it, but under CI=true a
skip is a failure: CI must show that a plugin from outside the repository works.
"""

from __future__ import annotations

import json
import os
import subprocess
from importlib import metadata
from typing import Any

import pytest

from kdm.cards import rank_of
from kdm.manager import AUTOLOAD_ENV
from kdm.plugins.kilo.rules import RANK_KILOS
from tests.helpers.plugins import EXAMPLE, KDM, require_example


def kdm(*args: str) -> subprocess.CompletedProcess[str]:
    """The installed ``kdm`` program, with third-party plugins loaded whatever this process was told."""
    require_example()
    environment = {name: value for name, value in os.environ.items() if name != AUTOLOAD_ENV}
    return subprocess.run([str(KDM), *args], capture_output=True, text=True, timeout=120, env=environment)


@pytest.mark.processes
def test_kdm_plugins_lists_the_example() -> None:
    done = kdm("plugins", "--json")
    assert done.returncode == 0, done.stderr
    plugins = {entry["name"]: entry for entry in json.loads(done.stdout)["plugins"]}
    assert plugins[EXAMPLE] == {
        "name": EXAMPLE,
        "version": metadata.version("kdm-lightaces"),
        "builtin": False,
        "mode": False,
        "requires": ["kilo"],
        "hooks": ["kdm_table_options", "kdm_card_kilos"],
        "options": [
            {
                "name": "ace_kilos",
                "type": "int",
                "default": 0,
                "help": "what an ace weighs (100 in the base game)",
            }
        ],
    }


def expected_kilos(result: dict[str, Any], ace_kilos: int) -> list[int]:
    """Each seat's kilos, recounted from the draws: a flush empties the seat's kilos, 7 included."""
    held: list[list[str]] = [[] for _ in range(result["players"])]
    for draw in result["draws"]:
        held[draw["seat"]] = [] if draw["flush"] else [*held[draw["seat"]], draw["card"]]
    return [sum(ace_kilos if rank_of(c) == "A" else RANK_KILOS[rank_of(c)] for c in cards) for cards in held]


@pytest.mark.processes
def test_kdm_sim_plays_with_the_example_and_its_option() -> None:
    done = kdm(
        "sim", "--variant", EXAMPLE, "--option", "ace_kilos=3", "--rounds", "20", "--seed", "1", "--json"
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["rounds"] == 20
    assert result["kilos"] == expected_kilos(result, ace_kilos=3)
    # Some seat ends with an ace among its kilos, so the weight the table chose shows in the result.
    assert result["kilos"] != expected_kilos(result, ace_kilos=100), "no ace kept: choose another seed"


@pytest.mark.processes
def test_kdm_sim_refuses_a_bad_option_value_in_one_line() -> None:
    done = kdm("sim", "--variant", EXAMPLE, "--option", "ace_kilos=-1", "--json")
    assert done.returncode == 2 and done.stdout == ""
    assert (
        done.stderr == "kdm sim: error: option ace_kilos: '-1' is not allowed; use an integer of at least 0\n"
    )


@pytest.mark.parametrize(("ci", "outcome"), [("", pytest.skip.Exception), ("true", pytest.fail.Exception)])
def test_without_the_example_these_tests_skip_but_fail_under_ci(
    monkeypatch: pytest.MonkeyPatch, ci: str, outcome: type[BaseException]
) -> None:
    monkeypatch.setattr(
        "tests.helpers.plugins.missing_example", lambda name: "the example plugin is not installed"
    )
    monkeypatch.setenv("CI", ci)
    with pytest.raises(outcome, match="the example plugin is not installed"):
        require_example()
