"""What Kem's rules say happened: one typed record per kind of effect, and their union.

At run time every effect is a plain dict (``kdm.effects``); these records let a type checker check
each one ``kdm.plugins.kems.rules`` builds, key by key. Kem's uses the core's ``shuffled`` and
``shown_privately`` as they are and extends its ``dealt`` (with the dealer) and ``game_over`` (with the
winning team). Where a kind shares its name with one of the base game's (``hand_shown``,
``round_over``), the record is Kem's own: the two games say different things under the same word.
"""

from __future__ import annotations

from typing import Literal, TypedDict

from kdm import effects as core
from kdm.effects import Hints, ShownPrivately, Shuffled


class Dealt(core.Dealt):
    """Deal ``round`` was dealt by seat ``dealer``."""

    dealer: int


class TeamReady(Hints):
    """Seat ``seat``'s team has agreed its signs (RULES 3.2); what they are stays between the partners."""

    kind: Literal["team_ready"]
    seat: int


class SignsClosed(Hints):
    """The signs are closed: every team agreed, or time ran out for the ``missing`` teams (RULES 3.2)."""

    kind: Literal["signs_closed"]
    missing: list[int]


class HandKept(Hints):
    """Seat ``seat`` keeps its dealt hand (no three of a rank in it)."""

    kind: Literal["hand_kept"]
    seat: int


class Redrawn(Hints):
    """Seat ``seat`` showed three or four of a rank, ``cards``, which go back into the talon."""

    kind: Literal["redrawn"]
    seat: int
    cards: list[str]


# "from" is a Python keyword: only the functional form can declare it.
_From = TypedDict("_From", {"from": str})


class TalonShuffled(Hints, _From):
    """The talon (``from`` = ``talon``) or the bin (``bin``) was shuffled into a talon of ``cards``."""

    kind: Literal["talon_shuffled"]
    cards: int


class Turned(Hints):
    """The dealer turned ``cards`` face up on the table."""

    kind: Literal["turned"]
    cards: list[str]


class Binned(Hints):
    """The table's ``cards`` went to the bin: three of a rank among them, or a sweep all agreed to."""

    kind: Literal["binned"]
    cards: list[str]
    reason: Literal["three", "sweep"]


class HuntOpen(Hints):
    """The hunt opens on these ``table`` cards."""

    kind: Literal["hunt_open"]
    table: list[str]


class HuntResumed(Hints):
    """A failed Contre Kem's is settled: the hunt goes on."""

    kind: Literal["hunt_resumed"]


class Exchanged(Hints):
    """Seat ``seat`` gave ``gave`` to the table and took ``took`` from it."""

    kind: Literal["exchanged"]
    seat: int
    gave: list[str]
    took: list[str]


class Quiet(Hints):
    """Nobody exchanged for ``sweep_after_ms``: a sweep may be asked."""

    kind: Literal["quiet"]


class SweepAsked(Hints):
    """Seat ``seat`` asked « Balayage ? »: every other seat answers."""

    kind: Literal["sweep_asked"]
    seat: int


class SweepAnswered(Hints):
    """Seat ``seat`` answered the sweep question: ``accept`` or not."""

    kind: Literal["sweep_answered"]
    seat: int
    accept: bool


class Gestured(Hints):
    """Seat ``seat`` made ``gesture``, as event ``seq`` (a call may react to it)."""

    kind: Literal["gestured"]
    seat: int
    gesture: str
    seq: int


class Said(Hints):
    """Seat ``seat`` said ``text`` (« à la parlante »)."""

    kind: Literal["said"]
    seat: int
    text: str


class Called(Hints):
    """Seat ``seat`` called ``call`` (against ``target`` for a Contre, else -1) at ``effective`` ms;
    ``opened`` when it opened the call window."""

    kind: Literal["called"]
    seat: int
    call: str
    target: int
    effective: float
    opened: bool


class CallJudged(Hints):
    """Seat ``seat``'s call counts; the calls of the seats in ``void`` came too late."""

    kind: Literal["call_judged"]
    seat: int
    call: str
    target: int
    void: list[int]


class HandShown(Hints):
    """Seat ``seat`` showed its whole hand, ``cards``; ``four`` when they are four of a kind."""

    kind: Literal["hand_shown"]
    seat: int
    cards: list[str]
    four: bool


class CallResult(Hints):
    """The call that counted ended (``confirmed``, ``failed`` or ``void``): ``points`` to ``team``,
    whose ``scores`` are now every team's."""

    kind: Literal["call_result"]
    seat: int
    call: str
    target: int
    result: str
    points: int
    team: int
    scores: list[int]


class TeamCharged(Hints):
    """Seat ``seat`` held a fair deck's deal up (RULES 1.4): ``points`` to its ``team``, whose ``scores``
    are now every team's."""

    kind: Literal["team_charged"]
    seat: int
    team: int
    points: int
    scores: list[int]


class RoundOver(core.RoundOver):
    """Deal ``round`` is over; ``scores`` are the teams' points."""


class GameOver(core.GameOver):
    """``team`` reached the target: its seats are the ``winners``."""

    team: int


#: Every effect Kem's rules build.
KemsEffect = (
    Shuffled
    | TeamReady
    | SignsClosed
    | Dealt
    | HandKept
    | Redrawn
    | TalonShuffled
    | Turned
    | Binned
    | HuntOpen
    | HuntResumed
    | Exchanged
    | Quiet
    | SweepAsked
    | SweepAnswered
    | Gestured
    | Said
    | Called
    | CallJudged
    | HandShown
    | ShownPrivately
    | CallResult
    | TeamCharged
    | RoundOver
    | GameOver
)
