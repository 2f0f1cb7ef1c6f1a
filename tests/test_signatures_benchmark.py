"""``benchmarks/signatures.py`` runs and counts what a commit signs and checks (separate node processes on
127.0.0.1): every commit is signed at least by its leader's head and each follower's ack, and checked by
every follower, and the floor it prints is those counts times a sign and a check."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.helpers.scripts import run_script

pytestmark = pytest.mark.processes

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "signatures.py"


def test_signatures_counts_what_a_commit_signs_and_checks() -> None:
    done = run_script(
        [sys.executable, str(SCRIPT), "--peers", "3", "--entries", "3", "9", "--gap-ms", "1"], timeout=240,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    (figure,) = [json.loads(line) for line in done.stdout.splitlines()]
    assert figure["figure"] == "signatures_per_commit" and figure["peers"] == 3
    # A leader's head and two followers' acks, each checked at least once: about 3 and 4 (less a little
    # when the smaller table's election took more votes than the larger's).
    assert figure["signed"] >= 2 and figure["checked"] >= 3
    assert 0 < figure["checked_by_the_busiest"] <= figure["checked"]
    floor = (figure["signed"] * figure["sign_us"] + figure["checked"] * figure["check_us"]) / 1000
    assert figure["signature_cpu_ms_per_commit"] == pytest.approx(floor, abs=0.01)
