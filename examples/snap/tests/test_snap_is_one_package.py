"""Snap is a whole game in one package: found through its entry point as a game mode, and made of
kdm's core alone, importing nothing of the base game (``kdm.plugins.kilo``) or of Kem's."""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

import kdm_snap

from kdm.manager import installed_plugins

FORBIDDEN = ("kdm.plugins",)  # the games kdm ships, the base game's and Kem's among them


def imported_modules(path: Path) -> set[str]:
    """Every module ``path`` imports, wherever in it (a function's lazy import included)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def test_no_module_of_snap_imports_a_game_kdm_ships() -> None:
    modules = [info.name for info in pkgutil.walk_packages(kdm_snap.__path__, "kdm_snap.")]
    assert {"kdm_snap.rules", "kdm_snap.bots", "kdm_snap.screen.state"} <= set(modules)
    for name in ["kdm_snap", *modules]:
        module = importlib.import_module(name)
        assert module.__file__ is not None
        imports = imported_modules(Path(module.__file__))
        assert imports, f"{name} imports nothing: the walk is not reading it"
        wrong = sorted(found for found in imports if found.startswith(FORBIDDEN))
        assert not wrong, f"{name} imports {wrong}"


def test_the_walk_would_see_an_import_of_the_base_game(tmp_path: Path) -> None:
    module = tmp_path / "cheat.py"
    module.write_text("def later():\n    from kdm.plugins.kilo.rules import NAME\n", encoding="utf-8")
    assert "kdm.plugins.kilo.rules" in imported_modules(module)


def test_snap_is_installed_as_a_game_of_its_own() -> None:
    info = installed_plugins()["snap"]
    assert info.mode and not info.builtin and info.title == "Snap"
    assert [module.__name__ for module in info.modules] == ["kdm_snap", *kdm_snap.KDM_MODULES]
