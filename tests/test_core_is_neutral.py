"""The core never imports or names a game (DESIGN §1, a contract): the base game (``kdm.kilo``) and Kem's
are plugins like a third party's, and what they need from the core is a hook, not a special case.

Two checks, each over every core module: importing it (alone, in a fresh interpreter) loads no module of
any game or variant kdm ships; and its code (identifiers and strings, not its docstrings and comments,
which may give a game as an example) names no built-in plugin and no event kind only a game registers.
The games are found as the core finds them, through the ``kdm`` entry points, so a new built-in game is
covered without touching this test.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from kdm.events import SEEDED_EVENTS, EventCodec
from kdm.manager import Rules, installed_plugins, table_plugins

ROOT = Path(__file__).resolve().parent.parent

#: The game-neutral core (DESIGN §1), as module names.
CORE = (
    "kdm.agents",
    "kdm.cards",
    "kdm.deck",
    "kdm.effects",
    "kdm.engine",
    "kdm.errors",
    "kdm.events",
    "kdm.hookspecs",
    "kdm.identity",
    "kdm.manager",
    "kdm.membership",
    "kdm.options",
    "kdm.peer",
    "kdm.record",
    "kdm.sim",
    "kdm.state",
    "kdm.testing",
)


def builtin_plugins() -> dict[str, list[str]]:
    """kdm's own plugins by name, each with the modules it is made of."""
    plugins = installed_plugins()
    return {
        name: [getattr(module, "__name__", "") for module in info.modules]
        for name, info in plugins.items()
        if info.builtin
    }


def game_event_kinds() -> set[str]:
    """Every event kind a built-in game or variant registers (the core's seeded ones excluded)."""
    installed = installed_plugins()
    kinds: set[str] = set()
    for name, info in installed.items():
        if info.builtin:
            kinds |= set(Rules(table_plugins([name], installed)).codec.kinds)
    return kinds - set(EventCodec(SEEDED_EVENTS).kinds)


def test_the_games_are_found_through_entry_points() -> None:
    plugins = builtin_plugins()
    assert {"kilo", "kems"} <= set(plugins) and len(plugins) >= 9
    assert "kdm.kilo.rules" in plugins["kilo"] and "kdm.plugins.kems.bots" in plugins["kems"]


@pytest.mark.processes
@pytest.mark.parametrize("module", CORE)
def test_a_core_module_imports_no_game(module: str) -> None:
    game_modules = sorted({name for names in builtin_plugins().values() for name in names})
    program = f"import json, sys; import {module}; print(json.dumps(sorted(sys.modules)))"
    run = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    loaded = json.loads(run.stdout)
    games = [name for name in loaded if name in game_modules or name.startswith("kdm.kilo")]
    assert not games, f"importing {module} loads {', '.join(games)}"


def code_words(source: str) -> list[tuple[int, str, bool]]:
    """``(line, word, is_string)`` for every identifier and every string of ``source`` but its
    docstrings."""
    tree = ast.parse(source)
    docstrings: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstrings.add(id(first.value))
    words: list[tuple[int, str, bool]] = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            words.append((line, node.value, True))
        elif isinstance(node, ast.Name):
            words.append((line, node.id, False))
        elif isinstance(node, ast.Attribute):
            words.append((line, node.attr, False))
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            words.append((line, node.name, False))
        elif isinstance(node, ast.arg) or (isinstance(node, ast.keyword) and node.arg):
            words.append((line, node.arg, False))
        elif isinstance(node, ast.alias):
            words.append((line, node.name, False))
    return words


def naming_a_game(source: str, plugins: set[str], kinds: set[str]) -> list[str]:
    """What in ``source`` names a game: a plugin's name in a word, or a string that is a game's event kind."""
    names = re.compile(r"(?<![a-z])(" + "|".join(sorted(map(re.escape, plugins))) + r")", re.IGNORECASE)
    found = []
    for line, word, is_string in code_words(source):
        if names.search(word) or (is_string and word in kinds):
            found.append(f"line {line}: {word!r}")
    return found


@pytest.mark.parametrize("module", CORE)
def test_a_core_module_names_no_game(module: str) -> None:
    plugins = set(builtin_plugins())
    path = ROOT / (module.replace("kdm.", "kdm/", 1).replace(".", "/") + ".py")
    found = naming_a_game(path.read_text(encoding="utf-8"), plugins, game_event_kinds())
    assert not found, f"{module} names a game: " + "; ".join(found)


def test_the_name_check_sees_names_in_code_and_not_in_docstrings() -> None:
    source = '''
"""The kilo game is an example here."""
def f(kilos):
    """Kem's, in a docstring."""
    # kems in a comment
    return engine.state.rules["kems"], "slap"
'''
    found = naming_a_game(source, {"kilo", "kems"}, {"slap"})
    assert sorted(found) == ["line 3: 'kilos'", "line 6: 'kems'", "line 6: 'slap'"]
