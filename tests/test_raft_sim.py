"""Randomized runs of the Raft core on the simulated network (kdm.net.raftsim), one test per seed.

Each seed draws a cluster (3 to 5 voters), a timing (election timeout and heartbeat, the production
(50, 100)/5 among them), link delays, loss and duplication, and clock drift; then a chaos phase with
proposals through random nodes, crashes and restarts, pauses, partitions (split, isolated node,
one-way link), slow and lossy links, and membership changes (learners added and promoted, voters and
learners removed, the leader included). After every delivered message, every node tick, every
proposal, crash and restart, `raftsim.Invariants` checks: at most one leader per term; a new leader
holds every entry committed in an earlier term; no two nodes commit different entries at one index;
no node loses an entry it knew committed, across crashes and restarts, nor moves its commit index
back while it runs; entries are applied in index order and state digests (a running sha256 of the
applied entries) are equal at equal applied index. Then every fault is healed, and the cluster must
elect a leader and apply a fresh proposal on every member within PROGRESS_TIMEOUTS election timeouts.

    .venv/bin/python -m pytest tests/test_raft_sim.py                      # 300 seeds (CI)
    KDM_RAFT_SEEDS=10000 .venv/bin/python -m pytest tests/test_raft_sim.py # seeds 0..9999
    KDM_RAFT_SEED=1234 .venv/bin/python -m pytest tests/test_raft_sim.py   # one seed, to debug it

A failure names its seed; the run is deterministic, so that seed replays it exactly.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass

import pytest

from kdm.net.raft import ConfChange, Entry, HardState, MemoryStorage, RaftNode
from kdm.net.raftsim import Cluster, Invariants, InvariantViolation, LinkProfile, SimPeer
from tests.helpers.properties import examples

#: Seeds past the first 300 that once failed, run every time: most stalled with a voter whose log
#: lacked the membership changes its new leader was elected under (mended by ``catch_up``; 2053 with
#: a leader that joined after those changes' term, so could not prove it: mended by asking another
#: voter too); 3826, 4551, 5239 and 9923 with a leader removing itself that waited for ever for an ack
#: lost on the way.
STALLED_ONCE = [
    733, 1361, 1582, 2053, 2198, 2404, 2446, 2703, 2871, 3048, 3679, 3826, 4551, 4795, 5239, 9923,
]  # fmt: skip


def seeds() -> list[int]:
    if "KDM_RAFT_SEED" in os.environ:
        return [int(os.environ["KDM_RAFT_SEED"])]
    count = int(os.environ.get("KDM_RAFT_SEEDS", str(examples(300))))
    return [*range(count), *(seed for seed in STALLED_ONCE if seed >= count)]


TIMINGS = [((10, 20), 2), ((20, 40), 3), ((50, 100), 5)]
MAX_MEMBERS = 7
CHAOS_TIMEOUTS = 20  # length of the chaos phase, in election timeouts
PROGRESS_TIMEOUTS = 20  # after healing, a fresh proposal must be applied everywhere within this many
FAULTS = ["crash", "restart", "restart", "pause", "split", "isolate", "one_way", "heal_links", "slow_link"]


@dataclass
class Outcome:
    leaders: dict[int, str]
    committed: int
    final_term: int
    ticks_to_progress: int
    stats: dict[str, int]


class Chaos:
    def __init__(self, seed: int, approvals: bool = False) -> None:
        self.seed = seed
        self.rng = random.Random(seed)
        rng = self.rng
        (low, high), heartbeat = rng.choice(TIMINGS)
        self.timeout = high
        self.max_delay = rng.choice([0, 1, 2, low // 10, low // 5])
        voters = [f"n{i}" for i in range(1, rng.choice([3, 3, 4, 5, 5]) + 1)]
        self.cluster = Cluster(
            voters,
            seed=seed,
            profile=LinkProfile(
                0,
                self.max_delay,
                loss=rng.choice([0, 0, 0.01, 0.05, 0.2]),
                duplicate=rng.choice([0, 0.01, 0.1]),
            ),
            election_ticks=(low, high),
            heartbeat_ticks=heartbeat,
            drift=rng.choice([0, 0.01, 0.05]),
            changes_need_approval=approvals,
        )
        self.next_id = len(voters) + 1
        self.proposals = 0

    def run(self) -> Outcome:
        cluster = self.cluster
        for _ in range(CHAOS_TIMEOUTS * self.timeout):
            self.maybe_act()
            cluster.run()
        cluster.heal()
        cluster.network.profile = LinkProfile(0, self.max_delay)
        ticks = self.await_progress()
        cluster.check_logs()
        invariants = cluster.invariants
        assert invariants is not None
        leader = cluster.leader()
        return Outcome(
            dict(invariants.leaders),
            len(invariants.committed),
            leader.term if leader else 0,
            ticks,
            dict(cluster.network.stats),
        )

    def maybe_act(self) -> None:
        rng, cluster = self.rng, self.cluster
        if rng.random() < 0.2:
            self.proposals += 1
            self.propose_via_random_node(f"{self.seed}:{self.proposals}".encode())
        if rng.random() < 3 / self.timeout:
            self.fault()
        if rng.random() < 0.5 / self.timeout and cluster.leader() is not None:
            self.change_membership()

    def propose_via_random_node(self, data: bytes, members_only: bool = False) -> None:
        live = [peer.node_id for peer in self.cluster.live()]
        leader = self.cluster.leader()
        if members_only and leader is not None:  # a removed node knows no leader to forward to
            live = [*leader.voters, *leader.learners]
        if live:
            self.cluster.propose(data, via=self.rng.choice(live))

    def fault(self) -> None:
        rng, cluster = self.rng, self.cluster
        ids = sorted(cluster.peers)
        down = [peer.node_id for peer in cluster.peers.values() if peer.node is None]
        leader = cluster.leader()
        # half the faults hit the leader, when there is one
        victim = leader.node_id if leader is not None and rng.random() < 0.5 else rng.choice(ids)
        action = rng.choice(FAULTS)
        if action == "crash":
            cluster.crash(victim)
        elif action == "restart" and down:
            cluster.restart(rng.choice(down))
        elif action == "pause":
            cluster.pause(victim, rng.randint(1, 3 * self.timeout))
        elif action == "split":
            shuffled = rng.sample(ids, len(ids))
            cut = rng.randint(1, len(ids) - 1)
            cluster.network.partition(shuffled[:cut], shuffled[cut:])
        elif action == "isolate":
            cluster.isolate(victim)
        elif action == "one_way":
            to = rng.choice([node_id for node_id in ids if node_id != victim])
            cluster.network.blocked.add((victim, to) if rng.random() < 0.5 else (to, victim))
        elif action == "heal_links":
            cluster.network.heal()
        elif action == "slow_link":
            sender, to = rng.sample(ids, 2)
            slow = LinkProfile(rng.randint(0, self.timeout // 4), self.timeout // 2, loss=rng.random() / 2)
            cluster.network.link_profiles[(sender, to)] = slow

    def change_membership(self) -> None:
        rng, cluster = self.rng, self.cluster
        leader = cluster.leader()
        assert leader is not None
        members = [*leader.voters, *leader.learners]
        choices = ["remove"]
        if len(cluster.peers) < MAX_MEMBERS:
            choices += ["add_learner", "add_voter"]
        if leader.learners:
            choices += ["promote", "promote"]
        kind = rng.choice(choices)
        if kind == "remove":
            change = ConfChange("remove", rng.choice(members))
        elif kind == "promote":
            change = ConfChange("add_voter", rng.choice(leader.learners))
        else:
            node_id = f"n{self.next_id}"
            self.next_id += 1
            cluster.start(node_id)
            change = ConfChange(kind, node_id)
        live = [peer.node_id for peer in cluster.live()]
        cluster.propose_conf_change(change, via=rng.choice([leader.node_id, rng.choice(live)]))

    def await_progress(self) -> int:
        """Ticks until a fresh proposal is applied on every member of the leader's configuration."""
        cluster = self.cluster
        data = f"{self.seed}:final".encode()
        start = cluster.now

        def applied_everywhere() -> bool:
            leader = cluster.leader()
            if leader is None:
                return False
            members = [*leader.voters, *leader.learners]
            return all(data in cluster.peers[member].applied for member in members)

        for _ in range(PROGRESS_TIMEOUTS):
            self.propose_via_random_node(data, members_only=True)  # again each timeout: it can be lost
            if cluster.run_until(applied_everywhere, self.timeout):
                return cluster.now - start
        raise AssertionError(f"no progress {PROGRESS_TIMEOUTS} election timeouts after healing")


@pytest.mark.parametrize("seed", seeds())
def test_random_run_keeps_invariants_and_recovers(seed: int) -> None:
    try:
        Chaos(seed).run()
    except (AssertionError, RuntimeError) as error:
        raise AssertionError(f"seed {seed} (rerun: KDM_RAFT_SEED={seed}): {error}") from error


#: Seeds that once failed with approvals: 4184, a learner whose every known voter had left, which asked
#: only the sole voter (which joined after the term it lacked) to catch it up, for ever.
STALLED_ONCE_WITH_APPROVALS = [4184]


@pytest.mark.parametrize("seed", [*seeds()[: len(seeds()) // 3], *STALLED_ONCE_WITH_APPROVALS])
def test_random_run_with_approved_changes_of_who_votes_keeps_invariants_and_recovers(seed: int) -> None:
    """The same runs, each change of who votes carrying the approvals of the live voters (as a table's
    applications give them): every path a change travels (appends, catch-ups, a past term's entries sent
    by a later leader) checks them, and the cluster still recovers."""
    try:
        Chaos(seed, approvals=True).run()
    except (AssertionError, RuntimeError) as error:
        raise AssertionError(f"seed {seed} (rerun with approvals: KDM_RAFT_SEED={seed}): {error}") from error


def test_a_run_is_replayed_exactly_from_its_seed() -> None:
    assert Chaos(17).run() == Chaos(17).run()


def test_majority_crash_stalls_without_losing_anything() -> None:
    cluster = Cluster(["a", "b", "c", "d", "e"], seed=5, profile=LinkProfile(0, 3), election_ticks=(20, 40))
    assert cluster.run_until(lambda: cluster.leader() is not None, 400)
    for i in range(20):
        cluster.propose(f"before {i}".encode())
        cluster.run(2)
    cluster.run(40)
    committed = cluster.node("a").commit_index
    for node_id in "abc":
        cluster.crash(node_id)
    cluster.run(400)
    assert all(cluster.node(n).commit_index <= committed + 1 for n in "de")  # no quorum, no commit
    for node_id in "abc":
        cluster.restart(node_id)
    assert cluster.run_until(lambda: cluster.leader() is not None and cluster.propose(b"after"), 400)
    assert cluster.run_until(lambda: all(b"after" in peer.applied for peer in cluster.peers.values()), 400)
    cluster.check_logs()


def test_learner_catches_up_a_long_log_over_a_lossy_link() -> None:
    cluster = Cluster(["a", "b", "c"], seed=9, profile=LinkProfile(0, 2), election_ticks=(20, 40))
    assert cluster.run_until(lambda: cluster.leader() is not None, 400)
    for i in range(300):
        cluster.propose(bytes(200) + str(i).encode())
    cluster.run(50)
    cluster.start("late")
    for link in (("a", "late"), ("b", "late"), ("c", "late")):
        cluster.network.link_profiles[link] = LinkProfile(0, 4, loss=0.3, duplicate=0.1)
    assert cluster.propose_conf_change(ConfChange("add_learner", "late"))
    leader = cluster.leader()
    assert leader is not None
    assert cluster.run_until(lambda: cluster.node("late").applied_index == leader.commit_index, 2000)
    assert cluster.node("late").role == "learner"
    assert cluster.peers["late"].digest == cluster.peers[leader.node_id].digest


# --- a table whose quorum is gone for good goes on when a person says so -------------------------------


def stranding_seeds() -> list[int]:
    return seeds()[: max(1, len(seeds()) // 3)]


class Stranding:
    """A cluster (2 to 6 voters, one per laptop) plays for a while over an imperfect network; then the
    laptops of enough voters die for good, at a random moment, that the rest cannot commit. After a
    while stranded, some of the survivors (one or several, each at its own moment) are told by their
    person to go on with the survivors. The survivors must elect one leader among themselves, commit
    again, and keep everything they held committed; when the lost voters were at most half, nothing
    committed anywhere is lost (the invariants stay those of the whole run), else the invariants are
    rebased on the survivors at the loss (what only the lost ones knew is gone with them, as with etcd's
    --force-new-cluster). At the end the lost laptops, when they were at most half, come back with their
    old logs and disturb nothing. (A lost majority back at once would be a quorum of the old
    configuration among themselves: as with etcd, the survivors' decision holds only if they stay gone
    or come back one by one, each then learning of it; ``RaftNode.force_configuration`` says so.)
    """

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.rng = rng = random.Random(f"stranding:{seed}")
        (low, high), heartbeat = rng.choice(TIMINGS)
        self.timeout = high
        voters = [f"n{i}" for i in range(1, rng.choice([2, 2, 3, 4, 4, 5, 6]) + 1)]
        self.voters = voters
        self.cluster = Cluster(
            voters,
            seed=seed,
            profile=LinkProfile(
                0, rng.choice([0, 1, 2, low // 10]), loss=rng.choice([0, 0, 0.01, 0.05]),
                duplicate=rng.choice([0, 0.01, 0.1]),
            ),
            election_ticks=(low, high),
            heartbeat_ticks=heartbeat,
            drift=rng.choice([0, 0.01, 0.05]),
        )  # fmt: skip
        self.proposals = 0

    def propose(self, among: list[str]) -> None:
        self.proposals += 1
        self.cluster.propose(f"{self.seed}:{self.proposals}".encode(), via=self.rng.choice(among))

    def play(self, ticks: int, among: list[str]) -> None:
        for _ in range(ticks):
            if self.rng.random() < 0.3:
                self.propose(among)
            self.cluster.run()

    def run(self) -> None:
        rng, cluster, voters = self.rng, self.cluster, self.voters
        assert cluster.run_until(lambda: cluster.leader() is not None, 20 * self.timeout)
        self.play(rng.randint(1, 5 * self.timeout), voters)
        quorum = len(voters) // 2 + 1
        lost = rng.sample(voters, rng.randint(len(voters) - quorum + 1, len(voters) - 1))
        survivors = sorted(set(voters) - set(lost))
        cluster.lose(*lost)
        if len(lost) > len(voters) // 2:
            assert cluster.invariants is not None
            cluster.invariants.rebase(cluster.peers[node] for node in survivors)
        self.play(3 * self.timeout, survivors)  # stranded: nothing commits, nothing is lost
        deciders = rng.sample(survivors, rng.randint(1, len(survivors)))
        moments = {node: rng.randint(0, 2 * self.timeout) for node in deciders}
        for tick in range(2 * self.timeout + 1):
            for node in deciders:
                if moments[node] == tick:
                    cluster.force(node, survivors)
            self.play(1, survivors)
        self.await_progress(survivors, f"{self.seed}:going on".encode())
        leader = cluster.leader()
        assert leader is not None and leader.voters == tuple(survivors), leader and leader.voters
        self.play(2 * self.timeout, survivors)
        if len(lost) > len(voters) // 2:
            cluster.check_logs()
            return
        for node in lost:  # the lost laptops come back, with what they had saved
            cluster.lost.discard(node)
            cluster.restart(node)
        self.play(5 * self.timeout, survivors)
        self.await_progress(survivors, f"{self.seed}:after the returns".encode())
        assert all(cluster.node(node).role != "leader" for node in lost)
        cluster.check_logs()

    def await_progress(self, survivors: list[str], data: bytes) -> None:
        cluster = self.cluster
        for _ in range(PROGRESS_TIMEOUTS):
            self.cluster.propose(data, via=self.rng.choice(survivors))
            if cluster.run_until(
                lambda: all(data in cluster.peers[n].applied for n in survivors), self.timeout
            ):
                return
        raise AssertionError(f"the survivors {survivors} did not go on")


@pytest.mark.parametrize("seed", stranding_seeds())
def test_survivors_told_to_go_on_elect_one_leader_and_lose_nothing(seed: int) -> None:
    try:
        Stranding(seed).run()
    except (AssertionError, RuntimeError) as error:
        raise AssertionError(f"seed {seed} (rerun: KDM_RAFT_SEED={seed}): {error}") from error


# --- the checker itself catches what it should -------------------------------------------------------


def peer_with(node_id: str, entries: list[Entry], commit: int) -> SimPeer:
    storage = MemoryStorage(HardState(term=1, commit=commit), entries)
    return SimPeer(node_id, storage, RaftNode(node_id, ["x", "y"], storage=storage))


def test_invariants_catch_different_entries_committed_at_one_index() -> None:
    invariants = Invariants()
    invariants.check([peer_with("x", [Entry(1, 1, b"left")], 1)])
    with pytest.raises(InvariantViolation, match="committed"):
        invariants.check([peer_with("y", [Entry(1, 1, b"right")], 1)])


def test_invariants_catch_a_lost_committed_entry() -> None:
    invariants = Invariants()
    invariants.check([peer_with("x", [Entry(1, 1, b"kept"), Entry(1, 2, b"lost")], 2)])
    with pytest.raises(InvariantViolation, match="lost"):
        invariants.check_logs([peer_with("x", [Entry(1, 1, b"kept")], 1)])


def test_invariants_catch_a_leader_without_an_earlier_committed_entry() -> None:
    invariants = Invariants()
    invariants.check([peer_with("x", [Entry(1, 1, b"committed in term 1")], 1)])
    storage = MemoryStorage(HardState(term=1), [Entry(1, 1, b"something else")])
    node = RaftNode("y", ["y"], storage=storage, election_ticks=(2, 3), heartbeat_ticks=1)
    while node.role != "leader":
        node.tick()
    with pytest.raises(InvariantViolation, match="leader of term 2 lacks"):
        invariants.check([SimPeer("y", storage, node)])


def test_invariants_catch_two_leaders_in_one_term() -> None:
    peers = []
    for node_id in ("x", "y"):
        node = RaftNode(node_id, [node_id], election_ticks=(2, 3), heartbeat_ticks=1)
        while node.role != "leader":
            node.tick()
        peers.append(SimPeer(node_id, node=node))
    with pytest.raises(InvariantViolation, match="two leaders in term 1"):
        Invariants().check(peers)
