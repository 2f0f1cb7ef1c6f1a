"""One table membership: the consensus node, the table record, the table's deck and the seats played here.

The peer is the only place where the rules meet the network (DESIGN 1): it turns intents into
proposals, replays committed entries through one ``TableRecord`` per process, owes the table its duties
(seed reveals, its own hands and draws; ``Close`` when it leads) and lets bots play. What every host of a
table does between events (shown times, stamping timed events, reveals, bots' plans) is its
``TableDriver`` (``kdm.driver``), on the real clocks; the peer schedules the driver's plans on the
asyncio loop. A proposal is retried until it is seen committed; the record applies each one once.

A process usually plays one seat, its ``Agent``. When a player's process dies mid-game, the leader's
process takes the seat over with a bot: a second agent, with an identity of its own (``node#seat``) so
the record can tell who acts for which seat. The player's seat is bound to their key (``kdm.identity``):
when their process comes back (restarted, or after a lost network or a sleeping laptop) it asks for
the seat again, and the stand-in stops once the record gives it back.

No one takes a seat alone: at a signed table the leader's takeover carries the signed word of a quorum
of the other voters that the seat's process is silent (``kdm.record.TableRecord.silence_problem``). A
follower hears only its leader, so every seated process tells each voter it is alive (``ALIVE``) as often
as the leader looks at the seats; the leader asks the others (``ASK_WORD``), and each answers
(``WORD``) only if it has not heard that process for the silence limit itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import msgpack
from nacl.exceptions import CryptoError
from nacl.public import Box, PrivateKey, PublicKey

from kdm import entries
from kdm.agents import Bot, Profile
from kdm.deck import Deck, Knowledge, OpenDeck, PrivateNote
from kdm.driver import Clock, SystemClock, TableDriver
from kdm.engine import Duty, Owed, SeatView
from kdm.entries import (
    SILENT,
    WITHHELD,
    Act,
    Chat,
    Create,
    DeckPart,
    Done,
    Entry,
    EntryId,
    Join,
    Reveal,
    Start,
    Takeover,
)  # fmt: skip
from kdm.events import Event, TimedEvent
from kdm.fair.messages import (
    KEYS,
    OPEN,
    TURN,
    Reseal,
    ToLog,
    ToNext,
    ToSeat,
    ToTable,
    keys_payload,
    read_payload,
    read_sealed,
    read_turn,
    sealed_message,
    secrets_payload,
    turn_message,
)
from kdm.fair.table import deck_of_table
from kdm.identity import Identity
from kdm.manager import PluginInfo, Rules
from kdm.membership import voting_homes
from kdm.net.loops import every
from kdm.net.raft_messages import ConfChange
from kdm.notices import (
    Applied,
    Cheat,
    Created,
    NoteArrived,
    Notice,
    Rejected,
    Returned,
    Seated,
    Started,
    TookOver,
    Voided,
)
from kdm.record import NO_TABLE_YET, TableRecord, commitment

log = logging.getLogger("kdm.peer")
RETRY_S = 0.25
#: Private notes that arrive before this process has applied the entries they depend on, kept to retry.
MAX_EARLY_NOTES = 16
#: What ``Peer._unsealed`` says of a message it cannot read yet.
_EARLY = object()
#: A seated player's process silent this long is gone: the leader's process plays the seat instead.
#: Short, so that a seat that must act stands still at most 2 s (checked every quarter of it, plus the
#: stand-in's quick think): a player whose Wi-Fi only hiccuped gets the seat back as soon as heard.
TAKEOVER_AFTER_S = 1.2
#: How long a fair table waits for a seat's turn in a shuffle or its key for a card shown before it
#: takes the seat as withheld: a laptop's turn takes a few tens of ms, a slow Wi-Fi's a second.
KEY_TIMEOUT_S = 10.0
#: How far from the leader's clock a press's agreed time may be when it reaches the leader: a trip over
#: a poor Wi-Fi and the error of the clock estimate, with room to spare. A press further off is forged.
T_SYNC_BOUND_MS = 1000.0
#: The leader lets in at most this many chat lines from one node in ``CHAT_WINDOW_MS``: words are for
#: people, and a flood would only grow everyone's log.
CHAT_BURST, CHAT_WINDOW_MS = 5, 10_000.0
#: How long a new leader waits before holding presses to its clock: the others are still measuring it.
CLOCK_SETTLE_MS = 3000.0
#: How often a press due before this process knows the leader's clock looks again (pings go every 0.5 s).
CLOCK_WAIT_S = 0.05
#: A stand-in takes a seat that is already late: it thinks briefly, and reacts like a quick person.
STAND_IN = Profile(reaction_ms=250.0, reaction_spread_ms=40.0, think_ms=(100.0, 300.0))
#: Direct messages of the takeovers' word: a seated process is alive (to every voter, each time the seat
#: watcher looks), a would-be taker asks whether a seat is silent, a voter says it is (signed).
ALIVE, ASK_WORD, WORD = "alive", "silent?", "silent"
#: A wake-up of the seat watcher this late means this process itself was stopped (a sleeping laptop):
#: what it last heard is stale, so it takes no seat over before hearing the table again.
STALL_FACTOR = 2.0


class Consensus(Protocol):
    """What the peer needs from the consensus node (``kdm.net.node.Node``, or a fake in tests)."""

    node_id: str

    @property
    def is_leader(self) -> bool: ...

    def propose(self, data: bytes) -> bool: ...

    def agreed_time_ms(self) -> float: ...

    def silent_ms(self, node_id: str) -> float: ...

    def send_direct(self, to: str, data: bytes) -> None: ...


@dataclass
class Agent:
    """One seat played from this process: its identity in the record, its bot, its secret nonces."""

    identity: str
    name: str
    bot: Bot | None = None
    seat: int | None = None
    counter: int = 0
    nonces: dict[bytes, bytes] = field(default_factory=dict)  # commitment -> nonce
    owed: set[tuple[str, int]] = field(default_factory=set)
    #: The counter of each proposal that pays a debt in ``owed`` → that debt (owed again if refused).
    paying: dict[int, tuple[str, int]] = field(default_factory=dict)
    #: This seat's key for private notes: partners' notes are encrypted to it (PyNaCl ``Box``).
    box: PrivateKey = field(default_factory=PrivateKey.generate)
    #: A takeover or a return of this agent's is on its way to the log.
    asking: bool = False

    def fresh_commitment(self) -> bytes:
        """Commit to a new secret nonce, to be revealed at a later shuffle."""
        nonce = secrets.token_bytes(32)
        sealed = commitment(nonce)
        self.nonces[sealed] = nonce
        return sealed


@dataclass
class Word:
    """The voters' word gathered here for a takeover of one seat: its process, why, and each signer's
    [position, signature] (``kdm.entries.silence_statement``)."""

    node: str
    why: str
    name: str
    silence: dict[str, Any] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        return WITHHELD if self.why else SILENT


class Peer:
    """One node's membership of one table."""

    def __init__(
        self,
        node: Consensus,
        installed: dict[str, PluginInfo],
        name: str = "",
        bot: Bot | None = None,
        on_notice: Callable[[Notice], None] | None = None,
        identity: Identity | None = None,
        first_counter: int = 0,
        clock: Clock | None = None,
    ) -> None:
        self.node = node
        #: Where this process's entry counters start: a process that comes back as the same node (after a
        #: crash) starts past every counter it used before, or the table would take its new entries for
        #: retries of old ones.
        self.first_counter = first_counter
        # A real node (``kdm.net.node.Node``) knows its table and has keys; a test's fake may have
        # neither, and its table then checks no signature.
        keys = getattr(node, "keys", None)
        #: Signs this process's entries with its node's key (None over a network of fakes).
        self.sign: Callable[[bytes], bytes] | None = keys.sign if keys is not None else None
        table: str = getattr(node, "table", "")
        #: The player's key: their seat is bound to it (a key for this run only when none is given).
        self.identity = identity or Identity.ephemeral()
        #: True once this process took its player's seat back (after a restart or a lost network).
        self.rejoined = False
        #: For a bot a player started on their laptop: that player's node, which its join names (the
        #: laptop's one vote is the player's: ``kdm.membership``); "" for a laptop of its own.
        self.laptop = ""
        self.record = TableRecord(installed, table=table)
        self.record.check_claims = self._check_claims
        self.record.take_deck_part = self._take_deck_part
        self.record.show_keys = self._show_keys
        self.agents = [Agent(node.node_id, name or node.node_id, bot, counter=first_counter)]
        self.on_notice = on_notice
        #: The table's deck: the one its ``create`` says (``deck_of_table``), open until then.
        self.deck: Deck = OpenDeck()
        #: How many of the fair deck's findings (cheats named) were told already.
        self._findings_told = 0
        #: How long the leader lets the fair deck wait on a seat's part before a bot takes the seat.
        self.key_timeout_s = KEY_TIMEOUT_S
        self._withheld_since: dict[int, float] = {}
        #: How long a seat's process must be silent before it is taken over (``start``).
        self.takeover_after_s = TAKEOVER_AFTER_S
        #: The word gathered for each seat this process would take over, while it leads.
        self._words: dict[int, Word] = {}
        #: The one clock this process reads (``kdm.driver.Clock``): the real ones unless a host injects
        #: another; the driver, the screen and every press are timed on it.
        self.clock: Clock = clock if clock is not None else SystemClock(node.agreed_time_ms)
        self._driver: TableDriver | None = None
        #: Whether a person's screen paints this table (``screen_attached``).
        self.painted_by_screen = False
        self._bots_timer: asyncio.TimerHandle | None = None
        self.finished = asyncio.Event()
        self.latencies_ms: list[float] = []
        self._pending: dict[tuple[str, int], tuple[bytes, float, float]] = {}  # id -> data, first, last try
        #: The agreed time each pending press claims (``t_sync``), by id: one the leader would refuse as too
        #: old is refused for good, and not proposed again (``retry_pending``).
        self._press_times: dict[tuple[str, int], tuple[int | None, float]] = {}
        #: The id of this process's own join while it is on its way: one join per return, or the
        #: table hears "is back" twice, deals the round again twice and the second commitment voids the
        #: first one's reveal.
        self._joining: tuple[str, int] | None = None
        #: Since when this process has led, as its seat watcher saw (None: it does not lead), and since
        #: when it has led without being stopped or starved (``STALL_FACTOR``).
        self._led_since: float | None = None
        self._leading_since: float | None = None
        #: The last time this process found it had been stopped while leading: when it woke, and how
        #: long it had been stopped (ms).
        self._stalled: tuple[float, float] = (-math.inf, 0.0)
        #: When the leader let in each node's recent chat lines (at most ``CHAT_BURST`` kept per node).
        self._chatted: dict[str, list[float]] = {}
        self._timers: dict[tuple[str, int], asyncio.TimerHandle] = {}
        #: The seats' decisions this process answers for when their time is up, by (kind, ref).
        self._decisions: dict[tuple[str, int], asyncio.TimerHandle] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self._early_notes: list[tuple[str, bytes]] = []
        self._join_when_created = False
        #: Something was put off while this process was catching up (``_caught_up``).
        self._put_off = False

    @property
    def me(self) -> Agent:
        """The agent of this process's own player."""
        return self.agents[0]

    @property
    def seat(self) -> int | None:
        return self.me.seat

    @property
    def bot(self) -> Bot | None:
        return self.me.bot

    @property
    def driver(self) -> TableDriver | None:
        """The table driver, once there is a table (its engine is made by the ``create`` entry)."""
        engine = self.record.engine
        if engine is None:
            return None
        if self._driver is None or self._driver.engine is not engine:
            self._driver = TableDriver(
                engine, self.deck, self.clock, self._bots_by_seat(), painted_by_screen=self.painted_by_screen
            )
        return self._driver

    def screen_attached(self) -> None:
        """A person's screen shows this table from now on: an event is shown when a redraw paints it
        (``TableDriver.show``), not when it is applied."""
        self.painted_by_screen = True
        if self._driver is not None:
            self._driver.painted_by_screen = True

    def _seats_here(self) -> set[int]:
        """The seats this process acts for now (its player's, a stand-in's)."""
        seats = self.record.seats
        return {
            agent.seat
            for agent in self.agents
            if agent.seat is not None and agent.seat < len(seats) and seats[agent.seat].node == agent.identity
        }

    def _bots_by_seat(self) -> dict[int, Bot]:
        """The bots this process runs, by the seat each plays."""
        return {
            agent.seat: agent.bot for agent in self.agents if agent.bot is not None and agent.seat is not None
        }

    # --- proposing -------------------------------------------------------------------------------

    def start(self, takeover_after_s: float | None = TAKEOVER_AFTER_S) -> None:
        """Begin retrying unconfirmed proposals and, when leading, taking over the seats of players
        silent for ``takeover_after_s`` (call on the running loop)."""
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._retry_forever())]
        self.takeover_after_s = takeover_after_s or TAKEOVER_AFTER_S
        if takeover_after_s is not None:
            self._tasks.append(loop.create_task(self._watch_seats(takeover_after_s)))

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        if self._bots_timer is not None:
            self._bots_timer.cancel()
        for timer in [*self._timers.values(), *self._decisions.values()]:
            timer.cancel()

    def _check_claims(self, event: Event) -> str | None:
        """Whether ``event`` shows the faces the deck dealt (``OpenDeck.false_claim``)."""
        engine = self.record.engine
        return None if engine is None else self.deck.false_claim(engine, event)

    @property
    def table(self) -> str:
        """The table's id, which a seat claim names and entries are signed for; known from the start
        to a process started for a table, else from the first ``create_table`` or ``join_table``."""
        return self.record.table

    @table.setter
    def table(self, table: str) -> None:
        self.record.table = table

    def propose(self, entry_type: type[Entry], agent: Agent | None = None, **fields: Any) -> tuple[str, int]:
        """Propose an entry of ``entry_type`` with these fields, from ``agent`` (default: the player);
        returns its id."""
        agent = agent or self.me
        agent.counter += 1
        entry = entry_type(EntryId(agent.identity, agent.counter), **fields)
        data = entries.encode(entry, self.sign, self.table)
        now = self.clock.local_ms()
        key = (agent.identity, agent.counter)
        self._pending[key] = (data, now, now)
        self.node.propose(data)
        return key

    def screen_proposal(self, sender: str, data: bytes) -> str | None:
        """Why the leader's node drops an entry forwarded by ``sender``, or None to let it in: a first
        filter. The record checks every entry's signature and rules on apply, the leader's own entries
        too, and with them what can be decided from the log alone (a seatless node's entries, one
        node's share of chat lines, a takeover's word); what stays here only the leader can judge. A
        node without a seat may propose its own join only; a seated one what its seats do, but no
        takeover (the leader's alone) and no press whose agreed time is further from the leader's
        clock than ``T_SYNC_BOUND_MS``."""
        try:
            entry = entries.decode(data)
        except ValueError as error:
            return f"not an entry: {error}"
        judged = (entry.id.node, entry.id.counter)
        if judged in self.record.applied_ids or judged in self.record.refused_ids:
            # A proposer far behind the log retries what it has not seen committed yet: a copy.
            return "already in the log (a proposal retried)"
        if not any(
            seat.node.partition("#")[0] == sender or seat.home == sender for seat in self.record.seats
        ):
            if isinstance(entry, Join) and entries.author_node(entry) == sender:
                return None
            return "a node without a seat proposes nothing but its own join"
        if isinstance(entry, Takeover):
            return "only the leader takes a seat over"
        if isinstance(entry, Act):
            return self._screen_time(entry)
        if isinstance(entry, Chat):
            return self._screen_chat(sender)
        return None

    def _screen_chat(self, sender: str) -> str | None:
        now = self.clock.local_ms()
        recent = [t for t in self._chatted.get(sender, []) if now - t < CHAT_WINDOW_MS]
        if len(recent) >= CHAT_BURST:
            return f"more than {CHAT_BURST} chat lines in {CHAT_WINDOW_MS / 1000:.0f} s"
        self._chatted[sender] = [*recent, now]
        return None

    def _screen_time(self, act: Act) -> str | None:
        """A press stamps its time on the leader's clock as its process estimates it (``t_sync``); it
        reaches the leader a network trip later. A claim further off than that is forged: refused,
        unless this process has led too briefly for the others to know its clock. Just after this
        process was stopped, presses made meanwhile reach it as late as it was stopped long: for a
        while, it takes presses that much older (and no older: a stop is no open door)."""
        engine = self.record.engine
        if engine is None or self._led_since is None:
            return None
        now = self.clock.local_ms()
        if now - self._led_since < CLOCK_SETTLE_MS:
            return None
        try:
            event = engine.rules.codec.decode(act.event)
        except Exception:  # the record refuses it on apply, with its reason, the same on every peer
            return None
        if not isinstance(event, TimedEvent) or not math.isfinite(event.t_sync):
            return None
        off = event.t_sync - self.clock.agreed_ms()
        woke, stopped_ms = self._stalled
        bound = T_SYNC_BOUND_MS + (stopped_ms if off < 0 and now - woke < CLOCK_SETTLE_MS else 0.0)
        if abs(off) > bound:
            return f"a press timed {off:+.0f} ms from the leader's clock (at most {bound:.0f} ms off)"
        return None

    async def _retry_forever(self) -> None:
        def look() -> None:
            if self._put_off and not self.behind():
                # Caught up on an entry the peer is not handed (a membership change, a new leader's
                # empty entry): what was put off is done now, or a bot whose turn it is would sleep on.
                self._caught_up()
            self.retry_pending(self.clock.local_ms())

        await every(RETRY_S, look, "retrying proposals")

    def retry_pending(self, now: float) -> None:
        """Propose again every entry not seen committed for ``RETRY_S`` (a leader can fail), but a press
        now further from the agreed clock than the leader takes (``T_SYNC_BOUND_MS``): that refusal is
        final, and proposing it again only made it older (a restarted player's process retried one
        for 400 s). Its bot thinks again instead."""
        agreed = self.clock.agreed_ms() - (self.clock.local_ms() - now)  # ``now`` on the agreed clock
        for key, (data, first, last) in list(self._pending.items()):
            if now - last < RETRY_S * 1000:
                continue
            if key in self._press_times:
                seat, t_sync = self._press_times[key]
                off = t_sync - agreed
                if abs(off) > T_SYNC_BOUND_MS:
                    del self._pending[key], self._press_times[key]
                    log.warning(
                        "a press of seat %s, timed %+.0f ms from the agreed clock, is too old for the leader"
                        " to take: not proposed again", seat, off,
                    )  # fmt: skip
                    if seat is not None:
                        self._wake_bots([seat])
                    continue
            self._pending[key] = (data, first, now)
            self.node.propose(data)

    def create_table(
        self,
        table: str,
        players: int,
        options: dict[str, Any],
        rules: Rules,
        listed: bool = True,
        deck: str = "open",
    ) -> None:
        """Propose the table (the host does this once), then take the first seat. A ``listed`` table is
        advertised on the LAN by its leader; its ``deck`` is ``open`` or ``fair`` (DESIGN 7)."""
        self.table = self.table or self.node.node_id  # a table's id is its founder's node id
        self.propose(
            Create,
            name=table,
            players=players,
            options=options,
            plugins=rules.versions,
            listed=listed,
            deck=deck,
        )
        self.join_table(self.table)

    def join_table(self, table: str = "") -> None:
        """Ask for a seat at ``table`` (its id) for this process's player: a free one, or theirs again.

        With no table id (tests over a fake log), the seat is taken without a claim and cannot be
        taken back after a restart.
        """
        self.table = table or self.table
        me = self.me
        claim: dict[str, Any] = {}
        if self.table:
            claim = {
                "player": self.identity.public_key,
                "claim": self.identity.seat_claim(self.table, me.identity),
            }
        self._joining = self.propose(
            Join,
            name=me.name,
            bot=me.bot is not None,
            commit=me.fresh_commitment(),
            box_key=bytes(me.box.public_key),
            laptop=self.laptop,
            **claim,
        )

    def start_game(self) -> None:
        self.propose(Start)

    def act(self, event: Event, agent: Agent | None = None) -> None:
        """Propose a player action (stamped by the caller when it is timed). With the fair deck, an
        action that names faces carries the keys that show them (``FairDeck.keys_for``)."""
        agent = agent or self.me
        fields: dict[str, Any] = {"event": self.record.rules.codec.encode(event)}
        if agent.seat is not None and self.record.terms.takes_parts:  # an open deck shows no keys
            claimed = self.record.rules.hooks.claimed_faces(event=event)
            keys = self.deck.keys_for(agent.seat, claimed)
            if keys:
                fields["keys"] = keys
        key = self.propose(Act, agent, **fields)
        if isinstance(event, TimedEvent) and math.isfinite(event.t_sync):
            self._press_times[key] = (agent.seat, event.t_sync)

    def say(self, text: str) -> None:
        """Say ``text`` to the whole table from this player's seat (the record refuses a line the rules
        or its form do not allow, with the reason)."""
        if self.seat is not None:
            self.propose(Chat, seat=self.seat, text=text)

    def take_over(
        self, seat: int, bot: Bot, name: str = "", why: str = "", silence: dict[str, Any] | None = None
    ) -> None:
        """Play ``seat`` from here with ``bot``: its player's process is gone (or, ``why``, it withheld
        its keys from the fair deck), as ``silence`` says, the voters' word a signed table asks for
        (``take_over_with_word`` gathers it)."""
        identity = f"{self.node.node_id}#{seat}"
        agent = self._agent(identity)
        if agent is not None and (agent.seat is not None or agent.asking):
            return
        log.warning("seat %d (%s) %s: a bot plays it from here", seat, name or "?", why or "is silent")
        if agent is None:
            # Kept after the player comes back: its entry counter must go on if it stands in again.
            agent = Agent(identity, f"bot for seat {seat}", bot, counter=self.first_counter)
            self.agents.append(agent)
        agent.bot, agent.asking = bot, True
        self.propose(
            Takeover,
            agent,
            seat=seat,
            commit=agent.fresh_commitment(),
            box_key=bytes(agent.box.public_key),
            why=why,
            silence=silence or {},
        )

    def take_over_with_word(self, seat: int, name: str, why: str = "") -> None:
        """Take ``seat`` over once a quorum of the other voters has said its process is silent (or, with
        ``why``, withheld its keys): this process's own word if it votes, and the others' asked for
        again at each look until enough came (``_heard_word``). At a table of fakes, which signs
        nothing, at once."""
        if self.sign is None or not self.record.signed:
            self.take_over(seat, self._stand_in(seat), name, why)
            return
        agent = self._agent(f"{self.node.node_id}#{seat}")
        if agent is not None and (agent.seat is not None or agent.asking):
            return
        record, me = self.record, self.node.node_id
        node = record.seats[seat].process
        word = self._words.get(seat)
        if word is None or (word.node, word.why) != (node, why):
            word = self._words[seat] = Word(node, why, name)
        mine = self._my_word(seat, node, word.kind)
        if mine is not None and me in record.silence_voters(seat):
            word.silence[me] = mine
        if not self._enough_word(seat, word):
            asking = msgpack.packb({"t": ASK_WORD, "seat": seat, "node": node, "why": word.kind})
            for voter in record.silence_voters(seat):
                if voter != me:
                    self.node.send_direct(voter, asking)

    def _enough_word(self, seat: int, word: Word) -> bool:
        """Take the seat over if ``word`` is enough for the record; whether it was."""
        if self.record.silence_problem(seat, word.why, word.silence) is not None:
            return False
        del self._words[seat]
        self.take_over(seat, self._stand_in(seat), word.name, word.why, dict(word.silence))
        return True

    def _stand_in(self, seat: int) -> Bot:
        return Bot(seat, "greedy", seed=self.node.node_id.encode(), profile=STAND_IN)

    def _my_word(self, seat: int, node: str, kind: str) -> list[Any] | None:
        """This process's signed word that ``seat``'s process ``node`` is ``kind`` ([position,
        signature]), or None when it cannot say so: it heard that process within the silence limit
        (or its deck has not waited on that seat's keys so long), or it was itself stopped or is
        catching up, when everyone looks silent to it."""
        seats, limit_ms = self.record.seats, self.takeover_after_s * 1000
        if self.sign is None or self.behind() or not 0 <= seat < len(seats) or seats[seat].process != node:
            return None
        if node == self.node.node_id:
            return None
        awake_ms: Callable[[], float] | None = getattr(self.node, "awake_ms", None)
        if kind == SILENT:
            said = self.node.silent_ms(node) > limit_ms and (awake_ms is None or awake_ms() > limit_ms)
        else:
            since = self._withheld_since.get(seat)
            waited_ms = self.clock.local_ms() - since if since is not None else 0.0
            said = kind == WITHHELD and since is not None and waited_ms > self.key_timeout_s * 1000
        if not said:
            return None
        position, hand = self.record.position, seats[seat].commitment
        return [position, self.sign(entries.silence_statement(self.table, seat, node, hand, position, kind))]

    def _answer_word(self, sender: str, body: dict[str, Any]) -> None:
        """``sender`` asks whether a seat's process is silent: the signed word if it is here, else
        nothing (a leader that takes a live seat over gets no word from an honest voter)."""
        seat, node, kind = body["seat"], body["node"], body["why"]
        if not (isinstance(seat, int) and isinstance(node, str) and kind in (SILENT, WITHHELD)):
            raise ValueError("an ask for word of the wrong types")
        mine = self._my_word(seat, node, kind)
        if mine is None:
            log.info("%s asked whether seat %s (%s) is %s: not as heard from here", sender, seat, node, kind)
            return
        said = {"t": WORD, "seat": seat, "node": node, "why": kind, "word": mine}
        self.node.send_direct(sender, msgpack.packb(said, use_bin_type=True))

    def _heard_word(self, sender: str, body: dict[str, Any]) -> None:
        """A voter's word on a seat this process asked about: kept if it is the word asked for and
        signed by its sender, and the seat taken over once there is enough."""
        seat, node, kind, said = body["seat"], body["node"], body["why"], body["word"]
        word = self._words.get(seat) if isinstance(seat, int) else None
        if word is None or (word.node, word.kind) != (node, kind) or not self.node.is_leader:
            return  # asked about long ago, or no longer wanted: the seat is taken, or its process heard
        if not (isinstance(said, list) and len(said) == 2 and isinstance(said[0], int)):
            raise ValueError("a word that is not [position, signature]")
        hand = self.record.seats[seat].commitment
        if not entries.silence_signed_by(sender, said[1], self.table, seat, node, hand, said[0], kind):
            raise ValueError(f"a word on seat {seat} not signed by its sender for the seat as it stands here")
        word.silence[sender] = said
        self._enough_word(seat, word)

    def _say_alive(self) -> None:
        """Tell every voter this process is alive: a follower hears only its leader otherwise, and
        could not say whether this process is silent (``_my_word``). Only at a signed table, where a
        takeover needs the voters' word."""
        record, me = self.record, self.node.node_id
        if not record.signed or not record.sits(me):
            return
        alive = msgpack.packb({"t": ALIVE})
        for voter in dict.fromkeys(voting_homes(record.seats)):
            if voter != me:
                self.node.send_direct(voter, alive)

    async def _watch_seats(self, after_s: float) -> None:
        loop = asyncio.get_running_loop()
        woke = loop.time()

        def look() -> None:
            nonlocal woke
            slept_s, woke = loop.time() - woke, loop.time()
            self._say_alive()
            self._look_at_seats(after_s, slept_s > STALL_FACTOR * after_s / 4, slept_s * 1000)

        await every(after_s / 4, look, "looking for silent seats")

    def _look_at_seats(self, after_s: float, late: bool, slept_ms: float = 0.0) -> None:
        """While leading, a bot takes every seat whose process has been silent past ``after_s`` (not
        when this process itself was ``late``, ``slept_ms`` since the last look: stopped or starved,
        it cannot tell who was silent; nor before it has led for ``after_s``: as a follower it heard
        only its leader, so every other process looks silent to it until they answer its first
        heartbeats; the seat of the leader it followed, which it heard to the end, is taken as soon as
        that one is silent past ``after_s``, so that a dead leader's seat waits no longer than any
        other)."""
        self._deck_work()  # keys that never came are asked for after a while, the table quiet or not
        # every voter may be asked whether a seat withheld its keys
        self._track_withheld(self.clock.local_ms())
        if not self.node.is_leader:
            self._leading_since = self._led_since = None
            self._forget_takeovers()
            return
        now = self.clock.local_ms()
        if self._led_since is None:
            self._led_since = now
        if self._leading_since is None or late:
            self._leading_since = now
        if late:
            self._stalled = (now, slept_ms)
        record, engine = self.record, self.record.engine
        if late or not (record.started and engine is not None):
            return
        settling = now - self._leading_since < after_s * 1000
        for seat, owner in enumerate(record.seats):
            process = owner.process
            if settling and process != getattr(self.node, "followed", None):
                continue  # but the leader it followed: it heard that one, and knows how long it is silent
            if engine.over and owner.node in record.done:
                continue  # after the game, a seat is taken over only to say it is done
            if process != self.node.node_id and self.node.silent_ms(process) > after_s * 1000:
                self.take_over_with_word(seat, owner.name)
        self._look_for_withheld_keys(now)

    def _track_withheld(self, now: float) -> None:
        """Since when a fair deck has waited on each seat's part (a turn in a shuffle, a key for a card
        shown), as seen here: the leader takes a seat that withholds its keys, and a voter asked says
        whether it has waited as long."""
        engine, deck = self.record.engine, self.deck
        if engine is None or engine.over or not self.record.started:
            self._withheld_since.clear()
            return
        waiting = deck.waiting_on(engine.state, engine.awaiting()) - self._seats_here()
        self._withheld_since = {seat: self._withheld_since.get(seat, now) for seat in waiting}

    def _look_for_withheld_keys(self, now: float) -> None:
        """While leading a fair table: a seat the deck has waited on for ``key_timeout_s`` withholds its
        keys, and a bot plays it from here (the round it held up is played again: ``kdm.record``)."""
        for seat, since in self._withheld_since.items():
            owner = self.record.seats[seat]
            if now - since > self.key_timeout_s * 1000 and owner.process != self.node.node_id:
                self.take_over_with_word(
                    seat, owner.name, why=f"withheld its keys for {self.key_timeout_s:g} s"
                )

    def _forget_takeovers(self) -> None:
        """A takeover asked for while leading is not retried once another process leads: this one may
        have judged the others silent only because it was itself cut off or stopped."""
        self._words.clear()
        for agent in self.agents[1:]:
            if agent.asking and agent.seat is None:
                agent.asking = False
                for key in [key for key in self._pending if key[0] == agent.identity]:
                    del self._pending[key]

    # --- committed entries -----------------------------------------------------------------------

    def committed(self, data: bytes) -> None:
        """Apply one committed entry, in log order."""
        try:
            entry = msgpack.unpackb(data, raw=False, strict_map_key=True)
        except Exception as error:  # a committed entry is replicated: everyone drops it the same way
            log.warning("dropped a committed entry that is not msgpack: %s", error)
            return
        ident = entry.get("id") if isinstance(entry, dict) else None
        paid: tuple[Agent, tuple[str, int]] | None = None
        if isinstance(ident, list) and len(ident) == 2 and isinstance(ident[0], str):
            sent = self._pending.pop((ident[0], ident[1]), None) if isinstance(ident[1], int) else None
            if sent is not None:
                self._press_times.pop((ident[0], ident[1]), None)
            if sent is not None and entry.get("t") == Act.TYPE:
                # Game actions only: joins wait for membership changes, which is not play.
                self.latencies_ms.append(self.clock.local_ms() - sent[1])
            author = self._agent(ident[0])
            debt = author.paying.pop(ident[1], None) if author is not None else None
            paid = (author, debt) if author is not None and debt is not None else None
        notices = self.record.apply(entry)
        for notice in notices:
            self._handle(notice)
        if paid is not None and any(isinstance(notice, Rejected) for notice in notices):
            # A refused reveal is owed again: the next one may be right. Only that one: another of
            # the seat's entries refused meanwhile (a slap too late) says nothing of a reveal on its
            # way, which would then be proposed twice.
            paid[0].owed.discard(paid[1])
        if self.behind():
            self._put_off = True  # the duties this state owes, and the bots' plans
        else:
            self._caught_up()
            self._owe_duties()
            self._deck_work()
        early, self._early_notes = self._early_notes, []
        for sender, note in early:
            self.received_direct(sender, note)

    def membership_changed(self, change: ConfChange) -> None:
        """A committed membership change (``Node.on_membership``), handed to the record in log order."""
        self.record.membership_changed(change.kind, change.node_id, change.voters)

    def _agent(self, identity: str) -> Agent | None:
        return next((agent for agent in self.agents if agent.identity == identity), None)

    def _handle(self, notice: Notice) -> None:
        mine = self._agent(notice.node)
        if isinstance(notice, Created):
            self.deck = deck_of_table(self.record, self.clock.local_ms)
        if isinstance(notice, (Seated | TookOver | Returned)) and notice.seat is not None:
            self._seat_changed_hands(notice.seat, mine)
            engine = self.record.engine
            if mine is not None and mine.seat is not None and engine is not None and engine.over:
                # Every seat says it is done, and the table ends once all have: the seat came here
                # after the game's end (its player back, or a stand-in for a player gone before).
                self.propose(Done, mine)
            if isinstance(notice, Returned) and mine is self.me and notice.previous:
                self.rejoined = True
            if not isinstance(notice, Seated):
                self._pass_notes_on(notice.seat)
        elif isinstance(notice, Rejected) and notice.code == NO_TABLE_YET and mine is self.me:
            # Our join reached the log before the founder's create (it asked "which table?" early):
            # ask again once the table exists.
            log.info("entry from %s refused: %s; asking again once it exists", notice.node, notice.reason)
            self._join_when_created = True
        elif isinstance(notice, Rejected):
            level = logging.WARNING if mine is not None else logging.INFO
            log.log(level, "entry from %s refused: %s", notice.node or "?", notice.reason)
            if mine is not None:
                mine.asking = False
                if mine.bot is not None and mine.seat is not None:
                    self._wake_bots([mine.seat])  # the table moved on: think again
        elif isinstance(notice, Voided):
            log.warning("%s", notice.reason)
            engine = self.record.engine
            if engine is not None:
                self.deck.here = self._seats_here()
                self.deck.voided(engine.state)
            if self.driver is not None:
                for seat in list(self.driver.plans):
                    self.driver.cancel(seat)
        elif isinstance(notice, Created) and self._join_when_created:
            self._join_when_created = False
            self.join_table()
        elif isinstance(notice, Applied):
            driver = self.driver
            assert driver is not None  # an event was applied: there is a table
            if notice.event is not None:
                self.deck.applied(notice.event, notice.seq)
            concerned = driver.applied(notice.seq, notice.effects)
            if any(effect["kind"] == "game_over" for effect in notice.effects):
                self._deck_work()  # a fair deck's secrets for the last audits go before the seats' done
                for agent in self.agents:
                    if agent.seat is not None:
                        self.propose(Done, agent)
        record = self.record
        if (
            record.engine is not None
            and record.engine.over
            and all(s.node in record.done for s in record.seats)
        ):
            self.finished.set()
        if self.on_notice is not None:
            self.on_notice(notice)
        if isinstance(notice, Applied):
            self._wake_bots(concerned)
        elif isinstance(notice, (Started | TookOver | Returned | Voided)):
            self._wake_bots()

    def _seat_changed_hands(self, seat: int, now: Agent | None) -> None:
        """``now`` (an agent of this process, or None) acts for ``seat`` from here on; any other agent of
        this process that did stops. This process's player, displaced by a stand-in, asks for the seat
        back at once: if they are reading this, their process is alive. Displaced by another process of
        theirs (started again while this one still ran), they leave the seat to it: the newest wins."""
        taken = self.record.seats[seat]
        self._words.pop(seat, None)  # the word was on the process that played it
        for agent in self.agents:
            if agent.seat == seat and agent is not now:
                agent.seat = None
                if self.driver is not None:
                    self.driver.cancel(seat)
                if agent is self.me and taken.away and taken.player == self.identity.public_key:
                    self._take_the_seat_back(seat)
        if now is not None:
            now.seat, now.asking = seat, False
            if now.bot is not None:
                now.bot.seat = seat
        driver = self.driver
        if driver is not None:  # the bots this process runs change only here
            driver.bots = self._bots_by_seat()
        self.deck.here = self._seats_here()

    # --- duties the table owes -------------------------------------------------------------------

    def view(self, agent: Agent | None = None) -> SeatView | None:
        agent = agent or self.me
        engine = self.record.engine
        if engine is None or agent.seat is None or not self.record.started:
            return None
        return engine.view(agent.seat, self.deck.knowledge(engine.state, agent.seat))

    def public_view(self) -> SeatView | None:
        """What a spectator sees: the public table and no hand (``seat`` -1: nobody's)."""
        engine = self.record.engine
        if engine is None or not self.record.started:
            return None
        return replace(engine.view(0, Knowledge()), seat=-1, hand=())

    def _owe_duties(self) -> None:
        engine, record = self.record.engine, self.record
        if engine is None or not record.started or engine.over:
            return
        for duty in engine.awaiting():
            if duty.owed_as is Owed.TIMER:
                self._owe_timer(duty)  # Close, a table-called GO: the leader proposes them on time
                continue
            for agent in self.agents:
                if agent.seat is not None and record.seats[agent.seat].node == agent.identity:
                    self._owe(agent, duty)

    def _owe_timer(self, duty: Duty) -> None:
        # Every process notes when it first awaited the timer (a screen counts down to it); the leader
        # proposes its event then. A new leader keeps the time it noted, so a timer is not restarted
        # by a change of leader.
        driver = self.driver
        assert driver is not None
        due = driver.timer_due(duty)
        key = (duty.kind, duty.ref)
        if self.node.is_leader and key not in self._timers:
            delay = max(0.0, due - self.clock.local_ms()) / 1000.0
            self._timers[key] = asyncio.get_running_loop().call_later(delay, self._fire_timer, key)

    def _owe(self, agent: Agent, duty: Duty) -> None:
        engine, record = self.record.engine, self.record
        assert engine is not None and agent.seat is not None
        state = engine.state
        if duty.owed_as is Owed.SEED:
            key = ("reveal", record.shuffles)
            if agent.identity in record.reveals or key in agent.owed:
                return
            nonce = agent.nonces.get(record.seats[agent.seat].commitment)
            if nonce is None:
                log.error("seat %s: no nonce for its commitment; the table waits for it", agent.seat)
                return
            agent.owed.add(key)
            self.propose(
                Reveal, agent, shuffle=record.shuffles, nonce=nonce, next_commit=agent.fresh_commitment()
            )
            agent.paying[agent.counter] = key
        elif duty.owed_as is Owed.DECISION and duty.seat == agent.seat:
            # The seat's own decision, with a deadline (a choice the rules give a seat time for): its
            # player (a person at the screen, its bot) has until then; then this process answers for
            # the seat as the game says (kdm_reveal), if the table still waits for it.
            key = (duty.kind, duty.ref)
            if key in self._decisions:
                return
            driver = self.driver
            assert driver is not None
            delay = max(0.0, driver.timer_due(duty) - self.clock.local_ms()) / 1000.0
            self._decisions[key] = asyncio.get_running_loop().call_later(
                delay, self._decide_for_seat, agent, duty
            )
        elif duty.seat in (None, agent.seat):
            # A reveal: what the game builds from the faces known here (kdm_reveal). A duty of nobody's
            # in particular (who holds the Queen of hearts?) is the business of the seat it names.
            key = (duty.kind, state.seq)
            if key in agent.owed:
                return
            driver = self.driver
            event = driver.fulfil(duty) if driver is not None else None
            if event is not None and getattr(event, "seat", None) == agent.seat:
                agent.owed.add(key)
                self.act(event, agent)
                agent.paying[agent.counter] = key

    def _decide_for_seat(self, agent: Agent, duty: Duty) -> None:
        """Time is up for the seat's decision ``duty``: answer as the game says, if it is still awaited
        from the seat this agent still plays."""
        engine, driver = self.record.engine, self.driver
        if engine is None or driver is None or agent.seat != duty.seat:
            return
        awaited = [(d.kind, d.seat, d.ref) for d in engine.awaiting()]
        if (duty.kind, duty.seat, duty.ref) not in awaited:
            return
        event = driver.fulfil(duty)
        if event is not None:
            self.act(event, agent)

    def _fire_timer(self, key: tuple[str, int]) -> None:
        kind, ref = key
        engine = self.record.engine
        if engine is not None and any(
            d.kind == kind and d.ref == ref and d.seat is None for d in engine.awaiting()
        ):
            self.act(self.record.rules.codec.decode({"kind": kind}))

    # --- the fair deck ---------------------------------------------------------------------------

    def _take_deck_part(self, part: DeckPart, seat: int) -> str | None:
        """A committed part of the fair deck, taken by the deck (the same way on every peer)."""
        deck = self.deck
        answers: list[tuple[int, int, bytes]] = []
        if part.step == "sealed":
            with contextlib.suppress(ValueError):  # the deck says why it refuses them
                answers = deck.sealed_for(seat, part.tokens, part.keys)
        problem = deck.committed(part, seat)
        if problem is None:
            for token, asker, sealed in answers:
                self._open_sealed_key(seat, asker, token, sealed)
        return problem

    def _open_sealed_key(self, owner: int, asker: int, token: int, sealed: bytes) -> None:
        """A key seat ``owner`` gave in the log, sealed to seat ``asker``: read if ``asker`` is played
        here (``FairDeck.received`` checks it, and names ``owner`` if it is false)."""
        agent = next((a for a in self.agents if a.seat == asker), None)
        seats, deck = self.record.seats, self.deck
        if agent is None:
            return
        try:
            key = Box(agent.box, PublicKey(seats[owner].box_key)).decrypt(sealed)
        except CryptoError:
            key = b""  # not sealed for us: as false as a wrong key
        deck.received(ToSeat(owner, asker, {token: {owner: key}}))

    def _show_keys(self, seat: int, keys: bytes) -> str | None:
        return self.deck.show_keys(seat, keys)

    def _deck_work(self) -> None:
        """What the fair deck owes from the seats played here: parts for the log, keys for other seats."""
        deck, engine = self.deck, self.record.engine
        if engine is None or not self.record.started or self.behind():
            return
        deck.here = self._seats_here()
        for item in deck.work(engine.state, [] if engine.over else engine.awaiting(), self.clock.local_ms()):
            seat = item.seat if isinstance(item, ToLog) else item.sender
            agent = next((a for a in self.agents if a.seat == seat), None)
            if agent is None:
                continue
            if isinstance(item, ToLog):
                self.propose(DeckPart, agent, seat=seat, **item.fields)
            elif isinstance(item, ToNext):  # public (the log gets it too): no need to seal it
                self.node.send_direct(self.record.seats[item.to].process, turn_message(item))
            elif isinstance(item, Reseal):  # keys asked for in the log: given there, sealed to the asker
                box = Box(agent.box, PublicKey(self.record.seats[item.to].box_key))
                sealed = deck.sealed_part(item, box.encrypt)
                self.propose(DeckPart, agent, seat=seat, **sealed)
            elif isinstance(item, ToSeat):
                self._send_deck_message(KEYS, agent, item.to, keys_payload(item.keys))
            else:  # secrets for an audit: once to every other process at the table
                reached = {self.node.node_id}
                for seat_to, taken in enumerate(self.record.seats):
                    process = taken.process
                    if process not in reached:
                        reached.add(process)
                        self._send_deck_message(OPEN, agent, seat_to, secrets_payload(item))
        self._tell_findings()

    def _send_deck_message(self, kind: str, agent: Agent, to: int, payload: bytes) -> None:
        """A fair deck's message from ``agent``'s seat to seat ``to`` (keys for cards it may read, or
        secrets for an audit), sealed to that seat, straight to its process."""
        seats = self.record.seats
        if not seats[to].box_key or agent.seat is None:
            log.warning("seat %d has no key for private messages: the fair deck cannot reach it", to)
            return
        sealed = Box(agent.box, PublicKey(seats[to].box_key)).encrypt(payload)
        self.node.send_direct(seats[to].process, sealed_message(kind, agent.seat, to, bytes(sealed)))

    def _received_keys(self, sender: str, body: dict[str, Any], data: bytes) -> None:
        """A fair deck's message from another seat's process to a seat played here (keys, or secrets
        for an audit: ``_send_deck_message``); dropped, with the reason, when it is not from the process
        that plays the seat it says, or does not open."""
        deck = self.deck
        try:
            message = read_sealed(body)
            raw = self._unsealed(sender, data, message.sender, message.to, message.box)
            if raw is _EARLY:
                return
            said = read_payload(message, raw)
        except (
            ValueError,
            KeyError,
            TypeError,
            AttributeError,
            CryptoError,
            msgpack.UnpackException,
        ) as error:
            log.warning("dropped a fair deck's message from %s: %s", sender, error)
            return
        if isinstance(said, ToTable):
            problem = deck.opened(said)
            if problem:
                log.warning("dropped seat %d's secrets from %s: %s", said.sender, sender, problem)
            self._tell_findings()
            return
        learnt = deck.received(said)
        self._tell_findings()
        if learnt:
            self._owe_duties()
            self._deck_work()
            if self.on_notice is not None:
                self.on_notice(NoteArrived(seat=said.to))
            self._wake_bots(learnt)

    def _received_turn(self, sender: str, body: dict[str, Any]) -> None:
        """A turn in a shuffle handed straight here by the seat before (``ToNext``): our seat takes its
        turn on it at once. Dropped, with the reason, if its sender does not play that seat."""
        seats = self.record.seats
        try:
            turn = read_turn(body, len(seats))
            if seats[turn.sender].process != sender:
                raise ValueError(f"it does not play seat {turn.sender}")
        except ValueError as error:
            log.warning("dropped a turn from %s: %s", sender, error)
            return
        problem = self.deck.ahead(turn)
        if problem is not None:
            log.info("a turn from %s waits for the log: %s", sender, problem)
            return
        self._deck_work()

    def _tell_findings(self) -> None:
        """Say each cheat the fair deck caught, once."""
        deck = self.deck
        for finding in deck.findings[self._findings_told :]:
            if self.on_notice is not None:
                self.on_notice(Cheat(seat=finding.seat, reason=finding.reason))
        self._findings_told = len(deck.findings)

    # --- private notes ---------------------------------------------------------------------------

    def send_note(self, note: PrivateNote, agent: Agent | None = None) -> None:
        """Send a note from this process's seat straight to the process of seat ``note.to``: never
        through the log, never to anyone else, and encrypted to that seat's key (its join entry's
        ``box_key``), so that nobody who listens on the LAN can read it."""
        agent = agent or self.me
        if agent.seat != note.sender or not 0 <= note.to < len(self.record.seats):
            log.warning("a note from seat %s to seat %s is not this player's to send", note.sender, note.to)
            return
        refusal = self.driver.note_refused(note) if self.driver is not None else None
        if refusal:
            log.warning("did not send a private note to seat %d: %s", note.to, refusal)
            return
        self._keep_note(note)
        self._send_sealed(note, agent, note.to)

    def _send_sealed(self, note: PrivateNote, agent: Agent, to_seat: int) -> None:
        """``note``, between ``agent``'s seat and ``to_seat``, sealed from one to the other."""
        seats = self.record.seats
        process = seats[to_seat].process
        if process == self.node.node_id:
            return  # kept here already: this process plays both seats
        if not seats[to_seat].box_key:
            log.warning("seat %d has no key for private notes: the note stays here", to_seat)
            return
        sealed = Box(agent.box, PublicKey(seats[to_seat].box_key)).encrypt(
            msgpack.packb(dict(note.data), use_bin_type=True)
        )
        body = {"sender": note.sender, "to": note.to, "via": agent.seat, "box": bytes(sealed)}
        self.node.send_direct(process, msgpack.packb(body, use_bin_type=True))

    def _pass_notes_on(self, seat: int) -> None:
        """``seat``'s player is back (a new process, or one that lost what it knew): the notes between it
        and a seat played here go to them again, so that a team's sign survives a dropped laptop.

        Not to a bot standing in: it runs in the leader's process, maybe an opponent's, which must not
        learn what partners agreed. (A stand-in in a partner's process knows their notes already.)"""
        if self.record.seats[seat].away:
            return
        for agent in self.agents:
            if agent.seat is None or agent.seat == seat:
                continue
            for note in self.deck.notes.get(agent.seat, ()):
                if {note.sender, note.to} == {agent.seat, seat}:
                    self._send_sealed(note, agent, seat)

    def received_direct(self, sender: str, data: bytes) -> None:
        """A direct message from another member: a private note between a seat played here and the seat
        of the process that sends it (its writer, or a partner handing it on to a seat that changed
        hands), sealed with both seats' keys; a fair deck's keys, secrets or turn; or the takeovers'
        word (``ALIVE``, ``ASK_WORD``, ``WORD``). Anything else is dropped, with its reason."""
        try:
            body = msgpack.unpackb(data, raw=False, strict_map_key=True)
            kind = body.get("t") if isinstance(body, dict) else None
            if kind == ALIVE:
                return  # the node noted it heard the sender: that is all it says
            if kind == ASK_WORD:
                self._answer_word(sender, body)
                return
            if kind == WORD:
                self._heard_word(sender, body)
                return
            if isinstance(body, dict) and body.get("t") in (KEYS, OPEN):
                self._received_keys(sender, body, data)
                return
            if isinstance(body, dict) and body.get("t") == TURN:
                self._received_turn(sender, body)
                return
            from_seat, to_seat, sealed = body["sender"], body["to"], body["box"]
            via = body.get("via", from_seat)
            seats = self.record.seats
            if not all(isinstance(v, int) and v >= 0 for v in (from_seat, to_seat, via)):
                raise ValueError("no such seat")
            if via not in (from_seat, to_seat) or from_seat == to_seat:
                raise ValueError(f"seat {via} is not a party to a note from {from_seat} to {to_seat}")
            reader = to_seat if via == from_seat else from_seat
            if max(from_seat, to_seat) >= len(seats):
                self._try_again_later(sender, data)
                return
            note_data = self._unsealed(sender, data, via, reader, sealed)
            if note_data is _EARLY:
                return
            if not isinstance(note_data, dict):
                raise ValueError("the note is not a map")
        except (ValueError, KeyError, TypeError, CryptoError, msgpack.UnpackException) as error:
            log.warning("dropped a direct message from %s: %s", sender, error)
            return
        self._keep_note(PrivateNote(from_seat, to_seat, note_data))

    def _unsealed(self, sender: str, data: bytes, writer: int, reader: int, sealed: Any) -> Any:
        """What a direct message sealed by seat ``writer``'s process for seat ``reader`` says, unpacked;
        ``_EARLY`` when this process cannot tell yet (kept to try again); ``ValueError`` or
        ``CryptoError`` when ``sender`` does not play ``writer`` or it was not sealed for ``reader``."""
        seats = self.record.seats
        agent = next((a for a in self.agents if a.seat == reader), None)
        if writer >= len(seats) or agent is None:
            self._try_again_later(sender, data)
            return _EARLY
        if seats[writer].process != sender:
            raise ValueError(f"it does not play seat {writer}")
        opened = Box(agent.box, PublicKey(seats[writer].box_key)).decrypt(sealed)
        return msgpack.unpackb(opened, raw=False, strict_map_key=True)

    def _try_again_later(self, sender: str, data: bytes) -> None:
        """The sender may have applied more of the log than we have: try again after the next committed
        entry (a few at most, so a flood cannot grow without bound)."""
        if len(self._early_notes) < MAX_EARLY_NOTES:
            self._early_notes.append((sender, data))

    def _keep_note(self, note: PrivateNote) -> None:
        driver = self.driver
        concerned = driver.noted(note) if driver is not None else None
        if driver is None:
            self.deck.note(note)
        if self.on_notice is not None:
            self.on_notice(NoteArrived(seat=note.to))
        if concerned is not None:
            self._wake_bots(concerned)

    # --- bots ------------------------------------------------------------------------------------

    def behind(self) -> bool:
        """Whether this process is still applying what the table committed before (started again and
        replaying the log, or a learner catching up): nothing it would do now is asked of it, and
        nothing it shows is news."""
        return bool(getattr(self.node, "catching_up", False))

    def _caught_up(self) -> None:
        """Once this process has applied all the table committed, it does what it put off meanwhile:
        the duties the table owes now, its bots' plans, and its player's request for their seat back
        if a bot holds it."""
        if not self._put_off:
            return
        self._put_off = False
        self._owe_duties()
        record = self.record
        seat = record.seat_held_by(self.identity.public_key) if record.table else None
        # Only its join on its way keeps it from asking (``_take_the_seat_back`` looks): a press of
        # before still unanswered is no request for the seat, and once refused nothing would ask again.
        if seat is not None and record.seats[seat].away:
            self._take_the_seat_back(seat)
        self._wake_bots()

    def _take_the_seat_back(self, seat: int) -> None:
        if self.behind():
            self._put_off = True  # a takeover of long ago, replayed: asked once caught up, if still so
            return
        back = self.record.returning.get(seat)
        if self._joining in self._pending or (back is not None and back.node == self.me.identity):
            return  # the join this process started with is on its way, or the seat is ours at the next pause
        log.warning("a bot stood in for this player at seat %d: taking it back", seat)
        self.join_table()

    def _wake_bots(self, seats: Iterable[int] | None = None) -> None:
        """The bots this process runs at ``seats`` (default: all of them) plan again, and the next plan
        due is scheduled on the loop (once caught up: a plan made on a past state is refused)."""
        driver, record = self.driver, self.record
        if driver is None or not record.started:
            return
        if self.behind():
            self._put_off = True
            return
        driver.wake(sorted(driver.bots) if seats is None else [s for s in seats if s in driver.bots])
        self._schedule_bots()

    def clock_agreed(self) -> bool:
        """Whether this process knows the leader's clock: it leads, or it has a sample of it since the
        leader was last elected (a fake consensus in tests has one clock for all)."""
        clock = getattr(self.node, "clock", None)
        return self.node.is_leader or clock is None or clock.offset_ms is not None

    def _press_due(self, driver: TableDriver) -> bool:
        """Whether a plan due now is a timed press (``t_sync``)."""
        now = self.clock.local_ms()
        return any(
            plan.due <= now and isinstance(plan.decision.event, TimedEvent) for plan in driver.plans.values()
        )

    def _schedule_bots(self) -> None:
        if self._bots_timer is not None:
            self._bots_timer.cancel()
            self._bots_timer = None
        driver = self.driver
        due = driver.next_due() if driver is not None else None
        if due is not None:
            delay = max(0.0, due - self.clock.local_ms()) / 1000.0
            self._bots_timer = asyncio.get_running_loop().call_later(delay, self._play_due)

    def _play_due(self) -> None:
        """Every plan now due: the bot's event, stamped, goes to the table (a note, to the partner). A
        press waits until this process's clock is agreed with the leader's (``clock_agreed``): a
        process started again, or under a new leader, would stamp it on its own clock."""
        self._bots_timer = None
        driver = self.driver
        if driver is not None and not self.clock_agreed() and self._press_due(driver):
            self._bots_timer = asyncio.get_running_loop().call_later(CLOCK_WAIT_S, self._play_due)
            return
        while driver is not None and (due := driver.next_due()) is not None and due <= self.clock.local_ms():
            seat, event = driver.take()
            agent = next((a for a in self.agents if a.seat == seat and a.bot is not None), None)
            if agent is None:
                continue
            if isinstance(event, PrivateNote):
                self.send_note(event, agent)
            else:
                self.act(event, agent)
        self._schedule_bots()
