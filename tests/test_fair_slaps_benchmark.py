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


def test_a_press_counts_as_moved_only_by_more_than_a_float_s_last_digit_and_the_cheater_s_are_left_out() -> (
    None
):
    moved = benchmark().moved
    # (seat, moved, moved by the times alone, how far behind the others): seat 2 cheats, left out.
    moves = [(0, 0.0, 0.0, 2.0), (1, 1e-9, 0.0, None), (3, 12.5, 0.0, 40.0), (2, 300.0, 300.0, 400.0)]
    assert moved(moves, 2) == {
        "presses": 3, "moved": 1, "moved_by_times": 0, "moved_pct": 33.33, "moved_max_ms": 12.5,
        "behind_ms_p50": 2.0, "behind_ms_p95": 40.0, "behind_ms_max": 40.0,
        "moved_pct_if": {15: 50.0, 30: 50.0, 60: 0.0, 100: 0.0, 150: 0.0},
    }  # fmt: skip
    assert moved([], None)["moved_pct"] is None and moved([], None)["moved_pct_if"][15] is None


def test_the_racer_s_gain_is_its_true_reaction_s_time_less_the_one_the_table_gave_it() -> None:
    module = benchmark()
    slaps = [(0, None, None, 10), (1, 10, 300.0, 11), (3, 10, 350.0, 12), (2, 10, 100.0, 13)]
    order = [(0, 1000.0), (1, 1300.0), (3, 1350.0), (2, 1360.0)]
    judged = [{"kind": "judged", "valid": True, "losers": [2], "slaps": slaps, "order": order}]
    # It pressed 380 ms after it was shown the opener: its true reaction gives 1380; the table gave 1360.
    attacks = [{"attack": "claimed reaction", "opener": 10, "pressed": 5380.0, "shown": 5000.0}]
    figures = module.raced(judged, attacks)
    assert figures["raced"] == 1 and figures["racer_first_pct"] == 0.0
    assert figures["gain_ms_p50"] == figures["gain_ms_p95"] == 20.0
    assert figures["last_by_seat"] == {0: 0, 1: 0, 2: 1, 3: 0}
