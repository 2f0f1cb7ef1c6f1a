"""Seeded faults for ``kdm selfplay --chaos``, and the checks of what the peers went through.

The kinds (``KINDS``): ``kill`` a peer process (SIGKILL), then start it again on its data directory, so
that its player comes back to their seat; ``pause`` it (SIGSTOP, then SIGCONT); ``partition`` it (the
process runs on, cut off the network through the hook ``kdm.net.chaos`` installs: SIGUSR1, then
SIGUSR2); ``garbage``: malformed bytes, datagrams and messages sent to its port from the injector.

``FaultPlan`` draws every fault's kind, duration, the gap before the next one and which peer it hits
(a number in [0, 1) that picks among the peers up at the time, and whether to aim at the leader) from
one seeded ``random.Random``: the same seed gives the same sequence. Which process that hits is the
table's business (who leads, who is back already), so a run is reproducible in its plan, not to the
millisecond.

After the game, ``check_commits`` compares every peer's journal (each entry it ever saw committed,
``kdm.net.chaos``) with the final logs: an entry seen committed that is missing or different at its
index in the agreed log is a lost commit. ``longest_stall`` is the longest time the table went without
committing anything new during the game.
"""

from __future__ import annotations

import asyncio
import random
import socket
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgpack
import zmq

from kdm.errors import UsageError
from kdm.net.chaos import entry_hash
from kdm.net.introducer import ask_node_id
from kdm.net.keys import new_keys, public_key_of
from kdm.net.raft_messages import Entry
from kdm.net.wire import PROTOCOL_VERSION

__all__ = [
    "KINDS", "CommitCheck", "Fault", "FaultPlan", "JournalLine", "check_commits", "longest_stall",
    "parse_kinds", "read_journal", "send_garbage",
]  # fmt: skip

KINDS = ("kill", "pause", "partition", "garbage")
#: How long each kind of fault lasts, in seconds (drawn uniformly): a killed peer's time down, a
#: paused one's time stopped, a partitioned one's time cut off. Garbage is one burst.
DURATION_S = {"kill": (0.5, 5.0), "pause": (0.5, 4.0), "partition": (0.5, 5.0), "garbage": (0.0, 0.0)}
#: Between the end of one fault and the next on the same lane of faults.
GAP_S = (0.5, 3.0)
#: How often a fault aims at the table's leader when it is known (the others pick any peer).
AT_LEADER = 0.3


def parse_kinds(text: str) -> tuple[str, ...]:
    """``kill,pause`` → ("kill", "pause"); an unknown or empty name is a ``UsageError`` naming the allowed."""
    names = [name.strip() for name in text.split(",")]
    unknown = [name for name in names if name not in KINDS]
    if unknown or not names:
        raise UsageError(
            f"--chaos: unknown fault {unknown[0]!r}: give a comma list of {', '.join(KINDS)}"
            if unknown
            else f"--chaos: give a comma list of {', '.join(KINDS)}"
        )
    return tuple(dict.fromkeys(names))


@dataclass
class Fault:
    """One fault, as the summary lists it (``as_json``)."""

    kind: str
    peer: int
    at_s: float
    duration_s: float
    #: Whether the peer hit was the table's leader (as the peers' logs last said).
    leader: bool = False

    def as_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "peer": self.peer, "at_s": round(self.at_s, 3),
                "duration_s": round(self.duration_s, 3), "leader": self.leader}  # fmt: skip


@dataclass(frozen=True)
class Planned:
    """The next fault drawn: what, for how long, the gap after it, and how to pick its peer."""

    kind: str
    duration_s: float
    gap_s: float
    pick: float
    at_leader: bool


class FaultPlan:
    """The seeded sequence of faults: every kind asked for comes once, in a drawn order, before any
    comes again; after that each is drawn at random."""

    def __init__(self, kinds: Sequence[str], seed: int) -> None:
        self.kinds = tuple(kinds)
        self._rng = random.Random(f"kdm chaos {seed}")
        self._first = list(self.kinds)
        self._rng.shuffle(self._first)

    def next(self) -> Planned:
        rng = self._rng
        kind = self._first.pop(0) if self._first else rng.choice(self.kinds)
        low, high = DURATION_S[kind]
        return Planned(
            kind, rng.uniform(low, high), rng.uniform(*GAP_S), rng.random(), rng.random() < AT_LEADER
        )

    def garbage_rng(self) -> random.Random:
        """A generator for one burst of garbage, drawn from the plan's."""
        return random.Random(self._rng.getrandbits(64))


@dataclass(frozen=True)
class JournalLine:
    index: int
    term: int
    hash: str
    seen_s: float  # time.monotonic when it was seen committed


def read_journal(path: Path) -> list[JournalLine]:
    """A peer's ``commits.journal`` (``kdm.net.chaos``); a torn last line (killed mid-write) is skipped."""
    if not path.exists():
        return []
    lines = []
    whole = path.read_text(encoding="ascii", errors="replace")
    for text in whole[: whole.rfind("\n") + 1].splitlines():  # a line without its end is torn
        fields = text.split()
        try:
            lines.append(JournalLine(int(fields[0]), int(fields[1]), fields[2], float(fields[3])))
        except (IndexError, ValueError):
            continue
    return lines


@dataclass
class CommitCheck:
    #: Distinct (index, term, hash) seen committed by some peer that the agreed log does not hold.
    lost: int
    #: Distinct log indices some peer saw committed.
    journaled: int
    #: Pairs of final logs that hold different entries at an index both say is committed.
    divergent: int
    #: A few of the lost ones, for people: "index 12 term 3".
    examples: list[str]


def check_commits(
    journals: Iterable[Sequence[JournalLine]], logs: Sequence[tuple[int, Sequence[Entry]]]
) -> CommitCheck:
    """Every journal line against the final logs (``(commit index, entries)`` each): the agreed log is
    the one committed furthest; the others must agree with it as far as each says it committed."""
    by_index = [
        {entry.index: (entry.term, entry_hash(entry)) for entry in entries} for _commit, entries in logs
    ]
    commits = [commit for commit, _entries in logs]
    agreed = by_index[max(range(len(logs)), key=commits.__getitem__)] if logs else {}
    divergent = 0
    for i in range(len(logs)):
        for j in range(i + 1, len(logs)):
            upto = min(commits[i], commits[j])
            if any(by_index[i].get(k) != by_index[j].get(k) for k in range(1, upto + 1)):
                divergent += 1
    seen = {(line.index, line.term, line.hash) for journal in journals for line in journal}
    lost = sorted(key for key in seen if agreed.get(key[0]) != (key[1], key[2]))
    examples = [f"index {index} term {term}" for index, term, _hash in lost[:5]]
    return CommitCheck(len(lost), len({key[0] for key in seen}), divergent, examples)


def longest_stall(
    journals: Iterable[Sequence[JournalLine]], since_s: float, until_s: float
) -> tuple[float, float]:
    """The longest time between ``since_s`` and ``until_s`` (monotonic) during which no peer saw a new
    entry committed, and when it ended: each index counts when it was first seen committed anywhere."""
    first: dict[int, float] = {}
    for journal in journals:
        for line in journal:
            first[line.index] = min(first.get(line.index, line.seen_s), line.seen_s)
    times = sorted(t for t in first.values() if since_s <= t <= until_s)
    stall, ended = 0.0, since_s
    for earlier, later in zip([since_s, *times], times, strict=False):
        if later - earlier > stall:
            stall, ended = later - earlier, later
    return stall, ended


def send_garbage(host: str, port: int, rng: random.Random) -> int:
    """What a stranger can send to the peer at ``host:port``: random bytes over TCP and UDP, and, over a
    proper CurveZMQ connection, random frames and malformed envelopes under random sender ids. Returns
    how many pieces were sent."""
    sent = 0
    with socket.create_connection((host, port), timeout=2) as raw:  # not even ZMTP
        raw.sendall(rng.randbytes(rng.randrange(1, 4096)))
        sent += 1
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:  # the introducer's port
        for _ in range(4):
            udp.sendto(rng.randbytes(rng.randrange(1, 400)), (host, port))
            sent += 1
    node_id = asyncio.run(ask_node_id(host, port))
    server_key = public_key_of(node_id) if node_id is not None else None
    if node_id is None or server_key is None:
        return sent
    keys = new_keys()
    context = zmq.Context()
    try:
        dealer = context.socket(zmq.DEALER)
        dealer.setsockopt(zmq.LINGER, 500)
        dealer.setsockopt(zmq.CURVE_SERVERKEY, server_key)
        dealer.setsockopt(zmq.CURVE_PUBLICKEY, keys.curve.public)
        dealer.setsockopt(zmq.CURVE_SECRETKEY, keys.curve.secret)
        dealer.connect(f"tcp://{host}:{port}")
        strangers = [f"127.0.0.1:{rng.randrange(1, 65536)}~{keys.token}", "garbage", node_id]
        kinds = ["raft", "hello", "ping", "pong", "direct", "which", "table", "nonsense"]
        for _ in range(rng.randrange(10, 40)):
            sender = rng.choice(strangers)
            body: Any = rng.choice([{}, {"node": "garbage"}, {"sent": "x"}, rng.randbytes(20), None])
            envelope = {"v": rng.choice([PROTOCOL_VERSION, 99]), "table": rng.choice([node_id, "lobby", "t"]),
                        "from": sender, "kind": rng.choice(kinds), "body": body}  # fmt: skip
            payload = rng.choice([rng.randbytes(rng.randrange(1, 300)), msgpack.packb(envelope)])
            frames = rng.choice([[sender.encode(), payload], [payload], [sender.encode(), payload, payload]])
            dealer.send_multipart(frames)
            sent += 1
        dealer.close()  # LINGER lets the queued frames leave first
    finally:
        context.term()
    return sent
