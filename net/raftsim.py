"""A deterministic simulated network and cluster for the Raft core, for tests and benchmarks.

Owns simulated time and every fault: one seeded `random.Random` per concern, a heap of
(deliver_at, seq, message), per-link delay, loss and duplication (reordering follows from random
delays), directed link blocks for partitions, crashes (the node object is dropped, its `MemoryStorage`
kept) and restarts from what was persisted through `Ready`, pauses (a paused node neither ticks nor
receives; what is sent to it waits until it resumes), and clock drift (each node ticks at its own rate).
Nothing here reads a clock or sleeps: time is `Cluster.now`, in ticks.

Each node signs its votes with its key on the cluster's `KeyRing` (`Cluster.keys`), so elections run with
certificates as they do between processes.

A forced reconfiguration (`Cluster.force`) is an input like a proposal. Nodes lost for good (`Cluster.lose`:
crashed, never restarted, their messages dropped) take with them what only they knew: `Invariants.rebase`
then holds the survivors to what they know (what they commit from then on, and what they knew committed
already, is checked as before), for the runs where the lost nodes were a majority and may have committed
entries no survivor holds.

Each node's `Ready` is handled at once after every input, as the driver does: persist, send, apply,
advance. The applied entries feed a per-node state machine that is a running sha256 over them.

`Invariants` is checked after every delivered message and every node tick (when the cluster is built
with `check=True`), and raises `InvariantViolation`:
- at most one leader per term, and a new leader holds every entry committed in an earlier term;
- no two nodes commit different entries at one index;
- a node never loses an entry it once knew committed, across crashes and restarts, and its commit
  index never goes back while it runs;
- equal state machine digests at equal applied index, entries applied in index order.
"""

from __future__ import annotations

import hashlib
import heapq
import hmac
import random
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from .raft import Certificate, ConfChange, Entry, MemoryStorage, Message, RaftNode, Vote, persist

MAX_DELIVERIES_PER_TICK = 100_000  # beyond this, zero-delay messages are chasing each other forever


class InvariantViolation(AssertionError):
    pass


@dataclass(frozen=True)
class LinkProfile:
    """How one directed link behaves: delay in whole ticks (0 = within the same tick), chances in [0, 1]."""

    min_delay: int = 0
    max_delay: int = 1
    loss: float = 0.0
    duplicate: float = 0.0


class KeyRing:
    """The simulator's signatures: a keyed hash per node, as unforgeable within a simulation as a key
    pair (a test that plays a cheater signs only with its own node's signer) and cheap enough for runs
    of thousands of elections. Each node's secret is derived from the ring's seed and its id."""

    def __init__(self, seed: int = 0) -> None:
        self._seed = str(seed).encode()

    def _secret(self, node_id: str) -> bytes:
        return hashlib.sha256(self._seed + b"\x00" + node_id.encode()).digest()

    def signer(self, node_id: str) -> NodeSigner:
        return NodeSigner(self, node_id)

    def sign_as(self, node_id: str, payload: bytes) -> bytes:
        return hashlib.blake2b(payload, key=self._secret(node_id), digest_size=32).digest()


class NodeSigner:
    """One node's `Signer` on a `KeyRing`."""

    def __init__(self, ring: KeyRing, node_id: str) -> None:
        self._ring, self._node_id = ring, node_id

    def sign(self, payload: bytes) -> bytes:
        return self._ring.sign_as(self._node_id, payload)

    def verify(self, node_id: str, payload: bytes, signature: bytes) -> bool:
        return hmac.compare_digest(self._ring.sign_as(node_id, payload), signature)


def unsigned_certificate(
    term: int, leader: str, voters: Iterable[str], log_index: int = 0, log_term: int = 0
) -> Certificate:
    """The election certificate the leader of a table whose ids carry no key shows (the in-memory
    network): for a test that plays that leader by hand, message by message."""
    return Certificate(term, leader, log_index, log_term, tuple(Vote(voter, b"") for voter in sorted(voters)))


class SimNetwork:
    def __init__(self, rng: random.Random, profile: LinkProfile = LinkProfile()) -> None:
        self.rng = rng
        self.profile = profile
        self.link_profiles: dict[tuple[str, str], LinkProfile] = {}
        self.blocked: set[tuple[str, str]] = set()
        self.stats: Counter[str] = Counter()
        self._heap: list[tuple[int, int, Message]] = []
        self._seq = 0

    def send(self, message: Message, now: int) -> None:
        profile = self.link_profiles.get((message.sender, message.to), self.profile)
        self.stats["sent"] += 1
        copies = 2 if profile.duplicate and self.rng.random() < profile.duplicate else 1
        self.stats["duplicated"] += copies - 1
        for _ in range(copies):
            if profile.loss and self.rng.random() < profile.loss:
                self.stats["lost"] += 1
                continue
            self.push(now + self.rng.randint(profile.min_delay, profile.max_delay), message)

    def push(self, deliver_at: int, message: Message) -> None:
        heapq.heappush(self._heap, (deliver_at, self._seq, message))
        self._seq += 1

    def pop_due(self, now: int) -> Message | None:
        """The next message due at `now`; a message on a blocked link is dropped when it arrives."""
        while self._heap and self._heap[0][0] <= now:
            message = heapq.heappop(self._heap)[2]
            if (message.sender, message.to) in self.blocked:
                self.stats["blocked"] += 1
                continue
            return message
        return None

    def in_flight(self) -> int:
        return len(self._heap)

    def partition(self, *groups: Iterable[str]) -> None:
        """Block every link between two different groups (both directions)."""
        sets = [set(group) for group in groups]
        for one in sets:
            for other in sets:
                if one is not other:
                    self.blocked.update((a, b) for a in one for b in other)

    def heal(self) -> None:
        self.blocked.clear()
        self.link_profiles.clear()


@dataclass
class SimPeer:
    node_id: str
    storage: MemoryStorage = field(default_factory=MemoryStorage)
    node: RaftNode | None = None
    rate: float = 1.0
    tick_credit: float = 0.0
    paused_until: int = 0
    incarnation: int = 0
    applied_index: int = 0
    digest: bytes = b""
    applied: list[bytes] = field(default_factory=list)  # data of applied entries, this incarnation


class Invariants:
    def __init__(self) -> None:
        self.leaders: dict[int, str] = {}
        self.committed: list[Entry] = []  # the one committed log, as far as any node knows it
        self.commit_terms: list[int] = []  # the term in which each of those was first seen committed
        self.digests: dict[int, bytes] = {}  # state machine digest after applying each index
        self.high_water: dict[str, int] = {}  # the highest commit index each node ever had
        self.running_commit: dict[str, tuple[int, int]] = {}  # node -> (incarnation, commit index)

    def check(self, peers: Iterable[SimPeer]) -> None:
        for peer in peers:
            node = peer.node
            if node is None:
                continue
            if node.role == "leader":
                if node.term not in self.leaders:
                    self.leaders[node.term] = peer.node_id
                    self._check_complete(peer.node_id, node)
                elif self.leaders[node.term] != peer.node_id:
                    raise InvariantViolation(
                        f"two leaders in term {node.term}: {self.leaders[node.term]} and {peer.node_id}"
                    )
            incarnation, commit = self.running_commit.get(peer.node_id, (peer.incarnation, 0))
            if incarnation == peer.incarnation and node.commit_index < commit:
                raise InvariantViolation(f"{peer.node_id} commit index went back from {commit}")
            if node.applied_index > node.commit_index:
                raise InvariantViolation(f"{peer.node_id} applied past its commit index")
            self.running_commit[peer.node_id] = (peer.incarnation, node.commit_index)
            high_water = self.high_water.get(peer.node_id, 0)
            if node.commit_index > high_water:
                for entry in node.log_entries(high_water + 1, node.commit_index + 1):
                    self.note_committed(peer.node_id, entry, node.term)
                self.high_water[peer.node_id] = node.commit_index
            elif high_water:
                self._check_kept(peer.node_id, node, high_water, high_water)

    def rebase(self, peers: Iterable[SimPeer]) -> None:
        """Forget what nodes outside ``peers`` knew committed: the one committed log becomes what the
        live ones among ``peers`` hold committed (checked to agree), and is checked from there on."""
        peers = list(peers)
        self.committed, self.commit_terms, self.digests = [], [], {}
        self.high_water = {}
        for peer in peers:
            if peer.node is not None:
                self.high_water[peer.node_id] = peer.node.commit_index
                for entry in peer.node.log_entries(1, peer.node.commit_index + 1):
                    self.note_committed(peer.node_id, entry, peer.node.term)

    def check_logs(self, peers: Iterable[SimPeer]) -> None:
        """The whole committed prefix of every live node's log; run after restarts and at the end."""
        for peer in peers:
            if peer.node is not None:
                self._check_kept(peer.node_id, peer.node, 1, self.high_water.get(peer.node_id, 0))

    def note_committed(self, node_id: str, entry: Entry, term: int) -> None:
        if entry.index <= len(self.committed):
            known = self.committed[entry.index - 1]
            if known != entry:
                raise InvariantViolation(f"{node_id} committed {entry} where another committed {known}")
        elif entry.index == len(self.committed) + 1:
            self.committed.append(entry)
            self.commit_terms.append(term)
        else:
            raise InvariantViolation(f"{node_id} committed {entry} past the known end {len(self.committed)}")

    def note_applied(self, peer: SimPeer, entry: Entry, term: int) -> None:
        if entry.index != peer.applied_index:
            raise InvariantViolation(f"{peer.node_id} applied index {entry.index} out of order")
        self.note_committed(peer.node_id, entry, term)
        known = self.digests.setdefault(entry.index, peer.digest)
        if known != peer.digest:
            raise InvariantViolation(f"{peer.node_id} state digest differs at index {entry.index}")

    def _check_complete(self, node_id: str, node: RaftNode) -> None:
        """Leader completeness, once per term: entries committed in earlier terms are in its log."""
        earlier = [index for index, term in enumerate(self.commit_terms, 1) if term < node.term]
        if earlier:
            self._check_kept(node_id, node, 1, max(earlier), f"leader of term {node.term} lacks")

    def _check_kept(self, node_id: str, node: RaftNode, start: int, end: int, problem: str = "lost") -> None:
        if end < start:
            return
        if node.log_entries(start, end + 1) != tuple(self.committed[start - 1 : end]):
            raise InvariantViolation(f"{node_id} {problem} committed entries in [{start}, {end}]")


class Cluster:
    """Raft nodes on a simulated network. Nodes are built with the bootstrap `voters` and `learners`;
    more can join with `start` (they begin empty and learn the log from the leader)."""

    def __init__(
        self,
        voters: Iterable[str],
        learners: Iterable[str] = (),
        *,
        seed: int = 0,
        profile: LinkProfile = LinkProfile(),
        election_ticks: tuple[int, int] = (50, 100),
        heartbeat_ticks: int = 5,
        drift: float = 0.0,
        pre_vote: bool = True,
        check_quorum: bool = True,
        changes_need_approval: bool = False,
        check: bool = True,
    ) -> None:
        self.seed = seed
        self.rng = random.Random(f"cluster:{seed}")
        self.keys = KeyRing(seed)
        self.network = SimNetwork(random.Random(f"network:{seed}"), profile)
        self.bootstrap = (tuple(voters), tuple(learners))
        self.election_ticks = election_ticks
        self.heartbeat_ticks = heartbeat_ticks
        self.pre_vote = pre_vote
        self.check_quorum = check_quorum
        self.changes_need_approval = changes_need_approval
        self.drift = drift
        self.now = 0
        self.peers: dict[str, SimPeer] = {}
        #: Nodes gone for good (`lose`): `heal` does not restart them.
        self.lost: set[str] = set()
        self.invariants = Invariants() if check else None
        self.drops: Counter[str] = Counter()  # why nodes dropped messages, for debugging
        self.on_apply: Callable[[str, Entry], None] | None = None
        for node_id in (*self.bootstrap[0], *self.bootstrap[1]):
            self.start(node_id)

    # --- faults and membership ------------------------------------------------------------------------

    def start(self, node_id: str) -> RaftNode:
        """Start a node with empty storage (a newcomer, or a bootstrap member on first start)."""
        if node_id in self.peers:
            raise ValueError(f"node {node_id} was already started")
        rate = 1.0 + self.rng.uniform(-self.drift, self.drift)
        self.peers[node_id] = SimPeer(node_id, rate=rate)
        return self.restart(node_id)

    def crash(self, node_id: str) -> None:
        """Lose everything not persisted: the node object, its state machine, messages it has not sent."""
        peer = self.peers[node_id]
        peer.node = None
        peer.applied_index, peer.digest, peer.applied = 0, b"", []

    def restart(self, node_id: str) -> RaftNode:
        peer = self.peers[node_id]
        peer.incarnation += 1
        peer.paused_until = 0
        peer.applied_index, peer.digest, peer.applied = 0, b"", []
        voters, learners = self.bootstrap
        node = RaftNode(
            node_id,
            voters,
            learners,
            storage=peer.storage,
            rng_seed=self.rng.randrange(2**32),
            election_ticks=self.election_ticks,
            heartbeat_ticks=self.heartbeat_ticks,
            pre_vote=self.pre_vote,
            check_quorum=self.check_quorum,
            signer=self.keys.signer(node_id),
            changes_need_approval=self.changes_need_approval,
        )
        peer.node = node
        self._flush(peer)
        if self.invariants is not None:
            self.invariants.check_logs([peer])
        self._check()
        return node

    def lose(self, *node_ids: str) -> None:
        """Nodes gone for good (a laptop that died): crashed, never restarted by `heal`, and whatever is
        sent to them dropped."""
        for node_id in node_ids:
            self.crash(node_id)
            self.lost.add(node_id)

    def force(self, node_id: str, voters: Iterable[str]) -> bool:
        """A person at ``node_id`` decides to go on with ``voters`` (``RaftNode.force_configuration``)."""
        forced = self.node(node_id).force_configuration(voters)
        self._flush(self.peers[node_id])
        self._check()
        return forced

    def pause(self, node_id: str, ticks: int) -> None:
        self.peers[node_id].paused_until = self.now + ticks

    def resume(self, node_id: str) -> None:
        self.peers[node_id].paused_until = 0

    def isolate(self, node_id: str) -> None:
        self.network.partition([node_id], [other for other in self.peers if other != node_id])

    def heal(self) -> None:
        """Lift partitions and per-link profiles, end pauses, restart crashed nodes."""
        self.network.heal()
        for peer in self.peers.values():
            peer.paused_until = 0
            if peer.node is None and peer.node_id not in self.lost:
                self.restart(peer.node_id)

    # --- queries --------------------------------------------------------------------------------------

    def node(self, node_id: str) -> RaftNode:
        node = self.peers[node_id].node
        if node is None:
            raise ValueError(f"node {node_id} is down")
        return node

    def live(self) -> list[SimPeer]:
        return [peer for peer in self.peers.values() if peer.node is not None]

    def leader(self) -> RaftNode | None:
        """The live leader of the highest term, if any."""
        leaders = [peer.node for peer in self.live() if peer.node is not None and peer.node.role == "leader"]
        return max(leaders, key=lambda node: node.term, default=None)

    # --- inputs ---------------------------------------------------------------------------------------

    def propose(self, data: bytes, via: str | None = None) -> bool:
        """Propose through `via`, else through the leader; False when that node knows no leader."""
        node = self.node(via) if via is not None else self.leader()
        if node is None:
            return False
        accepted = node.propose(data)
        self._flush(self.peers[node.node_id])
        self._check()
        return accepted

    def propose_conf_change(self, change: ConfChange, via: str | None = None) -> bool:
        """Propose ``change`` through ``via``, else through the leader; with ``changes_need_approval``, a
        change of who votes first gathers the approvals of the live voters (what each one's application
        would give: the simulator backs every change), each made where its own log puts the change."""
        node = self.node(via) if via is not None else self.leader()
        if node is None:
            return False
        if self.changes_need_approval and change.needs_approval:
            point = node.approval_point()
            votes = []
            for peer in self.live():
                if peer.node is not None and peer.node_id in node.voters:
                    made, vote = peer.node.approve(change.kind, change.node_id)
                    if (made.at, made.at_hash) == point:
                        votes.append(vote)
            change = ConfChange(change.kind, change.node_id, (), *point, tuple(votes))
        accepted = node.propose_conf_change(change)
        self._flush(self.peers[node.node_id])
        self._check()
        return accepted

    def run(self, ticks: int = 1) -> None:
        for _ in range(ticks):
            self._deliver_due()
            order = list(self.peers.values())
            self.rng.shuffle(order)
            for peer in order:
                if peer.node is None or peer.paused_until > self.now:
                    continue
                peer.tick_credit += peer.rate
                while peer.tick_credit >= 1.0 and peer.node is not None:
                    peer.tick_credit -= 1.0
                    peer.node.tick()
                    self._flush(peer)
                    self._check()
            self.now += 1
        self._deliver_due()

    def run_until(self, condition: Callable[[], bool], max_ticks: int) -> bool:
        """Run tick by tick until `condition()` holds; False if it still does not after `max_ticks`."""
        for _ in range(max_ticks):
            if condition():
                return True
            self.run()
        return condition()

    def check_logs(self) -> None:
        if self.invariants is not None:
            self.invariants.check_logs(self.peers.values())

    # --- plumbing -------------------------------------------------------------------------------------

    def _deliver_due(self) -> None:
        for _ in range(MAX_DELIVERIES_PER_TICK):
            message = self.network.pop_due(self.now)
            if message is None:
                return
            peer = self.peers.get(message.to)
            if peer is None or peer.node is None:
                self.network.stats["to a down node"] += 1
                continue
            if peer.paused_until > self.now:
                self.network.push(peer.paused_until, message)
                continue
            reason = peer.node.step(message)
            if reason is not None:
                self.drops[reason.split(":")[0]] += 1
            self._flush(peer)
            self._check()
        raise RuntimeError(f"seed {self.seed}: over {MAX_DELIVERIES_PER_TICK} deliveries in tick {self.now}")

    def _flush(self, peer: SimPeer) -> None:
        node = peer.node
        while node is not None and node.has_ready():
            ready = node.ready()
            persist(peer.storage, ready)
            for message in ready.messages:
                self.network.send(message, self.now)
            for entry in ready.committed:
                self._apply(peer, node, entry)
            node.advance(ready)

    def _apply(self, peer: SimPeer, node: RaftNode, entry: Entry) -> None:
        peer.applied_index += 1
        peer.digest = hashlib.sha256(
            peer.digest + f"{entry.index}:{entry.term}:{entry.kind}:".encode() + entry.data
        ).digest()
        peer.applied.append(entry.data)
        if self.invariants is not None:
            self.invariants.note_applied(peer, entry, node.term)
        if self.on_apply is not None:
            self.on_apply(peer.node_id, entry)

    def _check(self) -> None:
        if self.invariants is not None:
            self.invariants.check(self.peers.values())
