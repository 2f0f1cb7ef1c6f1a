"""One host of one table, without I/O: the record, the deck, the driver, the duties, the notes and the
seats played here, behind one ``step(input) → outputs`` (``kdm.host.io``).

Every process at a table runs one: a player's peer (``kdm.peer``, which carries its outputs to the
consensus node and its deadlines to the asyncio loop), a replay of a kept log (``kdm.replay``: a host
that plays no seat), and the tests over the fake consensus. The host replays committed entries through
one ``TableRecord``, owes the table its duties (``kdm.host.duties``), lets its bots play (their plans are
the ``TableDriver``'s), gives the deck's parts and keys (``kdm.host.fair``), carries private notes
(``kdm.host.notes``), proposes again what is not committed yet and screens what others forward while it
leads (``kdm.host.proposals``), and takes silent seats over on the voters' word (``kdm.host.takeovers``).

A process usually plays one seat, its ``Agent``; a stand-in for a seat whose process is gone is a second
agent, with an identity of its own (``node#seat``). The player's seat is bound to their key
(``kdm.identity``): when their process comes back it asks for the seat again, and the stand-in stops once
the record gives it back.

Time is read from one injected clock (``kdm.driver.Clock``); what is due when is
``next_deadline_ms``, and a ``Tick`` at that time does it.
"""

from __future__ import annotations

import logging
import math
import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

import msgpack
from nacl.public import PrivateKey

from kdm.agents import Bot
from kdm.deck import Deck, Knowledge, OpenDeck, PrivateNote
from kdm.driver import Clock, TableDriver
from kdm.engine import SeatView
from kdm.entries import Act, Chat, Create, DeckPart, Done, Entry, Join, Start
from kdm.events import Event, TimedEvent
from kdm.fair.table import FairDeck, deck_of_table
from kdm.host.duties import Duties
from kdm.host.fair import FairSeats
from kdm.host.io import (
    Committed,
    CreateTable,
    Input,
    JoinTable,
    LeaderChanged,
    MembershipChanged,
    NodeView,
    Output,
    Play,
    Received,
    Say,
    SendNote,
    StartGame,
    TableFinished,
    TakeOver,
    TakeOverWithWord,
    Tell,
    Tick,
)
from kdm.host.notes import Notes
from kdm.host.proposals import RETRY_S, Proposals
from kdm.host.stamps import Stamps
from kdm.host.takeovers import Takeovers
from kdm.identity import Identity
from kdm.kept import Kept, nonce_label
from kdm.manager import PluginInfo, Rules
from kdm.net.raft_messages import ConfChange
from kdm.notices import Applied, Created, Notice, Rejected, Returned, Seated, Started, TookOver, Voided
from kdm.record import NO_TABLE_YET, TableRecord, commitment

log = logging.getLogger("kdm.peer")
#: How often a press due before this process knows the leader's clock looks again (pings go every 0.5 s).
CLOCK_WAIT_S = 0.05
#: A bot that raised instead of deciding looks again this long after, then twice as long after each
#: failure in a row, up to ``BOT_RETRY_MAX_S``: a bug in a plugin's bot costs its seat a pause, and
#: a log line, not the table its game (nothing else would wake a bot that failed at its own turn).
BOT_RETRY_S = 1.0
BOT_RETRY_MAX_S = 30.0


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
    #: The secrets its player keeps at this table (``kdm.kept``; the player's agent only): its key for
    #: notes and its nonces are drawn from them, and so are its fair deck's secrets.
    kept: Kept | None = None

    def keep(self, kept: Kept) -> None:
        """Draw this seat's secrets from what its player keeps, from here on."""
        self.kept, self.box = kept, PrivateKey(kept.secret("box"))

    def fresh_commitment(self, label: str = "") -> bytes:
        """Commit to a new secret nonce, to be revealed at a later shuffle: drawn from what the player
        keeps by ``label`` (which commitment of the seat it is: ``nonce_for`` finds it again), or
        random."""
        nonce = (
            self.kept.secret(f"nonce {label}") if self.kept is not None and label else secrets.token_bytes(32)
        )
        sealed = commitment(nonce)
        self.nonces[sealed] = nonce
        return sealed

    def nonce_for(self, sealed: bytes, shuffles: int) -> bytes | None:
        """The nonce of the seat's commitment ``sealed``: made here, or (a process started again) one
        drawn from what the player keeps for a join or a reveal up to shuffle ``shuffles``."""
        if sealed not in self.nonces and self.kept is not None:
            for shuffle in range(shuffles, -1, -1):
                for label in (nonce_label("next", shuffle), nonce_label("join", shuffle)):
                    nonce = self.kept.secret(f"nonce {label}")
                    if commitment(nonce) == sealed:
                        self.nonces[sealed] = nonce
                        return nonce
        return self.nonces.get(sealed)


class TableHost:
    """One process's host of one table (see the module's docstring)."""

    def __init__(
        self,
        node: NodeView,
        installed: dict[str, PluginInfo],
        clock: Clock,
        name: str = "",
        bot: Bot | None = None,
        identity: Identity | None = None,
        first_counter: int = 0,
    ) -> None:
        self.node = node
        #: Where this process's entry counters start: a process that comes back as the same node (after a
        #: crash) starts past every counter it used before, or the table would take its new entries for
        #: retries of old ones.
        self.first_counter = first_counter
        # A real node knows its table and has keys; a test's fake may have neither, and its table then
        # checks no signature.
        keys = getattr(node, "keys", None)
        #: Signs this process's entries with its node's key (None over a network of fakes).
        self.sign: Callable[[bytes], bytes] | None = keys.sign if keys is not None else None
        #: The player's key: their seat is bound to it (a key for this run only when none is given).
        self.identity = identity or Identity.ephemeral()
        #: True once this process took its player's seat back (after a restart or a lost network).
        self.rejoined = False
        #: For a bot a player started on their laptop: that player's node, which its join names (the
        #: laptop's one vote is the player's: ``kdm.membership``); "" for a laptop of its own.
        self.laptop = ""
        self.record = TableRecord(installed, table=getattr(node, "table", ""), deck_service=self)
        self.agents = [Agent(node.node_id, name or node.node_id, bot, counter=first_counter)]
        #: The table's deck: the one its ``create`` says (``deck_of_table``), open until then.
        self.deck: Deck = OpenDeck()
        #: The one clock this host reads: the driver, the screen and every press are timed on it.
        self.clock = clock
        self._driver: TableDriver | None = None
        #: Whether a person's screen paints this table (``screen_attached``).
        self.painted_by_screen = False
        #: The game is over and every seat said it is done.
        self.finished = False
        #: What this host has to do, in order, since the last ``step`` returned.
        self.out: list[Output] = []
        self.proposals = Proposals(self)
        self.duties = Duties(self)
        self.takeovers = Takeovers(self)
        self.fair = FairSeats(self)
        self.notes = Notes(self)
        self.stamps = Stamps(self)
        #: The id of this process's own join while it is on its way: one join per return, or the table
        #: hears "is back" twice, deals the round again twice and the second commitment voids the
        #: first one's reveal.
        self._joining: tuple[str, int] | None = None
        self._join_when_created = False
        #: Something was put off while this process was catching up (``caught_up``).
        self.put_off = False
        #: The seats whose bots look again once the entry being handled is all in, or all of them
        #: (``_handle_all``).
        self._waking: set[int] = set()
        self._waking_all = False
        #: When unconfirmed proposals are looked at next (``watch``: never before).
        self._retry_at = math.inf
        #: The seats whose bot raised when it last looked → when it looks again (``_bot_failed``).
        self._bots_failed: dict[int, float] = {}
        #: The failures in a row of each seat's bot (its next wait doubles with each).
        self._bot_failures: dict[int, int] = {}
        #: A press due before this process knows the leader's clock waits until then (``_play_due``).
        self._clock_wait_until = -math.inf

    # --- the one door ----------------------------------------------------------------------------

    def step(self, given: Input) -> list[Output]:
        """Take one input; return what to do, in order."""
        _STEPS[type(given)](self, given)
        return self.take_outputs()

    def take_outputs(self) -> list[Output]:
        """What this host has to do since it was last asked (a test that calls a part directly)."""
        out, self.out = self.out, []
        return out

    def next_deadline_ms(self) -> float:
        """When a ``Tick`` has something to do next, on the local clock (inf: nothing is due)."""
        return self.deadlines_ms()[1]

    def deadlines_ms(self) -> tuple[float, float]:
        """From when a ``Tick`` may do something, and ``next_deadline_ms``, by when it must: the
        first is sooner when a look may wait (``Takeovers.slack_ms``), and a ``Tick`` at a wake-up the
        process has anyway in between does it without a wake-up of its own."""
        driver = self._driver if self.record.engine is not None else None
        bots = driver.next_due() if driver is not None else None
        # Retries are due only while something waits for one: nothing is proposed again at rest.
        retry = self._retry_at if self.proposals.pending or self.put_off else math.inf
        look = self.takeovers.due_ms()
        latest = min(
            retry,
            look + self.takeovers.slack_ms(),
            self.duties.next_due_ms(),
            max(bots, self._clock_wait_until) if bots is not None else math.inf,
            min(self._bots_failed.values(), default=math.inf),
        )
        return min(latest, look), latest

    def watch(self, takeover_after_s: float | None) -> None:
        """From now on, propose again what is not committed and, while leading, take over the seats of
        players silent for ``takeover_after_s`` (None: never)."""
        now = self.clock.local_ms()
        self._retry_at = now + RETRY_S * 1000
        self.takeovers.watch(takeover_after_s, now)

    def stop(self) -> None:
        """Nothing more is due from the watch: no retries, no looks at the seats, no table timers or
        deadlines (a stopped peer; a bot's plan is due again only once the bots are woken)."""
        self._retry_at = math.inf
        self.takeovers.watch(None, self.clock.local_ms())
        self.duties.stop()

    def _tick(self, _: Tick) -> None:
        now = self.clock.local_ms()
        if now >= self._retry_at:
            self._retry_at = now + RETRY_S * 1000
            if self.put_off and not self.behind():
                # Caught up on an entry the host is not handed (a membership change, a new leader's
                # empty entry): what was put off is done now, or a bot whose turn it is would sleep on.
                self.caught_up()
            self.proposals.retry(now)
        self.takeovers.tick(now)
        self.duties.tick(now)
        if self._bots_failed:
            again = [seat for seat, due in self._bots_failed.items() if due <= now]
            for seat in again:
                del self._bots_failed[seat]
            self.wake_bots(again)
            for seat in again:
                if seat not in self._bots_failed:
                    self._bot_failures.pop(seat, None)  # it decided this time: no longer failing
        self._play_due(now)

    def _bot_failed(self, seat: int, error: Exception) -> None:
        """The bot at ``seat`` raised instead of deciding (``TableDriver.on_bot_error``): say so once,
        with the traceback its plugin's author needs, and let it look again after a pause (the table
        may be waiting for it: nothing else would wake it)."""
        failures = self._bot_failures.get(seat, 0)
        self._bot_failures[seat] = failures + 1
        wait_s = min(BOT_RETRY_S * 2**failures, BOT_RETRY_MAX_S)
        self._bots_failed[seat] = self.clock.local_ms() + wait_s * 1000
        log.error(
            "the bot at seat %d raised instead of deciding (%s: %s); it looks again in %.0f s",
            seat, type(error).__name__, error, wait_s, exc_info=error if failures == 0 else None,
        )  # fmt: skip

    # --- who plays what here ---------------------------------------------------------------------

    @property
    def me(self) -> Agent:
        """The agent of this process's own player."""
        return self.agents[0]

    @property
    def seat(self) -> int | None:
        return self.me.seat

    @property
    def table(self) -> str:
        """The table's id, which a seat claim names and entries are signed for; known from the start
        to a process started for a table, else from the first ``create_table`` or ``join_table``."""
        return self.record.table

    @table.setter
    def table(self, table: str) -> None:
        self.record.table = table

    @property
    def driver(self) -> TableDriver | None:
        """The table driver, once there is a table (its engine is made by the ``create`` entry)."""
        engine = self.record.engine
        if engine is None:
            return None
        if self._driver is None or self._driver.engine is not engine:
            self._driver = TableDriver(
                engine,
                self.deck,
                self.clock,
                self.bots_by_seat(),
                painted_by_screen=self.painted_by_screen,
                on_bot_error=self._bot_failed,
            )
        return self._driver

    def screen_attached(self) -> None:
        """A person's screen shows this table from now on: an event is shown when a redraw paints it
        (``TableDriver.show``), not when it is applied."""
        self.painted_by_screen = True
        if self._driver is not None:
            self._driver.painted_by_screen = True

    def seats_here(self) -> set[int]:
        """The seats this process acts for now (its player's, a stand-in's)."""
        seats = self.record.seats
        return {
            agent.seat
            for agent in self.agents
            if agent.seat is not None and agent.seat < len(seats) and seats[agent.seat].node == agent.identity
        }

    def deck_seats(self) -> None:
        """Tell the deck the seats played here, and a fair deck what each of their players keeps."""
        here = self.deck.here = self.seats_here()
        if isinstance(self.deck, FairDeck):
            self.deck.kept = {a.seat: a.kept for a in self.agents if a.seat in here and a.kept is not None}

    def bots_by_seat(self) -> dict[int, Bot]:
        """The bots this process runs, by the seat each plays."""
        return {
            agent.seat: agent.bot for agent in self.agents if agent.bot is not None and agent.seat is not None
        }

    def agent(self, identity: str) -> Agent | None:
        return next((agent for agent in self.agents if agent.identity == identity), None)

    def agent_at(self, seat: int) -> Agent | None:
        """The agent of this process that plays ``seat``, if one does."""
        return next((agent for agent in self.agents if agent.seat == seat), None)

    def new_agent(self, identity: str, name: str, bot: Bot) -> Agent:
        """A stand-in's agent, kept after the player comes back: its counter goes on if it stands in
        again."""
        agent = Agent(identity, name, bot, counter=self.first_counter)
        self.agents.append(agent)
        return agent

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

    # --- what the record asks of the deck (``kdm.record.DeckService``) ----------------------------

    def claim_problem(self, event: Event) -> str | None:
        engine = self.record.engine
        return None if engine is None else self.deck.false_claim(engine, event)

    def part_problem(self, part: DeckPart, seat: int) -> str | None:
        return self.fair.take_part(part, seat)

    def keys_problem(self, seat: int, keys: bytes) -> str | None:
        return self.deck.show_keys(seat, keys)

    # --- what this process's player (or a bot of its) wants --------------------------------------

    def propose(self, entry_type: type[Entry], agent: Agent | None = None, **fields: Any) -> tuple[str, int]:
        """Propose an entry of ``entry_type`` with these fields, from ``agent`` (default: the player)."""
        return self.proposals.propose(entry_type, agent or self.me, **fields)

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
            vouch=True,
        )
        self.join_table(self.table)

    def join_table(self, table: str = "") -> None:
        """Ask for a seat at ``table`` (its id) for this process's player: a free one, or theirs again.

        With no table id (tests over a fake log), the seat is taken without a claim and cannot be
        taken back after a restart.
        """
        self.table = table or self.table
        me = self.me
        self._keep_secrets(self.table)
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
            commit=me.fresh_commitment(nonce_label("join", self.record.shuffles)),
            box_key=bytes(me.box.public_key),
            laptop=self.laptop,
            **claim,
        )

    def _keep_secrets(self, table: str) -> None:
        """Once the table's id is known, and before this process's player asks for a seat: draw the
        seat's secrets from what its key keeps for the table (``kdm.kept``), so that this process, if
        started again, makes again those it used."""
        me = self.me
        if table and me.kept is None and self._joining is None:
            me.keep(Kept(self.identity.table_secret(table)))

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
        if isinstance(event, TimedEvent):
            self.stamps.pressed(agent, key, fields["event"], self.proposals.pending[key][0])
            if math.isfinite(event.t_sync):
                self.proposals.press(key, agent.seat, event.t_sync)

    def say(self, text: str) -> None:
        """Say ``text`` to the whole table from this player's seat (the record refuses a line the rules
        or its form do not allow, with the reason)."""
        if self.seat is not None:
            self.propose(Chat, seat=self.seat, text=text)

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
            if isinstance(ident[1], int):
                self.proposals.seen((ident[0], ident[1]), entry.get("t") == Act.TYPE)
            author = self.agent(ident[0])
            debt = author.paying.pop(ident[1], None) if author is not None else None
            paid = (author, debt) if author is not None and debt is not None else None
        notices = self.record.apply(entry)
        self._handle_all(notices)
        self.stamps.stamp()
        if paid is not None and any(isinstance(notice, Rejected) for notice in notices):
            # A refused reveal is owed again: the next one may be right. Only that one: another of
            # the seat's entries refused meanwhile (a slap too late) says nothing of a reveal on its
            # way, which would then be proposed twice.
            paid[0].owed.discard(paid[1])
        if self.behind():
            self.put_off = True  # the duties this state owes, and the bots' plans
        else:
            self.caught_up()
            self.duties.owe()
            self.fair.work()
        self.notes.retry_early()

    def membership_changed(self, change: ConfChange) -> None:
        """A membership change was committed, in log order: the record may apply what it held for the
        stamps of voters now gone, and this process then does what a commit would have it do."""
        self._handle_all(self.record.membership_changed(change.kind, change.node_id, change.voters))
        self.stamps.stamp()
        self.fair.work()  # the presses it held may have dealt, shown or voided

    def _handle_all(self, notices: Iterable[Notice]) -> None:
        """Handle what one committed entry did, then wake the bots it concerns (``_waking``). Not
        before: the record applied the whole entry, so the state a bot reads is already past every
        notice of it (a refused vouch, then the deal it let through), while the deck learns that
        deal's faces only from its own notice (``driver.applied``)."""
        self._waking.clear()
        self._waking_all = False
        for notice in notices:
            try:
                self._handle(notice)
            except Exception:  # a bug here must not cost the entry's other notices, or the table its game
                log.exception("taking in a %s notice failed; going on", type(notice).__name__)
        if self._waking_all:
            self.wake_bots()
        elif self._waking:
            self.wake_bots(sorted(self._waking))

    def _handle(self, notice: Notice) -> None:
        """Take ``notice`` in: the deck, the driver, the agents, the screen's ``Tell``; note the seats
        whose bots look again once the whole entry is in (``_handle_all``)."""
        mine = self.agent(notice.node)
        concerned: list[int] = []
        if isinstance(notice, Created):
            self._keep_secrets(self.record.table or self.record.host)
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
                self.notes.pass_on(notice.seat)
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
                    concerned = [mine.seat]  # the table moved on: think again
        elif isinstance(notice, Voided):
            log.warning("%s", notice.reason)
            engine = self.record.engine
            if engine is not None:
                self.deck_seats()
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
            self.stamps.applied(notice.seq)
            if notice.event is not None:
                self.deck.applied(notice.event, notice.seq)
            concerned = driver.applied(notice.seq, notice.effects)
            if any(effect["kind"] == "game_over" for effect in notice.effects):
                self.fair.work()  # a fair deck's secrets for the last audits go before the seats' done
                for agent in self.agents:
                    if agent.seat is not None:
                        self.propose(Done, agent)
        record = self.record
        if (
            not self.finished
            and record.engine is not None
            and record.engine.over
            and all(s.node in record.done for s in record.seats)
        ):
            self.finished = True
            self.out.append(TableFinished())
        self.out.append(Tell(notice))
        if isinstance(notice, (Started | TookOver | Returned | Voided)):
            self._waking_all = True
        self._waking.update(concerned)

    def _seat_changed_hands(self, seat: int, now: Agent | None) -> None:
        """``now`` (an agent of this process, or None) acts for ``seat`` from here on; any other agent of
        this process that did stops. This process's player, displaced by a stand-in, asks for the seat
        back at once: if they are reading this, their process is alive. Displaced by another process of
        theirs (started again while this one still ran), they leave the seat to it: the newest wins."""
        taken = self.record.seats[seat]
        self.takeovers.changed_hands(seat)
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
            driver.bots = self.bots_by_seat()
        self.deck_seats()

    # --- catching up, and the bots ---------------------------------------------------------------

    def behind(self) -> bool:
        """Whether this process is still applying what the table committed before (started again and
        replaying the log, or a learner catching up): nothing it would do now is asked of it, and
        nothing it shows is news."""
        return bool(getattr(self.node, "catching_up", False))

    def caught_up(self) -> None:
        """Once this process has applied all the table committed, it does what it put off meanwhile:
        the duties the table owes now, its bots' plans, and its player's request for their seat back
        if a bot holds it."""
        if not self.put_off:
            return
        self.put_off = False
        self.duties.owe()
        self.fair.work()  # (a fair deck's parts and keys put off with the rest)
        record = self.record
        seat = record.seat_held_by(self.identity.public_key) if record.table else None
        # Only its join on its way keeps it from asking (``_take_the_seat_back`` looks): a press of
        # before still unanswered is no request for the seat, and once refused nothing would ask again.
        if seat is not None and record.seats[seat].away:
            self._take_the_seat_back(seat)
        self.wake_bots()

    def _take_the_seat_back(self, seat: int) -> None:
        if self.behind():
            self.put_off = True  # a takeover of long ago, replayed: asked once caught up, if still so
            return
        back = self.record.returning.get(seat)
        if self._joining in self.proposals.pending or (back is not None and back.node == self.me.identity):
            return  # the join this process started with is on its way, or the seat is ours at the next pause
        log.warning("a bot stood in for this player at seat %d: taking it back", seat)
        self.join_table()

    def wake_bots(self, seats: Iterable[int] | None = None) -> None:
        """The bots this process runs at ``seats`` (default: all of them) plan again (once caught up: a
        plan made on a past state is refused); ``next_deadline_ms`` says when the first is due."""
        driver, record = self.driver, self.record
        if driver is None or not record.started:
            return
        if self.behind():
            self.put_off = True
            return
        driver.wake(sorted(driver.bots) if seats is None else [s for s in seats if s in driver.bots])

    def clock_agreed(self) -> bool:
        """Whether this process knows the leader's clock: it leads, or it has a sample of it since the
        leader was last elected (a fake consensus in tests has one clock for all)."""
        clock = getattr(self.node, "clock", None)
        return self.node.is_leader or clock is None or clock.offset_ms is not None

    def press_due(self, now: float) -> bool:
        """Whether a bot's plan due by ``now`` is a timed press (``t_sync``)."""
        driver = self.driver
        return driver is not None and any(
            plan.due <= now and isinstance(plan.decision.event, TimedEvent) for plan in driver.plans.values()
        )

    def _play_due(self, now: float) -> None:
        """Every plan now due: the bot's event, stamped, goes to the table (a note, to the partner). A
        press waits until this process's clock is agreed with the leader's (``clock_agreed``): a
        process started again, or under a new leader, would stamp it on its own clock."""
        driver = self.driver
        if driver is None or now < self._clock_wait_until:
            return
        if self.press_due(now) and not self.clock_agreed():
            self._clock_wait_until = now + CLOCK_WAIT_S * 1000
            return
        self._clock_wait_until = -math.inf
        while (due := driver.next_due()) is not None and due <= self.clock.local_ms():
            seat, event = driver.take()
            agent = next((a for a in self.agents if a.seat == seat and a.bot is not None), None)
            if agent is None:
                continue
            if isinstance(event, PrivateNote):
                self.notes.send(event, agent)
            else:
                self.act(event, agent)


def _create(host: TableHost, given: CreateTable) -> None:
    host.create_table(given.table, given.players, given.options, given.rules, given.listed, given.deck)


def _take_over(host: TableHost, given: TakeOver) -> None:
    host.takeovers.take_over(given.seat, given.bot, given.name, given.why, given.silence)


#: What each input does.
_STEPS: dict[type[Any], Callable[[TableHost, Any], None]] = {
    Committed: lambda host, given: host.committed(given.data),
    MembershipChanged: lambda host, given: host.membership_changed(given.change),
    Received: lambda host, given: host.notes.received(given.sender, given.data),
    LeaderChanged: lambda host, given: host.takeovers.leader_changed(),
    Tick: TableHost._tick,
    CreateTable: _create,
    JoinTable: lambda host, given: host.join_table(given.table),
    StartGame: lambda host, given: host.start_game(),
    Play: lambda host, given: host.act(given.event),
    Say: lambda host, given: host.say(given.text),
    SendNote: lambda host, given: host.notes.send(given.note, host.me),
    TakeOver: _take_over,
    TakeOverWithWord: lambda host, given: host.takeovers.take_over_with_word(
        given.seat, given.name, given.why
    ),
}
