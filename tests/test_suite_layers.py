"""The suite's layers, as rules written as tests: a test module imports shared code from
``tests/helpers`` (or the kit, ``kdm.testing``), never from another test module; and a test that starts a
process without the marker that keeps it out of ``make check`` fails (``tests/conftest.py``).
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tests.conftest import ONE_WORKER_MODULES, unmarked_start

pytest_plugins = ["pytester"]

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


def marked(*names: str) -> Any:
    """A stand-in for a test item with these markers (what ``unmarked_start`` reads of one)."""
    markers = [SimpleNamespace(name=name) for name in names]
    return SimpleNamespace(nodeid="test_x.py::test_y", iter_markers=lambda: markers)


def test_each_module_kept_on_one_worker_has_a_module_fixture() -> None:
    """``ONE_WORKER_MODULES`` names modules that exist, each with the fixture that is the reason."""
    for name in sorted(ONE_WORKER_MODULES):
        source = (ROOT / name).read_text()
        assert 'scope="module"' in source, f"{name} has no module fixture: let xdist spread its tests"


@pytest.mark.parametrize(
    ("markers", "argv", "shell", "needed"),
    [
        ((), ["python", "-m", "kdm"], False, "processes"),
        (("processes",), ["/usr/bin/python3", "-c", "pass"], False, None),
        (("netns",), ["python", "-c", "pass"], False, None),
        (("processes",), ["ip", "netns", "list"], False, "netns"),
        (("netns",), ["ip", "netns", "list"], False, None),
        (("netns",), "unshare --uts true", True, None),
        (("processes",), "tmux -L x kill-server", True, "tmux"),
        (("tmux",), ["/usr/bin/tmux", "new-session"], False, None),
        ((), "kdm", False, "processes"),
        (("slow",), ["kdm"], False, "processes"),
    ],
)
def test_a_process_needs_its_marker(
    markers: tuple[str, ...], argv: Any, shell: bool, needed: str | None
) -> None:
    problem = unmarked_start(marked(*markers), argv, shell)
    if needed is None:
        assert problem is None
    else:
        assert problem is not None and f"is not marked {needed!r}: add @pytest.mark.{needed}" in problem


def test_a_test_that_starts_a_process_unmarked_fails_even_if_it_catches_the_failure(
    pytester: pytest.Pytester,
) -> None:
    """Nothing is started here: each process is refused before it starts."""
    pytester.makeini("[pytest]\nmarkers =\n    processes: p\n    netns: n\n    tmux: t\n")
    pytester.makeconftest("from tests.conftest import pytest_runtest_call, pytest_runtest_protocol\n")
    pytester.makepyfile(
        test_starts=textwrap.dedent("""
            import subprocess
            import sys

            import pytest

            def test_unmarked():
                subprocess.run([sys.executable, "-c", "pass"])

            def test_unmarked_and_caught():
                try:
                    subprocess.Popen(["kdm-never-started"])
                except BaseException:
                    pass

            @pytest.mark.processes
            def test_a_namespace_under_the_wrong_marker():
                subprocess.run(["ip", "netns", "list"])

            def test_no_process():
                assert True
        """)
    )
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=3)
    for said in (
        "*test_unmarked starts 'python*' but is not marked 'processes'*",
        "*test_unmarked_and_caught starts 'kdm-never-started' but is not marked 'processes'*",
        "*test_a_namespace_under_the_wrong_marker starts 'ip' but is not marked 'netns'*",
    ):
        result.stdout.fnmatch_lines([said])
