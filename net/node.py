"""The consensus node: the Raft core driven over a transport on the asyncio loop.

Owns the loop around ``RaftNode``: ticks every ``tick_ms``, decodes what arrives (dropping and logging
anything malformed, oversized, from another table or from a stranger), persists before sending, hands
committed entries to the application in order, and measures the clock offset to the leader (DESIGN 5.6).
A node id names where its ROUTER listens and the key it listens under (``HOST:PORT~KEY``, see
``kdm.net.keys``), so any member can reach any other member from the configuration alone, encrypted.

Joining: a new node starts knowing only the founder (a table's id is its founder's node id, and every
member must start from the same founding configuration) and says ``hello`` to a member it knows; the
leader adds it as a learner, which receives the log but does not vote. Who votes is the application's
call (``promote``, ``retire``): a table makes its seated players voters, so that a stranger who knocks
and leaves never counts in the quorum. A learner that stops hearing a leader says hello again, in case
it was retired while away.

No input stops a node (issue 12): each message is handled alone, and whatever it raises is logged with
its sender and dropped; the tick, ping and hello loops log and go on. A ``hello`` introduces its sender
(a member may forward a newcomer's), names a node id that is an address, and is refused once the table
holds ``MAX_LEARNERS`` learners. At a table with a PIN, a node admits only a newcomer that proves it
(``kdm.net.admission``): until then the newcomer gets the next step of that exchange and nothing else,
no log entry, no direct note, no pong. A member tells every other member of each wrong guess it checks,
and of each right one (``pin_checked``: a direct message, not an entry of the log, for the backoff and
the screens need a count, not one order of it on every peer, and a flood of guesses must not fill the
log). Only the leader checks confirmations (another member sends the joiner to it), so the table's pace
is kept in one place: a guesser that knocks at every member at once gets no more turns than at one, not
even while the members have yet to hear of each other's wrong guesses. Once the table is slowed
(``GuessBackoff``), the leader checks one at a time, and every member says who guesses
(``on_pin_guesses``). A node
sends to non-members only to answer them (which table is this? the PIN exchange),
``STRANGER_ANSWERS_PER_S`` a second, and keeps at most ``MAX_STRANGER_SOCKETS`` sockets to them, the
least recently used closed first; it answers pings from members only. A leader takes no membership
change from another node, and from another node only what the application's ``screen_proposal`` lets in.
From a node that does not vote no raft message but answers to the leader and proposals is taken, and
none that would move the term.

Forks: once a second, a voter shows the other voters the last heads its leader signed for it
(``heads``); a member that finds two for one place has the proof (``RaftNode.check_head``), tells every
member (``fork``: each checks it itself), and from then on drops everything from that node, which so
goes silent at the table and is replaced by a bot; the application is told (``on_fork``). Raft
messages no correct node sends (``Misconduct``) are logged as warnings naming the sender.

A leader that stalls: a node watches what it gives its leader (``propose``; the application's
``screen_relay`` says what is worth watching). Whatever is not in its log after ``RELAY_AFTER_MS`` goes
to the other voters too (``relay``), each of which gives it to the leader itself and watches it as its
own; whatever is still missing after ``LEADER_PATIENCE_MS`` while the leader heartbeats, and that the
application has not seen settled since (``settled``), is the leader's doing: a voter distrusts it
(``RaftNode.distrust_leader``) and says so (``on_distrust``). A leader that drops one player's moves,
or everyone's, is so distrusted by every honest voter, and they elect another; a relay the leader
would rightly refuse is refused by each voter first (``screen_relay``, which also refuses a relayer
without a seat), so a cheater's relays cannot depose an honest leader. A seated node that does not
vote relays its own too (it cannot distrust, but the voters can): a learner (a bot's process always
is one, and only the leader makes a player's a voter), or one the leader took out of the membership
(which a learner's leaving needs nobody's word for), so a leader cannot drop a seat's moves unseen.

Stranded: a voter that hears no leader, nor enough voters to make a quorum, for ``STRANDED_AFTER_MS``
names the voters it has not heard from (``not_heard_from``); the table cannot commit without them. Only
a person may decide to go on without them (``go_on_without_them``: a forced reconfiguration, see
``RaftNode.force_configuration``), never a timer: they may be on a laptop that only sleeps.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import math
import re
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, NamedTuple

from .addresses import EVERYWHERE, primary_address
from .admission import GuessBackoff, Prover, Verifier
from .clock import ClockEstimator, ClockSample, PerSecond, monotonic_ms
from .keys import NodeKeys
from .loops import every
from .raft import MAX_ENTRY_BYTES, Misconduct, RaftNode
from .raft_log import Storage, persist_and_send, save
from .raft_messages import (
    Certificate,
    ConfChange,
    Entry,
    ForkProof,
    Message,
    Ready,
    SignedHead,
    Vote,
    head_from_list,
    head_to_list,
    message_from_dict,
    message_to_dict,
)
from .raft_signing import TableSigner, Unsigned
from .transport import Transport, TransportError, ZmqTransport
from .wire import Codec, Envelope, WireError, check_fields

log = logging.getLogger("kdm.net")

HELLO_EVERY_S = 0.3
#: How long after it took a new head a voter shows the other voters the last heads its leader signed for
#: it (only when they changed: a table at rest shows none), and how many: two voters that hold two signed
#: logs for one place prove the leader forked.
HEADS_EVERY_S = 1.0
HEADS_SHARED = 4
#: A follower pings its leader (for the agreed clock, ``ClockEstimator``) every ``PING_EVERY_S`` until
#: ``PINGS_TO_SETTLE`` pongs since the leader changed, then every ``PING_SETTLED_S``: two clocks drift
#: apart by microseconds a second, and the estimate keeps the best of its last 16 samples. The pings ride
#: the follower's answers to its leader, and each pong the leader's next message to that follower (a
#: heartbeat at most ``HEARTBEAT_MS`` later), with how long the leader held it (``_clock_field``): at rest
#: the clock sends no message of its own. Only the first ping to a new leader goes alone, at once (a
#: press waits for the clock), and again every ``PING_EVERY_S`` until its pong comes.
PING_EVERY_S = 0.3
PING_SETTLED_S = 2.0
PINGS_TO_SETTLE = 8
#: How often a leader with nothing to send tells its followers it is there, and how long a follower
#: waits without a word from it before it stands for election (Raft's election timeout, drawn in this
#: range). Failure detection needs no more: a Wi-Fi stall (100-250 ms) after a heartbeat still comes
#: within the shortest timeout, the leader hears every follower's answer twice in its quorum check (one
#: election timeout), and a dead leader is replaced 1-2 s after its last heartbeat, within the takeover
#: limits the table reads from the same answers (``kdm.host.takeovers.ASK_AFTER_MS``). No faster: each
#: is a message out and one back for every follower, the idle table's whole cost (issue 'Light on the
#: CPU': at 200 ms and 0.5-1 s an idle table of four spent 0.41 % of a core per peer, 0.25 % at 400 ms).
#: ``tests/test_lan_leader.py`` plays a table on the test LAN's Wi-Fi without a change of leader.
HEARTBEAT_MS = 400.0
ELECTION_TIMEOUT_MS = (1000.0, 2000.0)
#: A learner that has heard no leader for this long says hello again (it may have been retired).
REHELLO_AFTER_MS = 2000.0
#: Learners a table takes at once (joiners not yet seated, spectators); more hellos are refused.
MAX_LEARNERS = 16
#: How often a voter gives its leader the same approval of a change of who votes again, while the
#: change is not made (the leader may have missed it, or another may lead since).
APPROVE_AGAIN_MS = 1_000.0
#: Changes whose approvals a leader keeps (it makes one at a time: the others are old).
APPROVALS_KEPT = 16
#: Sockets kept to nodes that are not members (to answer "which table is this?").
MAX_STRANGER_SOCKETS = 8
#: Senders whose last message time is kept: every member, and non-members while there is room.
MAX_HEARD = 64
#: Answers a node sends to non-members in a second ("which table is this?", PIN exchanges), all together.
STRANGER_ANSWERS_PER_S = 50
#: How far behind the committed log a learner may be and still be made a voter (``Node.caught_up``).
CAUGHT_UP_SLACK = 32
#: Joiners remembered as having proved the table's PIN, until they are members (the oldest forgotten).
MAX_ADMITTED = 64
#: How often a member says again that someone guesses the PIN (while they go on).
PIN_GUESSES_SAID_EVERY_MS = 60_000.0
#: How often the leader tells the members who waits at the door for the PIN check, per joiner (ms).
DOOR_TOLD_EVERY_MS = 5_000.0
#: The longest name a joiner may show at the door.
MAX_DOOR_NAME = 32
#: A voter that has heard no leader, nor a quorum of voters, for this long is stranded (``not_heard_from``):
#: past the longest election timeout and a vote (``ELECTION_TIMEOUT_MS``), so a table that only changes
#: leader is never stranded; and well under 3 s with the look that notices it, the bound a screen says it
#: within (``tests/test_lan_stranded.py``), on a laptop busy with other work too (at 2.5 s, a run with
#: both cores busy said it after 3.66 s).
STRANDED_AFTER_MS = 2200.0
#: A proposal this node gave its leader and does not see in its log after this long goes to the other
#: voters too (``relay``): an honest leader appends one within a round trip, a few tens of milliseconds
#: on a poor Wi-Fi, a few hundred on a laptop that is busy.
RELAY_AFTER_MS = 500.0
#: A proposal given to the leader (by this node, or relayed to it) and still not in the log after this
#: long while that leader heartbeats is the leader's doing: this node distrusts it for ``DISTRUST_MS``
#: (``RaftNode.distrust_leader``). Past two election timeouts: a leader that loses a quorum meanwhile is
#: replaced by then anyway, and a slow honest one has had ample time.
LEADER_PATIENCE_MS = 2500.0
DISTRUST_MS = 10_000.0
#: At most this many proposals watched (``_forwarded``), and relays taken from one member a second.
FORWARDED_KEPT = 256
RELAYS_PER_S = 20
#: A tick this late means this process itself was stopped (a sleeping laptop, SIGSTOP): everyone looks
#: silent to it, so it gives the table ``STRANDED_AFTER_MS`` to answer again before it is stranded.
STALLED_AFTER_MS = 1000.0
#: The longest a node goes without counting its ticks when Raft needs none sooner, counted from when it
#: last counted them (a message received counts them), not from whatever set the timer again: ticks
#: counted this much later than they fell tell a stalled loop (``STALLED_AFTER_MS``), so it stays well
#: under that. (Counted from the call, a process busy with other work, a bot proposing every quarter
#: second, moved it later at every call: the timer went off only at the election timeout, read as a
#: stall, and a follower whose leader had died took 7 s or more to campaign, or never did.) When Raft
#: needs no tick at all (a leader alone at its table, a learner) no timer is set: nothing would read a
#: stall there, and a founder waiting alone for players does not wake for nothing.
MAX_TICK_WAIT_MS = 500.0
#: The tick timer is set again for later only when the tick it waits for moved this much later: a
#: follower's election timeout moves at every heartbeat, and a timer set again then costs far less than
#: a wake-up with nothing to do; by less, it keeps the sooner time. At rest a follower sets it again at
#: each heartbeat (``HEARTBEAT_MS``, sooner than ``MAX_TICK_WAIT_MS``), and it never goes off.
TICK_LATER_MS = 250.0
#: What a node id looks like: ``HOST:PORT~KEY`` (the host may be a bracketed IPv6 address; over the
#: in-memory network of the tests, the token need not be a key).
NODE_ID = re.compile(r"(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.\-]+):(\d{1,5})(?:~[0-9a-z]{1,64})?")


async def listen(
    interface: str | None, port: int = 0, reachable_at: str | None = None, keys: NodeKeys | None = None
) -> ZmqTransport:
    """A started zmq transport named after the port it got (the OS picks one when ``port`` is 0).

    It listens on ``interface`` only, or on every interface when that is None. Its node id names
    ``reachable_at``: the address the others reach it at (a joiner's end of the route to its table),
    else ``interface``, else this machine's primary address; and ``keys`` (new ones when None).
    """
    transport = ZmqTransport("unnamed", interface or EVERYWHERE, port, keys=keys)
    await transport.start()
    # The id names the port the OS chose; it goes out with every message, and none has been sent yet.
    host = reachable_at or interface or primary_address()
    transport.node_id = transport.named(f"{host}:{transport.address.rsplit(':', 1)[1]}")
    return transport


def host_of(node_id: str) -> str:
    """The host a node id names (``HOST`` of ``HOST:PORT~KEY``)."""
    return node_id.rsplit("~", 1)[0].rsplit(":", 1)[0]


def address_of(node_id: str) -> str:
    """The zmq address a node id (or a contact's ``HOST:PORT``) names; ValueError when it is neither."""
    if not is_node_id(node_id):
        raise ValueError(f"{node_id!r} is not a node id (HOST:PORT~KEY)")
    return "tcp://" + node_id.rsplit("~", 1)[0]


def is_node_id(text: str) -> bool:
    """Whether ``text`` is a node id (``HOST:PORT~KEY``; a port from 1 to 65535)."""
    found = NODE_ID.fullmatch(text)
    return found is not None and 1 <= int(found.group(1)) <= 65535


def _remember(memo: dict[str, Any], node_id: str, value: Any) -> None:
    """Keep ``value`` for a member in one of a node's memos: members come and go, and a memo that grew
    past ``MAX_HEARD`` nodes starts again (it only saves work)."""
    if node_id not in memo and len(memo) >= MAX_HEARD:
        memo.clear()
    memo[node_id] = value


def _raft_body(body: dict[str, Any]) -> Message:
    """A raft message, and the clock's ping or pong riding it (``_clock_field``), checked here and read
    from the body by the node."""
    if _carries_clock(body):
        _check_clock_fields(body)
        body = {key: value for key, value in body.items() if key not in _CLOCK_FIELDS}
    return message_from_dict(body)


_CLOCK_FIELDS = ("ping", "pong")


def _carries_clock(body: dict[str, Any]) -> bool:
    return "ping" in body or "pong" in body


def _check_clock_fields(body: dict[str, Any]) -> None:
    """A ping is the time the follower sent it; a pong is [that time, when the leader read it, when the
    leader sent the answer], each on its sender's monotonic clock, in ms."""
    if "ping" in body and type(body["ping"]) is not float:
        raise ValueError("a ping riding a raft message is its time, a float")
    pong = body.get("pong", [0.0, 0.0, 0.0])
    if not (isinstance(pong, list) and len(pong) == 3 and all(type(time) is float for time in pong)):
        raise ValueError("a pong riding a raft message is three times, floats")


def _hello_body(body: dict[str, Any]) -> None:
    check_fields(body, {"node": str}, {"offer": bytes, "proof": bytes, "name": str})
    if len(body.get("name", "")) > MAX_DOOR_NAME:
        raise ValueError(f"a name at the door is at most {MAX_DOOR_NAME} characters")


def _door_body(body: dict[str, Any]) -> None:
    check_fields(body, {"joiner": str, "name": str, "tried": int, "gone": bool})
    if len(body["name"]) > MAX_DOOR_NAME:
        raise ValueError(f"a name at the door is at most {MAX_DOOR_NAME} characters")


def _let_in_body(body: dict[str, Any]) -> None:
    check_fields(body, {"joiner": str})


def _pin_body(body: dict[str, Any]) -> None:
    check_fields(body, {"answer": bytes}, {"verdict": str, "wait_s": float, "leader": str})


def _pin_checked_body(body: dict[str, Any]) -> None:
    check_fields(body, {"joiner": str, "wrong": bool})


def _ping_body(body: dict[str, Any]) -> None:
    check_fields(body, {"sent": float})


def _pong_body(body: dict[str, Any]) -> None:
    check_fields(body, {"sent": float, "time": float})


def _direct_body(body: dict[str, Any]) -> None:
    check_fields(body, {"data": bytes})


def _heads_body(body: dict[str, Any]) -> None:
    check_fields(body, {"heads": list})
    if len(body["heads"]) > HEADS_SHARED:
        raise ValueError(f"more than {HEADS_SHARED} heads")
    for head in body["heads"]:
        head_from_list(head)


def _approve_body(body: dict[str, Any]) -> None:
    check_fields(body, {"change": str, "node": str, "at": int, "at_hash": bytes, "signature": bytes})
    ConfChange(body["change"], body["node"], (), body["at"], body["at_hash"])  # (raises ValueError)


def _relay_body(body: dict[str, Any]) -> None:
    check_fields(body, {"data": bytes})


def _fork_body(body: dict[str, Any]) -> None:
    check_fields(body, {"first": list, "second": list})
    head_from_list(body["first"])
    head_from_list(body["second"])


def node_codec(table: str) -> Codec:
    """The wire codec for one table's traffic: consensus, clock, and direct messages between members."""
    return Codec(
        table,
        {"raft": _raft_body, "hello": _hello_body, "pin": _pin_body, "pin_checked": _pin_checked_body,
         "door": _door_body, "let_in": _let_in_body,
         "ping": _ping_body, "pong": _pong_body, "direct": _direct_body, "heads": _heads_body,
         "fork": _fork_body, "approve": _approve_body, "relay": _relay_body},
    )  # fmt: skip


#: Before it knows a table's id, a newcomer asks "which table is this?" on the lobby codec.
LOBBY = "lobby"


def _which_body(body: dict[str, Any]) -> None:
    check_fields(body, {})


def _table_body(body: dict[str, Any]) -> None:
    check_fields(body, {"table": str})


def lobby_codec() -> Codec:
    return Codec(LOBBY, {"which": _which_body, "table": _table_body})


#: The raft messages a node that does not vote sends: its answers to the leader, and its proposals.
NON_VOTER_KINDS = ("app_resp", "heartbeat_resp", "prop")


def _non_voter_refusal(message: Message, term: int) -> str | None:
    """Why a raft message from a member that does not vote is dropped, or None.

    A learner is anyone who said hello: if it could lead (an append, a heartbeat) or move the term, it
    could depose the leader with one message, take the followers' logs, and do it again after every
    election. It never campaigns, so a term above ours never comes from it in good faith: the voters
    tell us of a newer leader themselves.
    """
    if message.kind not in NON_VOTER_KINDS:
        return f"a node that does not vote sends no {message.kind}"
    asks_to_catch_up = message.kind == "heartbeat_resp" and message.reject and message.log_index > 0
    if message.kind != "prop" and message.term > term and not asks_to_catch_up:
        # (an ask to catch up names the term whose leader it cannot count yet, and moves no term here)
        return f"a node that does not vote cannot move the term to {message.term}"
    return None


class Forwarded(NamedTuple):
    """A proposal this node gave its leader and has not seen in its log yet (``Node._watch``)."""

    leader: str
    since_ms: float
    #: Whether this node's own (it relays it to the other voters when late) or relayed to it.
    own: bool
    relayed: bool = False


class Held(NamedTuple):
    """Raft messages that wait for a sync of the log (``after_a_sync``) or only for those before them;
    ``saved``: the (index, term) a leader's sync makes durable, told to Raft once it is done."""

    after_a_sync: bool
    messages: Sequence[Message]
    saved: tuple[int, int] | None = None


class WhichTable(NamedTuple):
    """The answer to "which table is this?": the table's id, and the member that answered."""

    table: str
    member: str


async def ask_table_id(
    transport: Transport, contact: str, address: str, timeout_s: float = 5.0
) -> WhichTable:
    """The id of the table whose member ``contact`` (a node id) listens at ``address`` (``tcp://HOST:PORT``,
    which may be another of its addresses than its id names), and the id of the member that answered.

    Raises ``TimeoutError`` when nobody answers in time, ``WireError`` when the answer is not one this
    peer understands (another protocol version, say).
    """
    lobby = lobby_codec()
    transport.connect(contact, address)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while True:
        transport.send(contact, lobby.encode(transport.node_id, "which", {}))
        try:
            sender, payload = await asyncio.wait_for(transport.recv(), min(0.5, deadline - loop.time()))
        except asyncio.TimeoutError:
            if loop.time() >= deadline:
                raise TimeoutError(f"nobody answered at {address}") from None
            continue
        envelope = lobby.decode(payload, claimed_sender=sender)
        if envelope.kind == "table":
            transport.disconnect(contact)
            return WhichTable(envelope.body["table"], sender)


class Node:
    """One table's consensus node."""

    def __init__(
        self,
        transport: Transport,
        table: str,
        storage: Storage,
        voters: tuple[str, ...] = (),
        on_commit: Callable[[bytes], None] | None = None,
        seed: int = 0,
        tick_ms: float = 10.0,
        address_of: Callable[[str], str] = address_of,
        pin: str | None = None,
    ) -> None:
        self.transport = transport
        self.node_id = transport.node_id
        self.codec = node_codec(table)
        self._lobby = lobby_codec()
        self.storage = storage
        keys = transport.keys
        self.raft = RaftNode(
            self.node_id, voters, storage=storage, rng_seed=seed,
            saves_in_the_background=storage.sync_waits_on_a_disk,
            # votes signed by the key the node's id names, so a leader proves its term (issue 25)
            signer=TableSigner(keys, table) if keys is not None else Unsigned(),
            silence_ticks=round(STRANDED_AFTER_MS / tick_ms),
            heartbeat_ticks=max(1, round(HEARTBEAT_MS / tick_ms)),
            election_ticks=(round(ELECTION_TIMEOUT_MS[0] / tick_ms), round(ELECTION_TIMEOUT_MS[1] / tick_ms)),
            changes_need_approval=True,  # who votes is the application's to say (``approve``)
        )  # fmt: skip
        #: As leader, the approvals of a change of who votes that voters gave, by the change (unapproved,
        #: at its point) → voter → signature; as a voter, when it last gave each approval to which leader.
        self._approvals: OrderedDict[ConfChange, dict[str, bytes]] = OrderedDict()
        self._approved: dict[tuple[ConfChange, str], float] = {}
        #: Called when a voter's approval reaches this leader: the application may make the change now.
        self.on_approval: Callable[[], None] | None = None
        #: Called with a node Raft convicted for a message it signed (a change of who votes without
        #: approvals), and why: never followed again, like a forker (``on_fork``).
        self.on_convicted: Callable[[str, str], None] | None = None
        self._convicted_told: set[str] = set()
        self.on_commit = on_commit
        #: Told of each committed membership change, in log order among the entries ``on_commit``
        #: is told of (the record asks a forced configuration's survivors for their word).
        self.on_membership: Callable[[ConfChange], None] | None = None
        self.on_leader: Callable[[str | None], None] | None = None
        #: Called with the node id of a leader whose fork is proven (``RaftNode.forks``).
        self.on_fork: Callable[[str], None] | None = None
        self._forks_told = 0
        self._heads_shown: tuple[SignedHead, ...] = ()
        #: Set when this node took a head it has not shown yet (``_process``): the loop that shows them
        #: sleeps until then, not on a period.
        self._new_heads = asyncio.Event()
        self._heads_counted = 0
        #: Called with (sender, bytes) for each direct message from a member.
        self.on_direct: Callable[[str, bytes], None] | None = None
        #: Called after each message this node took (a heartbeat at rest): the process is awake, and
        #: the application may do then what it would otherwise wake for a little later.
        self.on_heard: Callable[[], None] | None = None
        #: Says why another node may not propose these bytes (None: it may): the application's rule
        #: (a table lets a learner propose only its own join, and bounds the times a press claims).
        self.screen_proposal: Callable[[str, bytes], str | None] | None = None
        #: Says why a proposal relayed by another node (or this node's own) is not worth giving the leader
        #: and watching (None: it is): what an honest leader could rightly refuse (``relay``). None
        #: here: every proposal is.
        self.screen_relay: Callable[[str, bytes], str | None] | None = None
        #: Whether the application has seen a proposal's fate (committed, or refused for good) since it
        #: was proposed: one that it has is no evidence against the leader (a copy retried, say).
        self.settled: Callable[[bytes], bool] | None = None
        #: Called with a leader this node distrusts (it appended none of ``count`` proposals given it
        #: ``LEADER_PATIENCE_MS`` ago, while it heartbeats): the application says so on screen.
        self.on_distrust: Callable[[str, int], None] | None = None
        #: The proposals given to the leader and not seen in the log yet, watched (``_watch``), the
        #: timer of the next look at them, and how many relays each relayer sent this second.
        self._forwarded: dict[bytes, Forwarded] = {}
        self._watch_timer: asyncio.TimerHandle | None = None
        self._watch_due_ms = math.inf
        self._relays: dict[str, PerSecond] = {}
        #: Whether a node holds a seat at the table (the application's record; its id names its key, so
        #: a message from it proves it): a player's process retired while a bot held their seat, and
        #: back, is taken back as a learner at its first message, and never asked for the PIN again.
        self.holds_a_seat: Callable[[str], bool] | None = None
        #: Told of every batch of entries this node learns are committed, before they are applied
        #: (``kdm.net.chaos``: the journal ``kdm selfplay --chaos`` checks); None but under chaos.
        self.journal: Callable[[Sequence[Entry]], None] | None = None
        self.clock = ClockEstimator()
        self.dropped = 0
        self._address_of = address_of
        #: Where to reach a node when not where its id says: a joiner reaches the table's founder at
        #: the address it found the table at, which may be another of the founder's addresses.
        self.addresses: dict[str, str] = {}
        self._contact: str | None = None
        #: The members this node said hello to lately (only they may answer with a PIN exchange).
        self._greeted: OrderedDict[str, None] = OrderedDict()
        self._hello_turn = 0
        #: When this node last knew of a leader (monotonic ms).
        self._leader_seen_ms = monotonic_ms()
        #: Set when the leader changes: the loops whose next step depends on who leads (pings, hellos).
        self._leader_moved = (asyncio.Event(), asyncio.Event())
        #: Set when the leader changes or this process was stopped: the application's watches that
        #: sleep while the leader holds (``leader_watch``; the hellos too, by the first above).
        self._leader_watches: list[asyncio.Event] = []
        #: Whether this node votes, and with others: a change (a retired voter, now a learner under the
        #: same leader; a leader whose last other voter was retired) nudges those watches too.
        self._voting = (False, False)
        self._waiting: list[bytes] = []
        self._heard: dict[str, float] = {}
        #: The last raft message each member sent here and this node sent each member, with its bytes:
        #: at rest they repeat (a heartbeat, its answer), and one equal to the last is not decoded or
        #: encoded again (both are pure: the same bytes make the same message, and back).
        self._raft_received: dict[str, tuple[bytes, Envelope]] = {}
        self._raft_sent: dict[str, tuple[Message, bytes]] = {}
        #: As a follower, when a ping is next due to ride an answer to the leader; as the leader, the
        #: last ping each follower's answers carried and when it was read, for its next message there.
        self._ping_due_ms = -math.inf
        self._echoes: dict[str, tuple[float, float]] = {}
        #: The address each node id names (``_address_of``, which reads it out of the id): asked again
        #: at every message sent.
        self._named_address: dict[str, str] = {}
        self._started_ms = monotonic_ms()
        #: When this node last started running again: its start, or the end of a stall of its loop.
        self._awake_since_ms = self._started_ms
        #: Raft's ticks: tick ``n`` falls at ``_ticks_from_ms + n * tick_ms``. They are run when due, not
        #: on a fixed beat: all those that fell since at once, before a message is taken and when the
        #: one timer (``_tick_timer``, at ``_tick_due_ms``) set for the next Raft needs goes off.
        self._tick_ms = tick_ms
        self._ticks_from_ms = self._started_ms
        self._ticks_run = 0
        self._tick_timer: asyncio.TimerHandle | None = None
        self._tick_due_ms = math.inf
        self._leader: str | None = None
        #: The highest commit index a leader told this node, and the entry it is applying (None between).
        self._leader_commit = 0
        self._applying: int | None = None
        #: The last leader this node followed (it heard that one to the end: ``silent_ms`` is right).
        self.followed: str | None = None
        self._tasks: list[asyncio.Task[None]] = []
        #: Non-members this node has a socket to (it answered them), least recently used first.
        self._strangers: OrderedDict[str, None] = OrderedDict()
        self._stranger_answers = PerSecond(STRANGER_ANSWERS_PER_S)
        # A table's PIN (``kdm.net.admission``): as a member, this node admits only joiners that prove
        # it; as a joiner, it proves it to the member it says hello to.
        self._verifier = Verifier(table, self.node_id, pin) if pin else None
        self._prover = Prover(table, self.node_id, pin) if pin else None
        self._admitted: OrderedDict[str, None] = OrderedDict()
        #: The table's wrong guesses as this member knows them, and whether a check waits for its turn.
        self._backoff = GuessBackoff()
        self._check_waits: asyncio.TimerHandle | None = None
        #: host → when this member last said that someone there guesses the PIN (monotonic ms).
        self._guesses_said: dict[str, float] = {}
        #: Called with (host, its wrong guesses lately, seconds between two checks) when someone guesses
        #: the PIN at the table: the application shows it on screen.
        self.on_pin_guesses: Callable[[str, int, float], None] | None = None
        #: Called with (joiner, the name it gives, wrong PINs from its host lately, gone) when a joiner
        #: waits at the door for the leader's PIN check (gone: it no longer does): the screen shows it,
        #: and a seated player may let it in without the check (``let_in``).
        self.on_door: Callable[[str, str, int, bool], None] | None = None
        #: joiner → when the leader last told the members it waits at the door (monotonic ms).
        self._door: OrderedDict[str, float] = OrderedDict()
        #: The name this joiner gives at the door (the player's), shown to the table while it waits.
        self.door_name = ""
        #: Whether this joiner was told that its confirmation waits for the table's turn.
        self._told_to_wait = False
        #: The leader a member sent this joiner to, while the table is slowed by wrong PINs (None: none).
        self._pin_leader: str | None = None
        #: member → this joiner's confirmation of the PIN exchange that member answered.
        self._proofs: dict[str, bytes] = {}
        #: Called with one line when the table refuses this joiner for good (a PIN wanted, or wrong).
        self.on_refused: Callable[[str], None] | None = None
        #: Why the table refused this joiner, once it has (it then stops asking).
        self.refusal: str | None = None
        self._processing = False
        self._process_queued = False
        self._stopped = False
        #: Raft messages waiting for a sync of the log (``_save_and_send``), oldest first, and the
        #: task that syncs it in ``_sync_thread`` and sends them.
        self._held: list[Held] = []
        self._syncing: asyncio.Task[None] | None = None
        self._sync_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kdm-sync")

    # --- life ------------------------------------------------------------------------------------

    async def start(self, contact: str | None = None) -> None:
        """Run the node; ``contact`` is a member's node id to join through (None to found or rejoin)."""
        self._contact = contact
        if contact is None and self.raft.voters == (self.node_id,):
            self.raft.campaign()  # a table's founder votes alone: it leads at once, not after a timeout
            self._process()
        loop = asyncio.get_running_loop()
        self._ticks_from_ms, self._ticks_run = monotonic_ms(), 0
        self._arm_tick()
        self._tasks = [loop.create_task(self._receive_forever())]
        self._tasks.append(loop.create_task(self._ping_forever()))
        self._tasks.append(loop.create_task(self._stay_member()))
        self._tasks.append(
            loop.create_task(every(math.inf, self._show_heads, "showing heads", nudge=self._new_heads))
        )

    async def stop(self) -> None:
        tasks = [*self._tasks, *([self._syncing] if self._syncing else [])]
        if self._check_waits is not None:
            self._check_waits.cancel()
        if self._tick_timer is not None:
            self._tick_timer.cancel()
            self._tick_timer, self._tick_due_ms = None, math.inf
        if self._watch_timer is not None:
            self._watch_timer.cancel()
            self._watch_timer, self._watch_due_ms = None, math.inf
        self._stopped = True
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._sync_thread.shutdown(wait=True)  # a sync under way ends before the log file is closed
        await self.transport.close()

    # --- what the peer uses ----------------------------------------------------------------------

    @property
    def table(self) -> str:
        """The id of the table this node belongs to."""
        return self.codec.table

    @property
    def keys(self) -> NodeKeys | None:
        """This node's keys, which sign its entries (None over the in-memory network)."""
        return self.transport.keys

    @property
    def is_leader(self) -> bool:
        return self.raft.role == "leader"

    @property
    def leader(self) -> str | None:
        return self.raft.leader

    def caught_up(self, node_id: str) -> bool:
        """As leader, whether ``node_id`` holds the log up to ``CAUGHT_UP_SLACK`` entries short of what
        is committed: a newcomer that may vote only then (a restarted player's process starts empty,
        and voters that cannot ack for a long catch-up are as good as gone for the quorum)."""
        return self.raft.commit_index - self.raft.match_index(node_id) <= CAUGHT_UP_SLACK

    @property
    def leads_up_to_date(self) -> bool:
        """Whether this node leads and the application has applied all that is committed, an entry of
        this node's term included: a new leader learns what was committed before it led only once an
        entry of its own term is, so until then the application's state may be behind the log."""
        raft = self.raft
        index = raft.commit_index
        if not self.is_leader or index == 0 or raft.applied_index != index:
            return False
        return raft.log_entries(index, index + 1)[0].term == raft.term

    @property
    def catching_up(self) -> bool:
        """Whether the table committed entries this node has not applied yet, beyond the one it is
        applying: a process started again replaying the log, a learner catching up. What it would do
        now rests on a state the table has left."""
        applied = self._applying if self._applying is not None else self.raft.applied_index
        return applied < max(self.raft.commit_index, self._leader_commit)

    @property
    def members(self) -> tuple[str, ...]:
        return self.raft.voters + self.raft.learners

    def propose(self, data: bytes) -> bool:
        """Offer an entry for the log. With no leader known yet it waits here and goes out as soon as
        one is; the caller still retries until it sees the entry committed (a leader can fail)."""
        if self.raft.leader is None:
            self._waiting.append(data)
            return False
        accepted = self._forward(data, own=True)
        self._process()
        return accepted

    def _forward(self, data: bytes, own: bool) -> bool:
        """Give ``data`` to Raft (appended here if this node leads, else forwarded to the leader), and
        watch it come back in the log when another node leads (``_watch``)."""
        accepted = self.raft.propose(data)
        leader = self.raft.leader
        if not accepted or leader in (None, self.node_id) or self._stopped:
            return accepted
        if self.node_id not in self.members and not self._seated(self.node_id):
            return accepted  # (a node the table has not taken yet: the voters drop what it relays)
        kept = self._forwarded.get(data)
        if kept is not None and kept.leader == leader:
            return accepted  # given again (the application retries): watched since the first time
        if len(self._forwarded) >= FORWARDED_KEPT:
            return accepted
        if own and self.screen_relay is not None:
            refusal = self.screen_relay(self.node_id, data)
            if refusal is not None:  # (a chat line, say: the leader alone counts them)
                log.debug("not watching a proposal of ours: %s", refusal)
                return accepted
        self._forwarded[data] = Forwarded(leader, monotonic_ms(), own)
        self._arm_watch()
        return accepted

    def _arm_watch(self) -> None:
        """One timer, at the next moment a watched proposal is due to be relayed or held against the
        leader (none while nothing is watched)."""
        due = min(
            (
                kept.since_ms + (RELAY_AFTER_MS if kept.own and not kept.relayed else LEADER_PATIENCE_MS)
                for kept in self._forwarded.values()
            ),
            default=math.inf,
        )
        if due == self._watch_due_ms:
            return
        if self._watch_timer is not None:
            self._watch_timer.cancel()
        self._watch_timer, self._watch_due_ms = None, due
        if math.isinf(due) or not self._tasks:  # (a node driven by hand: its caller calls ``_watch``)
            return
        loop = asyncio.get_running_loop()
        self._watch_timer = loop.call_at(loop.time() + max(0.0, due - monotonic_ms()) / 1000, self._watch)

    def _watch(self) -> None:
        """Look at the proposals given to the leader and not in the log yet: relay this node's own
        late ones to the other voters, and distrust a leader that heartbeats but has appended none of
        those given it ``LEADER_PATIENCE_MS`` ago."""
        # (at least the time it was set for: a timer's time, rounded in seconds, may fall a hair short)
        now = max(monotonic_ms(), self._watch_due_ms)
        self._watch_timer, self._watch_due_ms = None, math.inf
        try:
            self._look_at_the_watched(now)
        except Exception:  # whatever one look does, the next one comes
            log.exception("a look at the proposals given to the leader failed; going on")
        finally:
            self._arm_watch()

    def _look_at_the_watched(self, now: float) -> None:
        leader = self.raft.leader
        late: list[bytes] = []
        for data, kept in list(self._forwarded.items()):
            if kept.leader != leader or (self.settled is not None and self.settled(data)):
                del self._forwarded[data]  # another leader gets its own time; a settled one is no sign
                continue
            # (deadlines summed as ``_arm_watch`` sums them: the same floats)
            if kept.own and not kept.relayed and kept.since_ms + RELAY_AFTER_MS <= now:
                self._forwarded[data] = kept._replace(relayed=True)
                # (one still applying what is committed may hold a copy: the application's next try,
                # once this watch is over, is relayed in its turn)
                for voter in self.raft.voters if not self.catching_up else ():
                    if voter not in (self.node_id, leader):
                        self._send(voter, "relay", {"data": data})
            if kept.since_ms + LEADER_PATIENCE_MS <= now:
                late.append(data)
        for data in late:
            del self._forwarded[data]
        # A leader not heard lately is replaced by an election anyway; a process that was stopped
        # meanwhile (a laptop asleep) saw nothing of what the leader did while it was; and one still
        # applying what is committed may not know yet that a copy it holds is in the log.
        heard = leader is not None and self.silent_ms(leader) <= ELECTION_TIMEOUT_MS[0]
        if late and heard and self.awake_ms() >= LEADER_PATIENCE_MS and not self.catching_up:
            already = leader is not None and self.raft.distrusts(leader)
            distrusted = self.raft.distrust_leader(round(DISTRUST_MS / self._tick_ms))
            if distrusted is not None and not already:  # (said once while it lasts)
                log.warning(
                    "leader %s appended none of %d proposals given it %.1f s ago, while it heartbeats: not"
                    " following it, voting for another", distrusted, len(late), LEADER_PATIENCE_MS / 1000,
                )  # fmt: skip
                if self.on_distrust is not None:
                    self.on_distrust(distrusted, len(late))
            self._process()

    def _take_relay(self, sender: str, data: bytes) -> None:
        """Another node's proposal its leader has not appended after ``RELAY_AFTER_MS`` (a member's, or
        a seated node's the leader took out of the membership): give it to the leader too, and watch it
        (``_watch``), if the application finds it worth it."""
        raft = self.raft
        relayer = sender in self.members or self._seated(sender)
        if not relayer or self.node_id not in raft.voters or raft.leader in (None, sender):
            why = "only a member or a seated node relays, to a voter, while a third leads"
            self._drop("a relayed proposal", sender, why)
            return
        if not self._relays.setdefault(sender, PerSecond(RELAYS_PER_S)).allows():
            self._drop("a relayed proposal", sender, f"more than {RELAYS_PER_S} this second")
            return
        if len(data) > MAX_ENTRY_BYTES:
            self._drop("a relayed proposal", sender, f"over {MAX_ENTRY_BYTES} bytes")
            return
        screen = self.screen_proposal if raft.leader == self.node_id else self.screen_relay
        refusal = screen(sender, data) if screen is not None else None
        if refusal is not None:
            self._drop("a relayed proposal", sender, refusal)
            return
        self._forward(data, own=False)
        self._process()

    def silent_ms(self, node_id: str) -> float:
        """How long since anything arrived from ``node_id`` (since this node started, if never)."""
        if node_id == self.node_id:
            return 0.0
        return monotonic_ms() - self._heard.get(node_id, self._started_ms)

    def not_heard_from(self) -> tuple[str, ...]:
        """While this node's table cannot commit: the voters not heard from for ``STRANDED_AFTER_MS``,
        too many for the others to make a quorum (a leader that lost its quorum steps down within an
        election timeout; during a forced reconfiguration the quorum is every survivor). () while a
        leader is heard, or enough voters are, or this node does not vote, or it has run for less than
        ``STRANDED_AFTER_MS`` since it started or its loop stalled."""
        raft, me = self.raft, self.node_id
        if me not in raft.voters or raft.leader == me or self.awake_ms() <= STRANDED_AFTER_MS:
            return ()
        if raft.leader is not None and self.silent_ms(raft.leader) <= STRANDED_AFTER_MS:
            return ()
        silent = tuple(
            voter for voter in raft.voters if voter != me and self.silent_ms(voter) > STRANDED_AFTER_MS
        )
        if len(raft.voters) - len(silent) >= raft.quorum:
            return ()
        return silent

    def leader_holds(self) -> bool:
        """Whether this node votes and leads, or hears its leader: then only a change of leader (or of
        who votes) can strand it or leave it alone, or retire it unheard, and ``leader_watch`` says
        when. A voter
        that stops hearing its leader campaigns within an election timeout (which drops that leader),
        and a leader that stops hearing a quorum steps down as soon (CheckQuorum); a process stopped
        meanwhile (a sleeping laptop) is told when it wakes. A learner never campaigns: its leader
        may go silent for good without a change."""
        raft, me = self.raft, self.node_id
        if me not in raft.voters or raft.leader is None:
            return False
        return raft.leader == me or self.silent_ms(raft.leader) <= ELECTION_TIMEOUT_MS[1]

    def leader_watch(self) -> asyncio.Event:
        """An event set whenever the leader changes, this node starts or stops voting or voting with
        others, or this process wakes from a stop: a watch over the table's health (is it stranded,
        alone) may sleep while ``leader_holds``, nudged by it."""
        nudge = asyncio.Event()
        self._leader_watches.append(nudge)
        return nudge

    def _tell_watches(self) -> None:
        """Nudge the loops that sleep while the leader holds: the hellos and ``leader_watch``'s."""
        for nudge in (self._leader_moved[0], *self._leader_watches):
            nudge.set()

    def stranded_in_ms(self) -> float:
        """How long from now, at the soonest, until ``not_heard_from`` can name voters while it names
        none now: until the leader it hears has been silent for ``STRANDED_AFTER_MS``, or else the next
        voter not silent that long yet has (and this node has run that long). Infinite while the leader
        holds (``leader_holds``): only a change of leader could strand it, and ``leader_watch`` tells
        whoever watches. Where only a change of voters could (it does not vote),
        ``STRANDED_AFTER_MS``: whoever watches looks again then. 0 while it is stranded."""
        raft, me = self.raft, self.node_id
        if self.leader_holds():
            return math.inf
        if me not in raft.voters:
            return STRANDED_AFTER_MS
        if self.not_heard_from():
            return 0.0
        running = STRANDED_AFTER_MS - self.awake_ms()
        if raft.leader is not None and self.silent_ms(raft.leader) <= STRANDED_AFTER_MS:
            silences = [self.silent_ms(raft.leader)]
        else:
            silences = [self.silent_ms(voter) for voter in raft.voters if voter != me]
        # A millisecond past the bound: silent for exactly STRANDED_AFTER_MS is not silent yet.
        crossing = [STRANDED_AFTER_MS + 1 - silence for silence in silences if silence <= STRANDED_AFTER_MS]
        return max(0.0, running, min(crossing, default=STRANDED_AFTER_MS))

    def awake_ms(self) -> float:
        """How long this node has run without a stall of its loop (``STALLED_AFTER_MS``) or since it
        started: a process back from a pause (it was retired meanwhile, maybe) gets its answers first."""
        if self._tasks:  # a stall is seen at the first look after it, not at the next tick
            self._catch_up()
            if self.raft.has_ready():
                self._process_later()
        return monotonic_ms() - self._awake_since_ms

    def go_on_without_them(self) -> bool:
        """A person decided that the table goes on without the voters it has not heard from: a forced
        reconfiguration with the voters this node hears (``RaftNode.force_configuration``), whose
        leader writes it into the log. False when this node is not stranded (``not_heard_from``)."""
        gone = self.not_heard_from()
        if not gone:
            return False
        survivors = [voter for voter in self.raft.voters if voter not in gone]
        forced = self.raft.force_configuration(survivors)
        if forced:
            log.warning(
                "going on without %s, as decided here: with %s", ", ".join(gone), ", ".join(survivors)
            )
        self._process()
        return forced

    def agreed_time_ms(self) -> float:
        """Now, on the leader's clock as well as this node can tell (its own when it leads)."""
        now = monotonic_ms()
        if self.is_leader or self.clock.offset_ms is None:
            return now
        return self.clock.to_reference(now)

    # --- loops -----------------------------------------------------------------------------------

    def _catch_up(self) -> None:
        """Run every Raft tick due by now, in order. Many more than a stall's worth mean this process
        itself was stopped (a sleeping laptop, SIGSTOP): it is awake again from now, and takes one tick,
        as a loop that slept through them all would."""
        if not self._tasks:  # not running (a node driven by hand, in a test): its ticks are the caller's
            return
        now = monotonic_ms()
        behind = int((now - self._ticks_from_ms) // self._tick_ms) - self._ticks_run
        if behind <= 0:
            return
        # A long wait is a stall only when a tick was due meanwhile (no timer was set while Raft needed
        # none: ``_arm_tick``).
        if behind * self._tick_ms > STALLED_AFTER_MS and self._tick_due_ms < now:
            self._awake_since_ms = now
            behind = 1
            self._ticks_from_ms = now - (self._ticks_run + 1) * self._tick_ms
            self._tell_watches()  # its leader went unheard meanwhile
        self._ticks_run += behind
        self.raft.tick(behind)

    def _arm_tick(self) -> None:
        """Set the tick timer for the next tick Raft needs (``RaftNode.ticks_to_timeout``), and no later
        than ``MAX_TICK_WAIT_MS`` after the ticks were last counted. It moves sooner at once, later only
        by ``TICK_LATER_MS`` or more (a wait that ends early is only a wake-up with nothing to do)."""
        if self._stopped:
            return
        if self._tick_timer is None:
            # No timer was set: the ticks that fell since are run first (none of them is a stall), so
            # that the next is counted from now.
            self._catch_up()
            if self.raft.has_ready():
                self._process_later()
        ticks = self.raft.ticks_to_timeout()
        if ticks is None:  # none will do anything: no timer (the ticks that fall are run before a step)
            if self._tick_timer is not None:
                self._tick_timer.cancel()
            self._tick_timer, self._tick_due_ms = None, math.inf
            return
        now = monotonic_ms()
        counted_ms = self._ticks_from_ms + self._ticks_run * self._tick_ms  # (ticks counted up to then)
        due = min(counted_ms + MAX_TICK_WAIT_MS, counted_ms + ticks * self._tick_ms)
        due += 0.1  # a hair past the tick's time, so that the tick is due when the timer goes off
        if self._tick_due_ms <= due < self._tick_due_ms + TICK_LATER_MS:
            return
        if self._tick_timer is not None:
            self._tick_timer.cancel()
        self._tick_due_ms = due
        wait_s = max(0.0, due - now) / 1000.0
        self._tick_timer = asyncio.get_running_loop().call_later(wait_s, self._tick)

    def _tick(self) -> None:
        self._tick_timer = None
        try:
            try:
                self._catch_up()  # (which reads when this tick was due)
            finally:
                self._tick_due_ms = math.inf
            self._process()
        except Exception:  # whatever one tick does, the next one comes
            log.exception("a tick failed; going on")
        finally:
            self._arm_tick()

    async def _receive_forever(self) -> None:
        while True:
            sender, payload = await self.transport.recv()
            try:
                self._receive(sender, payload)
            except Exception:  # whatever one message does, the next one is read
                self.dropped += 1
                log.exception("dropped a message from %s: handling it failed", sender)
            if self.on_heard is not None:
                try:
                    self.on_heard()
                except Exception:
                    log.exception("what was done on hearing a message failed; going on")

    def _receive(self, sender: str, payload: bytes) -> None:
        if sender in self.raft.convicted:
            # A leader that forked is not heard from again: silent to us, its seat goes to a bot.
            self.dropped += 1
            return
        arrived = monotonic_ms()
        if sender in self._heard or sender in self.members or len(self._heard) < MAX_HEARD:
            self._heard[sender] = arrived
        envelope = self._decode(payload, sender)
        if envelope is None:
            self.dropped += 1
            return
        body = envelope.body
        if envelope.table == LOBBY:
            if envelope.kind == "which":
                self._answer(sender, "table", {"table": self.codec.table}, self._lobby)
            return
        if envelope.kind == "raft":
            message: Message = envelope.parsed
            if message.sender != sender or message.to != self.node_id:
                self._drop("a raft message", sender, f"it claims {message.sender} → {message.to}")
                return
            proven = message.kind in ("app", "heartbeat", "catch_up") and (
                self.raft.proven_leader == (message.term, sender) or self._worth_checking(message.certificate)
            )
            if sender not in self.members and self.node_id in self.members and not proven:
                # A stranger could pose as a leader of the current term, unless it shows the signed
                # votes of a quorum of our voters (a node our log says left, elected since: the
                # certificate is checked by Raft). A node still joining cannot know the members yet:
                # it takes the log from whoever leads.
                self._welcome_back(sender)
                self._drop(f"a raft {message.kind}", sender, "not a member of this table")
                return
            if sender not in self.raft.voters and self.node_id in self.members and not proven:
                refusal = _non_voter_refusal(message, self.raft.term)
                if refusal:
                    self._drop("a raft message", sender, refusal)
                    return
            if _carries_clock(body):
                self._clock_rides(sender, body, arrived)
            if message.kind == "prop":
                message = self._screened(message)
                if not message.entries:
                    return
            self._catch_up()
            refusal = self.raft.step(message)
            self._tell_forks()
            if isinstance(refusal, Misconduct):  # no correct node sends that: name it
                self._tell_convicted(refusal)
                self._drop(f"a raft {message.kind}", sender, refusal)
            elif refusal:  # routine after an election (stale heartbeats), so only at info level
                log.info("raft ignored %s from %s: %s", message.kind, sender, refusal)
            elif message.kind in ("app", "heartbeat") and self.raft.leader == sender:
                # only the leader its term elected says what is committed
                self._leader_commit = max(self._leader_commit, message.commit)
            self._process()
        elif envelope.kind == "hello":
            self._hello(sender, body)
        elif envelope.kind == "pin":
            self._pin_answer(sender, body)
        elif envelope.kind == "pin_checked":
            if sender not in self.members or sender == self.node_id:
                self._drop("a PIN check's report", sender, "not a member of this table")
            elif not body["wrong"]:
                self._backoff.checked(monotonic_ms())  # a turn taken: the next leader waits for it too
            else:
                if self._verifier is not None:
                    self._verifier.guessed_wrong(body["joiner"])
                self._guessed_wrong(body["joiner"])
        elif envelope.kind == "door":
            if sender != self.raft.leader or sender == self.node_id:
                self._drop("news of the door", sender, "only the leader checks PINs")
            elif self.on_door is not None:
                self.on_door(body["joiner"], body["name"], body["tried"], body["gone"])
        elif envelope.kind == "let_in":
            self._let_in(body["joiner"], sender)
        elif envelope.kind == "ping":
            if sender in self.members:
                self._send(sender, "pong", {"sent": body["sent"], "time": monotonic_ms()})
            else:
                self._welcome_back(sender)
                self._drop("a ping", sender, "not a member of this table")
        elif envelope.kind == "pong" and sender == self.raft.leader:
            self._take_pong(sender, body["sent"], body["time"], body["time"], arrived)
        elif envelope.kind == "direct":
            self._direct(sender, body["data"])
        elif envelope.kind == "heads" and sender in self.raft.voters:
            for fields in body["heads"]:
                proof = self.raft.check_head(head_from_list(fields))
                if proof is not None:
                    self._tell_forks()
        elif envelope.kind == "approve":
            self._take_approval(sender, body)
        elif envelope.kind == "relay":
            self._take_relay(sender, body["data"])
        elif envelope.kind == "fork" and sender in self.members:
            self.raft.take_fork_proof(
                ForkProof(head_from_list(body["first"]), head_from_list(body["second"]))
            )
            self._tell_forks()

    def _worth_checking(self, certificate: Certificate | None) -> bool:
        """Whether an election certificate shown by a node our log does not count as a voter may be
        one (checked by Raft): it names enough of our voters, and not many more votes, so that a
        stranger's made-up certificates cost no more than a glance each (its signatures are checked only
        past this; a forged one is refused at its first bad signature, and once)."""
        if certificate is None:
            return False
        voters = set(self.raft.voters)
        named = {vote.voter for vote in certificate.votes} & voters
        enough = 1 if self.node_id not in voters else max(1, len(voters) // 2)
        return len(named) >= enough and len(certificate.votes) <= 2 * len(voters) + 2

    def _screened(self, message: Message) -> Message:
        """A member's forwarded proposals, less what it may not propose: a membership change (only a
        leader changes the membership, and only by its own ``promote`` and ``retire``), and, from a
        node that does not vote, whatever the application's ``screen_proposal`` refuses."""
        kept = []
        for entry in message.entries:
            if entry.kind == "conf":
                refusal: str | None = "only the leader changes the membership"
            elif self.screen_proposal is not None:
                refusal = self.screen_proposal(message.sender, entry.data)
            else:
                refusal = None
            if refusal is None:
                kept.append(entry)
            else:
                self._drop("a proposal", message.sender, refusal)
        return dataclasses.replace(message, entries=tuple(kept))

    def _drop(self, what: str, sender: str, reason: str) -> None:
        self.dropped += 1
        log.warning("dropped %s from %s: %s", what, sender, reason)

    async def _show_heads(self) -> None:
        """``HEADS_EVERY_S`` after this node took a new head, show the other voters the heads our leader
        signed lately, if they changed since last time (heads taken meanwhile go together). Not at once:
        a head comes with an append, and the moment a table commits is no time for more messages."""
        await asyncio.sleep(HEADS_EVERY_S)
        if self.node_id not in self.raft.voters:
            return
        heads = self.raft.recent_heads(HEADS_SHARED)
        if not heads or heads == self._heads_shown:
            return
        self._heads_shown = heads
        for voter in self.raft.voters:
            if voter != self.node_id:
                self._send(voter, "heads", {"heads": [head_to_list(head) for head in heads]})

    def _tell_forks(self) -> None:
        """Every fork proven here since last time: logged, told to every member (each checks the proof
        itself), and to the application (``on_fork``)."""
        while self._forks_told < len(self.raft.forks):
            proof = self.raft.forks[self._forks_told]
            self._forks_told += 1
            first = proof.first
            log.warning(
                "fork proven: %s signed two different logs for index %d in term %d: it is not followed again",
                proof.leader, first.index, first.term,
            )  # fmt: skip
            body = {"first": head_to_list(proof.first), "second": head_to_list(proof.second)}
            for member in self.members:
                if member not in (self.node_id, proof.leader):
                    self._send(member, "fork", body)
            if self.on_fork is not None:
                self.on_fork(proof.leader)

    def _tell_convicted(self, why: str) -> None:
        """A node Raft convicted for what it signed (not a fork: ``_tell_forks``), told once to the
        application (``on_convicted``), with why: every honest node it sent that to does the same."""
        forked = {proof.leader for proof in self.raft.forks}
        for node_id in sorted(self.raft.convicted - forked - self._convicted_told):
            self._convicted_told.add(node_id)
            log.warning("%s broke the rules of consensus (%s): it is not followed again", node_id, why)
            if self.on_convicted is not None:
                self.on_convicted(node_id, why)

    async def _stay_member(self) -> None:
        """Say hello until a member, and again whenever no leader has been heard for a while: the node
        may have been retired while away (a voter too: a player whose seat a bot took stops voting)."""
        hello = self._leader_moved[0]
        await every(self._hello_period_s, self._say_hello, "saying hello", first_now=True, nudge=hello)

    def _hello_period_s(self) -> float:
        """``HELLO_EVERY_S`` while this node says hello; a voter that leads or hears its leader sleeps
        until the leader changes or it wakes from a stop (``leader_holds``: both nudge the loop), and a
        learner that hears its leader until that leader could be silent for ``REHELLO_AFTER_MS``
        (``_lost``)."""
        if self.node_id not in self.members or self.refusal is not None or self._lost():
            return HELLO_EVERY_S
        if self.raft.leader == self.node_id or self.leader_holds():
            return math.inf
        return max(HELLO_EVERY_S, (REHELLO_AFTER_MS - self._no_leader_heard_ms()) / 1000.0)

    def _say_hello(self) -> None:
        if (self.node_id in self.members and not self._lost()) or self.refusal is not None:
            return
        to = self._hello_target()
        if to is None:
            return
        body: dict[str, Any] = {"node": self.node_id}
        if self._prover is not None:
            body["offer"] = self._prover.offer
            if self.door_name:
                body["name"] = self.door_name[:MAX_DOOR_NAME]
            if to in self._proofs:
                body["proof"] = self._proofs[to]
        self._greeted[to] = None
        self._greeted.move_to_end(to)
        while len(self._greeted) > MAX_STRANGER_SOCKETS:
            self._greeted.popitem(last=False)
        self._send(to, "hello", body)

    def _lost(self) -> bool:
        """Whether no leader has been heard for ``REHELLO_AFTER_MS``: this node was retired while away,
        and nobody tells a node it no longer belongs, or it is cut off (a hello then costs nothing)."""
        return self._no_leader_heard_ms() > REHELLO_AFTER_MS

    def _no_leader_heard_ms(self) -> float:
        """How long since this node heard its leader, or knew of one when it knows none (0 while it
        leads)."""
        leader = self.raft.leader
        if leader == self.node_id:
            return 0.0
        if leader is not None:
            return self.silent_ms(leader)
        return monotonic_ms() - self._leader_seen_ms

    def _hello_target(self) -> str | None:
        """Who this node says hello to: the leader when it hears one, else in turn the member it joined
        through and each other member it knows (a founder back from a sleep knows no one else)."""
        leader = self.raft.leader
        if leader and leader != self.node_id and self.silent_ms(leader) <= REHELLO_AFTER_MS:
            return leader
        if self._pin_leader is not None and self.node_id not in self.members:
            return self._pin_leader  # only the leader checks a PIN
        # No leader heard lately: it may be gone for good (a killed process comes back as another
        # node), so ask around, the member it joined through first.
        others = [member for member in self.members if member not in (self.node_id, self._contact)]
        if self._contact is not None:
            others.insert(0, self._contact)
        if not others:
            return None
        turn, self._hello_turn = self._hello_turn, self._hello_turn + 1
        return others[turn % len(others)]

    def _pin_answer(self, member: str, body: dict[str, Any]) -> None:
        """The member this joiner said hello to answers its PIN offer, or says the table wants one."""
        if member not in self._greeted or self.node_id in self.members:
            self._drop("a PIN answer", member, "this node did not ask it")
            return
        verdict = body.get("verdict", "")
        if verdict == "wrong":
            self._refused("the table refused the PIN: it is not this table's PIN")
            return
        if verdict == "ask":
            leader = body.get("leader", "")
            if not is_node_id(leader) or leader == self.node_id:
                self._drop("a PIN answer", member, f"it sends this node to {leader!r}, which is no node")
                return
            if self._pin_leader != leader:
                log.info("%s sends this node to the table's leader %s, which checks PINs", member, leader)
            self._pin_leader = leader
            self._say_hello()
            return
        if verdict == "held":
            if not self._told_to_wait:
                self._told_to_wait = True
                wait_s = body.get("wait_s", 0.0)
                log.info(
                    "the table is slowed by wrong PINs: it checks one every %.0f s, ours in turn", wait_s
                )
            return
        if not body["answer"]:
            if self._prover is None:
                self._refused("the table asks for a PIN: give it with --pin")
            return  # the offer went out after the member looked: the next hello carries it
        if self._prover is None:
            self._drop("a PIN answer", member, "this node offered no PIN")
            return
        proof = self._prover.confirm(member, body["answer"])
        if proof is None:
            self._drop("a PIN answer", member, "its answer is not a point of the group")
            return
        self._proofs[member] = proof
        self._say_hello()  # at once, with the proof

    def _refused(self, reason: str) -> None:
        """Said once (the application says it to the user), and no more hellos after it."""
        if self.refusal is not None:
            return
        self.refusal = reason
        log.info("%s", reason)
        if self.on_refused is not None:
            self.on_refused(reason)

    async def _ping_forever(self) -> None:
        ping = self._leader_moved[1]
        await every(self._ping_period_s, self._ping, "a ping to the leader", first_now=True, nudge=ping)

    def _ping_period_s(self) -> float:
        """A ping of its own every ``PING_EVERY_S`` until the clock has a sample of its leader's, then
        none: the pings ride the answers to the leader (``_clock_field``). None without another node
        to lead (a new leader nudges the loop: its clock is pinged at once)."""
        if self.raft.leader in (None, self.node_id) or self.clock.samples:
            return math.inf
        return PING_EVERY_S

    def _ping(self) -> None:
        leader = self.raft.leader
        if leader is not None and leader != self.node_id and not self.clock.samples:
            sent = monotonic_ms()
            self.clock.pinged(sent)
            self._ping_due_ms = sent + PING_EVERY_S * 1000
            self._send(leader, "ping", {"sent": sent})

    def _clock_field(self, to: str) -> dict[str, Any] | None:
        """What a raft message to ``to`` carries for the agreed clock: a ping, when it goes to this
        follower's leader and one is due (``PING_EVERY_S``, ``PING_SETTLED_S``); as the leader, the
        pong of the last ping ``to``'s answers carried, with when this node read it and now, so that
        the follower takes the time it was held off its round trip."""
        leader = self.raft.leader
        if leader == self.node_id:
            echo = self._echoes.pop(to, None)
            return None if echo is None else {"pong": [echo[0], echo[1], monotonic_ms()]}
        if to != leader or leader != self._leader:  # (not one it has taken as its leader yet: the
            return None  # clock's reset for it comes after this message, and its own ping at once)
        now = monotonic_ms()
        if now < self._ping_due_ms:
            return None
        settled = self.clock.samples >= PINGS_TO_SETTLE
        self._ping_due_ms = now + (PING_SETTLED_S if settled else PING_EVERY_S) * 1000
        self.clock.pinged(now)
        return {"ping": now}

    def _clock_rides(self, sender: str, body: dict[str, Any], arrived: float) -> None:
        """The ping or pong a raft message from ``sender`` carried (``_clock_field``), read at
        ``arrived``: the leader answers a member's ping with its next message there; a follower takes
        its leader's pong as a sample."""
        ping, pong = body.get("ping"), body.get("pong")
        if ping is not None and self.is_leader and sender in self.members:
            _remember(self._echoes, sender, (ping, arrived))
        if pong is not None and sender == self.raft.leader != self.node_id:
            sent, read, answered = pong
            self._take_pong(sender, sent, read, answered, arrived)

    def _take_pong(self, sender: str, sent: float, read: float, answered: float, arrived: float) -> None:
        """The leader's answer to the ping sent at ``sent`` (local clock), which it read at ``read`` and
        answered at ``answered`` (its clock), back here at ``arrived``: a sample of its clock, the time
        it held the ping taken off the round trip at both ends."""
        held = answered - read
        try:
            if held < 0:
                raise ValueError(f"it says it answered {-held} ms before it read the ping")
            sample = ClockSample(sent + held / 2, (read + answered) / 2, arrived - held / 2)
        except ValueError as error:  # times no clock gives (not finite, received before sent)
            self._drop("a pong", sender, str(error))
            return
        if not self.clock.answers_a_ping(sent):  # one queued for a killed process, say
            self._drop("a pong", sender, "it answers no ping this process sent to this leader")
            return
        self.clock.add(sample)

    # --- plumbing --------------------------------------------------------------------------------

    def _hello(self, sender: str, body: dict[str, Any]) -> None:
        """A node introduces itself (or a member forwards a newcomer's hello to the leader)."""
        newcomer = body["node"]
        refusal = self._hello_refusal(sender, newcomer)
        if refusal is not None:
            self._drop(f"a hello for {newcomer!r}", sender, refusal)
        elif newcomer != sender or self._proved_pin(sender, body):  # a member vouches for whom it forwards
            self._welcome(newcomer)

    def _proved_pin(self, joiner: str, body: dict[str, Any]) -> bool:
        """Whether ``joiner`` may join as far as the PIN goes: the table has none, ``joiner`` is a member
        or has proved it; if not, it gets the next step of its exchange (``kdm.net.admission``)."""
        verifier = self._verifier
        if verifier is None or joiner in self.members or joiner in self._admitted or self._seated(joiner):
            return True
        offer, proof = body.get("offer", b""), body.get("proof", b"")
        if not offer:
            self._drop("a hello", joiner, "it offers no PIN, and this table has one")
            self._answer(joiner, "pin", {"answer": b""})
            return False
        if not self.is_leader:
            log.info("sent %s to the leader: only the leader checks PINs", joiner)
            if self.raft.leader is not None:
                self._answer(joiner, "pin", {"answer": b"", "verdict": "ask", "leader": self.raft.leader})
            return False
        if proof:
            held = verifier.confirmed(joiner, offer, proof)
            if held is not None:
                self._check_pins()  # which welcomes the joiner if its turn came and it proved the PIN
                if held and verifier.waiting(joiner):
                    wait_s = self._backoff.interval_s(monotonic_ms())
                    self._answer(joiner, "pin", {"answer": b"", "verdict": "held", "wait_s": wait_s})
                if verifier.waiting(joiner):
                    self._at_the_door(joiner, body.get("name", ""))
                return False
        answered = verifier.answer(joiner, offer)
        if isinstance(answered, str):
            self._drop("a hello", joiner, answered)
            return False
        self._answer(joiner, "pin", {"answer": answered})
        return False

    def _check_pins(self) -> None:
        """Check the confirmations held here as fast as the table may (``GuessBackoff``): at once while
        it is not slowed, else at the leader only, one each interval (a timer for the next one)."""
        verifier = self._verifier
        assert verifier is not None
        while verifier.holds:
            now = monotonic_ms()
            if not self.is_leader:
                return  # it may lead again: the joiner's next hello finds its confirmation held
            wait_ms = self._backoff.wait_ms(now)
            if wait_ms > 0:
                if self._check_waits is None:
                    self._check_waits = asyncio.get_running_loop().call_later(
                        wait_ms / 1000, self._checks_turn
                    )
                return
            checked = verifier.check_next()
            assert checked is not None
            joiner, proved = checked
            self._left_the_door(joiner)
            for member in self.members:
                if member != self.node_id:
                    self._send(member, "pin_checked", {"joiner": joiner, "wrong": not proved})
            if proved:
                log.info("%s proved the table's PIN", joiner)
                self._backoff.checked(now)
                self._admitted[joiner] = None
                while len(self._admitted) > MAX_ADMITTED:
                    self._admitted.popitem(last=False)
                self._welcome(joiner)
                continue
            self._drop("a hello", joiner, f"a wrong PIN (wrong guesses checked here: {verifier.wrong})")
            self._answer(joiner, "pin", {"answer": b"", "verdict": "wrong"})
            self._guessed_wrong(joiner)

    def _at_the_door(self, joiner: str, name: str) -> None:
        """The leader holds ``joiner``'s confirmation for its turn: every member hears of it (again every
        ``DOOR_TOLD_EVERY_MS`` while it waits), so a seated player may let it in (``let_in``)."""
        now = monotonic_ms()
        told = self._door.get(joiner)
        if told is not None and now - told < DOOR_TOLD_EVERY_MS:
            return
        self._door[joiner] = now
        self._door.move_to_end(joiner)
        while len(self._door) > MAX_ADMITTED:
            self._door.popitem(last=False)
        self._tell_the_door(joiner, name, gone=False)

    def _left_the_door(self, joiner: str) -> None:
        if self._door.pop(joiner, None) is not None:
            self._tell_the_door(joiner, "", gone=True)

    def _tell_the_door(self, joiner: str, name: str, gone: bool) -> None:
        tried = self._backoff.tried(host_of(joiner), monotonic_ms())
        news = {"joiner": joiner, "name": name, "tried": tried, "gone": gone}
        for member in self.members:
            if member != self.node_id:
                self._send(member, "door", news)
        if self.on_door is not None:
            self.on_door(joiner, name, tried, gone)

    def let_in(self, joiner: str) -> bool:
        """This seated player lets ``joiner`` in without the PIN check (a friend at the door while a
        stranger slows the table down): the leader does it, told so if it is another node. False if this
        node does not vote (only a seated player's kdm may) or knows no leader."""
        if self.node_id not in self.raft.voters or self.raft.leader is None:
            return False
        if self.is_leader:
            self._let_in(joiner, self.node_id)
        else:
            self._send(self.raft.leader, "let_in", {"joiner": joiner})
        return True

    def _let_in(self, joiner: str, by: str) -> None:
        if by not in self.raft.voters:
            self._drop("a joiner let in", by, "only a seated player's kdm lets a joiner in")
        elif not self.is_leader:
            self._drop("a joiner let in", by, "this node does not lead: the leader checks PINs")
        elif not is_node_id(joiner) or joiner in self.members:
            self._drop("a joiner let in", by, f"{joiner!r} is no joiner at the door")
        else:
            log.warning("%s let %s in without the PIN check", by, joiner)
            if self._verifier is not None:
                self._verifier.forget(joiner)
            self._left_the_door(joiner)
            self._admitted[joiner] = None
            while len(self._admitted) > MAX_ADMITTED:
                self._admitted.popitem(last=False)
            self._welcome(joiner)

    def _checks_turn(self) -> None:
        self._check_waits = None
        self._check_pins()

    def _guessed_wrong(self, joiner: str) -> None:
        """A wrong guess at the table, here or told by another member: it slows the table down, and
        once it is slowed, this member says who guesses (every minute while they go on)."""
        now, host = monotonic_ms(), host_of(joiner)
        self._backoff.wrong(host, now)
        said = self._guesses_said.get(host)
        if not self._backoff.slowed(now) or (said is not None and now - said < PIN_GUESSES_SAID_EVERY_MS):
            return
        self._guesses_said = {
            other: at for other, at in self._guesses_said.items() if now - at < PIN_GUESSES_SAID_EVERY_MS
        }
        self._guesses_said[host] = now
        tried, interval_s = self._backoff.tried(host, now), self._backoff.interval_s(now)
        log.warning(
            "someone at %s tried %d wrong PINs in the last hour: one checked every %.0f s",
            host,
            tried,
            interval_s,
        )
        if self.on_pin_guesses is not None:
            self.on_pin_guesses(host, tried, interval_s)

    def _hello_refusal(self, sender: str, newcomer: str) -> str | None:
        if newcomer != sender and sender not in self.members:
            return "it comes from a node that is not a member"
        try:
            self._address_of(newcomer)
        except ValueError as error:
            return f"it names no address ({error})"
        if newcomer not in self.members and len(self.raft.learners) >= MAX_LEARNERS:
            return f"the table has {MAX_LEARNERS} learners already"
        return None

    def _welcome(self, newcomer: str) -> None:
        """A newcomer joins as a learner: it reads the log, and only ``promote`` makes it vote."""
        if newcomer in self.members:
            return
        if self.is_leader:
            self._change_membership(ConfChange("add_learner", newcomer), f"adding {newcomer} as a learner")
        elif self.raft.leader is not None:
            self._send(self.raft.leader, "hello", {"node": newcomer})

    def _seated(self, node_id: str) -> bool:
        return self.holds_a_seat is not None and self.holds_a_seat(node_id)

    def _welcome_back(self, sender: str) -> None:
        """A node that is not a member speaks to the leader: one that holds a seat was retired while it
        was away (a bot stood in) and is back, thinking it still belongs (nobody tells a node it was
        retired): a learner again at once, rather than after it notices the silence and says hello."""
        if self.is_leader and self._seated(sender):
            self._welcome(sender)

    def promote(self, node_id: str) -> bool:
        """When leading, propose that learner ``node_id`` vote; False if nothing was proposed (not
        leading, not a learner, another membership change still being committed, or not yet approved
        by a quorum of the voters: ``approve``)."""
        return node_id in self.raft.learners and self._change_membership(
            self._with_approvals("add_voter", node_id), f"{node_id} votes from now on"
        )

    def retire(self, node_id: str) -> bool:
        """When leading, propose that ``node_id`` leave the membership; False if nothing was proposed
        (a voter's retirement, too, waits for a quorum's approvals)."""
        leaving = f"{node_id} leaves the table's membership"
        return (
            node_id in self.members
            and node_id != self.node_id
            and self._change_membership(self._with_approvals("remove", node_id), leaving)
        )

    def approve(self, kind: str, node_id: str) -> None:
        """This voter's application backs ``kind`` (``add_voter``, ``remove``) of ``node_id``: sign that
        for the current configuration and give it to the leader (again every ``APPROVE_AGAIN_MS`` while
        asked; a leader adds its own when it makes the change). A change of who votes needs a quorum's
        approvals, so no leader makes up a voter or retires one still at the table on its own."""
        leader = self.raft.leader
        if self.node_id not in self.raft.voters or leader in (None, self.node_id):
            return
        change, approval = self.raft.approve(kind, node_id)
        now = monotonic_ms()
        given = self._approved.get((change, leader))
        if given is not None and now - given < APPROVE_AGAIN_MS:
            return
        if len(self._approved) >= APPROVALS_KEPT:
            self._approved.clear()
        self._approved[(change, leader)] = now
        body = {"change": kind, "node": node_id, "at": change.at, "at_hash": change.at_hash}
        self._send(leader, "approve", {**body, "signature": approval.signature})

    def _take_approval(self, sender: str, body: dict[str, Any]) -> None:
        if sender not in self.raft.voters:
            self._drop("an approval", sender, "only a voter approves a change of who votes")
            return
        if not self.is_leader:
            return  # it took us for the leader, which we were lately, say: it gives it again to the next
        change = ConfChange(body["change"], body["node"], (), body["at"], body["at_hash"])
        if (change.at, change.at_hash) != self.raft.approval_point():
            return  # made for another configuration (before the last change, say): no misconduct
        if not self.raft.approval_is_signed(change, Vote(sender, body["signature"])):
            self._drop("an approval", sender, "its signature is not its own")
            return
        kept = self._approvals.get(change)
        if kept is None:
            kept = self._approvals[change] = {}
            while len(self._approvals) > APPROVALS_KEPT:
                self._approvals.popitem(last=False)
        kept[sender] = body["signature"]
        if self.on_approval is not None:
            self.on_approval()

    def _with_approvals(self, kind: str, node_id: str) -> ConfChange:
        """``kind`` of ``node_id`` at the current configuration, with the approvals voters gave of it
        and this leader's own (it asks for the change because its application backs it)."""
        change, own = self.raft.approve(kind, node_id)
        given = {**self._approvals.get(change, {}), own.voter: own.signature}
        return change.approved(tuple(Vote(voter, signature) for voter, signature in sorted(given.items())))

    def _change_membership(self, change: ConfChange, saying: str) -> bool:
        if not self.is_leader:
            return False
        proposed = self.raft.propose_conf_change(change)
        if proposed:
            log.info("%s", saying)
        self._process()
        return proposed

    def send_direct(self, to: str, data: bytes) -> None:
        """Send opaque bytes to one member only, outside the log (partners' private notes)."""
        self._send(to, "direct", {"data": data})

    def _direct(self, sender: str, data: bytes) -> None:
        if sender not in self.members:
            self.dropped += 1
            log.warning("dropped a direct message from %s: not a member of this table", sender)
            return
        if self.on_direct is not None:
            try:
                self.on_direct(sender, data)
            except Exception:  # a bug above us must not stop the receive loop
                log.exception("handling a direct message from %s failed", sender)

    def _decode(self, payload: bytes, sender: str) -> Envelope | None:
        last = self._raft_received.get(sender)
        if last is not None and last[0] == payload:
            return last[1]
        try:
            envelope = self.codec.decode(payload, claimed_sender=sender)
            # (one that carries the clock is not kept: it is never repeated, and the plain one before
            # it comes again next)
            if envelope.kind == "raft" and sender in self.members and not _carries_clock(envelope.body):
                _remember(self._raft_received, sender, (payload, envelope))
            return envelope
        except WireError as error:
            try:
                return self._lobby.decode(payload, claimed_sender=sender)
            except WireError:
                log.warning("dropped a message from %s: %s", sender, error.reason)
                return None

    def _send(self, to: str, kind: str, body: dict[str, Any], codec: Codec | None = None) -> None:
        if self._connect(to):
            self.transport.send(to, (codec or self.codec).encode(self.node_id, kind, body))

    def _connect(self, to: str) -> bool:
        """Whether there is a way to send to ``to`` (the transport connects once and keeps it)."""
        try:
            address = self.addresses.get(to) or self._named_address.get(to)
            if address is None:
                address = self._address_of(to)
                _remember(self._named_address, to, address)
            self.transport.connect(to, address)
        except (ValueError, TransportError) as error:  # an id that names no address: nothing to send to
            log.warning("dropped a message to %s: %s", to, error)
            return False
        return True

    def _save_and_send(self, ready: Ready) -> None:
        """Save what ``ready`` asks and send its messages once what they rest on is durable. A sync that
        waits on a disk runs in a thread while this node goes on reading and applying: its messages,
        and every raft message after them, wait in order (an answer to a later append acknowledges the
        entries an earlier one brought), but for a proposal, which promises nothing of this node's log,
        and a leader's, which go first: the leader counts its own copy only once the sync is done
        (``RaftNode.saved``), and may commit meanwhile with a quorum of followers (Raft thesis §10.2.1)."""
        storage = self.storage
        if not storage.sync_waits_on_a_disk:
            persist_and_send(storage, ready, self._send_raft)
            return
        saved = save(storage, ready)
        leading = ready.role == "leader"
        now = [message for message in ready.messages if message.kind == "prop"]  # a slap is not held
        later = [message for message in ready.messages if message.kind != "prop"]
        if leading:
            now += later  # appends ask the followers to save: they rest on nothing of the leader's disk
        elif saved.sync or (later and self._syncing is not None):
            self._hold(Held(saved.sync, later))
        else:
            now += later
        for message in now:
            self._send_raft(message)
        if saved.sync and leading and ready.entries:
            last = ready.entries[-1]
            self._hold(Held(True, (), saved=(last.index, last.term)))
        elif saved.sync and leading:
            storage.sync()  # a new term or vote: rare, and nothing of this ready waits for it

    def _hold(self, held: Held) -> None:
        self._held.append(held)
        if self._syncing is None:
            self._syncing = asyncio.get_running_loop().create_task(self._sync_then_send())

    async def _sync_then_send(self) -> None:
        """Send what is held, in order, each batch after a sync begun once it was written (one sync
        for all the batches written while the last one ran)."""
        loop = asyncio.get_running_loop()
        try:
            while self._held:
                batches, self._held = self._held, []
                if any(held.after_a_sync for held in batches):
                    await loop.run_in_executor(self._sync_thread, self.storage.sync)
                for held in batches:
                    for message in held.messages:
                        self._send_raft(message)
                    if held.saved is not None:
                        self.raft.saved(*held.saved)
                self._process()
        except Exception:  # a disk that fails: nothing that rests on it may go out
            log.exception("syncing the log failed: the messages that rest on it are not sent")
            self._held = []
        finally:
            self._syncing = None

    def _send_raft(self, message: Message) -> None:
        to = message.to
        if not self._connect(to):
            return
        clock = self._clock_field(to)
        if clock is not None:  # (bytes of their own: not remembered)
            self.transport.send(
                to, self.codec.encode(self.node_id, "raft", {**message_to_dict(message), **clock})
            )
            return
        last = self._raft_sent.get(to)
        if last is not None and last[0] == message:
            payload = last[1]
        else:
            payload = self.codec.encode(self.node_id, "raft", message_to_dict(message))
            if to in self.members:
                _remember(self._raft_sent, to, (message, payload))
        self.transport.send(to, payload)

    def _answer(self, to: str, kind: str, body: dict[str, Any], codec: Codec | None = None) -> None:
        """Answer ``to``, who may not be a member: the only messages a node sends to a non-member, a few
        a second, over one of a few sockets kept for them."""
        if to in self.members:
            self._send(to, kind, body, codec)
        elif self._stranger_answers.allows():
            self._send(to, kind, body, codec)
            self._note_stranger(to)
        else:
            self._drop(
                f"an answer ({kind})", to, f"more than {STRANGER_ANSWERS_PER_S} to non-members this second"
            )

    def _note_stranger(self, node_id: str) -> None:
        """A socket to a non-member: keep the most recent few, close the least recently used."""
        self._strangers[node_id] = None
        self._strangers.move_to_end(node_id)
        while len(self._strangers) > MAX_STRANGER_SOCKETS:
            oldest, _ = self._strangers.popitem(last=False)
            if oldest not in self.members:
                self.transport.disconnect(oldest)

    def _process_later(self) -> None:
        if not self._process_queued:
            self._process_queued = True
            asyncio.get_running_loop().call_soon(self._process_queued_now)

    def _process_queued_now(self) -> None:
        self._process_queued = False
        self._process()

    def _process(self) -> None:
        """Do what Raft has ready until nothing is. Never re-entered: what the application proposes
        while it applies an entry (a duty it owes at once, a membership change) is taken by the pass
        under way once it has advanced. A nested pass would hand the same committed entries over
        again, and the outer ``advance`` would then drop messages the nested one had queued."""
        if self._processing:
            return
        self._processing = True
        try:
            self._process_until_idle()
        finally:
            self._processing = False
            if self._tasks:  # running: Raft's next timeout may have come sooner
                self._arm_tick()
            if self.raft.heads_taken != self._heads_counted:
                self._heads_counted = self.raft.heads_taken
                self._new_heads.set()

    def _process_until_idle(self) -> None:
        raft = self.raft
        while True:
            batches = 0
            while raft.has_ready():
                batches += 1
                if batches > 1 and raft.applied_index + 1 < raft.commit_index:
                    # A long log to apply (a process started again replays the game): a batch at a
                    # time, reading the network in between, so that it still answers the table.
                    self._process_later()
                    return
                ready = raft.ready()
                if self._forwarded:
                    for entry in ready.entries:
                        self._forwarded.pop(entry.data, None)
                self._save_and_send(ready)
                if ready.committed and self.journal is not None:
                    self.journal(ready.committed)
                for entry in ready.committed:
                    self._applying = entry.index
                    try:
                        if entry.kind == "normal" and entry.data and self.on_commit is not None:
                            self.on_commit(entry.data)
                        elif entry.kind == "conf" and self.on_membership is not None:
                            change = ConfChange.from_entry(entry)
                            if change is not None:  # bad bytes: every node skipped them alike
                                self.on_membership(change)
                    except Exception:  # a bug above us must not stop consensus for the others
                        log.exception("applying committed entry %d failed", entry.index)
                self._applying = None
                raft.advance(ready)
            if raft.leader is not None:
                self._leader_seen_ms = monotonic_ms()
            voting = (self.node_id in raft.voters, len(raft.voters) > 1)
            if voting != self._voting:  # (whether the leader can hold without a change: ``leader_holds``)
                if voting[0] != self._voting[0]:
                    log.info("this node is %s", "a voter now" if voting[0] else "no longer a voter")
                self._voting = voting
                self._tell_watches()
            if raft.leader == self._leader:
                return
            if self._leader not in (None, self.node_id):
                self.followed = self._leader
            self._leader = raft.leader
            self.clock.reset()  # offsets were to the old leader's clock
            self._ping_due_ms, self._echoes = -math.inf, {}
            self._leader_moved[1].set()  # (the pings)
            self._tell_watches()
            if self.on_leader is not None:
                self.on_leader(raft.leader)
            waiting, self._waiting = self._waiting, []
            for data in waiting:
                self._forward(data, own=True)


__all__ = [
    "Message", "Node", "WhichTable", "address_of", "ask_table_id", "listen", "node_codec",
]  # fmt: skip
