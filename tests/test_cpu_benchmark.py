"""``benchmarks/cpu.py`` runs and prints its figures: a table's idle cost and work per commit (separate
node processes on 127.0.0.1), an idle ``kdm host`` and lobby, a ``kdm`` table at rest (headless, and with
the host's screen), a profile of the nodes, and a summary of each figure per tree."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.helpers.scripts import run_script

pytestmark = pytest.mark.processes

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "cpu.py"


def test_cpu_prints_each_figure_then_a_summary_per_figure(tmp_path: Path) -> None:
    done = run_script(
        [sys.executable, str(SCRIPT), "--trees", str(ROOT), "--peers", "3", "--runs", "1", "--entries", "5",
         "--gap-ms", "1", "--idle-s", "0.5", "--settle-s", "0.5", "--profile", str(tmp_path), "--top", "3",
         "--seats", "3"], timeout=240,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    figures = [json.loads(line) for line in done.stdout.splitlines()]
    assert [figure["figure"] for figure in figures] == [
        "table", "profile", "profile", "table", "waiting_room", "lobby", "game_at_rest", "screen_at_rest",
        "table_summary", "waiting_room_summary", "lobby_summary", "game_at_rest_summary",
        "screen_at_rest_summary",
    ]  # fmt: skip
    profiled, table = figures[0], figures[3]
    assert profiled["profiled"] and not table["profiled"]
    for run in (profiled, table):
        assert run["peers"] == 3 and run["idle_cores"] >= 0 and run["rss_mib_max"] > 10  # /proc counts 10 ms
        assert 0 < run["commit_p50_ms"] <= run["commit_p99_ms"]
    for profile in figures[1:3]:
        assert profile["cpu_s"] > 0 and len(profile["top"]) == 3
    for idle in figures[4:6]:
        assert idle["idle_percent"] >= 0 and idle["rss_mib"] > 10
    for at_rest in figures[6:8]:
        assert at_rest["peers"] == 3 and at_rest["idle_percent_max"] >= 0 and at_rest["rss_mib_max"] > 10
        # The host leads: its heartbeats alone wake it every 400 ms.
        assert at_rest["host_wakes_per_s"] > 0 and at_rest["joiner_wakes_per_s"] >= 0
    assert 0 <= figures[7]["screen_percent"] <= figures[7]["idle_percent_max"]
    summary = figures[8]
    assert summary["runs"] == 1 and summary["cpu_per_commit_ms"]["median"] == table["cpu_per_commit_ms"]
