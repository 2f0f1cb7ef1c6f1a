"""The plugin manager: built-in order, the ``kdm`` entry-point group, the autoload switch,
``check_pending``, options declared by plugins, and the rules' hook caller keeping pluggy's semantics."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from kdm.errors import PluginError, TableError
from kdm.manager import AUTOLOAD_ENV, PluginInfo, Rules, installed_plugins
from kdm.plugins.kilo.testing import ScriptedKilo
from kdm.sim import simulate
from tests.helpers.plugins import HOUSE_RULE, install_plugin


@pytest.fixture
def house_rule(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    install_plugin(tmp_path, "heavyaces", HOUSE_RULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv(AUTOLOAD_ENV, raising=False)
    return "heavyaces"


def test_base_game_is_registered_first_and_alone_by_default() -> None:
    rules = Rules.for_table()
    assert rules.names == ["kilo"]
    assert {o.name for o in rules.options()} == {
        "direction", "suit_combos", "slap_timeout_ms", "flush_to", "rounds", "max_rounds", "min_reaction_ms",
        "checkpoint_ms", "round_pause_ms",
    }  # fmt: skip
    assert all(o.plugin == "kilo" for o in rules.options())


def test_third_party_plugin_from_the_kdm_entry_point_group(house_rule: str) -> None:
    assert installed_plugins()[house_rule].version == "1.2"
    rules = Rules.for_table([house_rule])
    assert rules.names == ["kilo", house_rule]
    assert rules.versions == {"kilo": rules.versions["kilo"], house_rule: "1.2"}
    option = next(o for o in rules.options() if o.name == "ace_kilos")
    assert option.plugin == house_rule and option.default == 1000
    # Registered after the base game, so its firstresult answer wins where it has one.
    assert rules.caller("kdm_card_kilos")(card="AS", options={"ace_kilos": 1000}) == 1000
    assert rules.caller("kdm_card_kilos")(card="9S", options={"ace_kilos": 1000}) == 9


def test_third_party_option_reaches_the_rules(house_rule: str) -> None:
    table = ScriptedKilo(4, {"ace_kilos": 50}, variants=[house_rule])
    table.start(pile_top=["AH"])
    table.deal([["KH", "KS", "KD", "KC"]])
    table.slap(1, at=1.0)
    table.close()
    assert table.state.scores[1] == 50
    result = simulate(4, 2, seed=1, variants=[house_rule], options={"ace_kilos": 5})
    assert result.rounds == 2


def test_autoload_can_be_turned_off(house_rule: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(AUTOLOAD_ENV, "1")
    assert house_rule not in installed_plugins()
    with pytest.raises(PluginError, match="unknown variant 'heavyaces'; installed plugins: all_at_once, "):
        Rules.for_table([house_rule])


def test_misspelled_hook_is_an_error_at_start_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install_plugin(
        tmp_path,
        "typo",
        """
        from kdm.hookspecs import hookimpl

        @hookimpl
        def kdm_card_kilo(card, options):
            return 1
        """,
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv(AUTOLOAD_ENV, raising=False)
    with pytest.raises(PluginError, match="unknown hook"):
        Rules.for_table(["typo"])


def test_broken_plugin_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install_plugin(tmp_path, "broken", "raise ImportError('no such thing')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv(AUTOLOAD_ENV, raising=False)
    with pytest.raises(PluginError, match=r"plugin 'broken' .* failed to load: no such thing"):
        installed_plugins()


def test_a_broken_further_module_is_named_when_its_plugin_is_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A plugin's further modules (``KDM_MODULES``) load with its table, not at discovery: one that
    breaks is named then, as a broken first module is at discovery, never a traceback."""
    install_plugin(tmp_path, "halfbroken", 'KDM_MODULES = ("halfbroken_missing_part",)\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv(AUTOLOAD_ENV, raising=False)
    assert installed_plugins()["halfbroken"].parts == ("halfbroken_missing_part",)
    with pytest.raises(TypeError, match="first module"):  # not its modules in one tuple, as once
        PluginInfo("halfbroken", (object(), object()), "1.2", False)
    named = r"plugin 'halfbroken' \(halfbroken_rules\) failed to load: No module"
    with pytest.raises(PluginError, match=named):
        Rules.for_table(["halfbroken"])


@pytest.mark.processes
def test_a_table_loads_the_modules_of_its_own_games_only() -> None:
    """Finding the plugins loads each one's first module; a table loads its plugins' further modules
    (rules, bots, words, screen) and no other game's: a process at a base game's table does not hold
    Kem's (about 1 MiB of kdm's own, issue 'Light on the CPU'). In an interpreter of its own."""
    script = textwrap.dedent(
        """
        import sys, kdm.cli
        from kdm.manager import Rules, installed_plugins
        installed = installed_plugins()
        Rules.for_table([])
        print(sorted(name for name in sys.modules if name.startswith("kdm.plugins.kems.")))
        print("kdm.plugins.kilo.rules" in sys.modules, "kdm.sim" in sys.modules)
        print(installed["kems"].modules[1].__name__)
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:3] == ["[]", "True False", "kdm.plugins.kems.rules"]


def test_plugin_can_refuse_a_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install_plugin(
        tmp_path,
        "fouronly",
        """
        from kdm.hookspecs import hookimpl

        @hookimpl
        def kdm_check_table(players, options, plugins):
            return None if players == 4 else "fouronly needs exactly 4 players"
        """,
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv(AUTOLOAD_ENV, raising=False)
    ScriptedKilo(4, variants=["fouronly"])
    with pytest.raises(TableError, match="fouronly needs exactly 4 players"):
        ScriptedKilo(5, variants=["fouronly"])


def test_the_rules_caller_keeps_pluggy_semantics(house_rule: str) -> None:
    rules = Rules.for_table([house_rule])
    pluggy_relay = rules.manager.hook
    card_kilos = rules.caller("kdm_card_kilos")
    for card in ("AS", "7H", "KD"):
        options = {"ace_kilos": 3}
        assert card_kilos(card=card, options=options) == pluggy_relay.kdm_card_kilos(
            card=card, options=options
        )
    collected = rules.caller("kdm_table_options")
    assert sorted(o.name for options in collected() for o in options) == sorted(
        o.name for options in pluggy_relay.kdm_table_options() for o in options
    )
    assert rules.caller("kdm_card_kilos") is card_kilos  # made once per table


def test_the_rules_caller_passes_an_implementation_only_the_arguments_it_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_plugin(
        tmp_path,
        "bareaces",
        """
        from kdm.hookspecs import hookimpl

        @hookimpl
        def kdm_card_kilos(card):
            return 1000 if card.startswith("A") else None
        """,
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv(AUTOLOAD_ENV, raising=False)
    rules = Rules.for_table(["bareaces"])
    card_kilos = rules.caller("kdm_card_kilos")
    assert (
        card_kilos(card="AS", options={}) == 1000 == rules.manager.hook.kdm_card_kilos(card="AS", options={})
    )
    assert card_kilos(card="9S", options={}) == 9


def test_the_rules_caller_defers_to_pluggy_when_a_plugin_wraps_the_hook(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install_plugin(
        tmp_path,
        "doubler",
        """
        from kdm.hookspecs import hookimpl

        @hookimpl(wrapper=True)
        def kdm_card_kilos(card, options):
            kilos = yield
            return kilos * 2
        """,
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv(AUTOLOAD_ENV, raising=False)
    rules = Rules.for_table(["doubler"])
    assert rules.caller("kdm_card_kilos")(card="KS", options={}) == 26


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_every_builtin_rule_words_its_rules_for_the_rules_screen(lang: str) -> None:
    """Issue 13: each game and house rule kdm ships says its rules (``kdm_rules_text``) in both
    languages, a title then paragraphs; French cards are R, D, V."""
    builtin = [info for info in installed_plugins().values() if info.builtin]
    for info in builtin:
        impls = [getattr(module, "kdm_rules_text", None) for module in info.modules]
        ours = [impl(lang=lang) for impl in impls if impl is not None]
        assert len(ours) == 1, f"{info.name} words its rules once in {lang}: {ours}"
        title, _, body = ours[0].partition("\n")
        assert title and len(body.split()) >= 10, (info.name, ours[0])
        if lang == "fr":
            assert not re.search(r"(?<![0-9])[KQJ][♥♠♦♣]", ours[0]), ours[0]
    assert Rules.for_table(["jokers"]).rules_texts(lang)[0].startswith("Kilo de merde\n")  # the game first
