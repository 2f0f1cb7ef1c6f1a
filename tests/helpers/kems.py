"""Kem's deals a test writes down (``kdm.testing.ScriptedTable`` with the ``kems`` variant): the hands,
the four turned cards and the talon, then every seat keeps its hand and the hunt is open.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

import pytest

from kdm.cards import derive_seed, rank_of, shuffled
from kdm.deck import OpenDeck
from kdm.engine import Effect
from kdm.events import Deal
from kdm.plugins.kems.events import (
    KeepHand,
)
from kdm.plugins.kems.rules import HAND, TALON, deck_faces, kems
from kdm.testing import ScriptedTable

#: Four table cards without three of a rank, and the next four.
TURNED = ["2C", "3D", "4H", "5S"]


NEXT = ["6C", "8D", "10H", "JS"]


def deal(
    table: ScriptedTable,
    hands: Sequence[Sequence[str]] = (),
    turned: Sequence[str] = (),
    talon: Sequence[str] = (),
    settle: bool = True,
) -> list[Effect]:
    """Deal the next deal with these faces; by default every seat keeps the hand written for it and
    the dealer turns four cards: the hunt is open. ``hands`` are then what the seats hold in the hunt,
    four of a kind included, as if collected by exchanges (a dealt three of a rank would be redrawn,
    RULES 3.3). With ``settle=False`` the table waits for the first check instead."""
    state = table.state
    if state.phase == "signing":  # the teams' time for signs (RULES 3.2) ends before the first deal
        table.fire("ready_time")
    effects = table.act(Deal(seed=derive_seed(table.seed, "deal", kems(state).deals)), settle=False)
    given = [face for hand in hands for face in hand] + [*turned, *talon]
    assert len(given) == len(set(given)), "a face is written twice"
    rest = [face for face in shuffled(deck_faces(state.options), table.seed) if face not in given]

    def open_card(group: list[str]) -> str:
        face = next(f for f in rest if Counter(map(rank_of, group))[rank_of(f)] < 2)
        rest.remove(face)
        return face

    plan: dict[int, str] = {}
    for seat, tokens in enumerate(state.hands):
        faces = list(hands[seat]) if seat < len(hands) else []
        while len(faces) < len(tokens):
            faces.append(open_card(faces))
        plan.update(zip(tokens, faces, strict=True))
    top = list(turned)
    while len(top) < 4:
        top.append(open_card(top))
    top += list(talon)
    while rest:
        top.append(open_card([]))
    plan.update(zip(reversed(state.zones[TALON]), top, strict=True))
    table.arrange(plan)
    if not settle:
        return effects
    keep_hands(table)
    return effects + table.settle()


def keep_hands(table: ScriptedTable) -> None:
    """Every seat still to check keeps its hand."""
    while table.state.phase == "checking":
        table.act(KeepHand(seat=kems(table.state).to_check[0]), settle=False)


def dealing_pairs(monkeypatch: pytest.MonkeyPatch, players: int) -> None:
    """Every open deck of this process deals every Kem's hand a pair: each seat's first two cards share
    a rank (the second swapped with a talon card of the first's rank, so the deck still holds each card
    once). The same on every peer in the process, so they agree; for tests at tables of peers, where
    ``deal`` cannot write the hands."""
    honest_observe = OpenDeck.observe

    def observe(self: OpenDeck, effects: Iterable[Effect]) -> None:
        effects = list(effects)
        honest_observe(self, effects)
        for effect in effects:
            if effect["kind"] != "shuffled" or effect.get("zone") != TALON or "pool" not in effect:
                continue
            tokens = effect["tokens"]
            talon = tokens[: -HAND * players]
            for k in range(players):  # a seat is dealt tokens[-1 - k], then tokens[-1 - k - players]
                first, second = tokens[-1 - k], tokens[-1 - k - players]
                twin = next(t for t in talon if rank_of(self.faces[t]) == rank_of(self.faces[first]))
                self.faces[second], self.faces[twin] = self.faces[twin], self.faces[second]

    monkeypatch.setattr(OpenDeck, "observe", observe)
