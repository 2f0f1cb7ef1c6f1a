"""Plugins as a third party ships them: a distribution with a ``kdm`` entry point written into a folder
(``install_plugin``), and the example packages of ``examples/`` (``require_example`` skips without them,
or fails under CI=true).
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import textwrap
from importlib import metadata
from pathlib import Path

import pytest

from kdm.manager import ENTRY_POINT_GROUP

HOUSE_RULE = '''
"""Aces weigh 1000 kilos at this house, and the table says so in an option."""
from kdm.hookspecs import hookimpl
from kdm.options import TableOption

@hookimpl
def kdm_table_options():
    return [TableOption("ace_kilos", int, 1000, "what an ace weighs", minimum=1)]

@hookimpl
def kdm_card_kilos(card, options):
    return options["ace_kilos"] if card.startswith("A") else None
'''


def install_plugin(root: Path, name: str, module_source: str, version: str = "1.2") -> None:
    """A distribution with a ``kdm`` entry point, installed on ``sys.path`` by the caller."""
    (root / f"{name}_rules.py").write_text(textwrap.dedent(module_source))
    info = root / f"{name}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    (info / "entry_points.txt").write_text(f"[kdm]\n{name} = {name}_rules\n")


@functools.cache
def modules_of_a_table_process() -> tuple[str, ...]:
    """Every module a fresh interpreter holds once it has loaded the CLI, found every installed plugin
    and made the rules of a base game's table and of a Kem's one, as a headless ``kdm`` does (run once
    per test run: this interpreter has loaded more)."""
    script = (
        "import sys, kdm.cli\n"
        "from kdm.manager import Rules, installed_plugins\n"
        "assert {'kilo', 'kems'} <= set(installed_plugins())\n"
        "Rules.for_table([]), Rules.for_table(['kems'])\n"
        "print('\\n'.join(sorted(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return tuple(done.stdout.split())


EXAMPLE = "lightaces"
KDM = Path(sys.executable).with_name("kdm")


def missing_example(name: str = EXAMPLE) -> str | None:
    """Why the example package ``name`` cannot be tested here, or None."""
    if not any(entry.name == name for entry in metadata.entry_points(group=ENTRY_POINT_GROUP)):
        return f"the example plugin is not installed: {sys.executable} -m pip install -e examples/{name}"
    if not KDM.exists():
        return f"no kdm program beside {sys.executable}"
    return None


def require_example(name: str = EXAMPLE) -> None:
    """Skip without the example package ``name`` (saying how to install it); under CI=true, fail."""
    reason = missing_example(name)
    if reason is None:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI must test the example plugin, but {reason}")
    pytest.skip(reason)
