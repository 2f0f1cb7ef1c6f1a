"""``benchmarks/fair_shuffle.py`` runs and prints a figure per table size, each with its spread."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from tests.helpers.scripts import run_script

pytestmark = pytest.mark.processes

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "fair_shuffle.py"


def test_fair_shuffle_prints_a_figure_per_table_size() -> None:
    done = run_script(
        [sys.executable, str(SCRIPT), "--players", "3", "4", "--runs", "2"],
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    figures = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(figure["figure"], figure["players"], figure["runs"]) for figure in figures] == [
        ("fair_shuffle", 3, 2),
        ("fair_shuffle", 4, 2),
    ]
    for figure in figures:
        for name in ("shuffle_ms", "deal_ms", "audit_ms"):
            assert 0 < figure[name]["min"] <= figure[name]["median"] <= figure[name]["max"]
        assert figure["lock_ms"] > 0 and figure["commitment_ms"] > 0


TABLE_SCRIPT = SCRIPT.parent / "fair_table.py"


def test_fair_table_prints_the_figures_a_fair_table_measured() -> None:
    done = run_script(
        [sys.executable, str(TABLE_SCRIPT), "--peers", "3", "--runs", "1", "--rounds", "1", "--open"],
        timeout=240,
        env={**os.environ, "KDM_INTERFACE": "127.0.0.1"},
    )
    assert done.returncode == 0, done.stderr
    (figure,) = [json.loads(line) for line in done.stdout.splitlines()]
    assert (figure["figure"], figure["peers"], figure["runs"], figure["cheats"]) == ("fair_table", 3, 1, [])
    for name in ("shuffle_deal_ms", "audit_ms"):
        assert figure[name]["count"] > 0
        assert 0 < figure[name]["min"] <= figure[name]["median"] <= figure[name]["max"]
    # The same seed played with the open deck too: one game, and what the fair one cost beside it.
    assert figure["open_game_s"]["count"] == 1
    assert figure["fair_over_open"]["wall"] > 0 and figure["fair_over_open"]["per_event"] > 0
