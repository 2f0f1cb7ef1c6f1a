"""``benchmarks/transport_cost.py`` runs: round trips between two processes' ``ZmqTransport``s, a figure
per tree and run, each a positive cost per round trip."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.helpers.scripts import run_script

pytestmark = pytest.mark.processes

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "transport_cost.py"


def test_transport_cost_prints_a_cost_per_round_trip_for_each_run() -> None:
    done = run_script(
        [sys.executable, str(SCRIPT), "--trees", str(ROOT), "--round-trips", "1000", "--runs", "2"],
        timeout=240,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    figures = [json.loads(line) for line in done.stdout.splitlines()]
    assert [figure["figure"] for figure in figures] == ["transport_round_trip"] * 2
    assert all(figure["tree"] == str(ROOT) and figure["cpu_us_per_round_trip"] > 0 for figure in figures)
