"""Base-game deals a scripted table plays again and again (the variants' tests): four kings at seat 0,
and the reaction times that make seat 2 lose every window.
"""

from __future__ import annotations

KINGS_AT_0 = [
    ["KH", "KS", "KD", "KC"],
    ["QH", "JH", "2H", "QD"],
    ["QS", "JS", "2S", "JD"],
    ["QC", "JC", "2C", "2D"],
]


#: Seat 2 reacts last: it loses every valid window in these scenarios.
SEAT_2_LAST = {1: 150.0, 2: 300.0, 3: 200.0}
