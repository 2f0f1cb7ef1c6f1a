"""``benchmarks/consensus_latency.py`` runs and prints its figures: separate node processes on 127.0.0.1
commit every entry they time, on disk as in memory, and the transport's round trip comes after."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.helpers.scripts import run_script

pytestmark = pytest.mark.processes

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "consensus_latency.py"


@pytest.mark.parametrize("logs", [[], ["--in-memory"]], ids=["file", "memory"])
def test_consensus_latency_prints_a_figure_per_size_then_the_round_trips(logs: list[str]) -> None:
    done = run_script(
        [sys.executable, str(SCRIPT), "--peers", "2", "3", "--entries", "6", "--gap-ms", "1", *logs],
        timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    figures = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(figure["figure"], figure.get("peers")) for figure in figures] == [
        ("consensus_latency", 2), ("consensus_latency", 3),
        ("transport_round_trip", None), ("transport_round_trip", None),
    ]  # fmt: skip
    assert [figure["gap_ms"] for figure in figures[2:]] == [0.0, 1.0]
    for figure in figures:
        assert figure["samples"] == 6
        assert 0 < figure["p50_ms"] <= figure["p99_ms"] <= figure["max_ms"]
    assert {figure["log"] for figure in figures[:2]} == {"memory" if logs else "file"}
