"""``benchmarks/wake_floor.py`` runs and prints its figures: a timer's wake-up and a zmq round trip
between two processes, each with its CPU, then a summary."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.helpers.scripts import run_script

pytestmark = pytest.mark.processes

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "wake_floor.py"


def test_wake_floor_prints_a_timer_a_round_and_a_summary() -> None:
    done = run_script(
        [sys.executable, str(SCRIPT), "--seconds", "0.5", "--period-ms", "50", "--runs", "1"], timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    timer, zmq_round, summary = (json.loads(line) for line in done.stdout.splitlines())
    assert timer["figure"] == "timer" and timer["wakes"] >= 5 and timer["cpu_us_per_wake"] > 0
    assert zmq_round["figure"] == "zmq_round" and zmq_round["rounds"] >= 5
    assert zmq_round["cpu_us_per_round_both_processes"] > 0
    assert summary["figure"] == "summary" and summary["timer_cpu_us_per_wake_median"] > 0
