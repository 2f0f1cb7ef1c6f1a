"""Raft consensus as a pure state machine, in the style of etcd's raft: no sockets, no clock, no threads.

Inputs: `tick()` (one unit of time, 10 ms for the driver), `step(message)`, `propose(data)`,
`propose_conf_change(change)` and `campaign()`. Output: a `Ready` listing what to save, what to send and
what to apply, acknowledged with `advance(ready)`. All randomness (the election timeout) comes from a
`random.Random` seeded by the caller, so a run is replayed exactly from its inputs.

Everything that decides who leads, what is in the log and what is committed lives in this file:
elections with PreVote, CheckQuorum (a leader that has not heard from a quorum for an election timeout
steps down, and a follower that has heard from a leader lately ignores vote requests), log
replication with per-follower progress (probe, then pipelined replicate), commit of current-term
entries only, proposal forwarding, and membership changes one node at a time.

Membership is the bootstrap configuration given to the constructor (every member of a table must be
built with the same one) changed by the `conf` entries in the log, each taking effect as soon as it is
in a node's log, committed or not (Raft thesis §4.1). A leader accepts a change only when the previous
one is committed and it has committed an entry of its own term. A leader that removes itself leads on
until the removal is committed, then steps down; a node may campaign while the change removing it is
not known committed, since it may be the only one able to commit it. Learners receive the log but never
campaign, and neither their acknowledgements nor their votes count for a quorum (like any node, they
answer a vote request, for the candidate that already counts them as promoted).

A forced reconfiguration (`force_configuration`, etcd's ``--force-new-cluster`` for a table that lost
its quorum for good) is a person's decision, never a timer's: a node told to go on with `voters` (the
voters it still hears, itself among them) takes them as its configuration and campaigns among them at
once. Its vote requests name them, and a voter they name that has heard no leader lately takes the same
configuration (the decision travels, so that the survivor whose log is the most up to date can lead).
Such a forced election needs the vote of every survivor, so the winner's log is at least as up to date
as each of theirs; its first entry, instead of the no-op, is a ``force`` conf entry naming the survivors,
and until that entry is committed the quorum is every survivor as well: the entries before it (the
winner's whole log, committed or not, so nothing committed is lost) are committed only once every
survivor holds them, and a survivor never takes a log that would overwrite what it knows committed. Two
survivors that both decide so do not split: their elections are the same one. Once committed, the new
configuration is like any other (a majority of its voters). A node that hears a leader drops the forced
configuration it was campaigning with: the table can commit again, and the log says who votes. Voters
left out are no longer members; the application adds them back as learners when they return. The
forced configuration is not saved until that entry is: a node restarted meanwhile has to be told again.
As with etcd, the decision holds only if the voters left out stay gone or come back one by one: were
a majority of the old configuration to come back together, before any of them hears of the force
entry, they would be a quorum of their own (a node left out learns it is no longer a member when it
says hello to the table again, ``kdm.net.node``).

A leader counts its own copy of an entry toward a commit once it is saved: at once by default (the
caller saves a `Ready` before acting on it), or, built with ``saves_in_the_background``, only when the
caller says the entries are durable (`saved`): its appends then go out while its own sync runs, and
a quorum of followers may commit an entry before the leader's disk is done (Raft thesis §10.2.1).

A restarted node keeps its term, vote and log from `Storage` and hands out its committed entries again
from index 1 in its first Ready: the application rebuilds its state by replaying them.

The data types are in `raft_messages`, the log and storage in `raft_log`; everything public is
re-exported here.
"""

from __future__ import annotations

import random
from collections.abc import Iterable

from .raft_log import (
    MAX_APPEND_BYTES,
    MAX_APPEND_ENTRIES,
    Configuration,
    MemoryStorage,
    Progress,
    RaftLog,
    Storage,
    persist,
)
from .raft_messages import (
    CONF_CHANGE_KINDS,
    ENTRY_KINDS,
    MESSAGE_KINDS,
    ConfChange,
    Entry,
    HardState,
    Message,
    Ready,
    check_message,
    message_from_dict,
    message_to_dict,
)

__all__ = [
    "CONF_CHANGE_KINDS",
    "ENTRY_KINDS",
    "MAX_APPEND_BYTES",
    "MAX_APPEND_ENTRIES",
    "MAX_ENTRY_BYTES",
    "MESSAGE_KINDS",
    "ConfChange",
    "Entry",
    "HardState",
    "MemoryStorage",
    "Message",
    "RaftNode",
    "Ready",
    "Storage",
    "message_from_dict",
    "message_to_dict",
    "persist",
]

MAX_ENTRY_BYTES = 16 * 1024  # a proposal larger than this could not travel in one wire message

FOLLOWER, CANDIDATE, PRE_CANDIDATE, LEADER = "follower", "candidate", "pre_candidate", "leader"


class RaftNode:
    def __init__(
        self,
        node_id: str,
        voters: Iterable[str],
        learners: Iterable[str] = (),
        storage: Storage | None = None,
        rng_seed: int = 0,
        election_ticks: tuple[int, int] = (50, 100),
        heartbeat_ticks: int = 5,
        pre_vote: bool = True,
        check_quorum: bool = True,
        saves_in_the_background: bool = False,
    ) -> None:
        low, high = election_ticks
        if not 0 < heartbeat_ticks < low < high:
            raise ValueError(
                f"heartbeat_ticks={heartbeat_ticks} and election_ticks={election_ticks} must satisfy "
                "0 < heartbeat_ticks < election_ticks[0] < election_ticks[1]"
            )
        self.node_id = node_id
        self._bootstrap: Configuration = (
            tuple(sorted(set(voters))),
            tuple(sorted(set(learners) - set(voters))),
        )
        self._election_timeout = low
        self._election_range = (low, high)
        self._heartbeat_ticks = heartbeat_ticks
        self._pre_vote = pre_vote
        self._check_quorum = check_quorum
        self._saves_in_the_background = saves_in_the_background
        # the node id keeps peers built with the same seed from timing out in step
        self._random = random.Random(f"{rng_seed}:{node_id}")

        storage = storage if storage is not None else MemoryStorage()
        hard_state = storage.hard_state()
        self._log = RaftLog(storage.entries(), hard_state.commit)
        self._term = hard_state.term
        self._vote = hard_state.vote
        self._saved_hard_state = hard_state
        self._saved_soft_state: tuple[str | None, str] = (None, FOLLOWER)
        self._outbox: list[Message] = []

        self._state = FOLLOWER
        self._leader: str | None = None
        self._election_elapsed = 0
        self._heartbeat_elapsed = 0
        self._randomized_timeout = low
        self._votes: dict[str, bool] = {}
        self._progress: dict[str, Progress] = {}
        self._pending_conf_index = 0
        self._reset(self._term)

        self._voters, self._learners = self._bootstrap
        self._config_source: tuple[int, int] = (0, 0)  # (index, term) of the conf entry last applied
        #: The survivors a forced election goes on with, until this node leads or hears a leader.
        self._forced: tuple[str, ...] | None = None
        #: Whether the conf entry in effect (``_config_source``) is a ``force`` one.
        self._config_is_force = False
        self._refresh_config()

    # --- what the caller reads ------------------------------------------------------------------------

    @property
    def role(self) -> str:
        if self._state == FOLLOWER and self.node_id in self._learners:
            return "learner"
        return self._state

    @property
    def term(self) -> int:
        return self._term

    @property
    def vote(self) -> str | None:
        return self._vote

    @property
    def leader(self) -> str | None:
        return self._leader

    @property
    def commit_index(self) -> int:
        return self._log.committed

    @property
    def applied_index(self) -> int:
        return self._log.applied

    def match_index(self, node_id: str) -> int:
        """As leader, the last index ``node_id`` is known to hold (0 when unknown or not leading)."""
        progress = self._progress.get(node_id) if self._state == LEADER else None
        return 0 if progress is None else progress.match

    @property
    def last_index(self) -> int:
        return self._log.last_index

    @property
    def voters(self) -> tuple[str, ...]:
        return self._voters

    @property
    def learners(self) -> tuple[str, ...]:
        return self._learners

    @property
    def quorum(self) -> int:
        """How many voters it takes now to elect a leader or commit an entry: a majority, or every
        survivor during a forced reconfiguration (until its entry is committed)."""
        return self._quorum()

    @property
    def forced(self) -> tuple[str, ...] | None:
        """The survivors this node campaigns with after ``force_configuration`` (None: it does not)."""
        return self._forced

    def log_entries(self, start: int = 1, end: int | None = None) -> tuple[Entry, ...]:
        """Entries with start <= index < end (to the last one when end is None), saved or not."""
        return self._log.slice(start, self._log.last_index + 1 if end is None else end)

    # --- inputs ---------------------------------------------------------------------------------------

    def tick(self) -> None:
        if self._state == LEADER:
            self._tick_leader()
            return
        self._election_elapsed += 1
        if self._election_elapsed >= self._randomized_timeout and self._promotable():
            self._election_elapsed = 0
            self._campaign(pre=self._pre_vote)

    def campaign(self) -> None:
        """Start an election now instead of at the election timeout (etcd's `Campaign`): a node that
        has just founded a table is its only voter and has nobody to wait for. Nothing for a leader,
        or for a node that may not campaign (a learner)."""
        if self._state != LEADER and self._promotable():
            self._election_elapsed = 0
            self._campaign(pre=self._pre_vote)

    def force_configuration(self, voters: Iterable[str]) -> bool:
        """Go on with ``voters`` alone, the other voters dropped, as decided by a person: the voters this
        node still hears, itself among them, when the others are gone for good and the table cannot
        commit without them (see the module's docstring). Campaigns at once. False, changing nothing,
        when this node leads or does not vote, when ``voters`` leaves this node out or names a node that
        does not vote, or when it would drop nobody."""
        survivors = tuple(sorted(set(voters)))
        if self._state == LEADER or self.node_id not in self._voters or self.node_id not in survivors:
            return False
        if not set(survivors) < set(self._voters):
            return False
        self._take_forced(survivors)
        self._election_elapsed = 0
        self._campaign(pre=self._pre_vote)
        return True

    def propose(self, data: bytes) -> bool:
        """Append `data` (leader) or forward it to the leader (follower). False when there is no known
        leader: retry later. True is no promise: a forwarded proposal can be lost, and a leader's entry
        can be overwritten if it loses leadership before committing it."""
        if len(data) > MAX_ENTRY_BYTES:
            raise ValueError(f"proposal of {len(data)} bytes is over the {MAX_ENTRY_BYTES}-byte limit")
        return self._propose(Entry(0, 0, data, "normal"))

    def propose_conf_change(self, change: ConfChange) -> bool:
        """Like `propose`, for one membership change. A leader also returns False while the previous
        change is not committed, or when the change would do nothing or remove the last voter."""
        return self._propose(Entry(0, 0, change.encode(), "conf"))

    def saved(self, index: int, term: int) -> None:
        """The caller made this node's log durable up to ``index`` (whose entry has ``term``): a leader
        built with ``saves_in_the_background`` counts its own copy from here on. Nothing otherwise, or
        when that entry is no longer in the log (a new leader overwrote it)."""
        own = self._progress.get(self.node_id)
        if self._state != LEADER or own is None or self._log.term(index) != term:
            return
        if own.update(index) and self._maybe_commit():
            self._broadcast_append()
            self._step_down_if_removed()

    def step(self, message: Message) -> str | None:
        """Take one message. Returns None if it was used, else why it was dropped (for the log)."""
        problem = self._malformed(message)
        if problem:
            return problem
        if message.kind == "prop":
            if self._state != LEADER:
                return "proposal dropped: not the leader"
            return self._append_proposals(message.entries)
        if message.term > self._term:
            if message.kind in ("vote", "pre_vote") and self._in_lease(message.kind):
                return f"{message.kind} ignored: heard from leader {self._leader} lately"
            # a pre-vote asks about a future term and a granted pre-vote answers with one: neither
            # moves our term
            if message.kind != "pre_vote" and not (message.kind == "pre_vote_resp" and not message.reject):
                self._become_follower(
                    message.term, message.sender if message.kind in ("app", "heartbeat") else None
                )
        elif message.term < self._term:
            return self._step_stale(message)

        if message.kind in ("vote", "pre_vote"):
            self._answer_vote(message)
            return None
        if self._state == LEADER:
            return self._step_leader(message)
        if message.kind in ("app", "heartbeat"):
            if self._state != FOLLOWER:
                self._become_follower(message.term, message.sender)
            self._leader = message.sender
            self._election_elapsed = 0
            self._drop_forced()
            if message.kind == "app":
                return self._handle_append(message)
            self._log.commit_to(min(message.commit, self._log.last_index))
            self._send(message.sender, "heartbeat_resp")
            return None
        if (self._state, message.kind) in ((CANDIDATE, "vote_resp"), (PRE_CANDIDATE, "pre_vote_resp")):
            return self._count_vote(message)
        return f"{message.kind} ignored by a {self._state}"

    # --- output ---------------------------------------------------------------------------------------

    def has_ready(self) -> bool:
        return bool(
            self._outbox
            or self._log.stable < self._log.last_index
            or self._log.applied < self._log.committed
            or self._hard_state() != self._saved_hard_state
            or (self._leader, self.role) != self._saved_soft_state
        )

    def ready(self) -> Ready:
        """What to do now; changes nothing until `advance`."""
        hard_state = self._hard_state()
        return Ready(
            messages=tuple(self._outbox),
            entries=self._log.unstable(),
            hard_state=None if hard_state == self._saved_hard_state else hard_state,
            committed=self._log.next_committed(),
            leader=self._leader,
            role=self.role,
        )

    def advance(self, ready: Ready) -> None:
        """The caller has done all of `ready` (the last one returned by `ready()`)."""
        del self._outbox[: len(ready.messages)]
        if ready.entries:
            self._log.stable_to(ready.entries[-1].index, ready.entries[-1].term)
        if ready.hard_state is not None:
            self._saved_hard_state = ready.hard_state
        if ready.committed:
            self._log.applied_to(ready.committed[-1].index)
        self._saved_soft_state = (ready.leader, ready.role)

    # --- roles ----------------------------------------------------------------------------------------

    def _reset(self, term: int) -> None:
        if term != self._term:
            self._term, self._vote = term, None
        self._leader = None
        self._election_elapsed = self._heartbeat_elapsed = 0
        self._randomized_timeout = self._random.randrange(*self._election_range)
        self._votes = {}
        self._progress = {}
        self._pending_conf_index = 0

    def _become_follower(self, term: int, leader: str | None) -> None:
        self._reset(term)
        self._state, self._leader = FOLLOWER, leader

    def _become_leader(self) -> None:
        self._reset(self._term)
        self._state, self._leader = LEADER, self.node_id
        for member in (*self._voters, *self._learners):
            self._progress[member] = Progress(self._log.last_index + 1)
        if self.node_id in self._progress:
            self._progress[self.node_id].update(self._log.last_index)
            self._progress[self.node_id].recent_active = True
        # no change until everything before this term is committed, by committing this no-op (or, after
        # a forced election, the entry that writes the survivors' configuration into the log)
        self._pending_conf_index = self._log.last_index + 1
        first = Entry(self._term, self._log.last_index + 1, b"")
        if self._forced is not None:
            change = ConfChange("force", self.node_id, self._forced)
            first = Entry(self._term, self._log.last_index + 1, change.encode(), "conf")
            self._forced = None
        self._append_as_leader([first])

    def _promotable(self) -> bool:
        if self.node_id in self._voters:
            return True
        # Until the change that removed us is committed we may be the only node able to win the
        # election that commits it (say, a leader that appended its own removal, then lost its quorum)
        voters, _ = self._log.configuration(self._bootstrap, end=self._log.committed)
        return self.node_id in voters

    def _in_lease(self, kind: str) -> bool:
        # a pre-vote is refused while a leader is heard from even without CheckQuorum (thesis §9.6)
        recent = self._leader is not None and self._election_elapsed < self._election_timeout
        return recent and (self._check_quorum or kind == "pre_vote")

    def _campaign(self, pre: bool) -> None:
        if pre:
            self._reset(self._term)
            self._state = PRE_CANDIDATE
            term, kind = self._term + 1, "pre_vote"
        else:
            self._reset(self._term + 1)
            self._state, self._vote = CANDIDATE, self.node_id
            term, kind = self._term, "vote"
        self._votes = {self.node_id: True}
        if self._election_result() == "won":
            self._won_election()
            return
        for voter in self._voters:
            if voter != self.node_id:
                self._outbox.append(
                    Message(
                        kind,
                        term,
                        self.node_id,
                        voter,
                        log_index=self._log.last_index,
                        log_term=self._log.last_term,
                        voters=self._forced or (),
                    )
                )

    def _won_election(self) -> None:
        if self._state == PRE_CANDIDATE:
            self._campaign(pre=False)
        else:
            self._become_leader()

    def _election_result(self) -> str:
        granted = sum(self._votes.get(voter) is True for voter in self._voters)
        rejected = sum(self._votes.get(voter) is False for voter in self._voters)
        if granted >= self._quorum():
            return "won"
        if rejected > len(self._voters) - self._quorum():
            return "lost"
        return "pending"

    def _quorum(self) -> int:
        if self._forced is not None or (
            self._config_is_force and self._config_source[0] > self._log.committed
        ):
            return len(self._voters)  # every survivor: what any of them knows committed is kept
        return len(self._voters) // 2 + 1

    def _answer_vote(self, message: Message) -> None:
        if message.voters and self._state != LEADER:
            self._join_forced(message)
        pre = message.kind == "pre_vote"
        can_vote = (
            self._vote == message.sender
            or (self._vote is None and self._leader is None)
            or (pre and message.term > self._term)
        )
        if can_vote and self._log.is_up_to_date(message.log_index, message.log_term):
            # the answer carries the asked term, so a pre-candidate can tell it from a stale one
            self._outbox.append(Message(f"{message.kind}_resp", message.term, self.node_id, message.sender))
            if not pre:
                self._vote, self._election_elapsed = message.sender, 0
        else:
            self._send(message.sender, f"{message.kind}_resp", reject=True)

    def _count_vote(self, message: Message) -> str | None:
        expected_term = self._term + 1 if self._state == PRE_CANDIDATE and not message.reject else self._term
        if message.term != expected_term:
            return f"{message.kind} for another term ignored"
        self._votes.setdefault(message.sender, not message.reject)
        result = self._election_result()
        if result == "won":
            self._won_election()
        elif result == "lost":
            self._become_follower(self._term, None)
        return None

    def _step_stale(self, message: Message) -> str:
        if (self._check_quorum or self._pre_vote) and message.kind in ("app", "heartbeat"):
            # the sender may be a leader cut off from a newer term that, because of CheckQuorum and
            # PreVote, nobody will ever raise it to: tell it
            self._send(message.sender, "app_resp")
            return f"{message.kind} from past term {message.term}: answered with term {self._term}"
        if message.kind == "pre_vote":
            self._send(message.sender, "pre_vote_resp", reject=True)
            return f"pre_vote for past term {message.term}: rejected"
        return f"{message.kind} from past term {message.term} ignored"

    # --- follower -------------------------------------------------------------------------------------

    def _handle_append(self, message: Message) -> str | None:
        if message.log_index < self._log.committed:
            self._send(message.sender, "app_resp", log_index=self._log.committed)
            return None
        try:
            last_new = self._log.maybe_append(
                message.log_index, message.log_term, message.commit, message.entries
            )
        except ValueError as error:
            return f"append refused: {error}"
        self._refresh_config()
        if last_new is not None:
            self._send(message.sender, "app_resp", log_index=last_new)
            return None
        hint = self._log.find_conflict_by_term(min(message.log_index, self._log.last_index), message.log_term)
        self._send(
            message.sender,
            "app_resp",
            log_index=message.log_index,
            reject=True,
            hint=hint,
            log_term=self._log.term(hint) or 0,
        )
        return None

    # --- leader ---------------------------------------------------------------------------------------

    def _tick_leader(self) -> None:
        self._heartbeat_elapsed += 1
        self._election_elapsed += 1
        if self._election_elapsed >= self._election_timeout:
            self._election_elapsed = 0
            if self._check_quorum and not self._quorum_active():
                self._become_follower(self._term, None)
                return
        if self._heartbeat_elapsed >= self._heartbeat_ticks:
            self._heartbeat_elapsed = 0
            for member, progress in self._progress.items():
                if member != self.node_id:
                    commit = min(progress.match, self._log.committed)
                    progress.sent_commit = max(progress.sent_commit, commit)
                    self._send(member, "heartbeat", commit=commit)

    def _quorum_active(self) -> bool:
        active = 0
        for member, progress in self._progress.items():
            if member in self._voters and (member == self.node_id or progress.recent_active):
                active += 1
            if member != self.node_id:
                progress.recent_active = False
        return active >= self._quorum()

    def _step_leader(self, message: Message) -> str | None:
        progress = self._progress.get(message.sender)
        if progress is None:
            return f"{message.kind} from {message.sender}, not a member"
        if message.kind == "heartbeat_resp":
            progress.recent_active, progress.probe_sent = True, False
            if progress.replicating and progress.paused():
                progress.inflight.popleft()  # the lost appends will be noticed by a reject
            if progress.match < self._log.last_index:
                self._send_append(message.sender)
            return None
        if message.kind != "app_resp":
            return f"{message.kind} ignored by a leader"
        if message.log_index > self._log.last_index:
            return f"app_resp for index {message.log_index} past our log"
        progress.recent_active = True
        if message.reject:
            probe_hint = message.hint
            if message.log_term > 0:
                probe_hint = self._log.find_conflict_by_term(message.hint, message.log_term)
            if progress.decrease_to(message.log_index, probe_hint):
                self._send_append(message.sender)
            return None
        if progress.update(message.log_index):
            if not progress.replicating:
                progress.become_replicate()
            if self._maybe_commit():
                self._broadcast_append()  # the commit index travels at once
                self._step_down_if_removed()
            elif progress.sent_commit < min(self._log.committed, progress.match):
                self._send_append(message.sender)  # it was paused when the commit index last moved
        while self._state == LEADER and self._send_append(message.sender, send_empty=False):
            pass
        return None

    def _send_append(self, to: str, send_empty: bool = True) -> bool:
        progress = self._progress.get(to)
        if progress is None or progress.paused():
            return False
        entries: list[Entry] = []
        size = 0
        for entry in self._log.slice(progress.next, progress.next + MAX_APPEND_ENTRIES):
            size += len(entry.data)
            if entries and size > MAX_APPEND_BYTES:
                break
            entries.append(entry)
        if not entries and not send_empty:
            return False
        prev_index = progress.next - 1
        self._send(
            to,
            "app",
            log_index=prev_index,
            log_term=self._log.term(prev_index) or 0,
            entries=tuple(entries),
            commit=self._log.committed,
        )
        progress.sent_commit = max(progress.sent_commit, min(self._log.committed, prev_index + len(entries)))
        if progress.replicating and entries:
            progress.next = entries[-1].index + 1
            progress.inflight.append(entries[-1].index)
        elif not progress.replicating:
            progress.probe_sent = True
        return True

    def _broadcast_append(self) -> None:
        for member in self._progress:
            if member != self.node_id:
                self._send_append(member)

    def _maybe_commit(self) -> bool:
        matches = sorted((self._progress[v].match for v in self._voters if v in self._progress), reverse=True)
        if len(matches) < self._quorum():
            return False
        index = matches[self._quorum() - 1]
        # only an entry of our own term is committed by counting; earlier ones follow it (§5.4.2)
        if index <= self._log.committed or self._log.term(index) != self._term:
            return False
        self._log.commit_to(index)
        return True

    def _step_down_if_removed(self) -> None:
        if self.node_id not in self._voters and self._config_source[0] <= self._log.committed:
            self._become_follower(self._term, None)  # our own removal is committed: let others lead

    def _propose(self, entry: Entry) -> bool:
        if self._state == LEADER:
            return self._append_proposals((entry,)) is None
        if self._leader is None:
            return False
        self._send(self._leader, "prop", entries=(entry,))
        return True

    def _append_proposals(self, proposals: Iterable[Entry]) -> str | None:
        if self.node_id not in self._progress:
            return "proposal dropped: this leader is being removed"
        accepted: list[Entry] = []
        refusal = None
        for proposal in proposals:
            if proposal.kind == "conf":
                refusal = self._conf_change_refusal(proposal)
                if refusal:
                    continue
                self._pending_conf_index = self._log.last_index + len(accepted) + 1
            accepted.append(
                Entry(self._term, self._log.last_index + len(accepted) + 1, proposal.data, proposal.kind)
            )
        if accepted:
            self._append_as_leader(accepted)
        return refusal

    def _conf_change_refusal(self, proposal: Entry) -> str | None:
        if self._pending_conf_index > self._log.committed:
            return "conf change refused: the previous one is not committed yet"
        change = ConfChange.from_entry(proposal)
        if change is None:
            return "conf change refused: not a conf change"
        voters, learners = change.apply_to(self._voters, self._learners)
        if (voters, learners) == (self._voters, self._learners):
            return f"conf change refused: {change.kind} {change.node_id} changes nothing"
        if not voters:
            return "conf change refused: it would remove the last voter"
        return None

    def _append_as_leader(self, entries: list[Entry]) -> None:
        self._log.append(entries)
        self._refresh_config()
        own = self._progress.get(self.node_id)
        if own is not None and not self._saves_in_the_background:
            own.update(self._log.last_index)
        self._maybe_commit()  # a lone voter commits at once
        self._broadcast_append()
        self._step_down_if_removed()

    # --- membership -----------------------------------------------------------------------------------

    def _take_forced(self, survivors: tuple[str, ...]) -> None:
        self._forced = survivors
        self._voters = survivors
        self._learners = tuple(node for node in self._learners if node not in survivors)

    def _join_forced(self, message: Message) -> None:
        """A voter of ours asks for our vote in a forced election that names us: the person who decided
        it speaks for the table, unless we have heard a leader lately (the table can commit)."""
        voters = message.voters
        led_lately = self._leader is not None and self._election_elapsed < self._election_timeout
        if led_lately or self.node_id not in voters or message.sender not in self._voters:
            return
        if set(voters) < set(self._voters):
            self._take_forced(voters)

    def _drop_forced(self) -> None:
        if self._forced is not None:
            self._forced = None
            self._config_source = (-1, -1)  # the log says who votes again
            self._refresh_config()

    def _refresh_config(self) -> None:
        """Recompute the configuration if the last conf entry of the log changed (a forced election's
        survivors hold until this node leads or hears a leader)."""
        source = self._log.last_conf_entry()
        if source == self._config_source or self._forced is not None:
            return
        voters, learners = self._log.configuration(self._bootstrap)
        self._voters, self._learners, self._config_source = voters, learners, source
        change = ConfChange.from_entry(self._log.entry(source[0])) if source[0] else None
        self._config_is_force = change is not None and change.kind == "force"
        if self._state == LEADER:
            for member in (*voters, *learners):
                self._progress.setdefault(member, Progress(max(self._log.last_index, 1)))
            for member in [member for member in self._progress if member not in voters + learners]:
                del self._progress[member]

    # --- helpers --------------------------------------------------------------------------------------

    def _hard_state(self) -> HardState:
        return HardState(self._term, self._vote, self._log.committed)

    def _send(
        self,
        to: str,
        kind: str,
        *,
        log_index: int = 0,
        log_term: int = 0,
        entries: tuple[Entry, ...] = (),
        commit: int = 0,
        reject: bool = False,
        hint: int = 0,
    ) -> None:
        self._outbox.append(
            Message(kind, self._term, self.node_id, to, log_index, log_term, entries, commit, reject, hint)
        )

    def _malformed(self, message: Message) -> str | None:
        if message.to != self.node_id:
            return f"message for {message.to} delivered to {self.node_id}"
        if message.sender == self.node_id:
            return "message from ourselves"
        return check_message(message, MAX_ENTRY_BYTES)
