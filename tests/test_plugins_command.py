"""``kdm plugins``: every built-in and third-party plugin with its version, kind, requirements, hooks
and options, as text or as one JSON object; a broken plugin is one line and exit status 2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kdm import __version__
from kdm.cli import main
from kdm.manager import AUTOLOAD_ENV, installed_plugins
from kdm.plugins_command import hook_order
from tests.helpers.plugins import HOUSE_RULE, install_plugin

#: The plugins kdm ships, listed (and registered after a table's game) by name.
BUILTINS = (
    "all_at_once",
    "classic",
    "jokers",
    "kems",
    "kilo",
    "marathon",
    "piles",
    "seven_in_reserve",
    "spoons",
)


def plugins_json(capsys: pytest.CaptureFixture[str]) -> dict[str, dict[str, Any]]:
    """``kdm plugins --json``, checked for its shape, as plugin name → entry."""
    assert main(["plugins", "--json"]) == 0
    output = json.loads(capsys.readouterr().out)
    assert list(output) == ["plugins"]
    for entry in output["plugins"]:
        assert list(entry) == ["name", "version", "builtin", "mode", "requires", "hooks", "options"]
        for option in entry["options"]:
            assert list(option) == ["name", "type", "default", "help"]
    return {entry["name"]: entry for entry in output["plugins"]}


@pytest.fixture
def third_party(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A ``sys.path`` entry where a test installs distributions with ``kdm`` entry points."""
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv(AUTOLOAD_ENV, raising=False)
    return tmp_path


def test_lists_the_built_ins_first_by_name(capsys: pytest.CaptureFixture[str]) -> None:
    plugins = plugins_json(capsys)
    assert list(plugins)[: len(BUILTINS)] == list(BUILTINS)
    assert [name for name, entry in plugins.items() if entry["builtin"]] == list(BUILTINS)
    assert {entry["version"] for entry in plugins.values() if entry["builtin"]} == {__version__}
    assert plugins["kilo"]["mode"] and not any(plugins[name]["mode"] for name in ("jokers", "classic"))
    assert plugins["classic"]["requires"] == ["kilo", "marathon"]
    assert plugins["jokers"]["requires"] == ["kilo"]
    assert plugins["kems"]["requires"] == []


def test_hooks_span_every_module_of_a_plugin(capsys: pytest.CaptureFixture[str]) -> None:
    plugins = plugins_json(capsys)
    kilo = plugins["kilo"]["hooks"]
    # kdm_apply is in kdm.plugins.kilo.rules, kdm_bot_decide in kdm.plugins.kilo.bots, kdm_describe in
    # kdm.plugins.kilo.calls.
    assert {"kdm_apply", "kdm_bot_decide", "kdm_describe"} <= set(kilo)
    order = hook_order(installed_plugins())
    assert kilo == sorted(kilo, key=order.index)
    # The hooks the base game adds for its own rules come after the core's, in their specs' order.
    assert order.index("kdm_bot_decide") < order.index("kdm_deck") < order.index("kdm_game_over")
    jokers = {"kdm_table_options", "kdm_rules_text", "kdm_deck", "kdm_card_kilos"}
    assert set(plugins["jokers"]["hooks"]) == jokers
    assert set(plugins["classic"]["hooks"]) == {"kdm_option_defaults", "kdm_rules_text"}


def test_options_are_listed_with_type_default_and_help(capsys: pytest.CaptureFixture[str]) -> None:
    plugins = plugins_json(capsys)
    assert plugins["jokers"]["options"] == [
        {
            "name": "joker_kilos",
            "type": "int",
            "default": 1000,
            "help": "what a joker weighs (the other value in the rule text is 50)",
        }
    ]
    kilo = {option["name"]: option for option in plugins["kilo"]["options"]}
    assert (kilo["suit_combos"]["type"], kilo["suit_combos"]["default"]) == ("bool", True)
    assert (kilo["direction"]["type"], kilo["direction"]["default"]) == ("str", "toward-queen-of-spades")
    assert plugins["classic"]["options"] == []


def test_text_lists_each_plugin_with_its_hooks_and_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plugins"]) == 0
    out = capsys.readouterr().out
    titles = [line for line in out.splitlines() if line and not line.startswith(" ")]
    assert [title.split()[0] for title in titles][: len(BUILTINS)] == list(BUILTINS)
    assert f"kilo {__version__} (built-in, game mode)" in titles
    assert f"jokers {__version__} (built-in, requires kilo)" in titles
    assert f"classic {__version__} (built-in, requires kilo, marathon)" in titles
    jokers = out.split(f"jokers {__version__} (built-in, requires kilo)\n", 1)[1].split("\n\n", 1)[0]
    assert "  hooks: kdm_table_options, kdm_rules_text, kdm_deck, kdm_card_kilos\n" in jokers + "\n"
    assert "    joker_kilos  int  1000  what a joker weighs" in jokers
    assert "    suit_combos      bool  on " in out  # a flag's default as --option would write it
    assert all(len(line) <= 100 for line in out.splitlines() if line.startswith("  hooks:"))


def test_a_third_party_plugin_from_the_entry_point_group(
    third_party: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    install_plugin(third_party, "cmdaces", HOUSE_RULE, version="2.5")
    entry = plugins_json(capsys)["cmdaces"]
    assert entry == {
        "name": "cmdaces",
        "version": "2.5",
        "builtin": False,
        "mode": False,
        "requires": [],
        "hooks": ["kdm_table_options", "kdm_card_kilos"],
        "options": [{"name": "ace_kilos", "type": "int", "default": 1000, "help": "what an ace weighs"}],
    }
    assert main(["plugins"]) == 0
    assert "cmdaces 2.5 (third-party)\n" in capsys.readouterr().out


def test_a_third_party_game_mode_and_its_requirements(
    third_party: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    install_plugin(third_party, "cmdextra", "")
    install_plugin(third_party, "cmdmode", 'KDM_MODE = True\nKDM_REQUIRES = ("cmdextra",)\n')
    entry = plugins_json(capsys)["cmdmode"]
    assert (entry["mode"], entry["requires"], entry["hooks"], entry["options"]) == (
        True,
        ["cmdextra"],
        [],
        [],
    )


def test_autoload_off_lists_the_built_ins_only(
    third_party: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    install_plugin(third_party, "cmdhidden", HOUSE_RULE)
    monkeypatch.setenv(AUTOLOAD_ENV, "1")
    assert list(plugins_json(capsys)) == list(BUILTINS)


@pytest.mark.parametrize(
    ("name", "source", "message"),
    [
        (
            "cmdbroken",
            "raise ImportError('no such thing')\n",
            "plugin 'cmdbroken' (cmdbroken_rules) failed to load: no such thing",
        ),
        (
            "cmdtypo",
            "from kdm.hookspecs import hookimpl\n@hookimpl\ndef kdm_card_kilo(card, options): return 1\n",
            "unknown hook 'kdm_card_kilo'",
        ),
        (
            "cmdraises",
            "from kdm.hookspecs import hookimpl\n@hookimpl\ndef kdm_table_options(): return 1 / 0\n",
            "plugin 'cmdraises' failed when asked what it brings: ZeroDivisionError(",
        ),
    ],
)
def test_a_broken_plugin_is_one_line_and_exit_status_2(
    third_party: Path, capsys: pytest.CaptureFixture[str], name: str, source: str, message: str
) -> None:
    install_plugin(third_party, name, source)
    for args in (["plugins"], ["plugins", "--json"]):
        assert main(args) == 2
        captured = capsys.readouterr()
        assert captured.out == ""
        assert captured.err.startswith("kdm plugins: error: plugin ") and message in captured.err
        assert captured.err.count("\n") == 1, captured.err
