"""The core never imports or names a game (DESIGN §1, a contract): the base game (``kdm.plugins.kilo``) and
Kem's
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
from kdm.tui.layout import COLOURS, NO_COLOUR_ATTRIBUTES

ROOT = Path(__file__).resolve().parent.parent


def core_modules() -> list[tuple[str, Path]]:
    """Every module of the core: each file under ``kdm/`` and ``net/`` (installed as ``kdm.net``), as
    ``(module name, path)``, found by walking the folders (nothing hand-listed): a new module is
    checked without touching this test."""
    found = []
    for folder, package in ((ROOT / "kdm", "kdm"), (ROOT / "net", "kdm.net")):
        for path in sorted(folder.rglob("*.py")):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found.append((".".join([package, *parts]), path))
    return found


CORE = core_modules()
CORE_NAMES = frozenset(name for name, _path in CORE)


def builtin_plugins() -> dict[str, list[str]]:
    """kdm's own plugins by name, each with the modules it is made of."""
    plugins = installed_plugins()
    return {
        name: [getattr(module, "__name__", "") for module in info.modules]
        for name, info in plugins.items()
        if info.builtin
    }


def game_event_kinds() -> set[str]:
    """Every event kind a built-in game or variant registers that a game defines: the core's seeded
    ones and those the core defines for games to share (``ShowHand``, a window's ``Close``) excluded."""
    installed = installed_plugins()
    kinds: set[str] = set()
    for name, info in installed.items():
        if info.builtin:
            codec = Rules(table_plugins([name], installed)).codec
            kinds |= {kind for kind in codec.kinds if codec.type_of(kind).__module__ not in CORE_NAMES}
    return kinds - set(EventCodec(SEEDED_EVENTS).kinds)


def test_the_games_are_found_through_entry_points() -> None:
    plugins = builtin_plugins()
    assert {"kilo", "kems"} <= set(plugins) and len(plugins) >= 9
    assert "kdm.plugins.kilo.rules" in plugins["kilo"] and "kdm.plugins.kems.bots" in plugins["kems"]


def test_the_walk_finds_the_core_and_no_game() -> None:
    names = [name for name, _path in CORE]
    assert {"kdm.peer", "kdm.tui.state", "kdm.net.raft", "kdm.session", "kdm.fair.table"} <= set(names)
    assert not [name for name in names if name.startswith("kdm.plugins.")]


@pytest.mark.processes
@pytest.mark.parametrize("module", [name for name, _path in CORE if not name.endswith("__main__")])
def test_a_core_module_imports_no_game(module: str) -> None:
    """(A ``__main__`` runs the program when imported: its names are checked below.)"""
    game_modules = sorted({name for names in builtin_plugins().values() for name in names})
    program = f"import json, sys; import {module}; print(json.dumps(sorted(sys.modules)))"
    run = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    loaded = json.loads(run.stdout)
    games = [name for name in loaded if name in game_modules or name.startswith("kdm.plugins.kilo")]
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


def naming_a_game(
    source: str, plugins: set[str], kinds: set[str], styles: frozenset[str] = frozenset()
) -> list[str]:
    """What in ``source`` names a game: a plugin's name in a word, or a string that is a game's event
    kind (but for the terminal screen's style classes, which plugins style their lines with: "call" is
    a look there, whatever a game names its events)."""
    names = re.compile(r"(?<![a-z])(" + "|".join(sorted(map(re.escape, plugins))) + r")", re.IGNORECASE)
    found = []
    for line, word, is_string in code_words(source):
        if names.search(word) or (is_string and word in kinds and word not in styles):
            found.append(f"line {line}: {word!r}")
    return found


@pytest.mark.parametrize(("module", "path"), CORE, ids=[name for name, _path in CORE])
def test_a_core_module_names_no_game(module: str, path: Path) -> None:
    plugins = set(builtin_plugins())
    styles = frozenset(COLOURS) | frozenset(NO_COLOUR_ATTRIBUTES)
    found = naming_a_game(path.read_text(encoding="utf-8"), plugins, game_event_kinds(), styles)
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


def kems_modules() -> list[str]:
    """Every module of Kem's package, found by walking it."""
    folder = ROOT / "plugins" / "kems"
    names = []
    for path in sorted(folder.rglob("*.py")):
        parts = list(path.relative_to(folder).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names.append(".".join(["kdm.plugins.kems", *parts]))
    return names


@pytest.mark.processes
@pytest.mark.parametrize("module", kems_modules())
def test_kems_imports_nothing_of_the_base_game(module: str) -> None:
    """Issue 26: Kem's is a game beside the base game, not on it: what both need is the core's
    (``kdm.window``'s ``Close``, ``kdm.events.ShowHand``)."""
    program = f"import json, sys; import {module}; print(json.dumps(sorted(sys.modules)))"
    run = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    base_game = [name for name in json.loads(run.stdout) if name.startswith("kdm.plugins.kilo")]
    assert not base_game, f"importing {module} loads {', '.join(base_game)}"
