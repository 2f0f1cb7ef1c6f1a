"""What Snap's rules say happened, as typed records (``kdm.effects`` says why): one ``TypedDict`` per
kind, joined in ``SnapEffect``, which the rules return. The kinds the core reads (``shuffled``,
``dealt``, ``round_over``, ``game_over``) are the core's records, extended where Snap says more.
"""

from __future__ import annotations

from typing import Literal

from kdm.effects import Dealt, GameOver, Hints, RoundOver, Shuffled


class SnapDealt(Dealt):
    """The deck was dealt face down: ``piles`` cards to each seat."""

    piles: list[int]


class Flipping(Hints):
    """``seat`` turns its top card (its face comes with the next event)."""

    kind: Literal["flipping"]
    seat: int


class Turned(Hints):
    """``seat`` turned ``card`` onto the centre pile (``centre`` cards now); ``pair`` when it has the
    rank of the card under it; ``left`` cards are left in the seat's pile."""

    kind: Literal["turned"]
    seat: int
    card: str
    seq: int
    pair: bool
    centre: int
    left: int
    turns: int


class Slapped(Hints):
    """``seat`` slapped the centre (event ``seq``, ``rt`` ms after the top card was painted on its
    screen); ``opened`` when it opened the window."""

    kind: Literal["slapped"]
    seat: int
    seq: int
    rt: float
    opened: bool


class SlapJudged(Hints):
    """A slap window was judged: ``order`` is ``(seat, rt)`` fastest first; with a ``pair`` its first
    slapper took the ``taken`` cards of the centre; without one each slapper in ``paid`` put its top
    card under the centre pile."""

    kind: Literal["slap_judged"]
    pair: bool
    first: int
    order: list[tuple[int, float]]
    taken: int
    paid: list[int]
    cards: list[int]


class Gathered(Hints):
    """Every player in has an empty pile: the centre's ``cards`` are gathered to be shuffled."""

    kind: Literal["gathered"]
    cards: int


class Redealt(Hints):
    """The centre, shuffled, was dealt again among the players in: ``piles`` cards each, in the
    order they were dealt."""

    kind: Literal["redealt"]
    piles: list[int]


class PlayerOut(Hints):
    """``seat`` has no card left: it is out of the game."""

    kind: Literal["player_out"]
    seat: int


class SnapOver(GameOver):
    """The game is over: ``cards`` per seat, and why (``last``: one player has cards, ``turns``: the
    game's turns are used up)."""

    cards: list[int]
    reason: str


SnapEffect = (
    Shuffled
    | SnapDealt
    | Flipping
    | Turned
    | Slapped
    | SlapJudged
    | Gathered
    | Redealt
    | PlayerOut
    | RoundOver
    | SnapOver
)
