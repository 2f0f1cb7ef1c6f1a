"""Kem's deals a test writes down (``kdm.testing.ScriptedTable`` with the ``kems`` variant): the hands,
the four turned cards and the talon, then every seat keeps its hand and the hunt is open.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence

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


def _hand_with_one_pair(pool: list[str]) -> list[str]:
    """Take from ``pool``, in its order, the first two cards of a rank left, then two of other ranks."""

    def take(fits: Callable[[str], bool]) -> str:
        face = next(face for face in pool if fits(face))
        pool.remove(face)
        return face

    left = Counter(map(rank_of, pool))
    first = take(lambda face: left[rank_of(face)] >= 2)
    hand = [first, take(lambda face: rank_of(face) == rank_of(first))]
    while len(hand) < HAND:
        hand.append(take(lambda face: rank_of(face) not in map(rank_of, hand)))
    return hand


def dealing_pairs(monkeypatch: pytest.MonkeyPatch, players: int) -> None:
    """Every open deck of this process deals every Kem's hand one pair and no three of a rank: the faces
    the honest shuffle gave are dealt again, in their order, each hand taking the first two of a rank left
    and then two cards of ranks it does not hold, the talon the rest (each card still once, and no hand is
    redrawn, RULES 3.3). The same on every peer in the process, so they agree; for tests at tables of
    peers, where ``deal`` cannot write the hands."""
    honest_observe = OpenDeck.observe

    def observe(self: OpenDeck, effects: Iterable[Effect]) -> None:
        effects = list(effects)
        honest_observe(self, effects)
        for effect in effects:
            if effect["kind"] != "shuffled" or effect.get("zone") != TALON or "pool" not in effect:
                continue
            tokens = effect["tokens"]
            pool = [self.faces[token] for token in tokens]
            dealt: dict[str, str] = {}
            for k in range(players):  # a seat is dealt tokens[-1 - k], then tokens[-1 - k - players], ...
                hand = _hand_with_one_pair(pool)
                dealt.update({tokens[-1 - k - j * players]: face for j, face in enumerate(hand)})
            self.faces.update(dealt)
            self.faces.update(zip([token for token in tokens if token not in dealt], pool, strict=True))

    monkeypatch.setattr(OpenDeck, "observe", observe)
