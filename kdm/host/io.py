"""What goes into a table host and what comes out of it: typed values, as Raft's ``Ready`` and
``FairDeck.work()``'s outputs are.

A host (``kdm.host.TableHost``) is handed one input at a time (``TableHost.step``): an entry the table
committed, a membership change, a message another member sent straight here, the passing of time, or
something this process's player (or one of its bots) wants. It answers with what to do: entries to
propose, messages to send, notices to tell the screen. It reads its node only through ``NodeView``,
what the consensus knows of the others (who leads, who was heard when), and never writes to it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from kdm.agents import Bot
from kdm.deck import PrivateNote
from kdm.events import Event
from kdm.manager import Rules
from kdm.net.raft_messages import ConfChange
from kdm.notices import Notice


class NodeView(Protocol):
    """What a host reads of its consensus node (``kdm.net.node.Node``, or ``kdm.testing.FakeNode``).

    A real node has more, which the host reads where it is there: ``keys`` (a table's nodes sign what
    they propose), ``table``, ``catching_up``, ``followed``, ``awake_ms`` and ``clock.offset_ms``."""

    node_id: str

    @property
    def is_leader(self) -> bool: ...

    @property
    def leader(self) -> str | None:
        """The leader this node follows (or itself), None while it knows none."""
        ...

    def silent_ms(self, node_id: str) -> float: ...


# --- inputs ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Committed:
    """One entry the table committed, in log order."""

    data: bytes


@dataclass(frozen=True)
class MembershipChanged:
    """A committed change of who votes (``Node.on_membership``), in log order."""

    change: ConfChange


@dataclass(frozen=True)
class Received:
    """A message another member sent straight to this process (a private note, a fair deck's keys,
    secrets or turn, the takeovers' word)."""

    sender: str
    data: bytes


@dataclass(frozen=True)
class LeaderChanged:
    """The node leads now, or follows another, or knows no leader (``Node.on_leader``): a new leader
    looks at the seats at once, and a former one gives up the takeovers it asked for."""

    leader: str | None


@dataclass(frozen=True)
class Tick:
    """Time has passed: do what is due by now (``TableHost.next_deadline_ms`` says when next)."""


@dataclass(frozen=True)
class CreateTable:
    """Found a table (its founder does this once), then take its first seat."""

    table: str
    players: int
    options: dict[str, Any]
    rules: Rules
    listed: bool = True
    deck: str = "open"


@dataclass(frozen=True)
class JoinTable:
    """Ask for a seat at ``table`` (its id; "" for the one known already)."""

    table: str = ""


@dataclass(frozen=True)
class StartGame:
    """Start the game (its founder, once the seats are taken)."""


@dataclass(frozen=True)
class Play:
    """An action of this process's player, stamped already when it is timed."""

    event: Event


@dataclass(frozen=True)
class Say:
    """A line of chat from this process's player to the whole table."""

    text: str


@dataclass(frozen=True)
class SendNote:
    """A private note from this process's player's seat to another seat (never through the log)."""

    note: PrivateNote


@dataclass(frozen=True)
class TakeOver:
    """Play ``seat`` from here with ``bot``, on the voters' word ``silence`` (``TakeOverWithWord``
    gathers it)."""

    seat: int
    bot: Bot
    name: str = ""
    why: str = ""
    silence: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class TakeOverWithWord:
    """Take ``seat`` over once a quorum of the other voters says its process is silent (or, with
    ``why``, withheld its keys)."""

    seat: int
    name: str
    why: str = ""


Input = (
    Committed | MembershipChanged | Received | LeaderChanged | Tick | CreateTable | JoinTable | StartGame
    | Play | Say | SendNote | TakeOver | TakeOverWithWord
)  # fmt: skip


# --- outputs ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Propose:
    """Propose this encoded entry to the table (again, when it is a retry)."""

    data: bytes


@dataclass(frozen=True)
class Send:
    """Send this message straight to the member ``to``."""

    to: str
    data: bytes


@dataclass(frozen=True)
class Tell:
    """Tell this process's screen (or whoever listens) of ``notice``."""

    notice: Notice


@dataclass(frozen=True)
class TableFinished:
    """The game is over and every seat said it is done: this process may leave the table."""


Output = Propose | Send | Tell | TableFinished
