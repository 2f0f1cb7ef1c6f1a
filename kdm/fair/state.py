"""What a fair deck holds (``kdm.fair.table.FairDeck``), in its two parts, which the modules doing its
jobs (``kdm.fair.turns``, ``kdm.fair.handing``, ``kdm.fair.audits``) share:

- ``Shared``: what the log says, the same on every process because it comes from the log alone;
- ``Private``: this process's alone: the seats it plays, their secrets and key rings, the faces they
  read, what it has given already, what it found and what it measures.

Each job's own bookkeeping (turns handed ahead, keys served, reveals taken on trust) stays in its module.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast

from kdm.fair.keyring import KeyRing
from kdm.fair.messages import Finding
from kdm.fair.shuffle import Secrets
from kdm.fair.timings import Timings
from kdm.kept import Kept

if TYPE_CHECKING:
    from kdm.fair.turns import Shuffle

__all__ = ["Held", "Private", "Shared"]

log = logging.getLogger("kdm.fair")

Value = TypeVar("Value")


class Shared:
    """What the log says at table ``table`` of ``players`` seats: the same on every process."""

    def __init__(self, table: str, players: int) -> None:
        self.table = table
        self.players = players
        self.shuffles: list[Shuffle] = []
        #: token → (shuffle, position).
        self.where: dict[int, tuple[int, int]] = {}
        #: Every face a shuffle at this table dealt from (a reshuffle's cards are some of them).
        self.all_faces: list[str] = []
        #: Faces shown to the table, by token, and the keys seats published for the cards being shown.
        self.public: dict[int, str] = {}
        self.shown_keys: dict[int, dict[int, bytes]] = {}
        #: Faces the audit showed (every card of an audited shuffle).
        self.audited_faces: dict[int, str] = {}
        self.over = False
        #: Cards shown to one seat alone: (by, to, tokens), and the tokens each seat was shown.
        self.private_shows: list[tuple[int, int, tuple[int, ...]]] = []
        self.shown_to: dict[int, set[int]] = {}
        #: Keys the log asks a seat for: (token, owner) → the seat that asked.
        self.asked: dict[tuple[int, int], int] = {}

    def point(self, token: int) -> bytes | None:
        """The card ``token`` stands for, as its shuffle's final deck holds it (None: not dealt yet)."""
        where = self.where.get(token)
        if where is None or self.shuffles[where[0]].turn(self.players) is not None:
            return None
        return self.shuffles[where[0]].decks["key"][-1][where[1]]

    def dealt(self, token: int) -> bool:
        """Whether ``token``'s shuffle is complete (its keys can be handed or shown)."""
        return self.point(token) is not None


class Private:
    """This process's part of the deck at the table ``shared`` tells of, timed by ``timings``."""

    def __init__(self, shared: Shared, timings: Timings) -> None:
        self.shared = shared
        self.timings = timings
        #: The seats this process plays (its peer keeps it up to date).
        self.here: set[int] = set()
        #: Seat here → the secrets its player keeps (``kdm.kept``): its shuffles' secrets are drawn from
        #: them, so a process started again makes again those of the turns its seat took (none: fresh).
        self.kept: dict[int, Kept] = {}
        #: (shuffle, seat here) → its secrets, its blind (a reshuffle's strip), its key ring.
        self.secrets: dict[tuple[int, int], Secrets] = {}
        self.blinds: dict[tuple[int, int], bytes] = {}
        self.rings: dict[tuple[int, int], KeyRing] = {}
        #: seat here → token → face it read.
        self.known: dict[int, dict[int, str]] = {}
        #: What this process gave already, so it gives each once: turns, asks, answers, keys shown, secrets.
        self.owed: set[tuple[Any, ...]] = set()
        self.findings: list[Finding] = []

    def ring(self, shuffle: int, seat: int) -> KeyRing | None:
        """Seat ``seat``'s key ring for a complete shuffle, if this process holds its secrets."""
        ring = self.rings.get((shuffle, seat))
        secrets = self.secrets.get((shuffle, seat))
        if ring is None and secrets is not None:
            done = self.shared.shuffles[shuffle]
            ring = self.rings[(shuffle, seat)] = KeyRing(
                seat, self.shared.all_faces, self.shared.table, secrets, done.decks["key"][-1], done.committed
            )
        return ring

    def find(self, finding: Finding) -> None:
        """Name a seat that cheated."""
        log.warning("fair deck: seat %d %s", finding.seat, finding.reason)
        self.findings.append(finding)


class Held(Generic[Value]):
    """An attribute of a deck that one of its parts holds (``part``: ``"shared"`` or ``"private"``), under
    the same name: the deck reads and sets it there, so the part's own modules and the deck's users see
    one value even when it is replaced (``FairDeck.here``, which the host sets)."""

    def __init__(self, part: str) -> None:
        self.part = part
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, deck: object, owner: type | None = None) -> Value:
        return cast(Value, getattr(getattr(deck, self.part), self.name))

    def __set__(self, deck: object, value: Value) -> None:
        setattr(getattr(deck, self.part), self.name, value)
