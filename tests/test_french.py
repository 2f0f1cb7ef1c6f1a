"""French as the table speaks it: every French string of every catalogue, option, rules text and game
line puts a space before « : ; ! ? » as French typography does (issue « A first evening that works »:
"fin de la manche 1: …"). The strings are found as the screens find them: the client's catalogue and
every installed plugin's modules, so a new plugin's words are checked without touching this test."""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Iterator, Sequence
from types import ModuleType
from typing import Any

import pytest

from kdm.effects import Effect
from kdm.events import Event
from kdm.manager import Rules, installed_plugins
from kdm.names import SeatNames, counted
from kdm.sim import Simulation
from kdm.tui import text

#: « : », « ; », « ! » or « ? » glued to the word before it and ending a phrase (so "HÔTE:PORT" and
#: "https://" are not punctuation).
GLUED = re.compile(r"\S[:;!?](?=\s|$)")


def glued(strings: Sequence[tuple[str, str]]) -> list[str]:
    return [f"{where}: {said!r}" for where, said in strings if GLUED.search(said)]


def pairs_in(module: ModuleType | object) -> Iterator[tuple[str, str]]:
    """The French half of every (English, French) catalogue a module holds (key -> (en, fr))."""
    for name, value in vars(module).items():
        if (
            isinstance(value, dict)
            and value
            and all(
                isinstance(pair, tuple) and len(pair) == 2 and all(isinstance(s, str) for s in pair)
                for pair in value.values()
            )
        ):
            for key, (_english, french) in value.items():
                yield f"{getattr(module, '__name__', module)}.{name}[{key}]", french


def with_submodules(module: ModuleType | object) -> Iterator[ModuleType | object]:
    """``module`` and, when it is a package (Kem's screen), every module in it."""
    yield module
    for found in pkgutil.walk_packages(
        getattr(module, "__path__", []), f"{getattr(module, '__name__', '')}."
    ):
        yield importlib.import_module(found.name)


def test_every_french_catalogue_string_spaces_its_punctuation() -> None:
    found = list(pairs_in(text))
    for info in installed_plugins().values():
        for module in info.modules:
            for part in with_submodules(module):
                found += pairs_in(part)
    assert len(found) > 350  # the client's and the plugins' catalogues were all read
    assert glued(found) == []


def test_every_option_and_rules_text_in_french_spaces_its_punctuation() -> None:
    found: list[tuple[str, str]] = []
    for name in installed_plugins():
        rules = Rules.for_table([name])
        for option in rules.options():
            assert option.french is not None or not option.plugin.startswith("kdm"), option.name
            found += [
                (f"{option.name} label", option.label("fr")),
                (f"{option.name}", option.described("fr")),
            ]
        found += [(f"{name} rules text", said) for said in rules.rules_texts("fr")]
    assert glued(found) == []


def french_lines(players: int, variants: list[str], options: dict[str, Any]) -> list[tuple[str, str]]:
    """Every line a bots-only game of ``variants`` says in French, with each effect's kind."""
    simulation = Simulation(players, seed=1, options=options, variants=variants)
    names = SeatNames.of(["Zoé", "Ana", "Éloi", "Marc", "Yves", "Lou"][:players], "fr")
    lines: list[tuple[str, str]] = []

    def listen(_now: float, _event: Event, effects: Sequence[Effect]) -> None:
        for effect in effects:
            said = simulation.rules.describe(effect, "fr", list(names.names))
            if said:
                lines.append((str(effect["kind"]), said))

    simulation.run(listen)
    return lines


@pytest.mark.parametrize(
    ("players", "variants", "options"),
    [
        (4, [], {"rounds": 2}),
        (4, ["spoons", "jokers"], {"rounds": 2}),
        (4, ["piles", "seven_in_reserve"], {"rounds": 2}),
        (4, ["all_at_once", "classic"], {"rounds": 1}),
        (4, ["kems"], {"target": 2}),
    ],
)
def test_every_french_line_of_a_game_spaces_its_punctuation(
    players: int, variants: list[str], options: dict[str, Any]
) -> None:
    lines = french_lines(players, variants, options)
    assert len({kind for kind, _line in lines}) > 5
    assert glued(lines) == []


def test_counts_take_the_plural_each_language_takes() -> None:
    assert (
        counted(1, "en", "round", "rounds") == "1 round" and counted(0, "en", "round", "rounds") == "0 rounds"
    )
    assert (
        counted(1, "fr", "manche", "manches") == "1 manche"
        and counted(0, "fr", "manche", "manches") == "0 manche"
    )
    assert counted(2, "fr", "manche", "manches") == "2 manches"
    (started,) = [line for kind, line in french_lines(4, [], {"rounds": 1}) if kind == "game_started"]
    assert started.endswith("; 1 manche"), started
    assert text.say("fr", "log_newer_one") == "↓ 1 ligne plus récente : PgDn"
