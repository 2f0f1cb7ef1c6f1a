"""``benchmarks/node_at_rest.py`` counts what a table of nodes at rest does a second, the same every
time: its function calls here (``--calls``; the instructions need valgrind)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.helpers.scripts import run_script

pytestmark = pytest.mark.processes

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "node_at_rest.py"


def test_node_at_rest_counts_the_same_calls_a_second_every_time() -> None:
    def counted() -> dict[str, object]:
        done = run_script(
            [sys.executable, str(SCRIPT), "--trees", str(ROOT), "--peers", "3", "--seconds", "12", "--calls"],
            timeout=240,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        (figure,) = [json.loads(line) for line in done.stdout.splitlines()]
        return figure

    first, second = counted(), counted()
    assert first == second  # virtual time, no machine clock: the same count
    assert first["figure"] == "node_table_at_rest" and first["peers"] == 3
    # Heartbeats and their answers at least: tens of calls each, several a second.
    assert isinstance(first["calls_per_second"], int) and first["calls_per_second"] > 500
