"""``benchmarks/fair_shuffle.py`` runs and prints a figure per table size, each with its spread."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "fair_shuffle.py"


def test_fair_shuffle_prints_a_figure_per_table_size() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--players", "3", "4", "--runs", "2"],
        capture_output=True,
        text=True,
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
