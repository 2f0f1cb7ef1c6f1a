"""``benchmarks/fair_slaps.py``'s reading of judged windows: which it counts, and whom it takes for the
truly slowest, against the table's loser and the last slap to arrive. (Playing it needs root and
minutes: it is a benchmark, run by hand.)"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "fair_slaps.py"


def benchmark() -> ModuleType:
    spec = importlib.util.spec_from_file_location("fair_slaps", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def window(
    slaps: list[tuple[int, int | None, float | None, int]], losers: list[int], valid: bool = True
) -> Any:
    return {"kind": "judged", "valid": valid, "losers": losers, "slaps": slaps}


def test_a_window_counts_where_its_slowest_is_clear_and_both_orders_are_judged_against_it() -> None:
    figures = benchmark().figures
    # Seat 0 opens at seq 10; seat 3 reacts slowest (400 ms) but its slap reached the log before seat 1's.
    late_arrival = window(
        [(0, None, None, 10), (2, 10, 250.0, 11), (3, 10, 400.0, 12), (1, 10, 300.0, 13)], [3]
    )
    assert figures([late_arrival], 20.0) == {
        "windows_judged": 1, "windows_counted": 1, "effective_pct": 100.0, "arrival_pct": 0.0,
    }  # fmt: skip
    close = window([(0, None, None, 10), (2, 10, 250.0, 11), (1, 10, 390.0, 12), (3, 10, 400.0, 13)], [3])
    assert figures([close], 20.0)["windows_counted"] == 0  # 10 ms between the two slowest: no clear one
    false = window(
        [(0, None, None, 10), (1, 10, 200.0, 11), (2, 10, 300.0, 12), (3, 10, 500.0, 13)], [0], False
    )
    missing = window([(0, None, None, 10), (1, 10, 200.0, 11), (2, 10, 300.0, 12)], [3])
    feint = window([(0, None, None, 10), (1, 7, 200.0, 11), (2, 10, 300.0, 12), (3, 10, 500.0, 13)], [3])
    assert figures([false, missing, feint], 20.0) == {
        "windows_judged": 3, "windows_counted": 0, "effective_pct": None, "arrival_pct": None,
    }  # fmt: skip
