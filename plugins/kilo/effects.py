"""What the base game's rules say happened: one typed record per kind of effect, and their union.

At run time every effect is a plain dict (``kdm.effects``); these records let a type checker check
each one ``kdm.plugins.kilo.rules`` builds, key by key. The kinds the core reads (``shuffled``, ``dealt``) are
the core's records, ``game_over`` extends the core's with the kilos. A variant of the base game declares
its own kinds in its own module, deriving from these where its effect is one of them under another
name or with more to say (``spoons``' grab is a ``Slapping``, ``seven_in_reserve``'s draw a ``Drew``).
"""

from __future__ import annotations

from typing import Literal, TypedDict

from kdm import effects as core
from kdm.effects import Dealt, Hints, Shuffled


class GameStarted(Hints):
    """The pile is made: ``pile`` cards for ``players`` players; the game ends after ``rounds`` rounds,
    or when the pile is empty (``rounds`` is ``pile``) or after ``max_rounds`` (RULES 1.3)."""

    kind: Literal["game_started"]
    players: int
    pile: int
    rounds: int | str
    max_rounds: int


class Announced(Hints):
    """Seat ``seat`` holds ``card``, a queen the table called for."""

    kind: Literal["announced"]
    seat: int
    card: str


class PassingStarted(Hints):
    """Round ``round``'s passing starts with ``starter`` (the Queen of hearts), toward ``direction``."""

    kind: Literal["passing_started"]
    round: int
    starter: int
    direction: Literal["left", "right"]


class Passed(Hints):
    """Seat ``seat`` passed card ``token`` to seat ``to``; ``checkpoint`` when every hand holds 4 now."""

    kind: Literal["passed"]
    seat: int
    to: int
    token: int
    checkpoint: bool


class _Opening(TypedDict, total=False):
    #: Given when the slap opened the window: it closes this long after, unless complete first.
    close_after_ms: int


class Slapping(Hints, _Opening):
    """A slap, or a variant's gesture judged like one: seat ``seat`` opened the window (``opened``) or
    joined it, as event ``seq``, at ``effective`` ms (DESIGN 5.6). Each gesture names its own kind."""

    seat: int
    seq: int
    effective: float
    opened: bool


class Slapped(Slapping):
    kind: Literal["slapped"]


class Feinted(Hints):
    """Seat ``seat`` feinted, as event ``seq`` (a later reaction may name it as its trigger)."""

    kind: Literal["feinted"]
    seat: int
    seq: int


class WindowClosed(Hints):
    """The slap window closed: ``order`` is ``(seat, effective time)``, earliest first."""

    kind: Literal["window_closed"]
    order: list[tuple[int, float]]


class HandShown(Hints):
    """The first slapper, ``seat``, turned up ``cards``; ``combo`` when they make one."""

    kind: Literal["hand_shown"]
    seat: int
    cards: list[str]
    combo: bool


class Judged(Hints):
    """The window is judged: ``valid`` slap or not, by ``first``; ``losers`` draw, in that order.

    ``reason``: ``combo`` (valid), ``no_combo`` (every hand held 4, the first slapper's made no combo),
    ``not_four`` (not every hand held 4), ``late`` (the checkpoint had just passed), ``feint`` (fooled
    by a feint)."""

    kind: Literal["judged"]
    valid: bool
    first: int
    order: list[tuple[int, float]]
    losers: list[int]
    reason: str


class Drew(Hints):
    """Seat ``seat`` drew ``card`` in round ``round``; ``flush`` when it flushed its kilos (RULES 1.2.9)."""

    kind: Literal["drew"]
    round: int
    seat: int
    card: str
    flush: bool


class Charged(Hints):
    """Seat ``seat`` is charged ``kilos`` for holding a fair deck's round up (RULES 1.4)."""

    kind: Literal["charged"]
    seat: int
    kilos: int


class PassingResumed(Hints):
    """The window's draws are done and the round goes on."""

    kind: Literal["passing_resumed"]


class HoldOver(Hints):
    """The checkpoint has held ``checkpoint_ms`` at a table of people: the starter may pass again."""

    kind: Literal["hold_over"]


class Rested(Hints):
    """Round ``round``'s result has been on screen ``round_pause_ms``: the next round is dealt."""

    kind: Literal["rested"]
    round: int


class RoundOver(core.RoundOver):
    """Round ``round`` is over; ``scores`` are the kilos in front of each seat."""


class GameOver(core.GameOver):
    """The game is over: ``winners`` have the fewest kilos; ``scores`` are every seat's."""

    scores: list[int]


#: Every effect the base game's rules build (a variant's ``kdm_draw`` builds a ``Drew`` too).
KiloEffect = (
    Shuffled
    | GameStarted
    | Dealt
    | Announced
    | PassingStarted
    | Passed
    | Slapped
    | Feinted
    | WindowClosed
    | HandShown
    | Judged
    | Drew
    | Charged
    | PassingResumed
    | HoldOver
    | Rested
    | RoundOver
    | GameOver
)
