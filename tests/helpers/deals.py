"""Base-game deals a scripted table plays again and again (the variants' tests): four kings at seat 0,
and the reaction times that make seat 2 lose every window; and a deal with no combo for a table of peers.
"""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from kdm.cards import rank_of, suit_of
from kdm.deck import OpenDeck
from kdm.engine import Effect

KINGS_AT_0 = [
    ["KH", "KS", "KD", "KC"],
    ["QH", "JH", "2H", "QD"],
    ["QS", "JS", "2S", "JD"],
    ["QC", "JC", "2C", "2D"],
]


#: Seat 2 reacts last: it loses every valid window in these scenarios.
SEAT_2_LAST = {1: 150.0, 2: 300.0, 3: 200.0}


def dealing_no_combos(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every open deck of this process deals the base game's hands without a combo: the faces the honest
    shuffle gave are dealt again so that each hand holds one card of each rank, each of another suit (a
    Latin square: no four of a rank, no four of a suit, RULES 1.2.5). The same on every peer in the
    process, so they agree; for a screen test at a table of peers whose first turns a combo would turn
    into a slap."""
    honest_observe = OpenDeck.observe

    def observe(self: OpenDeck, effects: Iterable[Effect]) -> None:
        effects = list(effects)
        honest_observe(self, effects)
        for effect in effects:
            if effect["kind"] != "shuffled" or effect.get("zone") != "hands" or "pool" not in effect:
                continue
            tokens = effect["tokens"]
            faces = sorted(
                (self.faces[token] for token in tokens), key=lambda face: (rank_of(face), suit_of(face) or "")
            )
            ranks = [faces[index : index + 4] for index in range(0, len(faces), 4)]
            assert len(ranks) == 4, "a Latin square of four ranks and four suits: four players"
            assert all(len(set(map(rank_of, group))) == 1 for group in ranks), "four suits of each rank"
            for seat in range(4):
                for held, group in enumerate(ranks):
                    self.faces[tokens[seat * 4 + held]] = group[(seat + held) % 4]

    monkeypatch.setattr(OpenDeck, "observe", observe)
