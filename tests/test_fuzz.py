"""Fuzzing the trust boundary (issue 12, item 7): whatever arrives, nothing escapes, nothing hangs, a
refused input changes nothing, and what a stranger can make a peer hold stays bounded.

The targets, each fed mostly *structurally valid* inputs with fields mutated (a valid msgpack envelope
whose term is off by one, a log record chained correctly around a wrong type), so that the fuzz gets past
the first check and reaches the code behind it; byte-level mutations and plain random bytes too:

- the wire codec (``kdm.net.wire``): an input decodes to a well-formed envelope of a known kind whose
  body passes its validator, or is refused with a one-line reason (``WireError``), nothing else;
- the lobby's decoders: "which table is this?" on the lobby codec, mDNS TXT records (``TableAd``) and
  typed contacts (``HOST:PORT~KEY``);
- the node's handlers (``kdm.net.node``): a node of a three-voter table on the memory network, leader or
  follower, takes raft, hello, which, ping, pong and direct messages from random identities (members'
  ids, addresses, strangers' keys, ids that are no address at all). A stranger's message changes neither
  the term, the log, the commit index nor the membership; nothing but a learner per hello (at most
  ``MAX_LEARNERS``); the maps and sockets kept per sender stay bounded; every drop is logged and no
  handler raises. The same node over zmq on 127.0.0.1 takes CURVE clients with keys of their own,
  clients without CURVE and raw bytes, with open file descriptors and RSS measured from ``/proc``;
- the record (``kdm.entries``, ``kdm.record``): ``entries.decode`` of any bytes raises ValueError only;
  a ``TableRecord`` in the middle of a real game (a simulated one, replayed) takes mutated entries of
  every type, and one it refuses leaves its state (digest, seats, reveals...) as it was;
- the log file (``kdm.net.storage``): mutated log files load without raising, into well-typed entries
  and hard state only, reopen and take appends that the next load finds, and replay as a transcript or
  as a refusal naming why.

Every run is reproducible (``derandomize``, no example database). One hypothesis example feeds a batch
of inputs drawn from its seed; each input is counted, and each target asserts its share was run:
``INPUTS`` (100,000 by default, what CI runs in about a minute on two cores) split by ``SHARES``.
More on demand::

    KDM_FUZZ_INPUTS=1000000 .venv/bin/python -m pytest tests/test_fuzz.py
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import socket
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import msgpack
import zmq
import zmq.asyncio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kdm import entries
from kdm.manager import installed_plugins
from kdm.net.discovery import TableAd, parse_contact, parse_host_port
from kdm.net.keys import new_keys
from kdm.net.node import (
    MAX_HEARD,
    MAX_LEARNERS,
    MAX_STRANGER_SOCKETS,
    Node,
    address_of,
    ask_table_id,
    is_node_id,
    listen,
    lobby_codec,
    node_codec,
)
from kdm.net.raft_log import MemoryStorage
from kdm.net.raft_messages import (
    CONF_CHANGE_KINDS,
    ENTRY_KINDS,
    MESSAGE_KINDS,
    ConfChange,
    Entry,
    HardState,
    Message,
    message_from_dict,
    message_to_dict,
)
from kdm.net.storage import CHAIN_START, FileStorage, _chained, _load_into, read_log_checked
from kdm.net.transport import MemoryNetwork, MemoryTransport
from kdm.net.wire import MAX_MESSAGE_BYTES, PROTOCOL_VERSION, Codec, Envelope, WireError
from kdm.notices import Applied, Rejected
from kdm.record import TableRecord, commitment
from kdm.replay import replay
from kdm.sim import simulate
from tests.helpers.properties import examples as scaled

INPUTS = int(os.environ.get("KDM_FUZZ_INPUTS", str(scaled(100_000))))
SHARES = {
    "wire": 0.40,
    "lobby": 0.10,
    "node": 0.20,
    "node_zmq": 0.04,
    "entries": 0.12,
    "record": 0.08,
    "log_file": 0.06,
}
#: Inputs per hypothesis example, per target (cheap targets take big batches).
BATCHES = {"wire": 200, "lobby": 100, "node": 100, "entries": 200, "record": 40, "log_file": 30}
TABLE = "fuzz-table"


def quota(target: str) -> int:
    return round(INPUTS * SHARES[target])


def examples(target: str) -> int:
    return -(-quota(target) // BATCHES[target])  # rounded up: never fewer inputs than the quota


def fuzz_settings(target: str) -> settings:
    return settings(
        max_examples=examples(target),
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )


def test_the_shares_add_up_to_every_input() -> None:
    assert (
        sum(quota(target) for target in SHARES) >= INPUTS >= scaled(100_000)
        or "KDM_FUZZ_INPUTS" in os.environ
    )


class Count:
    """Inputs run by one target, checked against its quota at the end."""

    def __init__(self, target: str) -> None:
        self.target = target
        self.inputs = 0

    def check(self) -> None:
        assert self.inputs >= quota(self.target), f"{self.target}: {self.inputs} of {quota(self.target)}"


class Tally(logging.Handler):
    """Counts what the network layer logs, by level, without formatting it (a fuzz logs a lot)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.levels: dict[int, int] = {}
        self.errors: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.levels[record.levelno] = self.levels.get(record.levelno, 0) + 1
        if record.levelno >= logging.ERROR and len(self.errors) < 5:
            self.errors.append(record.getMessage())

    def at_least(self, level: int) -> int:
        return sum(count for at, count in self.levels.items() if at >= level)


@contextmanager
def tallied(logger: str = "kdm.net") -> Iterator[Tally]:
    """The logger's records counted here instead of kept by pytest (which would hold each of them)."""
    tally = Tally()
    target = logging.getLogger(logger)
    level, propagate = target.level, target.propagate
    target.addHandler(tally)
    target.setLevel(logging.INFO)
    target.propagate = False
    try:
        yield tally
    finally:
        target.removeHandler(tally)
        target.setLevel(level)
        target.propagate = propagate


# ---------------------------------------------------------------------------------------------------------
# Mutations: of plain msgpack values, and of bytes


KEYS = [new_keys() for _ in range(24)]
TOKENS = [keys.token for keys in KEYS]
ODD_STRINGS = ["", "~", "garbage", "a" * 300, "\0x", "é" * 40, "host:0~ab", "h:70000~" + TOKENS[0], "🂡"]
ODD_INTS = [-1, 0, 1, 2, 3, 255, 2**31, 2**63 - 1, -(2**63), 2**64 - 1, 10**9]


def random_value(rng: random.Random, depth: int = 0) -> Any:
    """A random plain value of any msgpack type, nested a little."""
    pick = rng.randrange(12 if depth < 3 else 8)
    if pick == 0:
        return None
    if pick == 1:
        return rng.random() < 0.5
    if pick == 2:
        return rng.choice(ODD_INTS)
    if pick == 3:
        return rng.randrange(-5, 70)
    if pick == 4:
        return rng.choice([0.0, -1.5, 1e300, float("inf"), float("nan"), rng.random() * 1e6])
    if pick == 5:
        return rng.choice(ODD_STRINGS)
    if pick == 6:
        return rng.randbytes(rng.choice([0, 1, 31, 32, 33, 64, 100]))
    if pick == 7:
        return "".join(rng.choice("ab~:.0123456789[]") for _ in range(rng.randrange(12)))
    if pick < 10:
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    keys: list[Any] = [
        rng.choice(["t", "id", "kind", "seat", "x", "", "term"]) for _ in range(rng.randrange(4))
    ]
    return {key: random_value(rng, depth + 1) for key in keys}


def near(rng: random.Random, value: Any) -> Any:
    """A value like ``value``: off by one, another of its type, or of another type altogether."""
    if isinstance(value, bool):
        return rng.choice([not value, 0, 1, None])
    if isinstance(value, int):
        return rng.choice(
            [value - 1, value + 1, -value, value * 2**32, rng.choice(ODD_INTS), float(value), str(value)]
        )
    if isinstance(value, bytes):
        return rng.choice(
            [value[:-1], value + b"\0", b"", rng.randbytes(len(value)), value.decode("latin-1")]
        )
    if isinstance(value, str):
        return rng.choice(
            [value[:-1], value + "x", "", value.encode(), rng.choice(ODD_STRINGS), value.upper()]
        )
    return random_value(rng)


def mutate(rng: random.Random, value: Any, depth: int = 0) -> Any:
    """``value`` with one thing changed somewhere inside: a field's value, a field gone or added, a
    list item dropped, doubled or changed; the structure around it is kept."""
    if isinstance(value, dict) and value and rng.random() < 0.8:
        changed = dict(value)
        key = rng.choice(list(changed))
        action = rng.randrange(10)
        if action == 0:
            del changed[key]
        elif action == 1:
            changed[rng.choice([f"{key}_", "extra", 1, b"k", None])] = random_value(rng)
        elif action < 5 and depth < 4:
            changed[key] = mutate(rng, changed[key], depth + 1)
        else:
            changed[key] = near(rng, changed[key])
        return changed
    if isinstance(value, list) and value and rng.random() < 0.8:
        changed_list = list(value)
        index = rng.randrange(len(changed_list))
        action = rng.randrange(6)
        if action == 0:
            del changed_list[index]
        elif action == 1:
            changed_list.insert(index, changed_list[index])
        elif action == 2:
            changed_list.append(random_value(rng))
        else:
            changed_list[index] = (
                mutate(rng, changed_list[index], depth + 1) if depth < 4 else near(rng, value)
            )
        return changed_list
    return near(rng, value)


def mutate_bytes(rng: random.Random, data: bytes) -> bytes:
    """``data`` with a few bytes flipped, cut, inserted or repeated, or a msgpack type byte changed."""
    buffer = bytearray(data)
    for _ in range(rng.randrange(1, 4)):
        if not buffer:
            buffer.extend(rng.randbytes(4))
        at = rng.randrange(len(buffer))
        action = rng.randrange(7)
        if action == 0:
            buffer[at] ^= 1 << rng.randrange(8)
        elif action == 1:
            del buffer[at:]
        elif action == 2:
            buffer[at:at] = rng.randbytes(rng.randrange(1, 9))
        elif action == 3:
            buffer[at:at] = buffer[at : at + rng.randrange(1, 16)]
        elif action == 4:  # a type or length byte: containers, strings, ext, nil...
            buffer[at] = rng.choice(
                [0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xC0, 0xC1, 0xC4, 0xC7, 0xD4, 0xD6, 0xDC, 0xDF, 0xFF]
            )
        elif action == 5:
            buffer[at] = rng.randrange(256)
        else:
            del buffer[at : at + rng.randrange(1, 8)]
    return bytes(buffer)


def pack(value: Any) -> bytes:
    try:
        return msgpack.packb(value, use_bin_type=True)  # type: ignore[no-any-return]
    except (TypeError, ValueError, OverflowError):
        return b"\xc1"  # values msgpack cannot hold (ints over 64 bits): a byte it refuses instead


# ---------------------------------------------------------------------------------------------------------
# Identities and messages


def random_id(rng: random.Random, members: tuple[str, ...] = ()) -> str:
    """A sender: a member, an address with a stranger's key, an address alone, or no address at all."""
    pick = rng.randrange(8)
    port = rng.randrange(1, 65536)
    if pick == 0 and members:
        return rng.choice(members)
    if pick <= 3:
        return f"127.0.0.1:{port}~{rng.choice(TOKENS)}"
    if pick == 4:
        token = rng.choice(TOKENS)[: rng.randrange(1, 53)]
        return f"{rng.choice(['10.0.0.9', '[fe80::1]', 'host-a'])}:{port}~{token}"
    if pick == 5:
        return f"garbage~{rng.choice(TOKENS)}"
    if pick == 6:
        return rng.choice([s for s in ODD_STRINGS if s]) + str(rng.randrange(1000))
    return f"127.0.0.1:{rng.choice([0, 65536, 99999])}~{rng.choice(TOKENS)}"


def raft_body(rng: random.Random, sender: str, to: str, term: int, last_index: int) -> dict[str, Any]:
    """A raft message near what a member would send: kinds, terms and indices around the receiver's."""
    log_index = max(0, last_index + rng.randrange(-3, 3))
    log_term = max(0, term + rng.randrange(-2, 1))
    message_term = max(0, term + rng.choice([-1, 0, 0, 0, 1, 1, 5]))
    new_entries = []
    for offset in range(rng.choice([0, 0, 1, 2, 4])):
        if rng.random() < 0.2:
            change_kind, node = rng.choice(CONF_CHANGE_KINDS), rng.choice([sender, to, random_id(rng)]) or "x"
            survivors = tuple(sorted({node, *rng.sample([sender, to], rng.randint(0, 2))}))
            change = ConfChange(change_kind, node, survivors if change_kind == "force" else ())
            data, kind = change.encode(), "conf"
        else:
            data, kind = rng.randbytes(rng.randrange(40)), "normal"
        new_entries.append(
            Entry(max(log_term, message_term - rng.randrange(2)), log_index + 1 + offset, data, kind)
        )
    message_kind = rng.choice(MESSAGE_KINDS)
    forced = message_kind in ("vote", "pre_vote") and rng.random() < 0.3  # a forced election's survivors
    message = Message(
        kind=message_kind,
        term=message_term,
        sender=sender,
        to=to,
        log_index=log_index,
        log_term=log_term,
        entries=tuple(new_entries),
        commit=max(0, last_index + rng.randrange(-2, 4)),
        reject=rng.random() < 0.3,
        hint=max(0, last_index + rng.randrange(-3, 2)),
        voters=tuple(sorted({sender, to, *rng.sample([sender, to, random_id(rng)], 1)})) if forced else (),
    )
    body = message_to_dict(message)
    return mutate(rng, body) if rng.random() < 0.3 else body


def node_body(
    rng: random.Random, kind: str, sender: str, to: str, term: int, last_index: int
) -> dict[str, Any]:
    if kind == "raft":
        return raft_body(rng, sender, to, term, last_index)
    body: dict[str, Any] = {
        "hello": lambda: {"node": sender if rng.random() < 0.7 else random_id(rng)},
        "ping": lambda: {"sent": rng.random() * 1e6},
        "pong": lambda: {"sent": rng.random() * 1e6, "time": rng.random() * 1e6},
        "direct": lambda: {"data": rng.randbytes(rng.randrange(64))},
        "which": lambda: {},
        "table": lambda: {"table": rng.choice([TABLE, random_id(rng)])},
    }[kind]()
    return mutate(rng, body) if rng.random() < 0.2 else body


LOBBY_KINDS = ("which", "table")
NODE_KINDS = ("raft", "hello", "ping", "pong", "direct")


def envelope_bytes(
    rng: random.Random, sender: str, to: str = "127.0.0.1:1~x", term: int = 1, last_index: int = 1
) -> tuple[bytes, dict[str, Any] | None]:
    """Bytes for a node from ``sender``: mostly a well-formed envelope, its body or itself mutated now
    and then; some byte-mutated or random. With the raw envelope, when the bytes are one."""
    kind = rng.choice(("raft", "raft", "raft", *NODE_KINDS, *LOBBY_KINDS))
    lobby = kind in LOBBY_KINDS
    raw: dict[str, Any] = {
        "v": PROTOCOL_VERSION,
        "table": "lobby" if lobby else TABLE,
        "from": sender,
        "kind": kind,
        "body": node_body(rng, kind, sender, to, term, last_index),
    }
    pick = rng.random()
    if pick < 0.12:
        raw = mutate(rng, raw)
    data = pack(raw)
    if pick > 0.95:
        return rng.randbytes(rng.randrange(64)), None
    if pick > 0.85:
        return mutate_bytes(rng, data), None
    return data, raw


# ---------------------------------------------------------------------------------------------------------
# The wire codec


def check_decode(codec: Codec, data: bytes, claimed: str | None) -> Envelope | None:
    """Decode ``data``: a well-formed envelope, or None after a one-line reason; anything else fails."""
    try:
        found = codec.decode(data, claimed_sender=claimed)
    except WireError as error:
        assert error.reason and "\n" not in error.reason, repr(data)
        return None
    assert len(data) <= MAX_MESSAGE_BYTES and found.table == codec.table and found.kind in codec.kinds
    assert found.version == PROTOCOL_VERSION and (claimed is None or found.sender == claimed)
    assert all(isinstance(key, str) for key in found.body)
    if found.kind == "raft":
        message_from_dict(found.body)  # what the node will call on it
    return found


@given(seed=st.integers(0, 2**64 - 1), sender=st.text(min_size=1, max_size=70))
@fuzz_settings("wire")
def fuzz_wire(count: Count, seed: int, sender: str) -> None:
    rng = random.Random(seed)
    codecs = (node_codec(TABLE), lobby_codec())
    for _ in range(BATCHES["wire"]):
        who = sender if rng.random() < 0.5 else random_id(rng)
        data, raw = envelope_bytes(rng, who)
        if rng.random() < 0.03:  # a message that only fits in the cap, or just does not
            data = data + b"\0" * (MAX_MESSAGE_BYTES - len(data) + rng.randrange(-1, 2))
        claimed = rng.choice([who, who, None, random_id(rng)])
        for codec in codecs:
            found = check_decode(codec, data, claimed)
            if found is not None and raw is not None:  # what decodes is what was sent
                assert (found.kind, found.sender) == (raw["kind"], raw["from"])
                assert pack(found.body) == pack(raw["body"])  # bytes, not values: NaN is not NaN
        count.inputs += 1


def test_fuzz_wire_codec() -> None:
    count = Count("wire")
    fuzz_wire(count)
    count.check()


# ---------------------------------------------------------------------------------------------------------
# The lobby: "which table is this?", TXT records, typed contacts


def good_txt(rng: random.Random) -> dict[str, str | None]:
    node = f"127.0.0.1:{rng.randrange(1, 65536)}~{rng.choice(TOKENS)}"
    ad = TableAd("kitchen", "127.0.0.1", 4000, node, PROTOCOL_VERSION, "kilo", ("kilo=0.1.0",), 1, 4,
                 rng.choice(["lobby", "playing", "over"]))  # fmt: skip
    txt: dict[str, str | None] = dict(ad.to_txt())
    return txt


def mutated_txt(rng: random.Random, txt: dict[str, str | None]) -> dict[str, str | None]:
    changed = dict(txt)
    for _ in range(rng.randrange(1, 3)):
        key = rng.choice([*changed, "table", "fp", "extra"])
        action = rng.randrange(5)
        if action == 0:
            changed.pop(key, None)
        elif action == 1:
            changed[key] = None
        else:
            value = changed.get(key) or ""
            text = (
                near(rng, value) if action == 2 else rng.choice([*ODD_STRINGS, "1/0", "5/4", "-1", "x=y,z"])
            )
            changed[key] = text if isinstance(text, str) else str(text)
    return changed


@given(seed=st.integers(0, 2**64 - 1))
@fuzz_settings("lobby")
def fuzz_lobby(count: Count, seed: int) -> None:
    rng = random.Random(seed)
    codec = lobby_codec()
    for _ in range(BATCHES["lobby"] // 4):
        who = random_id(rng)
        data, _raw = envelope_bytes(rng, who)
        check_decode(codec, data, who)
        txt = mutated_txt(rng, good_txt(rng))
        try:
            ad = TableAd.from_txt(txt, "127.0.0.1", rng.choice([1, 4000, 0, 70000]))
        except ValueError:
            pass
        else:
            assert ad.node_id == txt["node"] and ad.state in ("lobby", "playing", "over")
        text = mutate_bytes(rng, f"127.0.0.1:{rng.randrange(70000)}~{rng.choice(TOKENS)}".encode())
        for parse in (parse_contact, parse_host_port):
            with suppress(ValueError):
                parse(text.decode("utf-8", "replace"))
        count.inputs += 4


def test_fuzz_lobby_decoders() -> None:
    count = Count("lobby")
    fuzz_lobby(count)
    count.check()


# ---------------------------------------------------------------------------------------------------------
# The node's handlers, on the memory network


class Table:
    """Three voters on the memory network, ids that are addresses; driven by hand, message by message:
    ``pump`` delivers what is in flight, ``tick`` moves Raft's clock."""

    def __init__(self) -> None:
        self.network = MemoryNetwork()
        self.ids = tuple(f"127.0.0.1:{4001 + i}~{TOKENS[i]}" for i in range(3))
        self.transports: list[MemoryTransport] = []
        self.nodes: list[Node] = []
        for index, node_id in enumerate(self.ids):
            transport = self.network.transport(node_id)
            asyncio.run(transport.start())
            self.transports.append(transport)
            node = Node(
                transport, TABLE, MemoryStorage(), voters=self.ids, seed=index, address_of=self.address
            )
            node.on_commit = lambda data: None
            self.nodes.append(node)
        self.nodes[0].raft.campaign()
        self.nodes[0]._process()
        self.settle()
        for index in range(4):
            self.nodes[index % 3].propose(f"before {index}".encode())
            self.settle()
        assert self.nodes[0].is_leader and all(node.raft.commit_index >= 5 for node in self.nodes)

    @staticmethod
    def address(node_id: str) -> str:
        address_of(node_id)  # the production check: a node id must name an address
        return f"memory://{node_id}"

    def pump(self) -> None:
        for _ in range(10_000):
            moved = False
            for node, transport in zip(self.nodes, self.transports, strict=True):
                while not transport._inbox.empty():
                    item = transport._inbox.get_nowait()
                    assert item is not None
                    node._receive(*item)
                    moved = True
            if not moved:
                return
        raise AssertionError("the table never stops talking")

    def tick(self, times: int) -> None:
        for _ in range(times):
            for node in self.nodes:
                node.raft.tick()
                node._process()
            self.pump()

    def settle(self) -> None:
        self.pump()
        self.tick(6)

    def commits(self, data: bytes) -> bool:
        """A fresh proposal is committed by every voter (after an election, if the fuzz caused one)."""
        seen: list[str] = []
        for node in self.nodes:
            node.on_commit = lambda got, node_id=node.node_id: seen.append(node_id) if got == data else None
        for _ in range(400):
            leader = next((node for node in self.nodes if node.is_leader), None)
            if leader is not None and not seen:
                leader.propose(data)
            self.tick(1)
            if len(set(seen)) == len(self.nodes):
                return True
        return False


def raft_state(node: Node) -> tuple[Any, ...]:
    raft = node.raft
    return (raft.term, raft.commit_index, raft.voters, raft.learners, raft._log.last_index, raft._vote)


def committed_entries(node: Node) -> tuple[Entry, ...]:
    return node.raft._log.slice(1, node.raft.commit_index + 1)


def receive(node: Node, sender: str, data: bytes) -> None:
    """One message through the node's handler, which must not raise (the receive loop would log a
    traceback and read on)."""
    node._receive(sender, data)


@given(seed=st.integers(0, 2**64 - 1), who=st.sampled_from(["leader", "follower"]))
@fuzz_settings("node")
def fuzz_node(count: Count, table: Table, tally: Tally, seed: int, who: str) -> None:
    rng = random.Random(seed)
    node = table.nodes[0] if who == "leader" else next(n for n in table.nodes[1:] if not n.is_leader)
    members_before = set(node.members)
    committed_before = committed_entries(node)
    delivered = 0
    while delivered < BATCHES["node"]:
        pick = rng.random()
        if pick < 0.25 or (pick < 0.5 and node.raft.learners):
            sender = rng.choice(table.ids if pick < 0.25 else node.raft.learners)
        else:
            sender = random_id(rng)
        raft = node.raft
        data, raw = envelope_bytes(rng, sender, node.node_id, raft.term, raft._log.last_index)
        if sender in table.ids and b"raft" in data and b"prop" not in data:
            # A voter's id is its key over zmq: nobody else sends Raft's own messages under it (a
            # forged append from a voter would split the logs, which no Raft node can tell).
            continue
        # Strangers, and learners (any stranger who said hello): only a hello or a proposal of theirs
        # may change anything, and neither the term nor the voters.
        outsider = sender not in raft.voters
        kind = raw.get("kind") if isinstance(raw, dict) else None
        body = raw.get("body") if isinstance(raw, dict) else None
        proposes = kind == "raft" and isinstance(body, dict) and body.get("kind") == "prop"
        before, dropped, warned = raft_state(node), node.dropped, tally.at_least(logging.WARNING)
        receive(node, sender, data)
        delivered += 1
        count.inputs += 1
        after = raft_state(node)
        if outsider and kind != "hello" and not proposes:
            assert after == before, (sender, data)
        if outsider:
            assert (after[0], after[2], after[5]) == (before[0], before[2], before[5]), (sender, data)
            assert len(node.raft.learners) <= MAX_LEARNERS
            assert all(is_node_id(new) for new in set(node.members) - members_before)
        assert tally.at_least(logging.WARNING) - warned >= node.dropped - dropped  # every drop is said
        assert len(node._heard) <= MAX_HEARD + len(node.members)
        assert len(node._strangers) <= MAX_STRANGER_SOCKETS
        assert node.transport.connections <= len(node.members) + MAX_STRANGER_SOCKETS + 1
        if rng.random() < 0.05:
            table.pump()
            members_before = set(node.members)
    table.pump()
    assert committed_entries(node)[: len(committed_before)] == committed_before  # committed stays so
    assert not tally.errors, tally.errors


def test_fuzz_node_handlers() -> None:
    count = Count("node")
    table = Table()
    with tallied() as tally:
        fuzz_node(count, table, tally)
        assert table.commits(b"after the fuzz"), "the table no longer commits"
    count.check()


# ---------------------------------------------------------------------------------------------------------
# The node over zmq on 127.0.0.1: CURVE strangers, clients without CURVE, raw bytes; fds and RSS


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS in /proc/self/status")


async def wait_until(condition: Callable[[], bool], what: str, timeout_s: float = 20.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout_s
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.01)


#: How long one stranger's send may wait for the node to read (it takes microseconds when it reads).
SEND_DEADLINE_S = 20.0


def zmq_fuzz(inputs: int, seed: int) -> dict[str, int]:
    """A founder over zmq takes ``inputs`` messages from strangers: CURVE clients with keys of their own
    (ids with their key, with another's, with none), clients without CURVE, and raw TCP bytes. The
    addresses strangers claim are ports held here, closed, so that the node's answers go nowhere."""
    import kdm.net.transport as transport_module

    seen = {"frames": 0}
    split = transport_module._split_frames

    def counted(frames: list[zmq.Frame]) -> tuple[str, bytes] | None:
        seen["frames"] += 1
        return split(frames)

    async def scene() -> dict[str, int]:
        rng = random.Random(seed)
        held = [socket.socket() for _ in range(4)]  # closed ports for the strangers' claimed addresses
        for hold in held:
            hold.bind(("127.0.0.1", 0))
        ports = [hold.getsockname()[1] for hold in held]
        context = zmq.asyncio.Context()
        transport = await listen("127.0.0.1")
        node = Node(transport, TABLE, MemoryStorage(), voters=(transport.node_id,))
        await node.start()
        await wait_until(lambda: node.is_leader, "the founder to lead")
        fds_before, rss_before = open_fds(), rss_kib()
        clients = []
        for keys in KEYS[:6]:
            client = context.socket(zmq.DEALER)
            client.setsockopt(zmq.LINGER, 0)
            client.setsockopt(zmq.CURVE_SERVERKEY, transport.keys.curve.public)
            client.setsockopt(zmq.CURVE_PUBLICKEY, keys.curve.public)
            client.setsockopt(zmq.CURVE_SECRETKEY, keys.curve.secret)
            client.connect(transport.address)
            clients.append((client, keys.token))
        port = int(transport.address.rsplit(":", 1)[1])
        sent_frames = 0
        for index in range(inputs):
            pick = rng.random()
            if pick < 0.02:  # a client without CURVE: its handshake fails, nothing reaches the node
                plain = context.socket(zmq.DEALER)
                plain.setsockopt(zmq.LINGER, 0)
                plain.connect(transport.address)
                # Not waited for: its handshake can never succeed, so a send that finds no room (under
                # load, CI once waited out SEND_DEADLINE_S there) is as good as one queued for nothing.
                with contextlib.suppress(zmq.Again):
                    await plain.send_multipart(
                        [b"127.0.0.1:1~x", pack({"v": PROTOCOL_VERSION})], flags=zmq.NOBLOCK
                    )
                plain.close(linger=0)
            elif pick < 0.04:  # raw bytes at the port: a zmq greeting cut short, or noise
                _reader, writer = await asyncio.open_connection("127.0.0.1", port)
                greeting = b"\xff" + bytes(8) + b"\x7f\x03\x00CURVE" + bytes(15)
                writer.write(mutate_bytes(rng, greeting) if rng.random() < 0.5 else rng.randbytes(64))
                await writer.drain()
                writer.close()
                await writer.wait_closed()
            else:
                client, token = rng.choice(clients)
                name = rng.choice(
                    [f"127.0.0.1:{rng.choice(ports)}", "garbage", f"127.0.0.1:{rng.choice(ports)}"]
                )
                sender = f"{name}~{token}" if rng.random() < 0.9 else f"{name}~{rng.choice(TOKENS)}"
                data, _raw = envelope_bytes(rng, sender, node.node_id, node.raft.term, 2)
                frames = [sender.encode(), data] if rng.random() < 0.95 else [data]
                # Bounded: a send that cannot go out (the node stopped reading) fails the test, not CI.
                await asyncio.wait_for(client.send_multipart(frames), SEND_DEADLINE_S)
                sent_frames += 1
            if index % 200 == 0:
                await asyncio.sleep(0)  # let the node read
        await wait_until(lambda: seen["frames"] >= sent_frames, "the node to read every message")
        leads = await still_leads(node)
        stats = {
            "inputs": inputs,
            "frames": seen["frames"],
            "fd_growth": open_fds() - fds_before,
            "rss_growth_kib": rss_kib() - rss_before,
            "connections": transport.connections,
            "learners": len(node.raft.learners),
            "heard": len(node._heard),
            "members": len(node.members),
            "leads": int(leads),
        }
        for client, _token in clients:
            client.close(linger=0)
        await node.stop()
        # destroy, not term: term waits for ever on a socket whose close has not gone through yet.
        context.destroy(linger=0)
        for hold in held:
            hold.close()
        return stats

    transport_module._split_frames = counted  # type: ignore[assignment]
    try:
        return asyncio.run(scene())
    finally:
        transport_module._split_frames = split


async def still_leads(node: Node) -> bool:
    committed: list[bytes] = []
    node.on_commit = committed.append
    node.propose(b"after the fuzz")
    await wait_until(lambda: committed == [b"after the fuzz"], "a commit after the fuzz", timeout_s=5.0)
    asker = await listen("127.0.0.1")
    try:
        answer = await ask_table_id(asker, node.node_id, node.transport.address, timeout_s=10.0)
    finally:
        await asker.close()
    return answer.table == TABLE


def test_fuzz_node_over_zmq_keeps_fds_rss_and_sockets_bounded() -> None:
    inputs = quota("node_zmq")
    with tallied() as tally:
        stats = zmq_fuzz(inputs, seed=12)
    assert stats["leads"] == 1
    assert stats["connections"] <= stats["members"] + MAX_STRANGER_SOCKETS
    assert stats["learners"] <= MAX_LEARNERS and stats["heard"] <= MAX_HEARD + stats["members"]
    # A socket per stranger answered would be thousands of descriptors: the node keeps a few (each zmq
    # socket holds a descriptor of its own, and one per TCP connection).
    assert stats["fd_growth"] <= 4 * (MAX_STRANGER_SOCKETS + MAX_LEARNERS), stats
    assert stats["rss_growth_kib"] < 64 * 1024, stats
    assert not tally.errors, tally.errors
    assert stats["inputs"] >= inputs


# ---------------------------------------------------------------------------------------------------------
# Entries and the record


@given(seed=st.integers(0, 2**64 - 1))
@fuzz_settings("entries")
def fuzz_entries(count: Count, seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(BATCHES["entries"]):
        wire = rng.choice(ENTRY_EXAMPLES)
        pick = rng.random()
        data = pack(mutate(rng, wire)) if pick < 0.6 else mutate_bytes(rng, pack(wire))
        if pick > 0.95:
            data = rng.randbytes(rng.randrange(48))
        try:
            entry = entries.decode(data)
        except ValueError:
            pass
        else:  # what decodes encodes again to the same entry (compared as bytes: NaN is not NaN)
            assert entries.encode(entries.decode(entries.encode(entry))) == entries.encode(entry)
        count.inputs += 1


def test_fuzz_entries_decode() -> None:
    count = Count("entries")
    fuzz_entries(count)
    count.check()


SEATS = ("127.0.0.1:5001~a", "127.0.0.1:5002~b", "127.0.0.1:5003~c")
NONCES = [f"nonce {seat}".encode() for seat in range(3)]
RULES_OPTIONS = {"rounds": 2}
GAME: list[Any] = []
simulate(3, 2, seed=3, listener=lambda _time, event, _effects: GAME.append(event))

ENTRY_EXAMPLES: list[dict[str, Any]] = [
    {"t": "create", "id": [SEATS[0], 90], "name": "kitchen", "players": 3, "options": {"rounds": 2},
     "plugins": {"kilo": "0"}, "listed": True},
    {"t": "join", "id": [SEATS[1], 91], "commit": bytes(32), "name": "bob", "bot": False,
     "box_key": bytes(32), "player": b"", "claim": b""},
    {"t": "start", "id": [SEATS[0], 92]},
    {"t": "reveal", "id": [SEATS[2], 93], "k": 0, "nonce": b"n", "next": bytes(32)},
    {"t": "takeover", "id": [f"{SEATS[0]}#1", 94], "seat": 1, "commit": bytes(32), "box_key": b""},
    {"t": "done", "id": [SEATS[1], 95]},
    {"t": "event", "id": [SEATS[1], 96], "event": {"kind": "pass", "seat": 1, "token": 40}},
]  # fmt: skip


def record_state(record: TableRecord) -> tuple[Any, ...]:
    engine = record.engine
    return (
        None if engine is None else engine.digest(),
        repr(record.seats), record.started, record.shuffles, dict(record.reveals), frozenset(record.done),
        frozenset(record.joined), frozenset(record.applied_ids), repr(record.returning), record.name,
        record.players, record.host, record.listed,
    )  # fmt: skip


def started_record() -> TableRecord:
    """A table of three bots, created, seated and started, before its first shuffle."""
    installed = installed_plugins()
    record = TableRecord(installed)
    plugins = {"kilo": installed["kilo"].version}
    steps = [{"t": "create", "id": [SEATS[0], 1], "name": "kitchen", "players": 3, "options": RULES_OPTIONS,
              "plugins": plugins}]  # fmt: skip
    # Bots' seats: the game played into it (``GAME``) is a bots-only game, which a table of people
    # would pace otherwise (its checkpoints hold before the next pass).
    steps += [
        {"t": "join", "id": [node, 2], "commit": commitment(NONCES[seat]), "bot": True}
        for seat, node in enumerate(SEATS)
    ]
    steps += [{"t": "start", "id": [SEATS[0], 3]}]
    for step in steps:
        (notice,) = record.apply(step)
        assert not isinstance(notice, Rejected), notice
    return record


def entry_near(rng: random.Random, record: TableRecord, next_event: Any) -> dict[str, Any]:
    """An entry like one the table could take now, with something changed."""
    codec = record.rules.codec
    if next_event is not None and rng.random() < 0.6:
        event = codec.encode(next_event)
        seat = getattr(next_event, "seat", None)
        author = SEATS[seat] if isinstance(seat, int) else rng.choice(SEATS)
        pick = rng.random()
        if pick < 0.7:  # the event itself changed: another seat, card, token, time...
            event = mutate(rng, event)
        wire: dict[str, Any] = {"t": "event", "id": [author, rng.randrange(10**6)], "event": event}
        return mutate(rng, wire) if pick > 0.85 else wire
    wire = dict(rng.choice(ENTRY_EXAMPLES))
    wire["id"] = [rng.choice([*SEATS, f"{SEATS[0]}#2", "stranger"]), rng.randrange(10**6)]
    if wire["t"] == "reveal" and rng.random() < 0.5:
        seat = rng.randrange(3)
        wire.update(id=[SEATS[seat], rng.randrange(10**6)], k=record.shuffles, nonce=NONCES[seat])
    return mutate(rng, wire) if rng.random() < 0.7 else wire


@given(seed=st.integers(0, 2**64 - 1), stop=st.integers(0, len(GAME)))
@fuzz_settings("record")
def fuzz_record(count: Count, seed: int, stop: int) -> None:
    rng = random.Random(seed)
    record = started_record()
    engine = record.engine
    assert engine is not None
    played = GAME[: min(stop, len(GAME))]
    for event in played:  # the game so far, straight into the engine (its seeds came from reveals)
        engine.apply(event)
    upcoming = next((event for event in GAME[len(played) :] if hasattr(event, "seat")), None)
    for _ in range(BATCHES["record"]):
        before = record_state(record)
        wire = entry_near(rng, record, upcoming)
        data = pack(wire)
        try:
            decoded = msgpack.unpackb(data, raw=False, strict_map_key=True)
        except Exception:
            decoded = wire  # not msgpack any more: the record takes the map itself
        notices = record.apply(decoded)
        count.inputs += 1
        if any(isinstance(notice, Rejected) for notice in notices):
            assert len(notices) == 1 and notices[0].reason, notices
            assert record_state(record) == before, (wire, notices[0].reason)
        elif notices and isinstance(notices[0], Applied):
            upcoming = None  # the game went another way: only mutated entries from here on


def test_fuzz_record_applies_or_refuses_without_a_trace() -> None:
    count = Count("record")
    fuzz_record(count)
    count.check()


# ---------------------------------------------------------------------------------------------------------
# The log file


def log_records(rng: random.Random) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    index = 0
    for _ in range(rng.randrange(2, 10)):
        if rng.random() < 0.7:
            index += 1
            kind = rng.choice(ENTRY_KINDS)
            data = (
                ConfChange("add_learner", SEATS[1]).encode()
                if kind == "conf"
                else pack(rng.choice(ENTRY_EXAMPLES))
            )
            records.append({"e": [1 + index // 4, index, kind, data]})
        else:
            records.append({"h": [1 + index // 4, rng.choice([None, SEATS[0]]), index]})
    return records


def chain(records: list[dict[str, Any]]) -> bytes:
    link, out = CHAIN_START, []
    for record in records:
        if not isinstance(record, dict):  # a mutation made it something else: written as it is
            out.append(pack(record))
            continue
        link = _chained(link, pack(record))
        out.append(pack({**record, "c": link}))
    return b"".join(out)


def mutated_log(rng: random.Random) -> bytes:
    records = log_records(rng)
    pick = rng.random()
    if pick < 0.4:  # a record changed, the chain made to fit it: what a forger (or a bug) writes
        at = rng.randrange(len(records))
        records[at] = mutate(rng, records[at])
        return chain(records)
    if pick < 0.55:  # no chain at all, as before the chain: loaded as it is
        records[rng.randrange(len(records))] = mutate(rng, records[rng.randrange(len(records))])
        return b"".join(pack(record) for record in records)
    return mutate_bytes(rng, chain(records))


def check_loaded(hard_state: HardState, saved: list[Entry] | tuple[Entry, ...]) -> None:
    """What a load hands Raft and ``kdm replay`` is well typed, whatever the file held."""
    assert type(hard_state.term) is int and type(hard_state.commit) is int, hard_state
    assert hard_state.term >= 0 and hard_state.commit >= 0, hard_state
    assert hard_state.vote is None or isinstance(hard_state.vote, str), hard_state
    for at, entry in enumerate(saved, start=1):
        assert entry.index == at and type(entry.term) is int and entry.term >= 0, entry
        assert entry.kind in ENTRY_KINDS and isinstance(entry.data, bytes), entry


@given(seed=st.integers(0, 2**64 - 1))
@fuzz_settings("log_file")
def fuzz_log_file(count: Count, folder: Path, seed: int) -> None:
    rng = random.Random(seed)
    for number in range(BATCHES["log_file"]):
        data = mutated_log(rng)
        storage = MemoryStorage()
        found = _load_into(storage, data)
        assert 0 <= found.intact <= len(data)
        check_loaded(storage.hard_state(), storage.entries())
        count.inputs += 1
        if number % 10:
            continue
        # Now and then the whole path: a peer reopens the file and appends; the next load finds the
        # appends; a replay plays it or says why not.
        path = folder / f"{seed}-{number}.log"
        path.write_bytes(data)
        reopened = FileStorage(path)
        last = len(reopened.entries())
        reopened.append([Entry(7, last + 1, b"appended")])
        reopened.set_hard_state(HardState(7, None, 0))
        reopened.close()
        hard_state, saved, after = read_log_checked(path)
        assert not after.broken and saved[-1] == Entry(7, last + 1, b"appended"), (data, after)
        assert hard_state == HardState(7, None, 0)
        path.write_bytes(data)
        try:
            replay(path, say=lambda line: None)
        except Exception as error:  # a refusal for people, never a traceback
            assert type(error).__name__ == "UsageError", (data, error)
        path.unlink()


def test_fuzz_log_file_reader(tmp_path: Path) -> None:
    count = Count("log_file")
    with tallied():
        fuzz_log_file(count, tmp_path)
    count.check()
