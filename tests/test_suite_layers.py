"""The suite's layers, as a rule written as a test: a test module imports shared code from
``tests/helpers`` (or the kit, ``kdm.testing``), never from another test module.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: Every folder pytest collects tests from (pyproject's ``testpaths``).
TEST_FOLDERS = [ROOT / "tests", *sorted((ROOT / "examples").glob("*/tests"))]


def imported_modules(source: str, package: str) -> set[str]:
    """Every module ``source`` imports, anywhere in it (in a function too), by its full dotted name;
    ``package`` is where the file lies, for relative imports. ``from a import b`` counts ``a.b`` too, as
    ``b`` may be a module."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            found.add(base)
            found |= {f"{base}.{alias.name}" for alias in node.names}
    return found


def imports_of_test_modules(source: str, package: str) -> list[str]:
    """The test modules (``test_*``) that ``source`` imports."""
    modules = imported_modules(source, package)
    return sorted(name for name in modules if name.rsplit(".", 1)[-1].startswith("test_"))


def test_the_import_check_sees_every_way_to_import_a_test_module() -> None:
    source = textwrap.dedent("""
        import tests.test_peer
        from tests.test_tui import table
        from tests import test_lan
        from . import test_node
        from .test_cli import sim_json
        import test_raft
        from tests.helpers.tui import run

        def later():
            from tests.test_fuzz import mutate_bytes
    """)
    assert imports_of_test_modules(source, "tests") == [
        "test_raft", "tests.test_cli", "tests.test_fuzz", "tests.test_lan", "tests.test_node",
        "tests.test_peer", "tests.test_tui",
    ]  # fmt: skip
    assert imports_of_test_modules("from tests.helpers import tui\nimport kdm.testing\n", "tests") == []


def test_no_test_module_and_no_helper_imports_a_test_module() -> None:
    checked, offenders = 0, []
    for folder in TEST_FOLDERS:
        for path in sorted(folder.rglob("*.py")):
            if not (path.name.startswith("test_") or "helpers" in path.relative_to(folder).parts):
                continue
            package = ".".join(path.relative_to(ROOT).parent.parts)
            checked += 1
            offenders += [f"{path.relative_to(ROOT)} imports {name}" for name in
                          imports_of_test_modules(path.read_text(), package)]  # fmt: skip
    assert checked > 80  # the walk found the suite
    assert not offenders, "move what is shared to tests/helpers:\n" + "\n".join(offenders)
