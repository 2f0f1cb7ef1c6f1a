"""What happened: effects, and the few kinds of them the core itself reads, as typed records.

Applying an event returns effects (``Effect``): read-only mappings with a ``kind``, for people (the
transcript, the terminal table), for the driver (whose bots look again) and for the deck (which faces
a seed made). At run time they are plain dicts, so listeners, screens and ``kdm_describe`` read them by
key; for a type checker each game declares its own kinds as ``TypedDict`` records, one per kind, with
``kind: Literal[...]``, joined in a tagged union that its rules return (``kdm.plugins.kilo.effects``).

The core reads only the kinds declared here; a game builds them as they are, or extends one by
subclassing it (its ``dealt`` may name the dealer, its ``game_over`` the scores). Every effect may
carry the hints of ``Hints``, so every record derives from it. Python 3.10 has no ``NotRequired``:
optional keys live in ``total=False`` bases.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypedDict, TypeGuard

#: What happened, for people and drivers: a mapping with a ``kind``; each game declares its own kinds
#: as TypedDicts (this module's records are the core's).
Effect = Mapping[str, Any]


class Hints(TypedDict, total=False):
    """What an effect may tell the driver about the bots (``kdm.driver.TableDriver.concerned``): the
    seats it concerns (``wake``, ``()`` for none; without it, every seat), and ``replan`` when it may
    have made a bot's plan wrong (every seat with a plan looks again too)."""

    wake: tuple[int, ...]
    replan: bool


#: The keys of an effect that hint bots rather than tell the table anything.
HINTS: frozenset[str] = Hints.__optional_keys__


class _Sources(TypedDict, total=False):
    #: The faces the tokens were made from (a deal, the pile), in any order: the seed shuffles them.
    pool: list[str]
    #: The tokens reshuffled into the new ones (their faces known to whoever knew them).
    from_tokens: list[int]


class Shuffled(Hints, _Sources):
    """New ``tokens`` in ``zone`` (``hands`` for a deal), their faces shuffled by ``seed`` from ``pool``
    or from the faces of ``from_tokens``: exactly one of the two. The deck learns faces from it."""

    kind: Literal["shuffled"]
    zone: str
    tokens: list[int]
    seed: bytes


class ShownPrivately(Hints):
    """Seat ``by`` showed ``tokens`` to seat ``to`` alone: the deck lets that seat know their faces."""

    kind: Literal["shown_privately"]
    to: int
    by: int
    tokens: list[int]


class Dealt(Hints):
    """Round ``round`` was dealt: the driver forgets the last round's shown times and timers."""

    kind: Literal["dealt"]
    round: int


class RoundOver(Hints):
    """Round ``round`` (a deal) is over, with ``scores`` so far, one per seat or per team as the game
    counts them: every game's screen keeps them for its scores window."""

    kind: Literal["round_over"]
    round: int
    scores: list[int]


class GameOver(Hints):
    """The game is over, won by ``winners`` (seats): each peer says it is done."""

    kind: Literal["game_over"]
    winners: list[int]


def is_shuffled(effect: Effect) -> TypeGuard[Shuffled]:
    """Whether ``effect`` is a ``shuffled`` one. The kind is enough: a game that builds an effect of a
    kind declared here builds it as declared (or as a subclass)."""
    kind: str = effect["kind"]
    return kind == "shuffled"


def is_shown_privately(effect: Effect) -> TypeGuard[ShownPrivately]:
    """Whether ``effect`` is a ``shown_privately`` one (by its kind, as ``is_shuffled``)."""
    kind: str = effect["kind"]
    return kind == "shown_privately"
