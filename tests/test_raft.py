"""Scripted tests of the Raft core (kdm.net.raft), message by message, in the style of etcd raft's.

`Net` holds a few `RaftNode`s and the messages between them; a test ticks nodes, delivers, drops or cuts
links by hand. No time passes except through `tick()`. Randomized runs are in test_raft_sim.py.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypedDict

import pytest

from kdm.net.keys import new_keys
from kdm.net.raft import (
    MAX_TERM_LEAD,
    STAND_AGAIN_TIMEOUTS,
    Ack,
    Certificate,
    ConfChange,
    Entry,
    ForkProof,
    HardState,
    MemoryStorage,
    Message,
    Misconduct,
    RaftNode,
    SignedHead,
    Vote,
    message_from_dict,
    message_to_dict,
    persist,
)
from kdm.net.raft_log import ACKS_KEPT, Progress, chain_hash
from kdm.net.raft_signing import TableSigner, ack_payload, head_payload, vote_payload
from kdm.net.raftsim import KeyRing


class Timing(TypedDict):
    election_ticks: tuple[int, int]
    heartbeat_ticks: int


FAST: Timing = {"election_ticks": (10, 20), "heartbeat_ticks": 2}


class Net:
    def __init__(
        self,
        voters: Iterable[str],
        learners: Iterable[str] = (),
        storages: dict[str, MemoryStorage] | None = None,
        **options: Any,
    ) -> None:
        self.bootstrap = (tuple(voters), tuple(learners))
        self.options: dict[str, Any] = {**FAST, **options}
        self.storages: dict[str, MemoryStorage] = {}
        self.nodes: dict[str, RaftNode] = {}
        self.applied: dict[str, list[Entry]] = {}
        self.pending: list[Message] = []
        self.cut: set[frozenset[str]] = set()
        self.keys = KeyRing()  # every node signs its votes
        for node_id in (*self.bootstrap[0], *self.bootstrap[1]):
            self.add(node_id, (storages or {}).get(node_id))

    def add(self, node_id: str, storage: MemoryStorage | None = None) -> RaftNode:
        self.storages[node_id] = storage or MemoryStorage()
        return self.restart(node_id)

    def restart(self, node_id: str) -> RaftNode:
        """A crash and restart: whatever was not persisted through a Ready is gone."""
        self.pending = [message for message in self.pending if message.sender != node_id]
        self.applied[node_id] = []
        seed = sorted(self.storages).index(node_id)
        node = RaftNode(
            node_id,
            *self.bootstrap,
            storage=self.storages[node_id],
            rng_seed=seed,
            signer=self.keys.signer(node_id),
            **self.options,
        )
        self.nodes[node_id] = node
        return node

    def __getitem__(self, node_id: str) -> RaftNode:
        return self.nodes[node_id]

    def collect(self) -> None:
        for node_id, node in self.nodes.items():
            while node.has_ready():
                ready = node.ready()
                persist(self.storages[node_id], ready)
                self.pending.extend(ready.messages)
                self.applied[node_id].extend(ready.committed)
                node.advance(ready)

    def deliver(self, drop: Callable[[Message], bool] = lambda message: False) -> None:
        """Deliver until no message is left, dropping those `drop` picks and those on cut links."""
        for _ in range(10_000):
            self.collect()
            if not self.pending:
                return
            batch, self.pending = self.pending, []
            for message in batch:
                if drop(message) or frozenset((message.sender, message.to)) in self.cut:
                    continue
                if message.to in self.nodes:
                    self.nodes[message.to].step(message)
        raise AssertionError("messages never stopped")

    def tick(self, node_id: str, times: int = 1) -> None:
        for _ in range(times):
            self.nodes[node_id].tick()
        self.collect()

    def campaign(self, node_id: str) -> None:
        """Tick `node_id` alone until its election timeout fires."""
        node = self.nodes[node_id]
        for _ in range(FAST["election_ticks"][1] + 1):
            node.tick()
            if node.role in ("pre_candidate", "candidate", "leader"):
                self.collect()
                return
        raise AssertionError(f"{node_id} never campaigned")

    def elect(self, node_id: str) -> RaftNode:
        self.campaign(node_id)
        self.deliver()
        assert self.nodes[node_id].role == "leader"
        return self.nodes[node_id]

    def run(self, ticks: int) -> None:
        """Tick every node once per tick, delivering in between."""
        for _ in range(ticks):
            for node in self.nodes.values():
                node.tick()
            self.deliver()

    def isolate(self, node_id: str) -> None:
        self.cut.update(frozenset((node_id, other)) for other in self.nodes if other != node_id)

    def heal(self) -> None:
        self.cut.clear()

    def sent(self, kind: str) -> list[Message]:
        self.collect()
        return [message for message in self.pending if message.kind == kind]


def data_of(entries: Iterable[Entry]) -> list[bytes]:
    return [entry.data for entry in entries if entry.data]


def log_of(terms: Iterable[int]) -> list[Entry]:
    return [Entry(term, index, f"{index}@{term}".encode()) for index, term in enumerate(terms, 1)]


# --- elections ----------------------------------------------------------------------------------------


def test_single_node_elects_itself_and_commits_at_once() -> None:
    net = Net(["a"])
    net.campaign("a")
    assert net["a"].role == "leader" and net["a"].term == 1
    assert net["a"].propose(b"solo")
    net.collect()
    assert data_of(net.applied["a"]) == [b"solo"]
    assert net["a"].commit_index == 2  # the leader's no-op, then the proposal


def test_campaign_starts_an_election_without_waiting_for_the_timeout() -> None:
    solo = Net(["a"])
    solo["a"].campaign()  # a table's founder: no tick at all
    assert solo["a"].role == "leader" and solo["a"].term == 1
    three = Net(["a", "b", "c"])
    three["b"].campaign()
    assert three["b"].role == "pre_candidate"
    three.deliver()
    assert three["b"].role == "leader"
    three["b"].campaign()  # a leader has nothing to start
    assert three["b"].role == "leader" and three["b"].term == 1


def test_election_goes_through_pre_vote_then_vote() -> None:
    net = Net(["a", "b", "c"])
    net.campaign("a")
    assert net["a"].role == "pre_candidate" and net["a"].term == 0  # a pre-vote does not raise the term
    assert {(m.to, m.term) for m in net.sent("pre_vote")} == {("b", 1), ("c", 1)}
    net.deliver()
    assert [net[n].term for n in "abc"] == [1, 1, 1]
    assert net["a"].role == "leader"
    assert [(net[n].role, net[n].leader) for n in "bc"] == [("follower", "a"), ("follower", "a")]
    assert [net[n].commit_index for n in "abc"] == [1, 1, 1]  # the new leader's no-op


def test_many_ticks_at_once_do_what_as_many_single_ticks_do() -> None:
    """A node that slept between messages runs the ticks that fell meanwhile in one call
    (``tick(count)``): it sends, campaigns, steps down and counts exactly as that many calls of one
    tick would, through heartbeats, quorum checks and elections (its leader cut off for a while)."""

    def played(batched: bool) -> list[Any]:
        net = Net(["a", "b", "c"], ["d"])
        net.elect("a")
        seen: list[Any] = []
        for round_, count in enumerate([1, 3, 7, 2, 25, 40, 100, 4, 250, 9, 60, 33]):
            if round_ == 5:
                net.isolate("a")  # b and c elect another leader; a steps down at its quorum check
            if round_ == 9:
                net.heal()
            for node in net.nodes.values():
                if batched:
                    node.tick(count)
                else:
                    for _ in range(count):
                        node.tick()
            net.collect()
            seen.append(sorted((m.sender, m.to, m.kind, m.term) for m in net.pending))
            net.deliver()
            seen.append(
                [(n.role, n.term, n.leader, n._ticks, n._election_elapsed, n._heartbeat_elapsed)
                 for n in net.nodes.values()]
            )  # fmt: skip
        return seen

    batched = played(batched=True)
    assert batched == played(batched=False)
    alone = [Net(["a"]), Net(["a"])]  # a leader alone: its ticks only take its counters round
    for net in alone:
        net.elect("a")
    alone[0]["a"].tick(1234)
    for _ in range(1234):
        alone[1]["a"].tick()
    counters = [(net["a"]._ticks, net["a"]._election_elapsed, net["a"]._heartbeat_elapsed) for net in alone]
    assert counters[0] == counters[1] and alone[0]["a"].role == "leader"
    roles = {role for step in batched[1::2] for role, *_ in step}
    assert {"leader", "follower", "pre_candidate", "candidate", "learner"} <= roles
    assert [(role, leader) for role, _term, leader, *_ in batched[-1][:2]] == [
        ("follower", "b"),
        ("leader", "b"),
    ]


def test_election_timeout_is_drawn_in_range_and_seeded() -> None:
    def first_campaign_tick(seed: int, node_id: str = "a") -> int:
        node = RaftNode(node_id, [node_id, "z"], rng_seed=seed, election_ticks=(10, 20), heartbeat_ticks=2)
        for tick in range(1, 100):
            node.tick()
            if node.role != "follower":
                return tick
        raise AssertionError("never campaigned")

    draws = [first_campaign_tick(seed) for seed in range(50)]
    assert all(10 <= tick < 20 for tick in draws)
    assert len(set(draws)) > 3
    assert draws == [first_campaign_tick(seed) for seed in range(50)]
    assert [first_campaign_tick(7, n) for n in "abcdefgh"] != [first_campaign_tick(7, "a")] * 8


def test_vote_is_persisted_in_the_same_ready_as_the_answer() -> None:
    node = RaftNode("b", ["a", "b", "c"], **FAST)
    assert node.step(Message("vote", 3, "a", "b")) is None
    ready = node.ready()
    assert ready.hard_state == HardState(term=3, vote="a", commit=0)
    assert [(m.kind, m.to, m.reject) for m in ready.messages] == [("vote_resp", "a", False)]


def test_one_vote_per_term() -> None:
    node = RaftNode("b", ["a", "b", "c"], **FAST)
    node.step(Message("vote", 3, "a", "b"))
    node.step(Message("vote", 3, "c", "b"))
    assert [(m.to, m.reject) for m in node.ready().messages] == [("a", False), ("c", True)]
    assert node.vote == "a"


def test_vote_refused_to_a_candidate_with_a_shorter_log() -> None:
    node = RaftNode("b", ["a", "b", "c"], storage=MemoryStorage(HardState(2), log_of([1, 2])), **FAST)
    node.step(Message("vote", 3, "a", "b", log_index=5, log_term=1))
    assert node.ready().messages[-1].reject
    assert node.vote is None and node.term == 3


def test_split_vote_is_retried_in_a_later_term() -> None:
    net = Net(["a", "b", "c", "d"])
    # a and b campaign at once: neither can win its pre-vote round outright
    net.campaign("a")
    net.campaign("b")
    net.run(100)
    leaders = [n for n in "abcd" if net[n].role == "leader"]
    assert len(leaders) == 1
    assert all(net[n].leader == leaders[0] for n in "abcd")


def test_pre_vote_keeps_an_isolated_node_from_raising_its_term() -> None:
    net = Net(["a", "b", "c"])
    net.elect("a")
    net.isolate("c")
    net.run(200)
    assert net["c"].term == 1 and net["c"].role == "pre_candidate"
    net.heal()
    net.run(5)
    assert net["a"].role == "leader" and net["a"].term == 1  # the leader was not disturbed
    assert net["c"].role == "follower" and net["c"].leader == "a"


def test_without_pre_vote_an_isolated_node_disrupts_on_return() -> None:
    net = Net(["a", "b", "c"], pre_vote=False, check_quorum=False)
    net.elect("a")
    net.isolate("c")
    net.run(200)
    assert net["c"].term > 5  # it kept campaigning
    net.heal()
    net.run(60)
    assert net["a"].term > 1  # the whole cluster moved to c's term: the reason PreVote exists


def test_pre_vote_refused_while_the_leader_is_heard() -> None:
    """Refused out loud, in the voter's own term: the pre-candidate hears that voter (a follower cut off
    from its leader alone is not stranded), and neither its term nor the one it names moves."""
    net = Net(["a", "b", "c"])
    net.elect("a")
    net.cut.add(frozenset("ac"))  # c no longer hears a, but still hears b
    delivered: list[Message] = []
    for _ in range(200):
        for node in net.nodes.values():
            node.tick()
        net.deliver(drop=lambda message: delivered.append(message) is not None)
    refusals = [m for m in delivered if m.kind == "pre_vote_resp" and m.sender == "b"]
    assert len(refusals) >= 2 and all(m.to == "c" and m.reject and m.term == 1 for m in refusals)
    assert net["c"].term == 1 and net["a"].role == "leader" and net["b"].leader == "a"
    reason = net["b"].step(Message("pre_vote", 2, "c", "b", log_index=100, log_term=1))
    assert reason is not None and "lately" in reason


def test_a_follower_that_distrusts_its_leader_leaves_its_lease_and_votes_for_anyone_else() -> None:
    """The caller saw the leader append nothing it was given (``kdm.net.node``): the leader's heartbeats
    no longer keep the follower from granting a pre-vote or a vote, nor from campaigning, and the
    follower votes for that leader in no election until the distrust ends."""
    net = Net(["a", "b", "c", "d"])
    net.elect("a")
    assert net["b"].distrust_leader(ticks=100) == "a" and net["b"].distrusts("a")
    net.run(net["a"]._heartbeat_ticks)  # a heartbeat: no lease again
    assert net["b"].leader == "a"
    answers = net["b"].step(Message("pre_vote", 2, "c", "b", log_index=100, log_term=1))
    assert answers is None
    (granted,) = net.sent("pre_vote_resp")
    assert granted.to == "c" and not granted.reject
    net.pending.clear()
    # b campaigns at its own timeout, heartbeats or not; alone it is refused (c and d hear a)
    asked = []
    for _ in range(FAST["election_ticks"][1] + 1):
        for node in net.nodes.values():
            node.tick()
        asked += [m.to for m in net.sent("pre_vote") if m.sender == "b"]
        net.deliver()
    assert sorted(set(asked)) == ["a", "c", "d"] and len(asked) <= 6  # once or twice: a timeout between
    assert net["a"].role == "leader" and net["b"].term == 1
    # a itself gets no vote from b while it distrusts it ...
    net["b"].step(Message("pre_vote", 5, "a", "b", log_index=100, log_term=1))
    (refused,) = net.sent("pre_vote_resp")
    assert refused.to == "a" and refused.reject
    net.pending.clear()
    # ... and once the distrust ends, b is held in a's lease again by its heartbeats
    net.run(100)
    assert not net["b"].distrusts("a") and net["b"].role == "follower" and net["b"].leader == "a"
    reason = net["b"].step(Message("pre_vote", 2, "c", "b", log_index=100, log_term=1))
    assert reason is not None and "lately" in reason


def test_a_leader_that_a_quorum_distrusts_is_replaced_though_it_heartbeats() -> None:
    """One voter's distrust moves nothing; a quorum's elects another leader, while the distrusted one
    still heartbeats and holds its own lease."""
    net = Net(["a", "b", "c", "d"])
    net.elect("a")
    net["b"].distrust_leader(ticks=1000)
    net.run(3 * FAST["election_ticks"][1])
    assert net["a"].role == "leader" and all(net[n].leader == "a" for n in "bcd")
    net["c"].distrust_leader(ticks=1000)
    net["d"].distrust_leader(ticks=1000)
    net.run(3 * FAST["election_ticks"][1])
    leaders = {n for n in "abcd" if net[n].role == "leader"}
    assert len(leaders) == 1 and leaders != {"a"}
    (leader,) = leaders
    assert all(net[n].leader == leader for n in "abcd") and net["a"].term == net[leader].term
    assert net[leader].propose(b"at last")
    net.deliver()
    assert all(data_of(net.applied[n])[-1:] == [b"at last"] for n in "abcd")


def test_a_distrust_ends_once_another_leader_is_followed_in_a_later_term() -> None:
    """Found by a review: b and c distrust a and elect one of them, which commits an entry with a alone
    and is then cut off. Only a's log is up to date enough to win now; had the other kept refusing a
    its vote for the whole distrust, the table would have had no leader for that long."""
    net = Net(["a", "b", "c"])
    net.elect("a")
    for follower in "bc":
        net[follower].distrust_leader(ticks=1000)
    net.run(3 * FAST["election_ticks"][1])
    (leader,) = [n for n in "bc" if net[n].role == "leader"]
    (other,) = [n for n in "bc" if n != leader]
    assert net[leader].propose(b"held by a and the new leader only")
    net.deliver(drop=lambda message: other in (message.to, message.sender))
    assert data_of(net.applied["a"])[-1:] == [b"held by a and the new leader only"]
    net.isolate(leader)
    net.run(3 * FAST["election_ticks"][1])
    assert net["a"].role == "leader" and net[other].leader == "a"


def test_a_leader_or_a_learner_distrusts_nobody() -> None:
    net = Net(["a", "b"], ["l"])
    net.elect("a")
    assert net["a"].distrust_leader(ticks=10) is None and net["l"].distrust_leader(ticks=10) is None
    assert not net["l"].distrusts("a")


def test_check_quorum_vote_with_higher_term_ignored_while_the_leader_is_heard() -> None:
    net = Net(["a", "b", "c"])
    net.elect("a")
    reason = net["b"].step(Message("vote", 7, "c", "b", log_index=100, log_term=1))
    assert reason is not None and "lately" in reason
    assert net["b"].term == 1 and net["b"].vote == "a"


def test_check_quorum_leader_steps_down_when_cut_off() -> None:
    net = Net(["a", "b", "c"])
    net.elect("a")
    net.isolate("a")
    net.tick("a", 2 * FAST["election_ticks"][0])
    assert net["a"].role == "follower" and net["a"].leader is None
    assert net["a"].term == 1


def test_an_ack_lost_on_the_way_is_given_again_while_the_leader_has_not_committed_that_far() -> None:
    """A follower does not answer an append that brings nothing it has not acked, unless its leader
    has not committed that far: the acks lost, the leader's heartbeats bring them again. (Sim seeds 3826,
    5239 and 9923: a leader removing itself, which takes no new entry, waited for ever.)"""
    net = led_by_a("abc")
    commit = net["a"].commit_index
    net["a"].propose(b"its acks are lost")
    net.deliver(drop=lambda message: message.kind == "app_resp")
    assert net["a"].commit_index == commit
    net.run(3 * FAST["heartbeat_ticks"])
    assert net["a"].commit_index == commit + 1 and data_of(net.applied["b"])[-1] == b"its acks are lost"
    answered: list[Message] = []
    for _ in range(3 * FAST["heartbeat_ticks"]):
        for node in net.nodes.values():
            node.tick()
        net.deliver(drop=lambda message: message.kind == "app_resp" and not answered.append(message))
    assert not answered  # committed everywhere: the heartbeats bring nothing to answer


def test_a_leader_checks_its_quorum_at_its_first_heartbeat_after_each_election_timeout() -> None:
    """Heartbeats every 3 ticks, a timeout of 10 (neither a multiple of the other): a leader at rest is
    due at its heartbeats alone (a node wakes for those only), and one cut off steps down at a heartbeat
    (tick 12 or 21: the first check may still count the answers of its election), not at tick 10 or
    20; heard, it stays."""
    net = Net(["a", "b", "c"], election_ticks=(10, 20), heartbeat_ticks=3)
    net.elect("a")
    for _ in range(20):  # heard throughout: each check finds its quorum
        assert net["a"].ticks_to_timeout() == 3
        net.tick("a", 3)
        net.deliver()
    assert net["a"].role == "leader"
    cut_off = Net(["a", "b", "c"], election_ticks=(10, 20), heartbeat_ticks=3)
    cut_off.elect("a")
    cut_off.isolate("a")
    ticks = 0
    while cut_off["a"].role == "leader" and ticks < 50:
        cut_off.tick("a")
        ticks += 1
    assert cut_off["a"].role == "follower" and ticks in (12, 21)


def test_without_check_quorum_a_cut_off_leader_stays_leader() -> None:
    net = Net(["a", "b", "c"], check_quorum=False)
    net.elect("a")
    net.isolate("a")
    net.tick("a", 10 * FAST["election_ticks"][1])
    assert net["a"].role == "leader"


def test_new_leader_after_partition_and_old_one_rejoins() -> None:
    net = Net(["a", "b", "c"])
    net.elect("a")
    net.isolate("a")
    net.run(100)
    leader = next(n for n in "bc" if net[n].role == "leader")
    assert net[leader].term == 2 and net["a"].role in ("follower", "pre_candidate") and net["a"].term == 1
    assert net[leader].propose(b"while a was away")
    net.heal()
    net.run(10)
    assert all(data_of(net.applied[n]) == [b"while a was away"] for n in "abc")
    assert net["a"].leader == leader


# --- stale messages -----------------------------------------------------------------------------------


def test_stale_term_messages_are_ignored() -> None:
    net = Net(["a", "b", "c"])
    net.elect("a")
    net["a"].propose(b"x")
    net.deliver()
    net.isolate("a")
    net.run(100)
    leader = next(n for n in "bc" if net[n].role == "leader")
    node = net[leader]
    net.heal()
    before = (node.term, node.role, node.commit_index, node.log_entries())

    # an append from the deposed leader's term: refused, and answered with the current term
    old_append = Message(
        "app", 1, "a", leader, log_index=2, log_term=1, entries=(Entry(1, 3, b"old"),), commit=3
    )
    assert "past term" in (node.step(old_append) or "")
    answers = [m for m in net.sent("app_resp") if m.to == "a"]
    assert answers and answers[-1].term == node.term
    for stale in (
        Message("vote", 1, "a", leader, log_index=99, log_term=1),
        Message("vote_resp", 1, "a", leader),
        Message("app_resp", 1, "a", leader, log_index=3),
        Message("heartbeat_resp", 1, "a", leader),
    ):
        assert node.step(stale) is not None
    assert (node.term, node.role, node.commit_index, node.log_entries()) == before

    # the deposed leader learns the new term from the answer, which carries its leader's certificate
    assert answers[-1].certificate is not None and answers[-1].certificate.leader == leader
    old = RaftNode("a", ["a", "b", "c"], signer=net.keys.signer("a"), **FAST)
    assert old.step(answers[-1]) is None
    assert (old.term, old.role, old.leader) == (node.term, "follower", leader)
    # and from a word alone, it would learn nothing
    word = Message("app_resp", node.term + 1, leader, "a", log_index=3)
    assert "noted" in (old.step(word) or "") and old.term == node.term


def test_malformed_messages_are_dropped_with_a_reason() -> None:
    node = RaftNode("b", ["a", "b", "c"], **FAST)
    bad = [
        Message("app", 1, "a", "c"),  # for someone else
        Message("app", 1, "b", "b"),  # from ourselves
        Message("bogus", 1, "a", "b"),
        Message("app", -1, "a", "b"),
        Message("app", 1, "a", "b", log_index=0, entries=(Entry(1, 2, b"gap"),)),
        Message("app", 1, "a", "b", log_index=0, entries=(Entry(5, 1, b"future term"),)),
        Message("app", 1, "a", "b", log_index=0, entries=(Entry(1, 1, b"x", "weird"),)),
    ]
    for message in bad:
        assert isinstance(node.step(message), str)
    assert node.term == 0 and node.last_index == 0 and not node.ready().messages


# --- replication --------------------------------------------------------------------------------------


def test_replication_applies_in_order_on_every_node() -> None:
    net = Net(["a", "b", "c"])
    net.elect("a")
    for i in range(5):
        assert net["a"].propose(f"e{i}".encode())
    net.deliver()
    expected = [f"e{i}".encode() for i in range(5)]
    assert all(data_of(net.applied[n]) == expected for n in "abc")
    assert all(net[n].commit_index == net[n].applied_index == 6 for n in "abc")


def test_follower_forwards_proposals_to_the_leader() -> None:
    net = Net(["a", "b", "c"])
    assert not net["b"].propose(b"too early")  # no leader known yet: the caller retries
    net.elect("a")
    assert net["b"].propose(b"from b")
    forwarded = net.sent("prop")
    assert [(m.sender, m.to, data_of(m.entries)) for m in forwarded] == [("b", "a", [b"from b"])]
    net.deliver()
    assert all(data_of(net.applied[n]) == [b"from b"] for n in "abc")


def test_a_proposal_reaching_a_non_leader_is_dropped() -> None:
    node = RaftNode("c", ["a", "b", "c"], **FAST)
    reason = node.step(Message("prop", 0, "b", "c", entries=(Entry(0, 0, b"x"),)))
    assert reason is not None and "not the leader" in reason and node.last_index == 0


def test_leader_broadcasts_a_new_commit_index_at_once() -> None:
    net = Net(["a", "b", "c"])
    net.elect("a")
    net["a"].propose(b"x")
    net.collect()
    batch, net.pending = net.pending, []
    for message in batch:
        if message.to == "b":
            net["b"].step(message)  # c's copy is still on its way
    net.collect()
    for message in [m for m in net.pending if m.to == "a"]:
        net["a"].step(message)
    assert net["a"].commit_index == 2
    ready = net["a"].ready()  # no tick in between
    assert {m.to for m in ready.messages if m.kind == "app" and m.commit == 2} == {"b", "c"}


def test_conflicting_follower_logs_are_repaired() -> None:
    """Figure 7 of the Raft paper: the term-8 leader brings six odd followers in line."""
    leader_log = [1, 1, 1, 4, 4, 5, 5, 6, 6, 6]
    followers = {
        "fa": [1, 1, 1, 4, 4, 5, 5, 6, 6],
        "fb": [1, 1, 1, 4],
        "fc": [1, 1, 1, 4, 4, 5, 5, 6, 6, 6, 6],
        "fd": [1, 1, 1, 4, 4, 5, 5, 6, 6, 6, 7, 7],
        "fe": [1, 1, 1, 4, 4, 4, 4],
        "ff": [1, 1, 1, 2, 2, 2, 3, 3, 3, 3, 3],
    }
    logs = {"lead": leader_log, **followers}
    storages = {n: MemoryStorage(HardState(term=7, commit=3), log_of(terms)) for n, terms in logs.items()}
    net = Net(logs, storages=storages)
    net.elect("lead")
    assert net["lead"].term == 8
    assert net["lead"].propose(b"after repair")
    net.deliver()
    expected = net["lead"].log_entries()
    assert [entry.term for entry in expected] == [*leader_log, 8, 8]
    assert all(net[n].log_entries() == expected for n in logs)
    assert all(net[n].commit_index == 12 for n in logs)


def test_only_current_term_entries_are_committed_by_counting() -> None:
    """Figure 8 of the Raft paper: an entry of an earlier term on a majority is not yet committed."""
    storage = MemoryStorage(HardState(term=3, commit=1), [Entry(1, 1, b"one"), Entry(2, 2, b"two")])
    leader = RaftNode("a", ["a", "b", "c"], storage=storage, **FAST)
    while leader.role != "pre_candidate":
        leader.tick()
    leader.step(Message("pre_vote_resp", 4, "b", "a"))
    leader.step(Message("vote_resp", 4, "b", "a"))
    assert leader.role == "leader" and leader.term == 4 and leader.last_index == 3
    leader.step(Message("app_resp", 4, "b", "a", log_index=2))  # b holds the term-2 entry, not the no-op
    assert leader.commit_index == 1
    leader.step(Message("app_resp", 4, "b", "a", log_index=3))  # now it holds the term-4 no-op too
    assert leader.commit_index == 3


# --- membership ---------------------------------------------------------------------------------------


def test_learner_receives_the_log_but_never_votes_or_counts() -> None:
    net = Net(["a", "b", "c"])
    net.elect("a")
    net["a"].propose(b"before d")
    net.deliver()
    net.add("d")  # a newcomer knows the table's bootstrap voters and nothing else
    assert net["d"].role == "follower" and "d" not in net["d"].voters
    assert net["a"].propose_conf_change(ConfChange("add_learner", "d"))
    net.deliver()
    assert all(net[n].learners == ("d",) and net[n].voters == ("a", "b", "c") for n in "abcd")
    assert net["d"].role == "learner"
    assert data_of(net.applied["d"]) == [b"before d", ConfChange("add_learner", "d").encode()]

    net.run(100)  # d hears the leader; even alone it never campaigns:
    net.isolate("d")
    net.tick("d", 500)
    assert net["d"].role == "learner" and net["d"].term == 1 and not net.sent("pre_vote")
    net.heal()

    # a and the learner are not a quorum
    net.cut.update({frozenset(("a", "b")), frozenset(("a", "c"))})
    commit = net["a"].commit_index
    net["a"].propose(b"needs b or c")
    net.deliver()
    assert net["d"].last_index == net["a"].last_index and net["a"].commit_index == commit
    net.heal()
    net.tick("a", FAST["heartbeat_ticks"])
    net.deliver()
    assert net["a"].commit_index == net["a"].last_index


def test_a_learners_vote_does_not_count() -> None:
    node = RaftNode("a", ["a", "b", "c"], ["d"], **FAST)
    while node.role != "pre_candidate":
        node.tick()
    node.step(Message("pre_vote_resp", 1, "d", "a"))
    assert node.role == "pre_candidate"
    assert {m.to for m in node.ready().messages} == {"b", "c"}  # the learner is not asked


def test_learner_promoted_to_voter_changes_the_quorum() -> None:
    net = Net(["a", "b", "c"])
    net.elect("a")
    net.add("d")
    assert net["a"].propose_conf_change(ConfChange("add_learner", "d"))
    net.deliver()
    assert net["a"].propose_conf_change(ConfChange("add_voter", "d"))
    net.deliver()
    assert all(net[n].voters == ("a", "b", "c", "d") and net[n].learners == () for n in "abcd")
    assert net["d"].role == "follower"
    # with four voters, a and b are no longer a quorum
    net.cut.update({frozenset((x, y)) for x in "ab" for y in "cd"})
    commit = net["a"].commit_index
    net["a"].propose(b"x")
    net.deliver()
    assert net["a"].commit_index == commit


def test_one_conf_change_at_a_time() -> None:
    net = Net(["a", "b", "c"])
    net.campaign("a")
    net.deliver(drop=lambda m: m.kind == "app_resp")
    assert net["a"].role == "leader" and net["a"].commit_index == 0
    assert not net["a"].propose_conf_change(ConfChange("add_learner", "d"))  # its no-op is not committed
    net.tick("a", FAST["heartbeat_ticks"])
    net.deliver()
    assert net["a"].propose_conf_change(ConfChange("add_learner", "d"))
    assert not net["a"].propose_conf_change(ConfChange("add_learner", "e"))  # the first is pending
    net.deliver()
    assert net["a"].propose_conf_change(ConfChange("add_learner", "e"))
    assert not net["a"].propose_conf_change(ConfChange("remove", "zz"))
    net.deliver()
    assert not net["a"].propose_conf_change(ConfChange("add_voter", "a"))  # changes nothing
    assert net["a"].learners == ("d", "e")


def test_removing_a_voter_shrinks_the_quorum() -> None:
    net = Net(["a", "b", "c"])
    net.elect("a")
    assert net["a"].propose_conf_change(ConfChange("remove", "c"))
    net.deliver()
    assert net["a"].voters == ("a", "b")
    net.isolate("b")
    net.cut.discard(frozenset(("a", "b")))
    net.isolate("c")
    net["a"].propose(b"two of two")
    net.deliver()
    assert data_of(net.applied["b"])[-1] == b"two of two"


def test_removed_leader_steps_down_and_never_campaigns() -> None:
    net = Net(["a", "b", "c"])
    net.elect("a")
    assert net["a"].propose_conf_change(ConfChange("remove", "a"))
    assert not net["a"].propose(b"no more")  # a leader on its way out takes no proposals
    net.deliver()
    assert net["a"].role == "follower"
    assert all(net[n].voters == ("b", "c") for n in "abc")
    net.run(100)
    leader = next(n for n in "bc" if net[n].role == "leader")
    assert net[leader].propose(b"without a")
    net.deliver()
    assert data_of(net.applied[leader])[-1] == b"without a"
    assert net["a"].role == "follower"  # it was never a candidate again
    assert all(message.sender != "a" for message in net.sent("pre_vote"))


def test_leader_cut_off_while_removing_itself_can_still_be_elected_to_finish() -> None:
    """Found by the simulator: a's removal is in a's log only, so b (still counting a as a voter) needs
    a's vote, which a refuses to a shorter log. a must campaign, and commit its own removal."""
    net = Net(["a", "b"])
    net.elect("a")
    net.isolate("a")
    assert net["a"].propose_conf_change(ConfChange("remove", "a"))
    net.deliver()  # lost on the cut link
    net.tick("a", 2 * FAST["election_ticks"][0])
    assert net["a"].role == "follower" and net["a"].voters == ("b",)  # CheckQuorum stepped it down
    net.heal()
    net.run(200)
    assert all(net[n].voters == ("b",) for n in "ab")
    assert net["b"].role == "leader" and net["b"].term == 3  # after a's term 2, which committed the removal
    assert net["a"].term == 2 and net["a"].commit_index == net["a"].last_index
    net.run(200)
    assert net["a"].role == "follower"  # committed out: it does not campaign any more


def test_last_voter_cannot_be_removed() -> None:
    net = Net(["a"])
    net.campaign("a")
    assert not net["a"].propose_conf_change(ConfChange("remove", "a"))


def test_conf_change_entries_round_trip_and_reject_nonsense() -> None:
    change = ConfChange("add_learner", "spectator-7")
    assert ConfChange.decode(change.encode()) == change
    with pytest.raises(ValueError):
        ConfChange("promote", "x")
    with pytest.raises(ValueError):
        ConfChange.decode(b"\xff")


def test_a_force_change_names_sorted_voters_among_them_its_writer() -> None:
    change = ConfChange("force", "b", ("a", "b"))
    assert ConfChange.decode(change.encode()) == change
    assert change.apply_to(("a", "c"), ("b", "x")) == (("a", "b"), ("x",))  # c dropped, b votes
    for voters in [(), ("b", "a"), ("a", "a", "b"), ("a", "")]:
        with pytest.raises(ValueError):
            ConfChange("force", "a", voters)
    with pytest.raises(ValueError):
        ConfChange("force", "z", ("a", "b"))  # written by a node it does not keep
    with pytest.raises(ValueError):
        ConfChange("remove", "a", ("a",))
    with pytest.raises(ValueError):
        ConfChange.decode(b'{"change": "force", "node": "a", "voters": "a"}')


# --- forced reconfiguration: a table that lost its quorum goes on when a person says so ----------------


def stranded(voters: str, lost: str) -> Net:
    """A table whose leader ``voters[-1]`` committed a first entry, then lost the voters ``lost`` for
    good (cut off forever), and waited long enough for everyone left to know no leader."""
    net = Net(list(voters))
    net.elect(voters[-1])
    net[voters[-1]].propose(b"first")
    net.deliver()
    for node in lost:
        net.isolate(node)
    net.run(3 * FAST["election_ticks"][1])
    assert all(net[node].role != "leader" for node in voters if node not in lost)
    return net


def test_a_forced_reconfiguration_is_a_voters_and_drops_someone() -> None:
    net = Net(["a", "b", "c"], ["d"])
    assert not net["d"].force_configuration(["d"])  # a learner has no vote to go on with
    assert not net["a"].force_configuration(["b", "c"])  # it leaves its decider out
    assert not net["a"].force_configuration(["a", "x"])  # x does not vote
    assert not net["a"].force_configuration(["a", "b", "c"])  # it drops nobody
    net.elect("a")
    assert not net["a"].force_configuration(["a"])  # a leader has its quorum
    assert net["b"].voters == ("a", "b", "c") and net["b"].forced is None


def test_the_last_laptop_goes_on_alone_and_keeps_what_the_lost_leader_committed() -> None:
    """Two laptops, one vote each: the leader b commits an entry with a's copy, and dies before a learns
    it is committed. a cannot commit alone; once its player says go on, a leads a table of its own and
    commits that entry, its force entry, and what comes after."""
    net = Net(["a", "b"])
    net.elect("b")
    net["b"].propose(b"committed by b")
    net.deliver(drop=lambda m: m.kind in ("app", "heartbeat") and m.commit > 1 and m.to == "a")
    assert net["b"].commit_index == 2 and net["a"].commit_index < 2 and net["a"].last_index == 2
    net.isolate("b")
    net.run(3 * FAST["election_ticks"][1])
    assert net["a"].role != "leader" and net["a"].commit_index < 2  # stranded: nothing commits
    assert net["a"].force_configuration(["a"])
    net.collect()
    assert net["a"].role == "leader" and net["a"].voters == ("a",) and net["a"].commit_index == 3
    (force,) = [entry for entry in net.applied["a"] if entry.kind == "conf"]
    change = ConfChange.from_entry(force)  # with the votes of its survivors: a's own, here
    assert change is not None and (change.kind, change.node_id, change.voters) == ("force", "a", ("a",))
    assert [vote.voter for vote in change.approvals] == ["a"]
    assert data_of(net.applied["a"])[0] == b"committed by b"
    net["a"].propose(b"after")
    net.collect()
    assert data_of(net.applied["a"])[-1] == b"after"
    net.restart("a")  # the new configuration is in the log: a restart keeps it
    assert net["a"].voters == ("a",)


def test_two_survivors_who_both_decide_elect_one_leader() -> None:
    net = stranded("abcd", lost="cd")
    assert net["a"].force_configuration(["a", "b"]) and net["b"].force_configuration(["a", "b"])
    for _ in range(20 * FAST["election_ticks"][1]):
        net.run(1)
        if any(net[node].role == "leader" for node in "ab"):
            break
    leaders = [node for node in "ab" if net[node].role == "leader"]
    assert len(leaders) == 1
    net.run(FAST["heartbeat_ticks"] * 2)
    assert net["a"].voters == net["b"].voters == ("a", "b") and net["a"].forced is net["b"].forced is None
    assert net["a"].commit_index == net["b"].commit_index == net["a"].last_index


def test_survivors_who_decide_on_different_survivors_do_not_split() -> None:
    """a did not hear b and went on alone; b, which did, goes on with a and b. a leads a table of its
    own; b's forced election needs a, which leads and refuses it: b never leads, and what b holds
    committed is what a holds (b is no member of a's table until the application adds it back)."""
    net = stranded("abcd", lost="cd")
    assert net["a"].force_configuration(["a"])
    net.collect()
    assert net["a"].role == "leader" and net["a"].voters == ("a",)
    assert net["b"].force_configuration(["a", "b"])
    for _ in range(10 * FAST["election_ticks"][1]):
        net.run(1)
        assert net["b"].role != "leader"
    net["a"].propose(b"a goes on")
    net.run(5)
    assert net["a"].role == "leader" and b"a goes on" in data_of(net.applied["a"])
    b_committed = net["b"].log_entries(1, net["b"].commit_index + 1)
    assert net["a"].log_entries(1, len(b_committed) + 1) == b_committed


def test_the_decision_travels_to_the_survivor_whose_log_is_ahead() -> None:
    """Four laptops, two lost: b holds an entry a lacks (a was cut off from the leader while b took
    it). a's player decides;
    b refuses a's vote (a's log is behind) but takes the decision, campaigns with it and wins."""
    net = Net(["a", "b", "c", "d"])
    net.elect("c")
    net.cut.add(frozenset(("a", "c")))
    net["c"].propose(b"only b, c and d")
    net.deliver()
    assert net["b"].last_index > net["a"].last_index
    net.isolate("c"), net.isolate("d")
    net.run(3 * FAST["election_ticks"][1])
    assert net["b"].role != "leader"
    assert net["a"].force_configuration(["a", "b"])
    net.deliver()
    assert net["a"].role != "leader" and net["b"].forced == ("a", "b")
    net.run(3 * FAST["election_ticks"][1])
    assert net["b"].role == "leader" and net["a"].voters == ("a", "b")
    assert b"only b, c and d" in data_of(net.applied["a"])


def test_a_forced_election_needs_every_survivor_and_so_does_its_first_commit() -> None:
    """Six voters, three lost: the three left are no quorum of six. A forced election is lost on one
    refusal, and the force entry (with every entry before it) is committed only once every survivor
    holds it: what any of them knew committed is kept."""
    net = stranded("abcdef", lost="def")
    net.cut.add(frozenset(("a", "c")))
    assert net["a"].quorum == 4
    assert net["a"].force_configuration(["a", "b", "c"])
    net.deliver()
    net.tick("a", FAST["election_ticks"][0] - 1)
    net.deliver()
    assert net["a"].role != "leader"  # b voted, c never answered: no forced leader without it
    net.cut.discard(frozenset(("a", "c")))
    to_c = lambda m: m.kind == "app" and m.to == "c"  # noqa: E731
    for _ in range(3 * FAST["election_ticks"][1]):
        net.tick("a")
        net.deliver(drop=to_c)
        if net["a"].role == "leader":
            break
    force_index = net["a"].last_index
    assert net["a"].role == "leader" and net["b"].last_index == force_index
    assert net["a"].commit_index < force_index  # a and b are a majority of three, not every survivor
    assert net["a"].quorum == net["b"].quorum == 3  # what a stranded screen counts (Node.not_heard_from)
    net.tick("a", FAST["heartbeat_ticks"])
    net.deliver()
    assert net["a"].commit_index == force_index == net["c"].last_index
    assert net["a"].quorum == 2
    net.cut.add(frozenset(("a", "c")))
    net["a"].propose(b"a and b are a quorum now")
    net.deliver()
    assert net["a"].commit_index == force_index + 1


def test_hearing_a_leader_drops_a_forced_configuration() -> None:
    """a, cut off from b and c, is told to go on with b (which it heard last); b and c still have a
    leader. Once a hears it, the table can commit again: the log says who votes."""
    net = Net(["a", "b", "c"])
    net.elect("c")
    net.isolate("a")
    assert net["a"].force_configuration(["a", "b"])
    net.run(2 * FAST["election_ticks"][1])
    assert net["a"].role != "leader" and net["b"].voters == ("a", "b", "c")  # b hears c: it ignored a
    net.heal()
    net.run(3 * FAST["election_ticks"][1])
    assert net["a"].forced is None and net["a"].voters == ("a", "b", "c") and net["c"].role == "leader"


# --- restarts -----------------------------------------------------------------------------------------


def test_restarted_node_keeps_term_vote_and_log() -> None:
    net = Net(["a", "b", "c"])
    net["b"].step(Message("vote", 3, "a", "b"))
    net.collect()
    node = net.restart("b")
    assert (node.term, node.vote) == (3, "a")
    node.step(Message("vote", 3, "c", "b"))
    assert [m.reject for m in net.sent("vote_resp") if m.to == "c"] == [True]


def test_what_was_not_persisted_is_lost_in_a_crash() -> None:
    net = Net(["a", "b", "c"])
    net["b"].step(Message("vote", 3, "a", "b"))  # no Ready handled: nothing saved, nothing sent
    node = net.restart("b")
    assert (node.term, node.vote) == (0, None)


def test_restarted_node_hands_out_its_committed_entries_again() -> None:
    net = Net(["a", "b", "c"])
    net.elect("a")
    for data in (b"x", b"y"):
        net["a"].propose(data)
    net.deliver()
    net.tick("a", FAST["heartbeat_ticks"])  # the heartbeat tells followers the final commit index
    net.deliver()
    before = net["b"].log_entries()
    node = net.restart("b")
    assert node.log_entries() == before and node.commit_index == 3 and node.applied_index == 0
    net.collect()
    assert data_of(net.applied["b"]) == [b"x", b"y"]
    assert node.role == "follower" and node.leader is None


def test_memory_storage_replaces_a_conflicting_suffix() -> None:
    storage = MemoryStorage(entries=log_of([1, 1, 1]))
    storage.append([Entry(2, 2, b"new")])
    assert [(e.index, e.term) for e in storage.entries()] == [(1, 1), (2, 2)]
    with pytest.raises(ValueError):
        storage.append([Entry(2, 5, b"gap")])


# --- wire shape ---------------------------------------------------------------------------------------


def test_message_dict_round_trip() -> None:
    message = Message(
        "app", 4, "a", "b", log_index=7, log_term=3, entries=(Entry(4, 8, b"\x00x", "conf"),), commit=6
    )
    assert message_from_dict(message_to_dict(message)) == message
    fields = message_to_dict(message)
    assert {key: type(value).__name__ for key, value in fields.items()}["entries"] == "list"
    minimal = message_from_dict({"kind": "heartbeat_resp", "term": 1, "sender": "a", "to": "b"})
    assert minimal == Message("heartbeat_resp", 1, "a", "b")
    assert "voters" not in fields  # only a forced election's vote names voters
    forced = Message("pre_vote", 5, "a", "b", log_index=3, log_term=2, voters=("a", "b"))
    assert message_from_dict(message_to_dict(forced)) == forced


@pytest.mark.parametrize(
    "change",
    [
        {"kind": "teleport"},
        {"term": -1},
        {"term": True},
        {"term": "1"},
        {"sender": ""},
        {"to": 5},
        {"reject": 1},
        {"entries": "abc"},
        {"entries": [{"term": 1, "index": 1, "data": "text, not bytes"}]},
        {"entries": [{"term": 1, "index": 1, "data": b"", "kind": "odd"}]},
        {"entries": [{"term": 1, "index": 1, "data": b"", "extra": 0}]},
        {"entries": [[1, 1, b""]]},
        {"surprise": 1},
        {"voters": ["a", "b"]},  # an append names no voters
        {"kind": "vote", "voters": "ab"},
        {"kind": "vote", "voters": ["b", "a"]},
    ],
)
def test_message_from_dict_rejects_bad_shapes(change: dict[str, Any]) -> None:
    fields = {**message_to_dict(Message("app", 1, "a", "b")), **change}
    with pytest.raises(ValueError):
        message_from_dict(fields)


@pytest.mark.parametrize("not_a_map", [None, [], "app", 3])
def test_message_from_dict_rejects_non_maps(not_a_map: Any) -> None:
    with pytest.raises(ValueError):
        message_from_dict(not_a_map)


def test_a_leader_that_saves_in_the_background_counts_its_copy_only_once_saved() -> None:
    """Raft thesis §10.2.1: the leader's appends go out while its own sync runs; until it says the sync
    is done (``saved``), its copy does not count, so an entry commits on a quorum of followers alone,
    or once its own copy is durable, never on an unsaved copy of the leader's."""
    net = Net(["a", "b", "c"], saves_in_the_background=True)
    leader = net.elect("a")  # its no-op entry is committed by b and c: a quorum without it
    start = leader.commit_index
    net.cut.add(frozenset(("a", "c")))
    leader.propose(b"x")
    net.deliver()
    assert leader.commit_index == start  # b's copy and the leader's unsaved one: not a quorum
    leader.saved(leader.last_index, leader.term)
    net.collect()
    assert leader.commit_index == start + 1
    net.heal()
    leader.propose(b"y")
    net.deliver()
    assert leader.commit_index == start + 2  # b and c: a quorum of followers, the leader's copy unsaved
    leader.saved(start + 2, leader.term - 1)  # a stale term names an entry no longer there: nothing
    assert leader.commit_index == start + 2


# --- election certificates: a seated voter can neither lead unelected nor stall the table (issue 25) --


def signed_vote(net: Net, voter: str, term: int, leader: str, at: tuple[int, int]) -> Vote:
    """``voter``'s vote for ``leader`` in ``term``, signed with ``voter``'s own key: what a cheater can
    sign for itself and for keys it made up, and never for another member."""
    return Vote(voter, net.keys.sign_as(voter, vote_payload(term, leader, *at)))


def led_by_a(voters: str = "abcd") -> Net:
    net = Net(list(voters))
    net.elect("a")
    net["a"].propose(b"before")
    net.deliver()
    return net


def test_a_heartbeat_or_append_of_a_term_nobody_elected_its_sender_in_is_refused() -> None:
    net = led_by_a()
    b, term, last = net["b"], net["b"].term, net["b"].last_index
    heartbeat = Message("heartbeat", term + 1, "d", "b", commit=last)
    assert "without its election certificate" in (b.step(heartbeat) or "")
    assert (b.term, b.leader) == (term, "a")
    (asked,) = [m for m in net.sent("heartbeat_resp") if m.to == "d"]
    assert asked.reject and asked.term == term + 1  # "show your certificate": nothing moves meanwhile
    net.pending.clear()
    chat = Entry(term + 1, last + 1, b"a chat line d signed")
    append = Message(
        "app", term + 1, "d", "b", log_index=last, log_term=term, entries=(chat,), commit=last + 1
    )
    assert "without its election certificate" in (b.step(append) or "")
    at = (last, term)
    own = Certificate(term + 1, "d", *at, (signed_vote(net, "d", term + 1, "d", at),))
    ghosts = Certificate(
        term + 1, "d", *at, tuple(signed_vote(net, v, term + 1, "d", at) for v in ("d", "ghost1", "ghost2"))
    )
    stolen = Certificate(term + 1, "d", *at, (*own.votes, Vote("c", b"\x00" * 32)))
    for certificate, reason in ((own, "no quorum"), (ghosts, "no quorum"), (stolen, "c did not sign")):
        refusal = b.step(Message(**{**append.__dict__, "certificate": certificate}))
        assert isinstance(refusal, Misconduct) and reason in refusal, refusal
    assert (b.term, b.leader, b.last_index) == (term, "a", last)
    net.pending.clear()
    net.run(3 * FAST["election_ticks"][1])  # no stall: the table goes on with its leader
    net["a"].propose(b"after")
    net.deliver()
    assert net["a"].role == "leader" and net["a"].term == term
    assert all(data_of(net[n].log_entries())[-1] == b"after" for n in "abcd")


def test_a_leader_shows_its_certificate_until_answered_and_again_to_a_follower_that_restarted() -> None:
    net = led_by_a("abc")
    net.run(5)
    assert all(m.certificate is None for m in net.sent("heartbeat"))  # both answered in its term
    net.restart("b")
    net.run(FAST["heartbeat_ticks"] * 3)
    assert net["b"].leader == "a" and net["b"].term == net["a"].term
    net["a"].propose(b"after the restart")
    net.deliver()
    assert data_of(net["b"].log_entries())[-1] == b"after the restart"


def test_a_voter_of_a_newer_term_neither_deposes_the_leader_nor_stays_behind() -> None:
    net = led_by_a("abc")
    term = net["a"].term
    storage = net.storages["c"]
    storage.set_hard_state(HardState(term + 3, None, storage.hard_state().commit))
    net.restart("c")  # it campaigned in terms nobody won (cut off, PreVote off), say
    net.run(2 * FAST["election_ticks"][0])
    a = net["a"]
    assert a.role == "leader" and a.term == term + 4  # it stood again above c's term, and won at once
    assert (net["c"].term, net["c"].leader) == (a.term, "a")
    # A seated voter that says "I am in a newer term" over and over costs an election now and then.
    net.run(STAND_AGAIN_TIMEOUTS * FAST["election_ticks"][0])
    answers = [Message("app_resp", a.term + 1 + i, "b", "a", log_index=a.last_index) for i in range(5)]
    for answer in answers:
        a.step(answer)
    net.deliver()
    assert a.role == "leader" and a.term == answers[0].term + 1  # above the first answer's term, once
    before = a.term
    for answer in answers:
        a.step(Message(**{**answer.__dict__, "term": before + 1}))
    net.deliver()
    assert a.term == before  # soon after: noted, no new election
    net.run(STAND_AGAIN_TIMEOUTS * FAST["election_ticks"][0])
    a.step(Message(**{**answers[0].__dict__, "term": before + 1}))
    net.deliver()
    assert a.role == "leader" and a.term > before  # later, it stands again


def test_a_term_far_ahead_without_proof_is_refused() -> None:
    net = led_by_a("abc")
    b = net["b"]
    b.tick()
    far = Message("vote", b.term + MAX_TERM_LEAD + 1, "c", "b", log_index=99, log_term=b.term + 1)
    refusal = b.step(far)
    assert isinstance(refusal, Misconduct) and "that far ahead" in refusal


def signed_by_its_leader(net: Net, append: Message) -> Message:
    """``append`` with its sender's signature of the chain hash its entries make on its log."""
    chain = net[append.sender]._log.hash(append.log_index)
    assert isinstance(chain, bytes)
    for entry in append.entries:
        chain = chain_hash(chain, entry)
    index = append.log_index + len(append.entries)
    payload = head_payload(append.term, append.sender, index, chain)
    return Message(**{**append.__dict__, "signature": net.keys.sign_as(append.sender, payload)})


def conf(term: int, index: int, change: ConfChange) -> Entry:
    return Entry(term, index, change.encode(), "conf")


def test_a_leaders_membership_changes_follow_the_rules_on_every_follower() -> None:
    net = led_by_a("abc")
    b, term, last = net["b"], net["a"].term, net["b"].last_index
    ghosts = tuple(conf(term, last + i, ConfChange("add_voter", f"ghost{i}")) for i in (1, 2, 3))
    append = Message("app", term, "a", "b", log_index=last, log_term=term, entries=ghosts, commit=last)
    refusal = b.step(append)
    assert isinstance(refusal, Misconduct) and f"before the change at {last + 1} is committed" in refusal
    forced = conf(term, last + 1, ConfChange("force", "a", ("a",)))
    refusal = b.step(Message(**{**append.__dict__, "entries": (forced,)}))
    assert isinstance(refusal, Misconduct) and "was not elected with" in refusal
    assert b.voters == ("a", "b", "c") and b.last_index == last
    one = signed_by_its_leader(net, Message(**{**append.__dict__, "entries": ghosts[:1]}))
    assert b.step(one) is None and "ghost1" in b.voters  # one change at a time is the leader's to make


def test_a_forced_election_leaving_out_a_voter_still_heard_is_not_joined() -> None:
    net = led_by_a()
    net.isolate("a")
    b = net["b"]
    b.step(Message("pre_vote", b.term + 1, "c", "b", log_index=b.last_index, log_term=b.term))
    net.pending.clear()
    for _ in range(FAST["election_ticks"][1] + 1):  # the leader is gone long enough for b
        b.tick()
    net.pending.clear()
    at = {"log_index": b.last_index, "log_term": b.term}
    request = Message("vote", b.term + 1, "d", "b", voters=("b", "d"), **at)
    b.step(request)
    assert b.forced is None  # c, left out, was heard from lately: it is not gone
    net.pending.clear()
    for _ in range(2 * FAST["election_ticks"][1]):
        b.tick()
    net.pending.clear()
    b.step(Message(**{**request.__dict__, "term": b.term + 1}))
    assert b.forced == ("b", "d")  # a and c silent for as long: stranded, the decision travels


def test_a_forced_certificate_holds_every_survivors_vote() -> None:
    net = led_by_a()
    net.isolate("a")
    c = net["c"]
    for _ in range(2 * FAST["election_ticks"][1]):
        c.tick()
    net.pending.clear()
    term, at = c.term + 1, (c.last_index, c.log_entries()[-1].term)
    votes = (Vote("d", net.keys.sign_as("d", vote_payload(term, "d", *at, ("b", "d")))),)
    certificate = Certificate(term, "d", *at, votes, forced=("b", "d"))
    refusal = c.step(Message("heartbeat", term, "d", "c", certificate=certificate))
    assert isinstance(refusal, Misconduct) and "lacks the vote of survivor b" in refusal
    assert c.term == term - 1


def test_certificates_and_signatures_round_trip_through_the_wire_form() -> None:
    certificate = Certificate(7, "a", 3, 6, (Vote("a", b"s" * 64), Vote("b", b"t" * 64)), forced=("a", "b"))
    for message in (
        Message("heartbeat", 7, "a", "b", commit=3, certificate=certificate),
        Message("vote_resp", 7, "b", "a", signature=b"u" * 64),
    ):
        assert message_from_dict(message_to_dict(message)) == message
    fields = message_to_dict(Message("heartbeat", 7, "a", "b", certificate=certificate))
    fields["certificate"]["votes"] = [["a", b"s" * 65]]
    with pytest.raises(ValueError, match="signature"):
        message_from_dict(fields)


# --- forks proven and named (issue 25) ----------------------------------------------------------------


def forked(net: Net, leader: str, to: dict[str, bytes]) -> dict[str, Message]:
    """``leader`` sends each follower of ``to`` its own entry for the same next index, each append
    signed: two logs for one place."""
    node = net[leader]
    last, term = node.last_index, node.term
    appends = {}
    for follower, data in to.items():
        append = Message(
            "app", term, leader, follower, log_index=last, log_term=term,
            entries=(Entry(term, last + 1, data),), commit=node.commit_index,
        )  # fmt: skip
        appends[follower] = signed_by_its_leader(net, append)
    return appends


def test_a_leader_that_sends_two_logs_for_one_place_is_proven_and_the_table_goes_on_without_it() -> None:
    net = led_by_a()
    net.run(2)
    appends = forked(net, "a", {"b": b"one thing", "c": b"another"})
    for follower, append in appends.items():
        assert net[follower].step(append) is None  # each alone sees nothing wrong
    net.pending.clear()
    head_of_c = net["c"].recent_heads(1)[0]
    proof = net["b"].check_head(head_of_c)  # the members compare their heads: a fork, proven
    assert proof is not None and proof.leader == "a" and net["b"].convicted == {"a"}
    assert net["d"].take_fork_proof(proof) and net["c"].take_fork_proof(proof)  # anyone can check it
    forged_proof = ForkProof(proof.first, SignedHead(**{**proof.second.__dict__, "signature": b"x" * 32}))
    assert not RaftNode("e", ["a"], signer=net.keys.signer("e")).take_fork_proof(forged_proof)
    assert "whose fork is proven" in (net["b"].step(Message("heartbeat", net["a"].term, "a", "b")) or "")
    net.isolate("a")  # it goes on as if alone; nobody listens to it
    net.run(4 * FAST["election_ticks"][1])
    leader = next(net[n] for n in "bcd" if net[n].role == "leader")
    leader.propose(b"without a")
    net.deliver()
    logs = {n: data_of(net[n].log_entries()) for n in "bcd"}
    assert len({tuple(log) for log in logs.values()}) == 1 and logs["b"][-1] == b"without a"


def test_two_signed_logs_for_one_place_sent_to_one_follower_are_refused_and_convict() -> None:
    net = led_by_a("abc")
    net.run(2)
    b = net["b"]
    first = forked(net, "a", {"b": b"one thing"})["b"]
    second = forked(net, "a", {"b": b"another"})["b"]
    assert b.step(first) is None
    refusal = b.step(second)
    assert isinstance(refusal, Misconduct) and "signed two different logs" in refusal
    assert b.convicted == {"a"} and data_of(b.log_entries())[-1] == b"one thing"
    assert b.leader is None  # it follows the table's next leader, not this one


def test_an_append_whose_entries_are_not_the_ones_its_leader_signed_is_refused() -> None:
    net = led_by_a("abc")
    net.run(2)
    append = forked(net, "a", {"b": b"what was signed"})["b"]
    tampered = Message(**{**append.__dict__, "entries": (Entry(append.term, append.log_index + 1, b"else"),)})
    refusal = net["b"].step(tampered)
    assert isinstance(refusal, Misconduct) and "not the ones its leader signed" in refusal


def test_a_follower_applies_only_what_a_quorum_signed_for_whatever_commit_index_its_leader_claims() -> None:
    net = led_by_a("abcde")
    net.run(2)
    b, committed = net["b"], net["b"].commit_index
    append = forked(net, "a", {"b": b"only a and b hold this"})["b"]
    index = append.log_index + 1
    own = Ack("a", index, net.keys.sign_as("a", ack_payload(append.term, index, chain_of(net, append))))
    claimed = Message(**{**append.__dict__, "commit": index, "acks": (own,)})
    assert b.step(claimed) is None and b.last_index == index
    assert b.commit_index == committed  # a's word and its own ack: not a quorum of five
    net.pending.clear()
    forged = Ack("c", index, b"\x00" * 64)
    refusal = b.step(Message(**{**claimed.__dict__, "acks": (own, forged)}))
    assert isinstance(refusal, Misconduct) and "c its voter did not sign" in refusal
    assert b.commit_index == committed and not net.applied["b"][committed:]


def chain_of(net: Net, append: Message) -> bytes:
    """The chain hash an append's entries make on its sender's log."""
    chain = net[append.sender]._log.hash(append.log_index)
    assert chain is not None
    for entry in append.entries:
        chain = chain_hash(chain, entry)
    return chain


class CountingSigner:
    """A node's signer on the net's key ring that counts the signatures it checks."""

    def __init__(self, net: Net, node_id: str) -> None:
        self.inner, self.checked = net.keys.signer(node_id), 0

    def sign(self, payload: bytes) -> bytes:
        return self.inner.sign(payload)

    def verify(self, node_id: str, payload: bytes, signature: bytes) -> bool:
        self.checked += 1
        return self.inner.verify(node_id, payload, signature)


def test_a_made_up_certificate_sent_again_and_again_is_checked_once() -> None:
    net = led_by_a("abc")
    counting = CountingSigner(net, "b")
    b = net["b"]
    b._signer = counting
    term, at = b.term + 1, (b.last_index, b.term)
    made_up = Certificate(term, "c", *at, (signed_vote(net, "c", term, "c", at), Vote("a", b"\x00" * 32)))
    heartbeat = Message("heartbeat", term, "c", "b", certificate=made_up)
    first = b.step(heartbeat)
    checked = counting.checked
    for _ in range(50):
        assert b.step(heartbeat) == first
    assert isinstance(first, Misconduct) and checked > 0 and counting.checked == checked
    # The same leader's heads shown again by another member cost no signature either.
    net.run(2)
    head = b.recent_heads(1)[0]
    before = counting.checked
    assert b.check_head(head) is None and counting.checked == before


def test_a_members_acks_stay_in_order_of_index_whatever_order_they_come_in() -> None:
    """The leader proves a commit with each voter's latest ack at or below what the member holds: it
    reads them newest first, so they are kept in order of index, one come late in its place."""
    progress = Progress(1)
    for index in (3, 5, 9):
        progress.take_ack(index, f"s{index}".encode())
    progress.take_ack(4, b"late")
    progress.take_ack(9, b"again")
    assert list(progress.acks) == [(3, b"s3"), (4, b"late"), (5, b"s5"), (9, b"again")]
    for index in range(10, 10 + ACKS_KEPT):
        progress.take_ack(index, b"")
    progress.take_ack(1, b"too old")
    assert [index for index, _ in progress.acks] == list(range(10, 10 + ACKS_KEPT))


def test_a_table_signer_makes_each_signature_once_and_remembers_only_the_checks_that_passed() -> None:
    """A follower signs the same ack again for an append that only moves the commit index, and the
    same acks come back in every proof of commit: each is signed, and checked, once. A forged
    signature fails every time, before and after the true one passed."""
    mine, theirs = new_keys(), new_keys()
    me, them = TableSigner(mine, "t"), TableSigner(theirs, "t")
    my_id, their_id = f"127.0.0.1:1~{mine.token}", f"127.0.0.1:2~{theirs.token}"
    payload = ack_payload(3, 7, b"h" * 32)
    signed = them.sign(payload)
    assert them.sign(payload) == signed and len(signed) == 64
    forged = bytes(64)
    assert not me.verify(their_id, payload, forged)
    assert me.verify(their_id, payload, signed) and me.verify(their_id, payload, signed)
    assert not me.verify(their_id, payload, forged)
    assert not me.verify(my_id, payload, signed)  # their signature is not mine
    assert me.verify(my_id, payload, me.sign(payload))
    assert not TableSigner(mine, "other table").verify(their_id, payload, signed)


def test_a_commit_is_acked_once_and_its_proof_rides_on_the_next_append() -> None:
    """A follower answers each append that brings it entries, signed; the append that then only moves
    its commit index is not answered (the leader knows it holds the log there), and the leader sends
    the proof of that commit again with the next entries until the follower says it has it."""
    net = Net(["a", "b", "c"])
    net.elect("a")
    net.deliver()
    sent: list[Message] = []

    def watch(message: Message) -> bool:
        sent.append(message)
        return False

    net["a"].propose(b"one")
    net.deliver(watch)
    answers = [m for m in sent if m.kind == "app_resp"]
    assert sorted(m.sender for m in answers) == ["b", "c"]  # one answer each, to the entry
    assert all(node.commit_index == net["a"].commit_index for node in net.nodes.values())
    proofs = [m for m in sent if m.kind == "app" and not m.entries]
    assert proofs and all(m.acks for m in proofs)  # the commit index travels with its proof
    sent.clear()
    net["a"].propose(b"two")
    net.deliver(watch)
    carrying = [m for m in sent if m.kind == "app" and m.entries]
    assert carrying and all(m.acks for m in carrying)  # the last proof again: not yet said to be held
    assert len([m for m in sent if m.kind == "app_resp"]) == 2
    assert [entry.data for entry in net.applied["b"][-2:]] == [b"one", b"two"]


def test_a_repeated_message_is_checked_once_and_a_malformed_one_every_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A node's decode hands a repeated message (a heartbeat, its answer) over as the same object: Raft
    checks its form once per sender (issue 'Light on the CPU'), an equal new object again, and a
    malformed one at every step, refused each time."""
    import kdm.net.raft as raft_module

    checked: list[Message] = []
    real_check = raft_module.check_message

    def counting(message: Message, limit: int) -> str | None:
        checked.append(message)
        return real_check(message, limit)

    monkeypatch.setattr(raft_module, "check_message", counting)
    net = Net(["a", "b", "c"])
    net.elect("a")
    follower = net["b"]
    heartbeat = Message("heartbeat", 1, "a", "b", commit=follower.commit_index)
    checked.clear()
    for _ in range(3):
        follower.step(heartbeat)
    assert checked == [heartbeat]
    follower.step(Message("heartbeat", 1, "a", "b", commit=follower.commit_index))
    assert len(checked) == 2
    malformed = Message("heartbeat", -1, "a", "b")
    reasons = [follower.step(malformed) for _ in range(2)]
    assert len(checked) == 4 and all(reasons) and reasons[0] == reasons[1]


def behind_a_change() -> tuple[Net, int]:
    """a leads a and b. With b cut off, a makes c a voter (a and c: two of three), loses its quorum,
    and is elected again in a newer term by c's vote. b's log still says the voters are a and b, so
    of the new certificate b can count only a's own vote. Returns the net (b still cut off) and the
    term in which a made the change."""
    net = Net(["a", "b"])
    net.add("c")
    net.elect("a")
    net["a"].propose(b"before the change")
    net.deliver()
    changed_in = net["a"].term
    net.isolate("b")
    assert net["a"].propose_conf_change(ConfChange("add_voter", "c"))
    net.deliver()
    assert net["a"].voters == ("a", "b", "c") and net["a"].commit_index == net["a"].last_index
    net.isolate("a")
    net.tick("a", 2 * FAST["election_ticks"][1])  # it no longer hears a quorum: it steps down
    net.tick("c", 2 * FAST["election_ticks"][1])  # nor c its leader
    net.cut.discard(frozenset(("a", "c")))
    net.elect("a")
    net["a"].propose(b"after the change")
    net.deliver()
    assert net["a"].term > changed_in and net["c"].leader == "a"
    assert net["b"].voters == ("a", "b") and net["b"].term == changed_in
    return net, changed_in


def test_a_voter_that_missed_the_change_that_elected_its_leader_catches_up_and_follows() -> None:
    """b cannot count a's new certificate, so it asks; a sends the entries of the past term it lacks
    with that term's proof, b then holds the log the votes were cast on, and follows: no refusal
    along the way names a as a cheater. (Before, b refused every heartbeat for ever.)"""
    net, _ = behind_a_change()
    b = net["b"]
    refusals: list[str] = []
    step = b.step

    def noting(message: Message) -> str | None:
        refusal = step(message)
        if refusal is not None:
            refusals.append(refusal)
        return refusal

    b.step = noting  # type: ignore[method-assign]
    net.heal()
    net.run(4 * FAST["heartbeat_ticks"])
    assert (b.term, b.leader, b.voters) == (net["a"].term, "a", ("a", "b", "c"))
    assert data_of(net.applied["b"])[-1] == b"after the change"
    assert any("asked to catch up" in refusal for refusal in refusals)
    assert not any(isinstance(refusal, Misconduct) for refusal in refusals), refusals


@pytest.mark.parametrize("x_hears_the_leader", [True, False])
def test_a_member_behind_is_caught_up_by_another_voter_when_its_leader_cannot_prove_the_past_term(
    x_hears_the_leader: bool,
) -> None:
    """b (of a, b and x) sleeps while a makes c and d voters, then a is elected again by a, c and d: of
    those votes b's log can count a's alone. A leader that joined after the changes' term holds neither
    its certificate nor its leader's heads (Raft sim seed 2053: the table stalled for good); a's of that
    term are taken away here to stand for one. b asks x too, a voter its own log names, which followed
    that term: x sends the batch with its proof, and b follows a, also while x, cut off from a, is
    still in that very term itself (it serves the terms before the one b asks about). x, which does
    not lead b, serves one batch an election timeout."""
    net = Net(["a", "b", "x"])
    for node_id in ("c", "d"):
        net.add(node_id)
    net.elect("a")
    net["a"].propose(b"before the changes")
    net.deliver()
    changed_in = net["a"].term
    net.isolate("b")
    for node_id in ("c", "d"):
        assert net["a"].propose_conf_change(ConfChange("add_voter", node_id))
        net.deliver()
    assert net["a"].voters == ("a", "b", "c", "d", "x")
    net.isolate("x")
    net.tick("a", 2 * FAST["election_ticks"][1])  # no quorum: it steps down
    for node_id in ("c", "d"):
        net.tick(node_id, 2 * FAST["election_ticks"][1])
    net.cut -= {frozenset(("a", "c")), frozenset(("a", "d")), frozenset(("c", "d"))}
    net.elect("a")
    a, b, x = net["a"], net["b"], net["x"]
    assert a.term > changed_in and {vote.voter for vote in a._certificate.votes} <= {"a", "c", "d"}
    del a._certificates[changed_in]  # a leader that joined later: it never held that term's proof
    caught_up_by: list[str] = []
    step = b.step

    def noting(message: Message) -> str | None:
        refusal = step(message)
        if message.kind == "catch_up" and refusal is None:
            caught_up_by.append(message.sender)
        return refusal

    b.step = noting  # type: ignore[method-assign]
    net.heal()
    if not x_hears_the_leader:
        net.cut |= {frozenset(("x", other)) for other in "acd"}
    net.run(6 * FAST["heartbeat_ticks"])
    assert (b.term, b.leader, b.voters) == (a.term, "a", ("a", "b", "c", "d", "x"))
    assert b.last_index == a.last_index and caught_up_by == ["x"]
    assert x.term == (a.term if x_hears_the_leader else changed_in)
    # x, which does not lead b, serves it one batch an election timeout: asked again at once, it does not
    ask = Message("heartbeat_resp", a.term, "b", "x", 1, changed_in, reject=True, hint=1)
    x.step(ask)
    assert "not served" in (x.step(ask) or "")


def test_a_leader_sends_a_member_one_catch_up_batch_a_heartbeat_however_often_it_asks() -> None:
    """Asking costs a member one small message and the leader a walk of its log and a batch: asked a
    hundred times at once, the leader sends one (a member asks once a heartbeat it refuses)."""
    net, _ = behind_a_change()
    a, b = net["a"], net["b"]
    ask = Message(
        "heartbeat_resp", a.term, "b", "a", b.last_index, b._log.term(b.last_index) or 0, reject=True,
        hint=b.commit_index,
    )  # fmt: skip
    a._outbox.clear()
    refusals = [a.step(ask) for _ in range(100)]
    assert [m.kind for m in a._outbox].count("catch_up") == 1
    assert refusals[0] is None and all("not served" in (refusal or "") for refusal in refusals[1:])
    net.tick("a", FAST["heartbeat_ticks"])
    a._outbox.clear()
    assert a.step(ask) is None and [m.kind for m in a._outbox].count("catch_up") == 1


def test_a_catch_up_is_taken_only_with_its_terms_proof_and_never_over_a_later_terms_entries() -> None:
    net, changed_in = behind_a_change()
    b, a = net["b"], net["a"]
    net.heal()
    net.tick("a", FAST["heartbeat_ticks"])
    net.deliver(drop=lambda message: message.kind == "catch_up")  # b asked: what a sent is held
    elected = a._certificate
    assert elected is not None and elected.log_index > b.last_index  # b cannot count it, yet
    tampered_vote = tuple(Vote(v.voter, b"\x00" * 32) if v.voter == "c" else v for v in elected.votes)
    forged_votes = Certificate(**{**elected.__dict__, "votes": tampered_vote})
    refusal = b.step(Message("heartbeat", a.term, "a", "b", certificate=forged_votes))
    assert isinstance(refusal, Misconduct) and "c did not sign" in refusal  # behind, but no fool
    b_at = (b.last_index, b._log.term(b.last_index) or 0)
    net.tick("a", FAST["heartbeat_ticks"])  # (a serves a member one batch a heartbeat at most)
    a.step(Message("heartbeat_resp", a.term, "b", "a", *b_at, reject=True, hint=b.commit_index))
    (genuine,) = net.sent("catch_up")
    net.pending.clear()
    assert (genuine.term, genuine.certificate and genuine.certificate.leader) == (changed_in, "a")
    # a head a signed in that term, saved as it signed it: a never signs a head of a past term again
    saved = {
        head.signature for head in net.storages["a"].heads() if (head.term, head.leader) == (changed_in, "a")
    }
    assert genuine.signature in saved
    last = b.last_index
    tampered = Entry(changed_in, genuine.entries[-1].index, b"not what a wrote", "normal")
    forged = Message(**{**genuine.__dict__, "entries": (*genuine.entries[:-1], tampered)})
    assert "not the ones its leader signed" in (b.step(forged) or "")
    by_a_as_c = Message(**{**genuine.__dict__, "signature": net.keys.sign_as("c", b"anything")})
    assert "not the ones its leader signed" in (b.step(by_a_as_c) or "")
    by_c = Message(**{**genuine.__dict__, "sender": "c"})
    assert "whom we did not ask lately" in (b.step(by_c) or "")  # b asked a, not c
    certificate = genuine.certificate
    assert certificate is not None
    at = (certificate.log_index, certificate.log_term)
    made_up = Certificate(changed_in + 5, "a", *at, (signed_vote(net, "a", changed_in + 5, "a", at),))
    refusal = b.step(Message(**{**genuine.__dict__, "term": changed_in + 5, "certificate": made_up}))
    assert isinstance(refusal, Misconduct) and "no quorum" in refusal
    assert b.last_index == last and b.voters == ("a", "b")
    assert b.step(genuine) is None and b.voters == ("a", "b", "c") and b.last_index > last
    assert b.commit_index < b.last_index  # taken, not committed: a quorum's acks commit it, as always
    # what a leader of a later term wrote is replaced by a leader of our own term only
    later = Entry(changed_in + 1, b.last_index + 1, b"a later term's")
    b._log.append([later])
    assert "whom we did not ask lately" in (b.step(genuine) or "")  # one batch an ask: no replay
    b._asked_to_catch_up["a"] = b._ticks  # (as if b had asked again)
    assert b.step(genuine) is None  # nothing new: all its entries are ours already
    before = b.last_index - 1
    older = Message(**{**genuine.__dict__, "log_index": before, "log_term": b._log.term(before) or 0,
                       "entries": (Entry(changed_in, before + 1, b"older"),)})  # fmt: skip
    assert "which it may not replace" in (b.step(older) or "")
    assert b._log.entry(b.last_index) == later


def test_a_leader_restarted_since_the_change_still_proves_its_past_terms_to_a_member_behind() -> None:
    """The certificates a node checked or won are saved with its log (``Ready.certificates``): a and c
    both restart after the change, so neither holds a past term in memory, and a, elected again, still
    catches b up."""
    net, changed_in = behind_a_change()
    for node_id in "ac":
        net.restart(node_id)
    assert any(c.term == changed_in for c in net.storages["a"].certificates())
    net.elect("a")
    net.heal()
    net.run(4 * FAST["heartbeat_ticks"])
    b = net["b"]
    assert (b.term, b.leader, b.voters) == (net["a"].term, "a", ("a", "b", "c"))


def test_a_leader_that_followed_the_past_term_shows_the_head_it_saved_of_it_after_a_restart() -> None:
    """b knows voters a, b and e. While it is cut off, a makes c, d and f voters and removes e, then
    goes; c, d and f elect c, and again after c restarted. Of c's certificate b can count no vote, and
    the entries it lacks are of a's term: c shows a's certificate and the last head of a it took, both
    saved with its log (its memory of them went with the restart)."""
    net = Net(["a", "b", "e"])
    for node_id in "cdf":
        net.add(node_id)
    net.elect("a")
    net.isolate("b")
    for change in (*(ConfChange("add_voter", n) for n in "cdf"), ConfChange("remove", "e")):
        assert net["a"].propose_conf_change(change)
        net.deliver()
    changed_in = net["a"].term
    assert net["a"].voters == ("a", "b", "c", "d", "f") and net["b"].voters == ("a", "b", "e")
    net.isolate("a")
    net.isolate("e")
    for elected in range(2):
        for node_id in "df":
            net.tick(node_id, 2 * FAST["election_ticks"][1])  # their leader is gone
        net.pending.clear()  # (their own campaigns: c's is the one this test follows)
        net.elect("c")
        if not elected:  # it left a's term: the last head it took of it is saved
            assert any(h.term == changed_in and h.leader == "a" for h in net.storages["c"].heads())
            net.restart("c")
    net.cut.discard(frozenset(("b", "c")))
    net.run(4 * FAST["heartbeat_ticks"])
    b = net["b"]
    assert (b.term, b.leader, b.voters) == (net["c"].term, "c", ("a", "b", "c", "d", "f"))


# --- a change of who votes needs a quorum's approval: no leader makes up or retires a voter alone ---------


def approved(net: Net, change: ConfChange, by: Iterable[str]) -> ConfChange:
    """``change`` at the current point, with the approvals of the nodes ``by`` (each its own signature,
    made where its own log puts the next change)."""
    votes = [net[node_id].approve(change.kind, change.node_id) for node_id in by]
    at_point = votes[0][0]
    return at_point.approved(tuple(vote for _change, vote in votes))


def modified(net: Net, node_id: str) -> RaftNode:
    """``node_id`` restarted as a modified client: it makes any change of who votes it likes (it does
    not check approvals). Everyone else is honest."""
    net.options["changes_need_approval"] = False
    node = net.restart(node_id)
    net.options["changes_need_approval"] = True
    return node


def test_a_change_of_who_votes_needs_the_approvals_of_a_quorum_of_the_voters_before_it() -> None:
    net = Net(["a", "b", "c", "d"], learners=["e"], changes_need_approval=True)
    net.elect("a")
    a = net["a"]
    assert not a.propose_conf_change(ConfChange("add_voter", "e"))  # the leader's word alone
    assert not a.propose_conf_change(approved(net, ConfChange("add_voter", "e"), "ab"))  # two of four
    assert a.propose_conf_change(approved(net, ConfChange("add_voter", "e"), "abc"))
    net.deliver()
    assert all(net[n].voters == ("a", "b", "c", "d", "e") for n in "abcde")
    # An approval is for one change at one place: not for another node, nor once the membership moved.
    old = approved(net, ConfChange("remove", "d"), "abc")  # made now, at the add of e
    assert a.propose_conf_change(ConfChange("add_learner", "f"))  # a learner comes: no approval needed
    net.deliver()
    assert not a.propose_conf_change(old)
    forged = ConfChange("remove", "c", (), old.at, old.at_hash, old.approvals)
    assert not a.propose_conf_change(forged)
    assert a.propose_conf_change(ConfChange("remove", "f"))  # a learner leaves: none either
    net.deliver()
    assert a.propose_conf_change(approved(net, ConfChange("remove", "d"), "abce"))
    net.deliver()
    assert all(net[n].voters == ("a", "b", "c", "e") for n in "abce")


def test_a_leader_that_makes_up_a_voter_or_retires_one_is_refused_and_convicted_by_every_follower() -> None:
    """The leader is a modified client: it makes a key of its own a voter with no approval, then (in
    another run) retires an honest voter. Every honest follower refuses the append as misconduct,
    follows that leader no more, and the others elect a leader among themselves that never had it."""
    for change in (ConfChange("add_voter", "ghost"), ConfChange("remove", "d")):
        net = Net(["a", "b", "c", "d"], changes_need_approval=True)
        modified(net, "a")
        net.elect("a")
        a = net["a"]
        a.propose(b"before")
        net.deliver()
        assert a.propose_conf_change(change)
        net.collect()
        refusals = {
            m.to: net[m.to].step(m) for m in net.pending if m.kind == "app" and m.entries and m.to in "bcd"
        }
        net.pending.clear()
        sent = {"b", "c", "d"} - {change.node_id}  # (a voter it retires it sends nothing more)
        assert set(refusals) == sent
        for refusal in refusals.values():
            assert isinstance(refusal, Misconduct)
            assert f"({change.kind} {change.node_id}) holds the approvals of 0 of its 4 voters" in refusal
        assert all("a" in net[n].convicted and net[n].voters == ("a", "b", "c", "d") for n in sent)
        net.isolate("a")  # (it is heard no more anyway)
        net.run(3 * FAST["election_ticks"][1])
        leader = next(net[n] for n in "bcd" if net[n].role == "leader")
        leader.propose(b"after")
        net.deliver()
        for n in "bcd":
            assert data_of(net[n].log_entries())[-2:] == [b"before", b"after"]
            assert net[n].voters == ("a", "b", "c", "d")


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (ConfChange("add_voter", "ghost"), "(add_voter ghost) holds the approvals of 0 of its 4 voters"),
        (ConfChange("force", "b", ("b", "c", "d")), "(force b) lacks the vote of survivor b for its"),
    ],
)
def test_a_change_of_who_votes_written_in_a_past_terms_name_needs_that_configurations_word(
    change: ConfChange, reason: str
) -> None:
    """b, a modified client, writes a change of who votes at the end of its log in its leader's term's
    name (nobody checks who wrote a past term's entries): a ghost voter, or a forced configuration that
    leaves a voter out, which no forced election made. It is elected on that longer log and sends the
    change on as an old entry: every honest voter refuses it all the same, for want of its voters'
    approvals (a forced one, of its survivors' votes for its writer in that term)."""
    net = Net(["a", "b", "c", "d"], changes_need_approval=True)
    net.elect("a")
    net["a"].propose(b"before")
    net.deliver()
    b = modified(net, "b")
    term, last = b.term, b.last_index
    b._log.append([conf(term, last + 1, change)])  # its own log: a modified client writes what it likes
    b._refresh_config()
    net.isolate("a")
    for node_id in "cd":
        net.tick(node_id, 2 * FAST["election_ticks"][1])  # their leader is gone
    net.pending.clear()  # (their own campaigns: b's is the one this test follows)
    refusals: list[str | None] = []
    for node_id in "cd":  # what each honest voter says of what it is sent
        step = net[node_id].step
        net[node_id].step = lambda m, step=step: refusals.append(step(m)) or refusals[-1]  # type: ignore
    net.campaign("b")
    net.deliver()  # c and d elect b (its log is the longer), then take its appends
    assert b.role == "leader" and b.term == term + 1
    said = [r for r in refusals if isinstance(r, Misconduct)]
    assert len(said) == 2 and all(reason in r for r in said), said
    assert all(net[n].voters == ("a", "b", "c", "d") and "b" in net[n].convicted for n in "cd")
    assert all(net[n].last_index == last for n in "cd")  # nothing after it taken either
