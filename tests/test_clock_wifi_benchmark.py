"""``benchmarks/clock_wifi.py`` runs on the test LAN's Wi-Fi and prints, per phase, how far each follower's
agreed clock is from its leader's: the laptops share the machine's clock, so that is the error."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.helpers.netns import require_netns
from tests.helpers.scripts import run_script

pytestmark = pytest.mark.netns

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "clock_wifi.py"


def test_clock_wifi_prints_each_phase_s_error_read_on_every_follower() -> None:
    require_netns()
    quick = ["--laptops", "3", "--seconds", "3", "--settle-s", "2", "--every-s", "0.5"]
    done = run_script([sys.executable, str(SCRIPT), *quick], timeout=180)
    assert done.returncode == 0, done.stderr
    figures = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(figure["profile"], figure["phase"]) for figure in figures] == [
        ("wifi", "rest"),
        ("wifi", "busy"),
    ]
    for figure in figures:
        assert figure["with_an_estimate"] == figure["readings"] >= 2 * 5  # two followers, 5 or 6 readings
        assert 0 <= figure["error_ms_p50"] <= figure["error_ms_p95"] <= figure["error_ms_max"]
        # A clock one machine shares: every estimate within the bound it gives itself, a pong held for a
        # heartbeat included.
        assert figure["past_its_bound"] == 0
