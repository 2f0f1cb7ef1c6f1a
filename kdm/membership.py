"""Who votes at a table: one process per laptop, its seated player's. Everyone else only reads the log.

Consensus commits what a majority of voters hold, so a voter that goes away for good takes a share of
the quorum with it. A stranger who knocks (refused: the game has started) and leaves, or a spectator,
must therefore never vote: a newcomer is a learner (``kdm.net.node``), and becomes a voter only once
the table record seats it. A player whose seat a bot holds (their process died or was lost) stops
voting too: with their vote gone, the quorum is the players still there, so a second departure does not
stop the table. Back, under the same node id or a new one, they take their seat back and vote again;
an old node that no longer plays stops voting. A learner silent for long (a spectator who left) is let go.

One laptop, one vote: the bots a player starts (``b`` in the waiting room, ``kdm play --bots N``) run
on the player's laptop, and a laptop that dies takes all of its processes at once. Were each bot a
voter, a laptop with a player and a bot would hold two votes of three, and its crash would leave the
others without a quorum. So such a bot's seat names its ``laptop`` (the node of the player whose process
started it) and never votes: the laptop's one vote is its player's. A bot started on its own
(``kdm bot``, ``kdm selfplay``'s peers) is a laptop of its own and votes like a player.

Pure: `next_change` looks at the record's seats and the consensus membership and says what the leader
should propose next, one change at a time, as Raft requires; `approved_changes` says which changes of
who votes a voter backs, since a leader needs a quorum of the voters' signed approvals to make one (a
leader alone could otherwise make up voters, or retire players still at the table, until it and its
made-up voters were a quorum of their own).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

__all__ = [
    "LEARNER_GONE_MS", "PROMOTE", "RETIRE", "SeatLike", "approved_changes", "laptop_of", "names_on_laptops",
    "next_change", "voting_homes",
]  # fmt: skip

PROMOTE, RETIRE = "promote", "retire"
#: A learner not heard from for this long has left (a spectator who closed the lid stays much longer
#: than a learner that is behind: the leader hears every learner at each heartbeat).
LEARNER_GONE_MS = 15_000.0


class SeatLike(Protocol):
    """What membership reads of a seat (``kdm.record.Seat``)."""

    @property
    def home(self) -> str: ...

    @property
    def away(self) -> bool: ...

    @property
    def laptop(self) -> str: ...

    @property
    def name(self) -> str: ...


def laptop_of(seat: SeatLike) -> str:
    """The node that holds the vote of the laptop ``seat`` is played on: the player's who started its
    bot, else the seat's own player's."""
    return seat.laptop or seat.home


def voting_homes(seats: Iterable[SeatLike]) -> list[str]:
    """The nodes that should vote: the seated players' own processes, but for those a bot stands in for
    and for the bots a player started on their laptop (its vote is the player's)."""
    return [seat.home for seat in seats if not seat.away and laptop_of(seat) == seat.home]


def names_on_laptops(seats: Sequence[SeatLike], nodes: Iterable[str]) -> list[str]:
    """The names of the seats played on the laptops whose votes ``nodes`` hold, in seat order: what a
    screen calls those laptops ("not heard from: bob, bot 1 of bob")."""
    wanted = set(nodes)
    return [seat.name for seat in seats if laptop_of(seat) in wanted]


def next_change(
    homes: Iterable[str],
    voters: Sequence[str],
    learners: Sequence[str],
    silent_ms: Callable[[str], float],
    me: str,
    caught_up: Callable[[str], bool] = lambda _node: True,
) -> tuple[str, str] | None:
    """The next membership change a leader (``me``) should propose: ``(PROMOTE | RETIRE, node)``.

    ``homes`` are the nodes of the seated players' own processes. None when the membership is as it
    should be, or before anyone is seated (the founder votes alone until its seat is recorded). A
    seated learner is promoted only once ``caught_up`` says it holds the log: a restarted process starts
    empty, and a voter busy catching up counts against the quorum like a dead one.
    """
    wanted = set(homes)
    if not wanted:
        return None
    for node in sorted(wanted):
        if node in learners and caught_up(node):
            return PROMOTE, node
    for node in sorted(voters):
        if node not in wanted and node != me:
            return RETIRE, node
    for node in sorted(learners):
        if silent_ms(node) > LEARNER_GONE_MS:
            return RETIRE, node
    return None


def approved_changes(
    homes: Iterable[str], voters: Sequence[str], learners: Sequence[str]
) -> list[tuple[str, str]]:
    """The changes of who votes a voter backs, from its own record: ``(PROMOTE, node)`` for a seated
    learner, ``(RETIRE, node)`` for a voter no seat makes one (none before anyone is seated: the
    founder votes alone). Whether a learner holds the log yet, and which change comes first, is the
    leader's to judge (``next_change``); learners leave without anyone's approval."""
    wanted = set(homes)
    if not wanted:
        return []
    return [(PROMOTE, node) for node in sorted(wanted) if node in learners] + [
        (RETIRE, node) for node in sorted(voters) if node not in wanted
    ]
