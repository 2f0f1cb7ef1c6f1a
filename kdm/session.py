"""One table membership run as a process: what ``kdm host``, ``kdm join`` and ``kdm bot`` do.

Wires the pieces together at the edge: the zmq transport on the chosen interface, the consensus node
with its log file in the user data directory, the peer (with a bot at its seat when asked), discovery
(advertising a hosted table, or finding one by name), and the readable line a headless peer prints for
every committed event. Returns a report (digest, commit latencies, slap windows) when the game ends.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import os
import re
import subprocess
import sys
import tempfile
from collections import OrderedDict
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from kdm import __version__
from kdm.agents import Bot
from kdm.cards import derive_seed
from kdm.errors import PinRefused, UsageError
from kdm.fair.table import FairDeck
from kdm.identity import Identity, NodeMemory, SeatMemory, data_root
from kdm.kept_games import TABLES, forget_log, log_file_name, prune, remember_game
from kdm.launcher import kdm_command
from kdm.manager import Rules, installed_plugins
from kdm.membership import PROMOTE, approved_changes, names_on_laptops, next_change, voting_homes
from kdm.names import SeatNames
from kdm.net import chaos
from kdm.net.addresses import first_reachable, offered_addresses
from kdm.net.admission import check_pin
from kdm.net.discovery import Advertiser, TableAd, TableBrowser, find_tables, parse_contact
from kdm.net.introducer import ask_node_id, serve_node_id
from kdm.net.keys import NodeKeys, fingerprint
from kdm.net.loops import Pause, every
from kdm.net.node import Node, ask_table_id, listen
from kdm.net.raft import ConfChange
from kdm.net.storage import FileStorage
from kdm.net.transport import TransportError, ZmqTransport
from kdm.net.wire import PROTOCOL_VERSION, WireError
from kdm.notices import (
    Applied,
    Cheat,
    Created,
    Notice,
    Rejected,
    Returned,
    Returning,
    Seated,
    Started,
    TookOver,
    Voided,
)
from kdm.peer import Peer
from kdm.record import FULL, NO_TABLE_YET, PLAYING
from kdm.settings import keep_games

log = logging.getLogger("kdm.session")
INTERFACE_ENV = "KDM_INTERFACE"
#: The table's PIN, for a process that should not show it in its arguments (the bots a host starts).
PIN_ENV = "KDM_PIN"
#: For a bot a player's process starts (``spawn_bot``): that process's node, whose laptop it runs on
#: and whose vote it shares (``kdm.membership``). Set by ``spawn_bot`` only, read by ``kdm bot`` only.
LAPTOP_ENV = "KDM_BOT_LAPTOP"
#: How long to listen for the tables on the LAN; for one named, at most this long.
LISTEN_S, LISTEN_FOR_NAME_S = 1.5, 3.0
#: Once the named table answered, how long others of the same name may take to answer too.
SAME_NAME_GRACE_S = 0.3
#: A target that ends in ":digits" (and maybe a key) is an address with a mistake, not a table name.
_LOOKS_LIKE_AN_ADDRESS = re.compile(r".+:[0-9]+(~.*)?")
#: How often the leader checks that the membership follows the seats (it also does at every entry, and
#: at a change of leader; alone, only then).
MEMBERSHIP_EVERY_S = 1.0
#: How often a process looks whether a bot it started has stopped, where the system cannot tell it
#: (``process_ended``: Linux says it at once).
BOT_LIVENESS_S = 0.5
#: How often the member advertising the table checks whether it still should, and what: a change of
#: leader, of the seats, of the game's state or of the table's strandedness asks at once (and is all a
#: member that does not advertise looks at), so this is for the machine's own addresses (a laptop that
#: moved to another network: it is found again within seconds, which a person does not notice; a waiting
#: room that looked every 2 s spent a third of its wake-ups on it).
ADVERTISE_EVERY_S = 5.0
#: Once the game is over here, how long the leader stays for members still behind that it hears from
#: (a player's kdm started again near the end, a laptop that slept), so that they learn the end too.
STRAGGLERS_WAIT_S = 5.0
#: A member that hears none of the others for this long while awake (a sleep is not counted) before it
#: has seen the game's end: the table ended, or is gone, without it. It says so and stops.
ALONE_GIVE_UP_S = 20.0
#: How often it looks while alone, and how long since a member was last heard counts as silence; while
#: the others are heard it sleeps until they could all be silent, and before the game is under way (a
#: waiting room, where nothing is counted) every ``ALONE_WAITING_EVERY_S``.
ALONE_EVERY_S, SILENT_S = 1.0, 2.0
ALONE_WAITING_EVERY_S = 5.0
#: How often a voter checks whether its table can still commit (``Node.not_heard_from``).
STRANDED_EVERY_S = 0.25
#: What a headless peer does when its table cannot commit (``--if-stranded``, **contract**): wait for the
#: laptops not heard from, or go on without them (a forced reconfiguration); a screen asks its player.
IF_STRANDED = ("wait", "go-on")

#: A user interface: runs beside the game on the session's loop; returns when the player leaves.
UI = Callable[["TableSession"], Coroutine[Any, Any, None]]


def checked_pin(given: str | None, default: str | None) -> str | None:
    """The PIN of ``--pin`` (else ``default``, from ``KDM_PIN``), checked; UsageError says what a PIN is."""
    pin = given if given is not None else default
    try:
        return None if pin is None else check_pin(pin)
    except ValueError as error:
        raise UsageError(f"--pin: {error}") from None


def default_interface() -> str | None:
    """``KDM_INTERFACE``: the one address to bind and advertise on; None (every interface) when unset."""
    return os.environ.get(INTERFACE_ENV) or None


@dataclass
class SessionConfig:
    """How this process takes part in a table."""

    #: The one address to listen and advertise on; None: every interface, advertising every LAN address.
    interface: str | None = field(default_factory=default_interface)
    port: int = 0
    #: The player's name at the table, and the name of a table they create (``kdm.settings``).
    name: str = ""
    table: str = ""
    bot: str | None = None
    seed: int = 0
    advertise: bool = True
    report: Path | None = None
    data_dir: Path | None = None
    lang: str = "en"
    quiet: bool = False
    #: Print the game log on stderr (stdout is for the JSON summary of ``--json``).
    log_on_stderr: bool = False
    #: Play as the player of this machine (their key, kept in the data directory, binds the seat);
    #: False for a bot helper, which plays under a key made for the run.
    keep_identity: bool = True
    #: Watch without asking for a seat (a spectator).
    watch: bool = False
    #: The table screen rings the terminal's bell when a slap window opens or a call is made.
    bell: bool = True
    #: The table's PIN (``kdm.net.admission``): a table founded with one admits only joiners that prove
    #: it; a joiner proves it. None: the table has none, or this process does not know it.
    pin: str | None = field(default_factory=lambda: os.environ.get(PIN_ENV) or None)
    #: The deck of a table this process founds (``fair`` or ``open``, DESIGN 7); None: fair when its
    #: seat is a person's, open when a bot founds it (``kdm selfplay``, a bot-only table).
    deck: str | None = None
    #: For a bot a player's process started: that process's node (``LAPTOP_ENV``); "" otherwise.
    laptop: str = ""
    #: When the table cannot commit: ``wait`` for the laptops not heard from, or ``go-on`` without them.
    if_stranded: str = "wait"
    #: Whether ``wait`` was asked for in so many words (``--if-stranded wait``): then a headless peer
    #: that hears nobody waits for ever; by default it gives up after ``ALONE_GIVE_UP_S`` and says why.
    wait_for_ever: bool = False

    def table_deck(self) -> str:
        """The deck of a table this process founds."""
        return self.deck or ("open" if self.bot else "fair")


async def host(
    config: SessionConfig,
    table: str,
    players: int,
    options: dict[str, Any],
    variants: Sequence[str],
    bots: int = 0,
    ui: UI | None = None,
) -> dict[str, Any]:
    """Found a table, take seat 0, start when every seat is taken, play to the end.

    ``bots`` bot peers are started on this machine as separate processes to fill seats. ``ui`` runs
    beside the game on the same loop; when it returns (the player quit) the session ends. A founder
    whose kdm died runs the same command again: if their table still plays on the LAN, they go back to
    their seat at it instead of founding another.
    """
    rules = Rules.for_table(variants)
    rules.resolve(players, options)  # a bad option is the host's mistake: say so before any network
    ours = await _held_table_named(config, table)
    if ours is not None:
        return await join(config, table, ui, addresses=ours.contacts)
    transport = await _listen(config)
    table_id = transport.node_id  # the founder's node id names the table: unique, and says where it is
    await _same_node_as_before(config, table_id, transport)  # remembered, to come back as after a crash
    node = Node(
        transport, table_id, _storage(config, table_id, table_id), voters=(table_id,), seed=config.seed,
        pin=config.pin,
    )  # fmt: skip
    contact = table_id
    session = TableSession(config, node, players, ui, contact=contact)
    await session.answer_for_this_node()
    _chaos_if_asked(config, node)
    if ui is None:
        others = [address for address in session.addresses() if address != contact]
        also = f" (also {', '.join(others)})" if others else ""
        session.say(f"listening on {contact}{also}")
    await node.start()
    session.peer.start()
    try:
        while not node.is_leader:
            await asyncio.sleep(0.01)
        session.peer.create_table(
            table, players, options, rules, listed=config.advertise, deck=config.table_deck()
        )
        for index in range(bots):
            seed = config.seed * 100 + index + 1
            session.bots.append(
                start_bot(contact, config, seed=seed, name=f"bot {index + 1}", laptop=node.node_id)
            )
        return await session.play(host=True)
    finally:
        await session.close()
        # After a finished game the bots leave by themselves; after a quit they are stopped at once.
        engine = session.peer.record.engine
        grace = 3.0 if engine is not None and engine.over else 0.5
        await asyncio.gather(*(asyncio.to_thread(stop_process, bot.process, grace) for bot in session.bots))
        for bot in session.bots:
            bot.errors.close()


async def join(
    config: SessionConfig, target: str, ui: UI | None = None, addresses: Sequence[str] = ()
) -> dict[str, Any]:
    """Join the table at ``HOST:PORT~KEY`` (or named ``target`` on the LAN), take a seat, play to the end.

    A table found by name (or given with its ``addresses``, ``HOST:PORT~KEY`` each, as the lobby does)
    is tried at every address it advertises; the first that answers is kept, and this peer names itself
    by its own end of that route, the address the table can reach it at. The key is the one the member
    that answers must hold: every byte to and from it is encrypted to that key.
    """
    held = _held_tables(config, target) if not addresses else []
    contacts = [
        parse_contact(address) for address in addresses or await _resolve(target, config.interface, held)
    ]
    candidates = [(host, port) for host, port, _key in contacts]
    reached = await first_reachable(candidates)
    tried = ", ".join(f"{host}:{port}" for host, port in candidates)
    if reached is None:
        raise UsageError(f"no table answered at {tried}")
    reachable_at = config.interface or reached.local
    transport = await _listen(config, reachable_at=reachable_at)
    address = f"tcp://{reached.endpoint}"
    contact = f"{reached.endpoint}~{contacts[candidates.index((reached.host, reached.port))][2]}"
    try:
        table, member = await ask_table_id(transport, contact, address)
    except TimeoutError:
        await transport.close()
        raise UsageError(f"no table answered at {reached.endpoint}") from None
    except WireError as error:
        await transport.close()
        raise UsageError(f"the table at {reached.endpoint} speaks another protocol: {error.reason}") from None
    transport, starts = await _same_node_as_before(config, table, transport, reachable_at)
    # The table's id is its founder's node id: the configuration every member starts from.
    node = Node(
        transport, table, _storage(config, table, transport.node_id), voters=(table,), seed=config.seed,
        pin=config.pin,
    )  # fmt: skip
    # The member that answered is reached here: its id may name another of its addresses.
    node.addresses[member] = address
    session = TableSession(config, node, players=0, ui=ui, contact=contact, first_counter=starts << 32)
    await session.answer_for_this_node()
    _chaos_if_asked(config, node)
    await node.start(contact=contact)
    session.peer.start()
    try:
        session.peer.table = table
        if not config.watch:
            session.peer.join_table(table)
        return await session.play(host=False)
    finally:
        await session.close()


class TableSession:
    """The peer of one process, and what it prints (or shows through a UI) and reports."""

    def __init__(
        self,
        config: SessionConfig,
        node: Node,
        players: int,
        ui: UI | None = None,
        contact: str = "",
        first_counter: int = 0,
    ) -> None:
        self.config = config
        self.node = node
        self.ui = ui
        #: ``HOST:PORT~KEY`` where this process reaches the table (its own id when it founded it): where
        #: the bots it starts join.
        self.contact = contact
        #: Called with every line of the game log; a UI adds itself here instead of the terminal.
        self.line_listeners: list[Callable[[str], None]] = []
        bot = (
            Bot(0, config.bot, seed=derive_seed(str(config.seed).encode(), node.node_id))
            if config.bot
            else None
        )
        identity = Identity.load_or_create(config.data_dir) if config.keep_identity else Identity.ephemeral()
        self.seat_memory = SeatMemory(config.data_dir) if config.keep_identity else None
        self.peer = Peer(
            node, installed_plugins(), name=config.name, bot=bot, on_notice=self._notice, identity=identity,
            first_counter=first_counter,
        )  # fmt: skip
        self.peer.laptop = config.laptop
        node.on_commit = self.peer.committed
        node.on_membership = self._membership_changed
        node.on_direct = self.peer.received_direct
        node.on_heard = self.peer.heard
        node.screen_proposal = self.peer.screen_proposal
        node.screen_relay = self.peer.screen_relay
        node.settled = self.peer.settled
        node.on_distrust = self._distrusted
        node.holds_a_seat = lambda node_id: any(seat.home == node_id for seat in self.peer.record.seats)
        node.on_leader = self._leader_changed
        node.on_approval = self._reconcile_soon_set
        node.on_fork = self._fork_proven
        node.on_convicted = self._convicted
        #: Told the names of the seats played by a process whose fork is proven: the screen.
        self.on_fork: Callable[[str], None] | None = None
        #: Told the names of the seats played by a process convicted of a change of who votes that the
        #: voters did not approve: the screen.
        self.on_convicted: Callable[[str], None] | None = None
        #: Told the names of the seats played by a leader this process no longer follows: it appended
        #: nothing given it for a while, though it heartbeats (``kdm.net.node``): the screen.
        self.on_distrust: Callable[[str], None] | None = None
        node.on_refused = self._refused
        node.on_pin_guesses = self._pin_guesses
        node.on_door = self._door
        node.door_name = config.name
        self.players = players
        self.error: str | None = None
        self.pin_refused = False
        #: Why this process's join was refused when it may watch instead (``PLAYING``, ``FULL``).
        self.refusal = ""
        self.windows = 0
        self.advertiser: Advertiser | None = None
        self._advertising_lock = asyncio.Lock()
        #: Set when the table's advertisement may have to change (``_keep_advertised``).
        self._advertise_soon = asyncio.Event()
        self.done = asyncio.Event()
        #: The bot processes this process started to fill seats (``kdm play --bots N``), watched while
        #: the game runs: one that stops without playing is told to the player, with its reason.
        self.bots: list[BotProcess] = []
        #: While the table cannot commit: the names of the seats on the laptops not heard from.
        self.stranded: list[str] = []
        #: Told (with ``stranded``) whenever the table is stranded or commits again: the screen.
        self.on_stranded: Callable[[list[str]], None] | None = None
        #: Told (host, wrong PINs from it in the last hour, seconds between two checks) when someone
        #: guesses the table's PIN (``kdm.net.admission``): the screen.
        self.on_pin_guesses: Callable[[str, int, float], None] | None = None
        #: Told (joiner, its name, wrong PINs from its host lately, gone) of who waits at the door for
        #: the leader's PIN check (``Node.on_door``): the screen, where a seated player may let them in.
        self.on_door: Callable[[str, str, int, bool], None] | None = None
        self._said_at_the_door: OrderedDict[str, None] = OrderedDict()
        #: Set when the membership may have to follow the seats (``_keep_membership``).
        self._reconcile_soon = asyncio.Event()
        self._answering: asyncio.DatagramTransport | None = None

    async def answer_for_this_node(self) -> None:
        """Tell joiners who have ``HOST:PORT`` alone this node's id and key (``kdm.net.introducer``)."""
        transport = self.node.transport
        if isinstance(transport, ZmqTransport):
            port = int(transport.address.rsplit(":", 1)[1])
            self._answering = await serve_node_id(transport.host, port, self.node.node_id)

    def _hosts(self) -> list[str]:
        """Each address others may reach this process at, the one its id names first."""
        host = self.node.node_id.rsplit("~", 1)[0].rsplit(":", 1)[0]
        hosts = [self.config.interface] if self.config.interface else offered_addresses()
        return [host, *(h for h in hosts if h != host)]

    def addresses(self) -> list[str]:
        """``HOST:PORT~KEY`` for each address others may reach this process at, its id's first."""
        address, _, key = self.node.node_id.rpartition("~")
        port = address.rsplit(":", 1)[1]
        return [f"{host}:{port}~{key}" for host in self._hosts()]

    def invitation(self) -> list[str]:
        """``HOST:PORT`` others may join at, as the screen shows them: every address of this process
        when it founded the table, else the one it reached the table at. (The key is left out for
        people to read: ``kdm join HOST:PORT`` asks for it, and the screen shows the table's key
        fingerprint to compare.)"""
        if self.node.node_id == self.peer.record.host or not self.contact:
            contacts = self.addresses()
        else:
            contacts = [self.contact]
        return [contact.rpartition("~")[0] or contact for contact in contacts]

    def ad(self, table: str, rules: Rules) -> TableAd:
        """The table as this process advertises it (as its leader)."""
        host, port = self.node.node_id.rsplit("~", 1)[0].rsplit(":", 1)
        hosts = self._hosts()
        record = self.peer.record
        state = (
            "over"
            if record.engine is not None and record.engine.over
            else "playing"
            if record.started
            else "lobby"
        )
        return TableAd(
            name=table, host=host, port=int(port), node_id=self.node.node_id, version=PROTOCOL_VERSION,
            mode=rules.names[0], plugins=tuple(f"{n}={v}" for n, v in rules.versions.items()),
            seats_taken=len(record.seats), seats_total=record.players or self.players, state=state,
            addresses=tuple(hosts), table_id=record.host or self.node.node_id, pin=bool(self.config.pin),
        )  # fmt: skip

    def _notice(self, notice: Notice) -> None:
        peer = self.peer
        mine = notice.node == self.node.node_id
        if isinstance(notice, Rejected) and notice.entry == "create" and peer.record.engine is None:
            self.error = notice.reason  # this process cannot follow the table (a plugin it lacks)
            self.done.set()
        elif (
            isinstance(notice, Rejected)
            and mine
            and notice.entry == "join"
            and peer.seat is None
            and (
                notice.code != NO_TABLE_YET  # that one, the peer asks again once the table exists
            )
        ):
            if self.ui is not None and notice.code in (PLAYING, FULL):
                self.refusal = notice.code  # the screen offers to watch instead
            else:
                self.error = notice.reason  # our own join (or table) was refused
                self.done.set()
        elif isinstance(notice, Seated):
            self.say(f"{self._seat_name(notice.seat)} ({notice.node}) takes seat {notice.seat}")
            record = peer.record
            if record.starts_the_game(self.node.node_id) and len(record.seats) == record.players:
                peer.start_game()
        elif isinstance(notice, TookOver):
            why = f": {notice.reason}" if notice.reason else ""
            self.say(f"a bot stands in for seat {notice.seat} ({self._seat_name(notice.seat)}){why}")
        elif isinstance(notice, (Voided | Cheat)):
            self.say(f"fair deck: {notice.reason}" if isinstance(notice, Voided) else
                     f"fair deck: seat {notice.seat} {notice.reason}")  # fmt: skip
        elif isinstance(notice, Returning):
            self.say(f"{self._seat_name(notice.seat)} is back for seat {notice.seat}")
        elif isinstance(notice, Returned):
            self.say(f"{self._seat_name(notice.seat)} ({notice.node}) takes seat {notice.seat} back")
            record = peer.record
            full = len(record.seats) == record.players and not record.started
            if full and mine and record.starts_the_game(self.node.node_id):
                peer.start_game()  # the founder came back to a full waiting room
        elif isinstance(notice, Started):
            self.say("the game starts")
        elif isinstance(notice, Applied):
            for effect in notice.effects:
                if effect["kind"] == "judged":
                    self.windows += 1
                line = peer.record.describe(effect, self.config.lang)
                if line:
                    self.say(line)
        if isinstance(notice, (Seated | Returned)) and mine and self.seat_memory is not None:
            self.seat_memory.remember(peer.table, peer.record.name, notice.seat or 0)
        if isinstance(notice, (Created | Seated | Returned | Started)) or (
            isinstance(notice, Applied) and peer.record.engine is not None and peer.record.engine.over
        ):
            self._advertise_soon.set()
        # Once the entries being applied are all applied: the seats are the log's, not part of it.
        self._reconcile_soon.set()

    def _seat_name(self, seat: int | None) -> str:
        """What the log calls ``seat``'s player (``kdm.names.SeatNames``), not their node's address."""
        names = [taken.name for taken in self.peer.record.seats]
        return SeatNames.of(names, self.config.lang)[seat if seat is not None else -1]

    def _reconcile_membership(self) -> None:
        """When leading, make the membership follow the seats (``kdm.membership``), one change at a time;
        as any voter, approve the changes the seats ask for (``approved_changes``), which the leader
        needs from a quorum of the voters to make one: no leader makes up a voter, or retires one still
        at the table, on its own word.

        Only from a record that holds everything committed (``Node.leads_up_to_date``, and for an
        approval ``Node.catching_up``): a new leader whose record lagged retired the processes of
        players who had just come back to their seats, which then never heard from the table again
        (found by ``kdm selfplay --chaos``; the table lost its quorum for good)."""
        node = self.node
        if node.node_id in node.raft.voters and not node.catching_up:
            for kind, member in self._approved_changes():
                node.approve(kind, member)
        if not node.leads_up_to_date:
            return
        change = self._membership_change()
        if change is not None:
            kind, member = change
            (node.promote if kind == PROMOTE else node.retire)(member)

    def _reconcile_soon_set(self) -> None:
        self._reconcile_soon.set()

    def _membership_changed(self, change: ConfChange) -> None:
        """A committed change of the membership: the record learns it, and this voter's approvals of the
        next one are made again for the new configuration (those of the last are no use now)."""
        self.peer.membership_changed(change)
        self._reconcile_soon.set()

    def _approved_changes(self) -> list[tuple[str, str]]:
        """The changes of who votes this voter's record backs now (``kdm.membership.approved_changes``),
        as Raft names them."""
        node = self.node
        homes = voting_homes(self.peer.record.seats)
        return [
            ("add_voter" if kind == PROMOTE else "remove", member)
            for kind, member in approved_changes(homes, node.raft.voters, node.raft.learners)
        ]

    def _membership_change(self) -> tuple[str, str] | None:
        """The change the seats ask of the membership now (``kdm.membership.next_change``)."""
        node = self.node
        homes = voting_homes(self.peer.record.seats)
        return next_change(
            homes, node.raft.voters, node.raft.learners, node.silent_ms, node.node_id, node.caught_up
        )

    async def _keep_membership(self) -> None:
        await every(
            self._membership_period_s, self._reconcile_membership, "keeping the table's membership",
            nudge=self._reconcile_soon,
        )  # fmt: skip

    def _membership_period_s(self) -> float:
        """``MEMBERSHIP_EVERY_S`` while this process leads others and the membership may change without
        a commit: a learner may catch up or fall silent, or the change the seats ask for waits (a record
        not up to date yet, a change under way); otherwise only what changes the seats or the leader
        asks (``_reconcile_soon``): a table of seated voters at rest does not look every second."""
        node = self.node
        if not node.is_leader and node.node_id in node.raft.voters and self._approved_changes():
            return MEMBERSHIP_EVERY_S  # its approval again, until the leader makes the change
        if not node.is_leader or len(node.members) <= 1:
            return math.inf
        if node.raft.learners or not node.leads_up_to_date or self._membership_change() is not None:
            return MEMBERSHIP_EVERY_S
        return math.inf

    def missing_laptops(self) -> list[str]:
        """The names of the seats played on the laptops this node has not heard from, while its table
        cannot commit without them (their node ids when no seat names them yet); [] while it can."""
        gone = self.node.not_heard_from()
        return (names_on_laptops(self.peer.record.seats, gone) or list(gone)) if gone else []

    def go_on_without_them(self) -> bool:
        """The person here decided (a key on the screen, or ``--if-stranded go-on``): the table goes on
        with the laptops still heard, bots playing the lost seats (``Node.go_on_without_them``)."""
        missing = self.missing_laptops()
        if not missing or not self.node.go_on_without_them():
            return False
        self.say(f"going on without {', '.join(missing)}: bots play their seats")
        return True

    def _pin_guesses(self, host: str, tried: int, interval_s: float) -> None:
        self.say(
            f"someone at {host} tried {tried} wrong PINs in the last hour: the table checks one PIN every"
            f" {interval_s:.0f} s"
        )
        if self.on_pin_guesses is not None:
            self.on_pin_guesses(host, tried, interval_s)

    def _door(self, joiner: str, name: str, tried: int, gone: bool) -> None:
        if not gone and joiner not in self._said_at_the_door:  # once: the leader tells it every few s
            self._said_at_the_door[joiner] = None
            while len(self._said_at_the_door) > 64:
                self._said_at_the_door.popitem(last=False)
            self.say(f"{name or 'someone'} ({joiner}) waits at the door for the PIN check")
        if self.on_door is not None:
            self.on_door(joiner, name, tried, gone)

    def let_in(self, joiner: str) -> bool:
        """This seated player lets ``joiner`` in without the PIN check; False if this process may not
        (it holds no seat: its node does not vote) or the table has no leader now."""
        let = self.node.let_in(joiner)
        self.say(f"let {joiner} in without the PIN check" if let else f"could not let {joiner} in")
        return let

    def _check_stranded(self) -> None:
        """Say when the table cannot commit, naming the laptops not heard from, and when it can again;
        a headless peer answers from ``--if-stranded`` at once, a screen asks its player."""
        missing = self.missing_laptops()
        was, self.stranded = self.stranded, missing
        if missing and not was:
            self.say(f"stranded: the table cannot go on without {', '.join(missing)} (not heard from)")
            if self.ui is None and self.config.if_stranded == "wait":
                self.say("waiting for them to come back (--if-stranded wait)")
        elif was and not missing:
            self.say("the table can commit again")
        if missing != was:
            self._advertise_soon.set()  # a stranded voter advertises the table, so that the lost find it
            if self.on_stranded is not None:
                self.on_stranded(missing)
        if missing and self.ui is None and self.config.if_stranded == "go-on":
            self.go_on_without_them()  # again whenever the survivors it went on with lose one more

    async def _watch_stranded(self) -> None:
        await every(
            self._stranded_period_s, self._check_stranded, "watching whether the table can commit",
            nudge=self.node.leader_watch(),
        )  # fmt: skip

    def _stranded_period_s(self) -> float:
        """Every ``STRANDED_EVERY_S`` while stranded (to say soon that the table can commit again), else
        not before the table could be stranded (``Node.stranded_in_ms``: while the leader holds, not
        before the node's leader watch nudges the loop)."""
        if self.stranded:
            return STRANDED_EVERY_S
        return max(STRANDED_EVERY_S, self.node.stranded_in_ms() / 1000.0)

    def _advertises(self) -> bool:
        """Whether this process advertises the table: as its leader; or, while it cannot commit, as the
        first of the voters it still hears, so that a returning laptop finds it (``kdm join NAME``)."""
        node = self.node
        if node.is_leader:
            return True
        gone = node.not_heard_from()
        heard = [voter for voter in node.raft.voters if voter not in gone]
        return bool(gone) and min(heard) == node.node_id

    async def _keep_advertised(self) -> None:
        await every(
            self._advertise_period_s, self._advertise_if_leading, "advertising the table", first_now=True,
            nudge=self._advertise_soon,
        )  # fmt: skip

    def _advertise_period_s(self) -> float:
        """``ADVERTISE_EVERY_S`` while this process advertises (the machine's addresses may change);
        otherwise only what may make it advertise asks (``_advertise_soon``: a new leader, the table
        stranded or not, a seat or the state changed)."""
        return ADVERTISE_EVERY_S if self.advertiser is not None else math.inf

    def _leader_changed(self, leader: str | None) -> None:
        self.peer.leader_changed(leader)
        self.say(f"leader: {leader}" if leader else "no leader")
        self._advertise_soon.set()  # the new leader advertises the table, the old one stops
        self._reconcile_soon.set()

    async def _advertise_if_leading(self) -> None:
        """The table's leader advertises it while it is listed: its founder first, and whoever leads once
        the founder is gone, so that a player can still find it to come back; and a stranded one too
        (``_advertises``). A member that stops leading says goodbye; the one advertising republishes when
        seats or state change."""
        async with self._advertising_lock:
            record = self.peer.record
            wanted = (
                self._advertises() and record.engine is not None and record.listed and self.config.advertise
            )
            if wanted and self.advertiser is None:
                advertiser = Advertiser()
                try:
                    await advertiser.start(self.ad(record.name, record.rules), self.config.interface)
                except (OSError, ValueError) as error:
                    log.warning(
                        "cannot advertise the table on the LAN (%s): it is joined by address only", error
                    )
                    self.config.advertise = False
                    return
                self.advertiser = advertiser
            elif not wanted and self.advertiser is not None:
                advertiser, self.advertiser = self.advertiser, None
                await advertiser.close()
            elif self.advertiser is not None and record.engine is not None:
                ad = self.ad(record.name, record.rules)
                if ad != self.advertiser.ad:
                    await self.advertiser.update(ad)

    def _refused(self, reason: str) -> None:
        """The table will not have this process (a PIN): the session ends, saying why."""
        self.error = reason
        self.pin_refused = True
        self.done.set()

    def _fork_proven(self, node_id: str) -> None:
        """The leader ``node_id`` signed two logs for one place: nobody follows it again, its seats go
        to bots once it is silent to everyone (``kdm.net.raft``, forks proven)."""
        names = ", ".join(names_on_laptops(self.peer.record.seats, [node_id])) or node_id
        self.say(f"fork proven: {names} sent two different logs: the table goes on without them")
        if self.on_fork is not None:
            self.on_fork(names)

    def _convicted(self, node_id: str, why: str) -> None:
        """The leader ``node_id`` signed what the rules forbid (``why``: a change of who votes that the
        voters did not approve): nobody it sent that to follows it again; its seats go to bots, as a
        forker's."""
        names = ", ".join(names_on_laptops(self.peer.record.seats, [node_id])) or node_id
        self.say(f"{names} changed who votes without the voters' approval: the table goes on without them")
        if self.on_convicted is not None:
            self.on_convicted(names)

    def _distrusted(self, node_id: str, count: int) -> None:
        """The leader ``node_id`` appended none of ``count`` entries given it, while it heartbeats:
        this process votes for another; the table changes leader once a quorum does."""
        names = ", ".join(names_on_laptops(self.peer.record.seats, [node_id])) or node_id
        self.say(f"{names}, leading, took none of {count} moves given it: asking for another leader")
        if self.on_distrust is not None:
            self.on_distrust(names)

    def say(self, line: str) -> None:
        for listener in self.line_listeners:
            listener(line)
        if self.ui is None and not self.config.quiet:
            print(line, flush=True, file=sys.stderr if self.config.log_on_stderr else sys.stdout)

    async def play(self, host: bool) -> dict[str, Any]:
        """Until this peer is refused, or the game is over everywhere (headless) or the UI returns."""
        loop = asyncio.get_running_loop()
        membership = loop.create_task(self._keep_membership())
        advertising = loop.create_task(self._keep_advertised())
        stranded = loop.create_task(self._watch_stranded())
        waiting: set[asyncio.Task[Any]] = {
            loop.create_task(self.done.wait()),
            membership,
            advertising,
            stranded,
        }
        if self.ui is not None:
            waiting.add(loop.create_task(self.ui(self)))  # the player leaves when they choose
        else:
            waiting.add(loop.create_task(self.peer.finished.wait()))
            waiting.add(loop.create_task(self._give_up_when_alone()))  # a person may quit instead
            if self.bots:  # a screen watches them itself; none started, none watched (no wake-ups)
                waiting.add(loop.create_task(self._watch_bots()))
        finished, pending = await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
        for task in pending:
            task.cancel()
        for task in finished:
            task.result()  # a UI that crashed says so
        if self.error is not None:
            raise (PinRefused if self.pin_refused else UsageError)(self.error)
        engine = self.peer.record.engine
        if engine is not None and engine.over:
            await self._serve_stragglers()
        if self.seat_memory is not None and engine is not None and engine.over:
            self.seat_memory.forget(self.peer.table)
        if self.config.report is not None:
            self.config.report.write_text(json.dumps(self.report()))
        return self.summary()

    def _alone(self) -> bool:
        """Whether this process is a member of a table with other members, none of them heard lately
        (a founder waiting alone for its first joiner is not: nobody else belongs yet)."""
        node = self.node
        others = [member for member in node.members if member != node.node_id]
        return (
            bool(others)
            and node.node_id in node.members
            and all(node.silent_ms(member) >= SILENT_S * 1000 for member in others)
        )

    async def _give_up_when_alone(self) -> None:
        """While the game is under way here: when none of the other members has been heard for
        ``ALONE_GIVE_UP_S`` of this process's awake time, the table ended or went away without it (a
        peer that fell behind as everyone left once waited for ever, saying "no leader"): it says why
        and stops. Time spent stopped (a sleeping laptop) is not counted: after it, the others are
        given the same time to answer again. With ``--if-stranded wait`` given, it never gives up: the
        laptops it waits for may come back (a stranded table keeps being listed for them)."""
        if self.config.wait_for_ever:
            await self.done.wait()  # told to wait for the laptops not heard from, however long
            return
        loop = asyncio.get_running_loop()
        alone_s, looked, period, was_alone = 0.0, loop.time(), ALONE_EVERY_S, False
        pause = Pause(self.node.leader_watch())
        try:
            while True:
                await pause(period)
                now = loop.time()
                slept, looked = now - looked, now
                engine = self.peer.record.engine
                under_way = self.peer.record.started and not (engine is not None and engine.over)
                alone = under_way and self._alone()
                if not alone:
                    alone_s = 0.0  # in the waiting room, players come and go: only a game under way ends
                elif was_alone and slept < 2 * period:  # (alone since the last look, and not asleep)
                    alone_s += slept
                was_alone, period = alone, self._alone_period_s(under_way, alone)
                if alone_s >= ALONE_GIVE_UP_S:
                    seen = f"round {engine.state.round}" if engine is not None else "its start"
                    table = self.peer.record.name or self.peer.table
                    self.error = (
                        f"no other member of table '{table}' has answered for {ALONE_GIVE_UP_S:.0f} s: it "
                        f"ended or went away without this laptop (seen up to {seen})"
                    )
                    self.done.set()
                    return
        finally:
            pause.close()

    def _alone_period_s(self, under_way: bool, alone: bool) -> float:
        """How long ``_give_up_when_alone`` sleeps: ``ALONE_EVERY_S`` while alone; while it hears its
        leader, or leads other voters, until the leader changes (``Node.leader_holds``: a voter that
        hears no other campaigns, a leader steps down, and the node's leader watch nudges the loop);
        else until the others could all have been silent for ``SILENT_S``; in a waiting room or after
        the game, ``ALONE_WAITING_EVERY_S``."""
        if not under_way:
            return ALONE_WAITING_EVERY_S
        node = self.node
        others = [member for member in node.members if member != node.node_id]
        if alone or not others:
            return ALONE_EVERY_S
        if node.leader_holds() and (not node.is_leader or len(node.raft.voters) > 1):
            return math.inf
        latest_s = SILENT_S - min(node.silent_ms(member) for member in others) / 1000.0
        return max(ALONE_EVERY_S, latest_s)

    async def _serve_stragglers(self) -> None:
        """The game is over here. While this process leads, it stays (``STRAGGLERS_WAIT_S`` at most)
        until every member it hears from holds the whole log: one that fell behind as the table ended
        learns the end from it, and exits with the game's digest, instead of waiting alone."""
        node, loop = self.node, asyncio.get_running_loop()
        deadline = loop.time() + STRAGGLERS_WAIT_S
        while node.is_leader and members_behind(node) and loop.time() < deadline:
            await asyncio.sleep(0.05)  # the heartbeats carry the log to them meanwhile

    async def _watch_bots(self) -> None:
        """Say why a bot this process started stopped without playing (else the table just waits).
        Never ends: the session's end is not the bots' (they leave with the game)."""

        async def watch(bot: BotProcess) -> None:
            reason = await bot.failed()
            if reason:
                self.say(f"{bot.name} could not sit: {reason}")

        await asyncio.gather(*(watch(bot) for bot in self.bots))
        await asyncio.get_running_loop().create_future()

    def report(self) -> dict[str, Any]:
        record = self.peer.record
        engine = record.engine
        return {
            "table": record.name,
            "node": self.node.node_id,
            "seat": self.peer.seat,
            "rejoined": self.peer.rejoined,
            "digest": engine.digest() if engine is not None else None,
            "events": engine.state.seq if engine is not None else 0,
            "rounds": engine.state.round if engine is not None else 0,
            "latencies_ms": self.peer.latencies_ms,
            "slap_windows": self.windows,
            "dropped": self.node.dropped,
            "deck": record.deck,
            **self._fair_report(),
        }

    def _fair_report(self) -> dict[str, Any]:
        """With the fair deck: the cheats it named, and what it measured (``kdm.fair.table.Timings``)."""
        deck = self.peer.deck
        if not isinstance(deck, FairDeck):
            return {}
        return {
            "cheats": [f"seat {finding.seat} {finding.reason}" for finding in deck.findings],
            "fair_ms": deck.timings.measured,
        }

    def summary(self) -> dict[str, Any]:
        """What ``--headless --json`` prints when the game ends (**contract**: table, seat, digest,
        events, rejoined), the commit latencies summed up."""
        report = self.report()
        latencies = sorted(report.pop("latencies_ms"))
        report.pop("fair_ms", None)
        latency = {"p50": percentile(latencies, 50), "p99": percentile(latencies, 99)}
        return {**report, "commit_latency_ms": latency}

    async def close(self) -> None:
        async with self._advertising_lock:
            if self.advertiser is not None:
                advertiser, self.advertiser = self.advertiser, None
                await advertiser.close()
        # Linger a moment so the last commits reach everyone before this peer's heartbeats stop.
        await asyncio.sleep(0.3)
        await self.peer.stop()
        await self.node.stop()
        if self._answering is not None:
            self._answering.close()
        storage = self.node.storage
        if isinstance(storage, FileStorage):
            storage.close()
            self._keep_or_forget(storage.path)

    def _keep_or_forget(self, log_file: Path) -> None:
        """Once the game is over: a player keeps it to watch again (``kdm.kept_games``), forgetting the
        oldest past their limit; a bot that filled a seat keeps nothing (it never comes back)."""
        engine = self.peer.record.engine
        if engine is None or not engine.over:
            return  # left before the end: the log is how the player comes back
        if not self.config.keep_identity:
            forget_log(log_file)
            return
        remember_game(log_file, self.peer.record)
        prune(data_root(self.config.data_dir), keep_games(folder=self.config.data_dir))


async def _listen(config: SessionConfig, reachable_at: str | None = None) -> Any:
    try:
        return await listen(config.interface, config.port, reachable_at)
    except TransportError as error:
        raise UsageError(str(error)) from None


async def _same_node_as_before(
    config: SessionConfig, table: str, transport: ZmqTransport, reachable_at: str | None = None
) -> tuple[ZmqTransport, int]:
    """The node this data directory was at ``table`` before (``kdm.identity.NodeMemory``): listening on
    the same address and port under the same key, so that a process started again after a crash is the
    same Raft member, with its log and its vote; ``transport`` when there is none, or its port is taken
    now. Returns the transport, remembered for next time, and how many times this data directory
    started at the table before (0 for a bot filling a seat: it never comes back)."""
    if not config.keep_identity:
        return transport, 0
    memory = NodeMemory(config.data_dir)
    before = memory.get(table)
    host, port, token = parse_contact(transport.node_id)
    starts = 0 if before is None else before.starts + 1
    remembered = None if before is None else (before.host, before.port, NodeKeys(before.key).token)
    if before is not None and before.host == host and (host, port, token) != remembered:
        # Closed first: the OS may have given this process the very port it had (it was free again).
        await transport.close()
        try:
            transport = await listen(config.interface, before.port, reachable_at, keys=NodeKeys(before.key))
        except TransportError as error:
            log.info("this process is a new node at the table: port %d is taken (%s)", before.port, error)
            transport = await _listen(config, reachable_at)
    memory.remember(table, host, parse_contact(transport.node_id)[1], transport.keys.signing, starts)
    return transport, starts


def _chaos_if_asked(config: SessionConfig, node: Node) -> None:
    """Under ``kdm selfplay --chaos`` only (``KDM_CHAOS=1``): the hook that lets it cut this process off
    the network and check its commits (``kdm.net.chaos``)."""
    if chaos.enabled():
        chaos.install(node, data_root(config.data_dir))


def _storage(config: SessionConfig, table: str, node_id: str) -> FileStorage:
    return FileStorage(data_root(config.data_dir) / TABLES / log_file_name(table, node_id))


async def _resolve(target: str, interface: str | None, held: Sequence[str] = ()) -> list[str]:
    """Where to try the table (``HOST:PORT~KEY`` each): ``target`` itself when it is one; when it is
    ``HOST:PORT`` alone, with the key the node there says it has (``kdm.net.introducer``); else every
    address of the table named ``target`` on the LAN (the only table there when ``target`` is empty),
    the one of ``held`` (ids of tables where this player holds a seat) when it is among them."""
    try:
        host, port, key = parse_contact(target)
    except ValueError as error:
        if _LOOKS_LIKE_AN_ADDRESS.fullmatch(target.strip()):
            raise UsageError(str(error)) from None  # meant as an address, not as a name
    else:
        if key:
            return [target.strip()]
        node_id = await ask_node_id(host, port)
        if node_id is None:
            raise UsageError(f"no table answered at {target.strip()}")
        key = node_id.rpartition("~")[2]
        log.info("the node at %s has the key %s (trusted on first use)", target.strip(), fingerprint(node_id))
        return [f"{target.strip()}~{key}"]
    tables = await _tables_for(target, interface, held)
    named = [ad for ad in tables if ad.name == target or (not target and len(tables) == 1)]
    ours = [ad for ad in named if ad.table_id in held and ad.state != "over"]
    if len(ours) == 1:
        return list(ours[0].contacts)  # the player's own table, known by its id: no namesake matters
    if len(named) == 1:
        return list(named[0].contacts)
    if named:
        places = "; ".join(f"{ad.contacts[0]} (key {ad.fingerprint})" for ad in named)
        raise UsageError(
            f"{len(named)} tables are named {target!r}: {places}; compare the key with the host's "
            f"screen and join that one by its address"
        )
    seen = ", ".join(sorted({ad.name for ad in tables})) or "none"
    wanted = f"no table named {target!r}" if target else "not exactly one table"
    raise UsageError(f"{wanted} found on the LAN (tables seen: {seen}); name one, or give HOST:PORT~KEY")


def _held_tables(config: SessionConfig, name: str) -> list[str]:
    """The ids of the tables named ``name`` at which this player holds a seat (``SeatMemory``)."""
    if not config.keep_identity or not name:
        return []
    return [table for table, seat in SeatMemory(config.data_dir).held().items() if seat["name"] == name]


async def _held_table_named(config: SessionConfig, name: str) -> TableAd | None:
    """The table named ``name`` on the LAN at which this player holds a seat, if it still plays."""
    memory = SeatMemory(config.data_dir)
    named = _held_tables(config, name) if config.advertise else []
    if not named:
        return None  # the usual case: nothing to look for, no time spent listening
    tables = await _tables_for(name, config.interface, named)
    ours = next((ad for ad in tables if ad.table_id in named and ad.state != "over"), None)
    if ours is None:
        for table in named:
            memory.forget(table)  # gone from the LAN: do not listen for it again next time
    return ours


async def _tables_for(target: str, interface: str | None, held: Sequence[str] = ()) -> list[TableAd]:
    """The tables on the LAN, as soon as one is named ``target`` (and a moment more, for another of that
    name to answer too: responders answer a query within a few hundred ms; none when it is one of
    ``held``, a table where this player holds a seat, known by its id), else after the whole window;
    with no name, after the whole window (there must be exactly one table)."""
    if not target:
        return await find_tables(LISTEN_S, interface)
    browser = TableBrowser()
    await browser.start(interface)
    try:
        found = await browser.wait_for(lambda ad: ad.name == target, LISTEN_FOR_NAME_S)
        if found is not None and not (found.table_id in held and found.state != "over"):
            await asyncio.sleep(SAME_NAME_GRACE_S)
        return browser.tables()
    finally:
        await browser.close()


def members_behind(node: Node) -> list[str]:
    """As leader, the other members heard from lately (``SILENT_S``) that do not hold the whole
    committed log yet."""
    raft = node.raft
    return [
        member
        for member in node.members
        if member != node.node_id
        and node.silent_ms(member) < SILENT_S * 1000
        and raft.match_index(member) < raft.commit_index
    ]


@dataclass
class BotProcess:
    """A bot process started on this machine, and where its error output goes."""

    process: subprocess.Popen[bytes]
    name: str
    errors: IO[bytes]
    told: bool = False

    async def failed(self) -> str:
        """Wait until the bot stops, then ``failure``."""
        await process_ended(self.process)
        return self.failure()

    def failure(self) -> str:
        """Why the bot stopped without playing (its one error line), once; empty otherwise."""
        if self.told or self.process.poll() in (None, 0):
            return ""
        self.told = True
        self.errors.seek(0)
        lines = self.errors.read().decode(errors="replace").strip().splitlines()
        reason = lines[-1] if lines else f"it stopped with status {self.process.returncode}"
        return reason.split(": error: ", 1)[-1]


def start_bot(contact: str, config: SessionConfig, seed: int, name: str, laptop: str = "") -> BotProcess:
    """``spawn_bot``, its error output kept to say why it stopped (``BotProcess.failure``)."""
    errors = tempfile.TemporaryFile()  # noqa: SIM115 (open for the bot's life; its owner closes it)
    process = spawn_bot(contact, config, seed=seed, name=name, errors=errors, laptop=laptop)
    return BotProcess(process, name, errors)


def spawn_bot(
    contact: str,
    config: SessionConfig,
    seed: int,
    strategy: str = "greedy",
    name: str = "",
    errors: IO[bytes] | None = None,
    laptop: str = "",
) -> subprocess.Popen[bytes]:
    """A ``kdm bot`` process on this machine joining the table this process reaches at ``contact``
    (``HOST:PORT~KEY``); it listens where this process does (``config.interface``, else everywhere).

    ``name`` is the name it sits under; its error output goes to ``errors`` (else to ours), where the
    one line that says why it could not sit can be read back. ``laptop`` is the node of the player's
    process that starts it: the bot shares that laptop's one vote (``kdm.membership``)."""
    argv = ["bot", contact, "--strategy", strategy, "--seed", str(seed)]
    if config.interface:
        argv += ["--interface", config.interface]
    if config.data_dir is not None:
        argv += ["--data-dir", str(config.data_dir)]
    if name:
        argv += ["--name", name]
    env = {**os.environ, PIN_ENV: config.pin} if config.pin else None  # not in argv: ps shows argv to all
    if laptop:
        env = {**(env or os.environ), LAPTOP_ENV: laptop}
    return subprocess.Popen(
        kdm_command(argv), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errors, env=env
    )


async def process_ended(process: subprocess.Popen[bytes]) -> None:
    """Wait until a child ``process`` has ended, and reap it. Linux says when (a pidfd the event loop
    watches: no wake-up until then); elsewhere this looks every ``BOT_LIVENESS_S``."""
    loop = asyncio.get_running_loop()
    ended: asyncio.Future[None] = loop.create_future()

    def readable() -> None:
        if not ended.done():
            ended.set_result(None)

    try:
        pidfd = os.pidfd_open(process.pid) if process.returncode is None else -1
    except (AttributeError, OSError):  # not Linux 5.3 or later (or a child reaped meanwhile)
        pidfd = -1
    if pidfd >= 0:
        try:
            loop.add_reader(pidfd, readable)
        except NotImplementedError:  # a loop that watches no descriptor
            os.close(pidfd)
            pidfd = -1
    if pidfd < 0:
        while process.poll() is None:
            await asyncio.sleep(BOT_LIVENESS_S)
        return
    try:
        await ended
    finally:
        loop.remove_reader(pidfd)
        os.close(pidfd)
    process.wait()  # it has ended: at once (where ``poll`` could find another thread's wait under way)


def stop_process(process: subprocess.Popen[bytes], grace_s: float = 3.0) -> None:
    """Let a child finish on its own for a moment, then stop it."""
    try:
        process.wait(grace_s)
    except subprocess.TimeoutExpired:
        process.terminate()
        try:
            process.wait(grace_s)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def version_line() -> str:
    return f"kdm {__version__}, protocol {PROTOCOL_VERSION}, Python {sys.version.split()[0]}"


def percentile(values: list[float], percent: float) -> float | None:
    """The ``percent``th percentile of sorted ``values`` (nearest rank), rounded to the microsecond."""
    if not values:
        return None
    index = min(len(values) - 1, max(0, round(percent / 100 * len(values)) - 1))
    return round(values[index], 3)
