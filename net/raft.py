"""Raft consensus as a pure state machine, in the style of etcd's raft: no sockets, no clock, no threads.

Inputs: `tick()` (one unit of time, 10 ms for the driver), `step(message)`, `propose(data)`,
`propose_conf_change(change)` and `campaign()`. Output: a `Ready` listing what to save, what to send and
what to apply, acknowledged with `advance(ready)`. All randomness (the election timeout) comes from a
`random.Random` seeded by the caller, so a run is replayed exactly from its inputs.

Everything that decides who leads, what is in the log and what is committed lives in this file:
elections with PreVote, CheckQuorum (a leader that has not heard from a quorum for an election timeout
steps down, checked at its first heartbeat after each timeout, and a follower that has heard from a
leader lately grants no vote: it ignores vote requests, and refuses pre-votes out loud, so that a voter
cut off from its leader alone still hears the others), log replication with per-follower progress
(probe, then pipelined replicate), commit of current-term entries only, proposal forwarding, and
membership changes one node at a time.

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

No voter is taken at its word (issue 25; Tangaroa's Byzantine Raft, accountable safety). A granted vote
is signed (``raft_signing``), and a leader proves its term with the signed votes of a quorum (its
election certificate), checked once a term before any append or heartbeat of that term is taken; an
answer of a newer term is noted, never followed (a leader stands again above it, now and then), and a
term far ahead without proof is refused. The log is hash-chained; each append carries its leader's
signature of the chain hash after its entries, checked against the follower's own log, so two heads
one leader signed for one (term, index) are a `ForkProof`: the leader is convicted, never heard again,
and the others elect another (entries are compared by chain hash, so the next leader repairs a log that
took the other fork). A follower commits only what the signed acks of a quorum of its voters cover
(``_commit_proven``), whatever commit index the leader claims, and checks its leader's membership
changes (one at a time; ``force`` only from the leader its survivors elected). Who may vote is not
Raft's to judge but the application's (a seated player's process): built with
``changes_need_approval``, a node takes a change that makes or unmakes a voter only with the signed
approvals of a quorum of the voters before it, each made for that very place in the log
(``ConfChange.approvals``), wherever it comes from (an append, a catch-up, an entry in a past term's
name); a leader that sends one without is convicted like a forker, by each node it sends it to.
Without that, a leader could make up voters (keys of its own) or retire players still at the table
until it was a quorum of its own, and show two honest nodes two committed logs. What no correct node
sends is refused as `Misconduct`, for the caller to log as such.

A member whose log is too short to count its leader's certificate (it missed the membership changes
the voters came in by, asleep or cut off) would otherwise refuse that leader for ever: it asks, and the
leader sends it the past terms' entries it lacks, a term at a time, each proven as that term's leader
would have proven it, by that term's certificate and a head that leader signed (``catch_up``; one batch
an ask). A leader that joined after such a term holds neither, so the member asks one of the other
voters its own log names beside it, in turn, and any node asked so serves it too (once an election
timeout). A node saves with its log the certificates of the terms it followed or led and the last head
of each term it left, its own if it led it (``Ready.certificates``, ``Ready.heads``), so a leader
restarted since still shows them; it never signs a head of a past term again. As in the term itself,
a past term's leader that cheats (its entries for this member not those it gave the others: ghost
voters, say) is caught by its two heads for one place, not stopped.

A leader that heartbeats but appends nothing it is given would hold every follower in its lease for
ever: nothing signed shows it, so no node can convict it. The caller, which knows what it gave the
leader and saw no sign of it in the log (``kdm.net.node``), says so (``distrust_leader``): for a
while, that leader's heartbeats no longer keep this node from campaigning, nor from granting a pre-vote,
and this node votes for it in no election. One node's distrust moves nothing (the others, in their
lease, refuse its pre-votes); a quorum's elects another leader. (At three voters, one honest voter's
mistaken distrust and a cheater's vote are a quorum: three are too few against a liar anyway.)

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
from collections import OrderedDict
from collections.abc import Iterable

from .raft_log import (
    MAX_APPEND_BYTES,
    MAX_APPEND_ENTRIES,
    Configuration,
    MemoryStorage,
    Progress,
    RaftLog,
    Storage,
    chain_hash,
    persist,
)
from .raft_messages import (
    CONF_CHANGE_KINDS,
    ENTRY_KINDS,
    MESSAGE_KINDS,
    Ack,
    Certificate,
    ConfChange,
    Entry,
    ForkProof,
    HardState,
    Message,
    Ready,
    SignedHead,
    Vote,
    check_message,
    message_from_dict,
    message_to_dict,
)
from .raft_signing import (
    Signer,
    Unsigned,
    ack_payload,
    approval_payload,
    certificate_payload,
    fork_is_proven,
    head_is_signed,
    head_payload,
    vote_payload,
)

__all__ = [
    "CONF_CHANGE_KINDS",
    "ENTRY_KINDS",
    "MAX_APPEND_BYTES",
    "MAX_APPEND_ENTRIES",
    "MAX_ENTRY_BYTES",
    "MAX_TERM_LEAD",
    "MESSAGE_KINDS",
    "STAND_AGAIN_TIMEOUTS",
    "Ack",
    "Certificate",
    "ConfChange",
    "Entry",
    "ForkProof",
    "HardState",
    "MemoryStorage",
    "Message",
    "Misconduct",
    "RaftNode",
    "Ready",
    "SignedHead",
    "Storage",
    "Vote",
    "message_from_dict",
    "message_to_dict",
    "persist",
]

MAX_ENTRY_BYTES = 16 * 1024  # a proposal larger than this could not travel in one wire message
#: How far above its own term a node takes a term without a certificate to prove it: an honest node
#: is a few elections ahead at most (PreVote), and a term pushed to the top of the range would stop
#: every node that took it.
MAX_TERM_LEAD = 1000
#: Why an append is refused whose signed head is not the chain hash its entries make on our log.
NOT_SIGNED = "its entries are not the ones its leader signed on top of our log"
#: Refused election certificates a node remembers (``_check_leader``).
CERTIFICATES_REFUSED_KEPT = 64
#: Election certificates of past terms a node keeps (checked or won), by term, the oldest forgotten
#: first: a leader shows them to a member that fell behind a membership change (``catch_up``).
CERTIFICATES_KEPT = 64
#: Senders whose last well-formed message a node remembers (``_malformed``; past it, it starts again).
WELL_FORMED_KEPT = 64
#: Acks whose signatures a follower remembers having checked.
ACKS_CHECKED = 1024
#: Signed heads a node keeps (its own as leader, its leaders' as follower), the oldest forgotten first.
HEADS_KEPT = 256
#: How many election timeouts a leader waits before it stands again for a voter of a newer term.
STAND_AGAIN_TIMEOUTS = 5

FOLLOWER, CANDIDATE, PRE_CANDIDATE, LEADER = "follower", "candidate", "pre_candidate", "leader"


class Misconduct(str):
    """Why a message was dropped, when no correct node sends such a message: a term nobody elected its
    sender in, a forged or double vote, an append that breaks the membership rules. The caller logs it
    as a warning that names the sender (an ordinary drop, a stale heartbeat say, is routine)."""


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
        signer: Signer | None = None,
        silence_ticks: int | None = None,
        changes_need_approval: bool = False,
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
        self._signer: Signer = signer if signer is not None else Unsigned()
        #: Whether a change of who votes must carry the signed approvals of a quorum of the voters before
        #: it (``ConfChange.approvals``): a table's application says who may vote; Raft alone does not.
        self._changes_need_approval = changes_need_approval
        #: How long a voter left out of a forced election must have been silent here before this node
        #: joins that election (``_join_forced``): two of the longest election timeouts by default.
        self._silence_ticks = silence_ticks if silence_ticks is not None else 2 * high
        # the node id keeps peers built with the same seed from timing out in step
        self._random = random.Random(f"{rng_seed}:{node_id}")

        storage = storage if storage is not None else MemoryStorage()
        hard_state = storage.hard_state()
        self._log = RaftLog(storage.entries(), hard_state.commit)
        self._term = hard_state.term
        self._vote = hard_state.vote
        self._saved_hard_state = hard_state
        self._saved_soft_state: tuple[str | None, str] = (None, FOLLOWER)
        #: The last message without entries from each sender found well formed (``_malformed``): the
        #: same object again is not checked again (a node's decode hands a repeated message, a heartbeat
        #: or its answer, over as the same object).
        self._well_formed: dict[str, Message] = {}
        self._outbox: list[Message] = []

        self._state = FOLLOWER
        self._leader: str | None = None
        self._election_elapsed = 0
        self._heartbeat_elapsed = 0
        #: As a leader, an election timeout has passed since it last checked its quorum (CheckQuorum):
        #: it checks at its next heartbeat, so that a leader at rest wakes for its heartbeats alone.
        self._quorum_check_due = False
        self._randomized_timeout = low
        self._votes: dict[str, bool] = {}
        #: As a candidate, the signatures of the votes granted to it (its own among them).
        self._vote_proofs: dict[str, bytes] = {}
        #: As a candidate, the (index, term) its log ended at when it asked for votes.
        self._claim: tuple[int, int] = (0, 0)
        #: The (term, leader) whose election certificate this node has checked (or won), and that
        #: certificate: the only leader whose appends and heartbeats it takes in that term.
        self._certified: tuple[int, str] | None = None
        self._certificate: Certificate | None = None
        #: The certificates of the terms this node followed or led, by term (``CERTIFICATES_KEPT``),
        #: and those not yet handed to the caller to save (``Ready.certificates``).
        self._certificates: OrderedDict[int, Certificate] = OrderedDict()
        self._unsaved_certificates: list[Certificate] = []
        for certificate in storage.certificates():
            self._keep_certificate(certificate, saved=True)
        #: Certificates refused lately, with why and whether a vote was forged: a flood of one is
        #: checked once.
        self._refused_certificates: OrderedDict[Certificate, tuple[str, bool]] = OrderedDict()
        #: The highest term a voter's answer named: the next campaign starts above it.
        self._term_heard = 0
        #: As a pre-candidate, the term it asked about.
        self._pre_vote_term = 0
        #: The tick this node, as leader, last stood again in a newer term (``_stand_again``).
        self._stood_again_at: int | None = None
        #: Ticks since this node was built, and the tick each node was last heard from.
        self._ticks = 0
        self._heard_at: dict[str, int] = {}
        #: As leader, our signatures of our heads (``_head_signature``); as follower, the signed heads
        #: taken from leaders' appends, by (term, index), the oldest forgotten first.
        self._signed_heads: OrderedDict[tuple[int, int], bytes] = OrderedDict()
        self._heads: OrderedDict[tuple[int, int], SignedHead] = OrderedDict()
        #: How many heads this node has taken so far (``recent_heads`` changes when this does).
        self.heads_taken = 0
        #: The leaders this node asked to catch it up, and the tick it asked (``_take_catch_up``).
        self._asked_to_catch_up: dict[str, int] = {}
        #: Which voter to ask next beside the leader (``_another_to_ask``), and when each member that
        #: asked a node that does not lead it was last served (``_serve_catch_up``).
        self._catch_up_turn = 0
        self._catch_up_served: dict[str, int] = {}
        #: The last head taken of each term this node left, not yet handed to the caller to save
        #: (``Ready.heads``); those saved before a restart are taken back here.
        self._unsaved_heads: list[SignedHead] = []
        last_of_each_term: dict[int, SignedHead] = {}
        for head in storage.heads():  # (a leader saves each head it signs: the last of a term serves)
            if head.index >= last_of_each_term.get(head.term, head).index:
                last_of_each_term[head.term] = head
        for term in sorted(last_of_each_term)[-HEADS_KEPT:]:
            head = last_of_each_term[term]
            self._heads[(term, head.index)] = head
        #: As leader, our signed acks of our own log; as follower, the acks whose signatures we checked.
        self._own_acks: OrderedDict[tuple[int, int], bytes] = OrderedDict()
        self._acks_checked: OrderedDict[tuple[int, str, int, bytes], None] = OrderedDict()
        #: The last ack we sent: (term, leader, index).
        self._acked: tuple[int, str, int] | None = None
        #: The nodes this node distrusts (``distrust_leader``): the tick until which it does, and the
        #: term it distrusted it in.
        self._distrusted: dict[str, tuple[int, int]] = {}
        #: Proofs of forks this node holds, and the leaders they convict.
        self.forks: list[ForkProof] = []
        self.convicted: set[str] = set()
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
    def proven_leader(self) -> tuple[int, str] | None:
        """The (term, leader) whose election certificate this node has checked (or won) last."""
        return self._certified

    @property
    def forced(self) -> tuple[str, ...] | None:
        """The survivors this node campaigns with after ``force_configuration`` (None: it does not)."""
        return self._forced

    def log_entries(self, start: int = 1, end: int | None = None) -> tuple[Entry, ...]:
        """Entries with start <= index < end (to the last one when end is None), saved or not."""
        return self._log.slice(start, self._log.last_index + 1 if end is None else end)

    # --- inputs ---------------------------------------------------------------------------------------

    def tick(self, count: int = 1) -> None:
        """``count`` ticks, as that many calls of one would make them: those before the next that does
        something (``ticks_to_timeout``) are counted at once (a node that slept between messages has
        dozens to run at each)."""
        while count > 0:
            due = self.ticks_to_timeout()
            if due is None and self._state == LEADER:
                # Alone: its ticks do nothing but take its counters round (each back to 0 at its limit).
                self._ticks += count
                self._heartbeat_elapsed = (self._heartbeat_elapsed + count) % self._heartbeat_ticks
                self._election_elapsed = (self._election_elapsed + count) % self._election_timeout
                return
            quiet = count if due is None else min(count, due - 1)  # (None: a node that may not campaign)
            if quiet > 0:
                self._ticks += quiet
                if self._state == LEADER:
                    self._heartbeat_elapsed += quiet
                    self._count_leader_timeouts(quiet)
                else:
                    self._election_elapsed += quiet
                count -= quiet
                continue
            self._tick_one()
            count -= 1

    def _tick_one(self) -> None:
        self._ticks += 1
        if self._state == LEADER:
            self._tick_leader()
            return
        self._election_elapsed += 1
        if self._election_elapsed >= self._randomized_timeout and self._promotable():
            self._election_elapsed = 0
            self._campaign(pre=self._pre_vote)

    def ticks_to_timeout(self) -> int | None:
        """How many ``tick`` calls from now until one does something: a leader's heartbeat or check of
        its quorum, another node's election. None: none will, however many come (a node that may not
        campaign). A caller may tick only when that many are due, as long as it also ticks, before each
        ``step``, every tick that fell since (the leases and the silences read the tick count)."""
        if self._state == LEADER:
            if len(self._progress) <= 1 and self._voters == (self.node_id,):
                return None  # alone: nobody to send a heartbeat to, and a quorum of one always holds
            # (its quorum is checked at a heartbeat: ``_count_leader_timeouts``)
            return max(1, self._heartbeat_ticks - self._heartbeat_elapsed)
        if not self._promotable():
            return None
        return max(1, self._randomized_timeout - self._election_elapsed)

    def campaign(self) -> None:
        """Start an election now instead of at the election timeout (etcd's `Campaign`): a node that
        has just founded a table is its only voter and has nobody to wait for. Nothing for a leader,
        or for a node that may not campaign (a learner)."""
        if self._state != LEADER and self._promotable():
            self._election_elapsed = 0
            self._campaign(pre=self._pre_vote)

    def distrust_leader(self, ticks: int) -> str | None:
        """The caller gave the leader entries that it has not appended while it goes on heartbeating
        (a leader that stalls the table, or one player's moves): for ``ticks``, its heartbeats no longer
        hold this node in its lease (this node campaigns at its election timeout, and grants pre-votes
        and votes to others), and this node votes for it in no election, until it follows another
        leader in a later term (else, were that one lost too, the distrusted node's log might be the
        only one up to date enough to win, and the table would wait out the distrust). Returns that
        leader, or None when there is none to distrust (this node leads, or knows no leader, or does
        not vote)."""
        leader = self._leader
        if self._state != FOLLOWER or leader in (None, self.node_id) or self.node_id not in self._voters:
            return None
        self._distrusted[leader] = (self._ticks + ticks, self._term)
        self._election_elapsed = max(self._election_elapsed, self._election_timeout)
        return leader

    def distrusts(self, node_id: str) -> bool:
        """Whether this node distrusts ``node_id`` now (``distrust_leader``)."""
        kept = self._distrusted.get(node_id)
        if kept is None:
            return False
        if self._ticks < kept[0]:
            return True
        del self._distrusted[node_id]
        return False

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
        change is not committed, or when the change would do nothing or remove the last voter, or
        (built with ``changes_need_approval``) lacks the approvals of a quorum of its voters."""
        return self._propose(Entry(0, 0, change.encode(), "conf"))

    def approval_point(self) -> tuple[int, bytes]:
        """Where the next change of the membership would apply: the last conf entry of our log (0: the
        bootstrap configuration) and the chain hash there. An approval is made for one such point."""
        at = self._log.conf_indices[-1] if self._log.conf_indices else 0
        chain = self._log.hash(at)
        assert chain is not None
        return at, chain

    def approve(self, kind: str, node_id: str) -> tuple[ConfChange, Vote]:
        """``kind`` of ``node_id`` at our approval point, and this node's signed approval of it (for the
        application to give, when it backs that change, to whoever leads)."""
        change = ConfChange(kind, node_id, (), *self.approval_point())
        return change, Vote(self.node_id, self._signer.sign(approval_payload(change)))

    def approval_is_signed(self, change: ConfChange, approval: Vote) -> bool:
        """Whether ``approval`` is its voter's signature of ``change`` (at the point it names)."""
        return self._signer.verify(approval.voter, approval_payload(change), approval.signature)

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
        if message.sender in self.convicted:
            return f"{message.kind} from {message.sender}, whose fork is proven: ignored"
        if message.sender in self._voters:  # only a voter's silence is asked about (``_join_forced``)
            self._heard_at[message.sender] = self._ticks
        if message.kind == "prop":
            if self._state != LEADER:
                return "proposal dropped: not the leader"
            return self._append_proposals(message.entries)
        if message.kind == "catch_up":
            return self._take_catch_up(message)  # (a past term's: it moves no term)
        if (
            message.kind == "heartbeat_resp"
            and message.reject
            and message.log_index
            and (self._state != LEADER or message.term != self._term)
        ):
            # Asked beside its leader: it moves no term, and an ask of a term far ahead is no misconduct
            # (an honest member asks in whatever term a certificate it could not count named).
            return self._serve_catch_up(message, self._election_timeout, before_term=message.term)
        if message.kind in ("app", "heartbeat") and message.term >= self._term:
            refusal = self._check_leader(message)
            if refusal is not None:
                return refusal
        if message.term > self._term + MAX_TERM_LEAD and message.certificate is None:
            return Misconduct(f"{message.kind} of term {message.term}: no table gets that far ahead unproven")
        if message.term > self._term:
            # (the leader we follow may stand again in a newer term: ``_stand_again``)
            in_lease = self._in_lease(message.kind) and message.sender != self._leader
            if message.kind in ("vote", "pre_vote") and in_lease:
                if message.kind == "pre_vote":
                    # Refused, not ignored: a voter cut off from its leader but not from us hears that
                    # we are here (``kdm.net.node``'s stranded watch counts any message heard), and a
                    # refusal in our own term moves nothing at the pre-candidate.
                    self._send(message.sender, "pre_vote_resp", reject=True)
                return f"{message.kind} refused: heard from leader {self._leader} lately"
            if message.kind == "vote":
                self._become_follower(message.term, None)
            elif message.kind in ("app", "heartbeat"):
                self._become_follower(message.term, message.sender)  # its certificate is checked
            elif message.kind == "app_resp" and message.certificate is not None:
                return self._follow_proven_leader(message)
            elif message.kind != "pre_vote" and not (message.kind == "pre_vote_resp" and not message.reject):
                # A pre-vote asks about a future term and a granted pre-vote answers with one: neither
                # moves our term. Any other answer of a newer term is a voter's word alone: a node
                # follows a newer term on its leader's certificate or on a vote request only, or one
                # seated voter could depose every leader (or end every election) with one message.
                self._term_heard = max(self._term_heard, message.term)
                if message.reject and message.kind in ("vote_resp", "pre_vote_resp"):
                    self._count_rejection(message)
                elif self._state == LEADER and message.sender in self._voters:
                    self._stand_again()
                return (
                    f"{message.kind} of term {message.term} noted: only a vote request or a leader's "
                    "certificate moves the term"
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
            if self._distrusted:  # following another leader in a later term ends a distrust
                self._distrusted = {
                    node: kept
                    for node, kept in self._distrusted.items()
                    if kept[1] == message.term or node == message.sender
                }
            if not self.distrusts(message.sender):  # (else its election timeout runs on: ``distrust_leader``)
                self._election_elapsed = 0
            self._drop_forced()
            if message.kind == "app":
                return self._handle_append(message)
            refusal = self._commit_proven(message)
            self._send(message.sender, "heartbeat_resp", commit=self._log.committed)
            return refusal
        if (self._state, message.kind) in ((CANDIDATE, "vote_resp"), (PRE_CANDIDATE, "pre_vote_resp")):
            return self._count_vote(message)
        return f"{message.kind} ignored by a {self._state}"

    # --- output ---------------------------------------------------------------------------------------

    def has_ready(self) -> bool:
        # (asked before and after every message: field by field, no state built to compare)
        log, hard, soft = self._log, self._saved_hard_state, self._saved_soft_state
        return bool(
            self._outbox
            or self._unsaved_certificates
            or self._unsaved_heads
            or log.stable < log.last_index
            or log.applied < log.committed
            or self._term != hard.term
            or self._vote != hard.vote
            or log.committed != hard.commit
            or self._leader != soft[0]
            or self.role != soft[1]
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
            certificates=tuple(self._unsaved_certificates),
            heads=tuple(self._unsaved_heads),
        )

    def advance(self, ready: Ready) -> None:
        """The caller has done all of `ready` (the last one returned by `ready()`)."""
        del self._outbox[: len(ready.messages)]
        del self._unsaved_certificates[: len(ready.certificates)]
        del self._unsaved_heads[: len(ready.heads)]
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
            self._save_last_head(self._term)
            self._term, self._vote = term, None
        self._leader = None
        self._election_elapsed = self._heartbeat_elapsed = 0
        self._quorum_check_due = False
        self._randomized_timeout = self._random.randrange(*self._election_range)
        self._votes = {}
        self._vote_proofs = {}
        self._progress = {}
        self._pending_conf_index = 0

    def _become_follower(self, term: int, leader: str | None) -> None:
        self._reset(term)
        self._state, self._leader = FOLLOWER, leader

    def _become_leader(self) -> None:
        votes = tuple(Vote(voter, self._vote_proofs[voter]) for voter in sorted(self._vote_proofs))
        self._certificate = Certificate(self._term, self.node_id, *self._claim, votes, self._forced or ())
        self._certified = (self._term, self.node_id)
        self._keep_certificate(self._certificate)
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
            # with the votes of every survivor that elected it: nobody writes one in a past term's name
            change = ConfChange("force", self.node_id, self._forced, approvals=votes, elected_at=self._claim)
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
        leader = self._leader
        if leader is None or self._election_elapsed >= self._election_timeout or self.distrusts(leader):
            return False
        return self._check_quorum or kind == "pre_vote"

    def _campaign(self, pre: bool) -> None:
        # above any term a voter has named: a node left behind in an older term catches up here
        next_term = max(self._term, self._term_heard) + 1
        self._claim = (self._log.last_index, self._log.last_term)
        if pre:
            self._reset(self._term)
            self._state = PRE_CANDIDATE
            term, kind = next_term, "pre_vote"
            self._pre_vote_term = term
        else:
            self._reset(next_term)
            self._state, self._vote = CANDIDATE, self.node_id
            term, kind = self._term, "vote"
            self._vote_proofs = {self.node_id: self._signer.sign(self._vote_payload())}
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

    def _vote_payload(self) -> bytes:
        """What a vote for this node as a candidate in its term signs."""
        return vote_payload(self._term, self.node_id, *self._claim, self._forced or ())

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
        can_vote = not self.distrusts(message.sender) and (
            self._vote == message.sender
            or (self._vote is None and self._leader is None)
            or (pre and message.term > self._term)
        )
        if can_vote and self._log.is_up_to_date(message.log_index, message.log_term):
            signature = b""
            if not pre:  # a vote is a signed statement: the candidate's election certificate holds it
                self._vote, self._election_elapsed = message.sender, 0
                payload = vote_payload(
                    message.term, message.sender, message.log_index, message.log_term, message.voters
                )
                signature = self._signer.sign(payload)
            # the answer carries the asked term, so a pre-candidate can tell it from a stale one
            self._outbox.append(
                Message(
                    f"{message.kind}_resp", message.term, self.node_id, message.sender, signature=signature
                )
            )
        else:
            self._send(message.sender, f"{message.kind}_resp", reject=True)

    def _count_vote(self, message: Message) -> str | None:
        pre = self._state == PRE_CANDIDATE and not message.reject
        expected_term = self._pre_vote_term if pre else self._term
        if message.term != expected_term:
            return f"{message.kind} for another term ignored"
        if message.kind == "vote_resp" and not message.reject:
            if not self._signer.verify(message.sender, self._vote_payload(), message.signature):
                return Misconduct(f"vote of term {self._term} not signed by its voter: not counted")
            self._vote_proofs.setdefault(message.sender, message.signature)
        self._votes.setdefault(message.sender, not message.reject)
        self._tally()
        return None

    def _stand_again(self) -> None:
        """As leader, a voter answers from a newer term (it campaigned and lost, or was cut off): it
        takes no append of ours and cannot come back to our term, and its word alone must not depose
        us. Stand again above its term, at once (our followers grant a vote to the leader they hear,
        lease or not): one round trip, and that voter follows again. At most once every
        ``STAND_AGAIN_TIMEOUTS`` election timeouts: a seated voter that says so for ever costs the
        table an election that often (and the followers a new clock sample, ``kdm.net.node``)."""
        since = None if self._stood_again_at is None else self._ticks - self._stood_again_at
        if since is not None and since < STAND_AGAIN_TIMEOUTS * self._election_timeout:
            return
        self._stood_again_at = self._ticks
        self._campaign(pre=False)

    def _count_rejection(self, message: Message) -> None:
        """A voter of a newer term will not vote for us in ours: counted, the election goes on."""
        if (self._state, message.kind) in ((CANDIDATE, "vote_resp"), (PRE_CANDIDATE, "pre_vote_resp")):
            self._votes.setdefault(message.sender, False)
            self._tally()

    def _tally(self) -> None:
        result = self._election_result()
        if result == "won":
            self._won_election()
        elif result == "lost":
            self._become_follower(self._term, None)

    def _step_stale(self, message: Message) -> str:
        if (self._check_quorum or self._pre_vote) and message.kind in ("app", "heartbeat"):
            # the sender may be a leader cut off from a newer term that, because of CheckQuorum and
            # PreVote, nobody will ever raise it to: tell it, with the proof of who leads now
            self._send(message.sender, "app_resp", certificate=self._current_certificate())
            return f"{message.kind} from past term {message.term}: answered with term {self._term}"
        if message.kind == "pre_vote":
            self._send(message.sender, "pre_vote_resp", reject=True)
            return f"pre_vote for past term {message.term}: rejected"
        return f"{message.kind} from past term {message.term} ignored"

    # --- election certificates --------------------------------------------------------------------------

    def _current_certificate(self) -> Certificate | None:
        """The certificate of this term's leader, when this node has checked it (or is that leader)."""
        if self._certified is None or self._certified[0] != self._term:
            return None
        return self._certificate

    def _check_leader(self, message: Message) -> str | None:
        """None when ``message`` (an append or a heartbeat of our term or a newer one) comes from the
        leader its term elected, as its election certificate proves (checked once a term); else why it
        is dropped. Without a certificate, the sender is asked for it (a leader attaches it until we
        answer, and again after we forgot it, restarted)."""
        term, sender = message.term, message.sender
        if self._certified == (term, sender):
            return None
        certificate = message.certificate
        if certificate is None:
            self._outbox.append(Message("heartbeat_resp", term, self.node_id, sender, reject=True))
            return f"{message.kind} of term {term} without its election certificate: asked for it"
        if (certificate.term, certificate.leader) != (term, sender):
            return Misconduct(
                f"{message.kind} of term {term} carries the certificate of {certificate.leader} "
                f"in term {certificate.term}"
            )
        kept = self._refused_certificates.get(certificate)
        refused: str | None
        if kept is not None:
            refused, forged = kept
        else:
            votes_problem = self._votes_problem(certificate)
            refused, forged = votes_problem or self._count_problem(certificate), votes_problem is not None
            if refused and self._holds_claim(certificate):
                # the same one sent again is refused without checking its signatures again (one we
                # cannot count yet is checked again once our log is longer)
                self._refused_certificates[certificate] = (refused, forged)
                while len(self._refused_certificates) > CERTIFICATES_REFUSED_KEPT:
                    self._refused_certificates.popitem(last=False)
        if refused and not forged and not self._holds_claim(certificate):
            # Signed votes, but our log lacks the entry they were cast on, so perhaps the changes that
            # made them voters: no proof of misconduct. The leader sends the past terms' entries we lack, each
            # with its own term's proof (``catch_up``), until we hold that entry and can count.
            for asked in (sender, self._another_to_ask(sender)):
                if asked is not None:
                    self._ask_to_catch_up(asked, term)
            return f"{message.kind} of term {term}: its election certificate {refused}; asked to catch up"
        if refused:
            return Misconduct(f"{message.kind} of term {term} refused: its election certificate {refused}")
        if self._certified is not None and self._certified[0] == term:
            # Two quorums of one term share a voter: one of them voted twice.
            return Misconduct(
                f"{message.kind} of term {term}: {self._certified[1]} was proven its leader already, "
                "so a voter voted twice"
            )
        self._certified, self._certificate = (term, sender), certificate
        self._keep_certificate(certificate)
        return None

    def _ask_to_catch_up(self, asked: str, term: int) -> None:
        """Ask ``asked`` for the past terms' entries our log lacks (a ``heartbeat_resp`` that refuses
        ``term``'s leader, with our last entry and commit index), and take one batch from it."""
        last = self._log.last_index
        last_term, committed = self._log.term(last) or 0, self._log.committed
        self._outbox.append(
            Message("heartbeat_resp", term, self.node_id, asked, last, last_term, reject=True, hint=committed)
        )
        self._note_tick(self._asked_to_catch_up, asked)

    def _note_tick(self, when: dict[str, int], member: str) -> None:
        """Note now as when ``member`` was last asked or served (``when``, which a flood of ids cannot
        grow past ``WELL_FORMED_KEPT``: a table's members are far fewer)."""
        if member not in when and len(when) >= WELL_FORMED_KEPT:
            when.clear()
        when[member] = self._ticks

    def _another_to_ask(self, leader: str) -> str | None:
        """One of the voters our log makes, in turn, to ask beside ``leader``: a leader that joined after
        a term holds neither its certificate nor its heads, which a member of that term may. A learner
        asks too: it gets here only when not one of its voters voted for that leader (one is enough
        for a learner), as when every voter it knows has left the table since (chaos seed 4184, with
        approvals: a learner behind asked the sole voter, which joined later, for ever)."""
        others = [voter for voter in self._voters if voter not in (self.node_id, leader)]
        if not others:
            return None
        self._catch_up_turn += 1
        return others[self._catch_up_turn % len(others)]

    def _serve_catch_up(self, message: Message, every: int, before_term: int | None = None) -> str | None:
        """A member asks for the past terms' entries it lacks (``_send_catch_up``): its leader, which
        serves it at most a batch each ``every`` ticks (half a heartbeat: it asks once a heartbeat), or
        another node beside it (its leader may not hold them proven), once an election timeout."""
        served = self._catch_up_served.get(message.sender)
        if served is not None and self._ticks - served < every:
            return f"catch_up asked by {message.sender} again within {every} ticks: not served"
        if not self._send_catch_up(message.sender, message, before_term=before_term):
            return f"catch_up asked by {message.sender}: nothing proven here that it lacks"
        self._note_tick(self._catch_up_served, message.sender)
        return None

    def _follow_proven_leader(self, message: Message) -> str | None:
        """A voter of a newer term answers us, a leader of a past one, with its leader's certificate."""
        certificate = message.certificate
        assert certificate is not None
        if certificate.term != message.term:
            return Misconduct(
                f"{message.kind} of term {message.term} carries a certificate of term {certificate.term}"
            )
        problem = self._certificate_problem(certificate)
        if problem:
            return Misconduct(f"{message.kind} of term {message.term} refused: its certificate {problem}")
        self._become_follower(certificate.term, certificate.leader)
        self._certified, self._certificate = (certificate.term, certificate.leader), certificate
        self._keep_certificate(certificate)
        return None

    def _keep_certificate(self, certificate: Certificate, saved: bool = False) -> None:
        if self._certificates.get(certificate.term) == certificate:
            return
        self._certificates[certificate.term] = certificate
        while len(self._certificates) > CERTIFICATES_KEPT:
            self._certificates.popitem(last=False)
        if not saved:
            self._unsaved_certificates.append(certificate)

    def _save_last_head(self, term: int) -> None:
        """Hand the last head we took of ``term``, which we leave, to the caller to save: with that
        term's certificate, it is what we show of the term to a member behind (``_send_catch_up``), and
        a restart forgets the other heads. (A leader's own heads are saved as it signs them.)"""
        last: SignedHead | None = None
        for (head_term, index), head in self._heads.items():
            if head_term == term and (last is None or index > last.index):
                last = head
        if last is not None and last.leader != self.node_id:  # (ours were saved as we signed them)
            self._unsaved_heads.append(last)

    def _holds_claim(self, certificate: Certificate) -> bool:
        """Whether our log holds the entry a certificate's votes were cast on (so the voters it was
        counted among are the ones our log makes there)."""
        return self._log.term(certificate.log_index) == certificate.log_term

    def _certificate_problem(self, certificate: Certificate) -> str | None:
        """What makes ``certificate`` no proof of its leader's election here, or None.

        Its votes must be signed by their voters, for its leader, term and claimed log. They must be a
        quorum of this node's voters, with allowances for a node that may know less than the leader did
        (our log does not hold the entry the leader's log ended at, so the changes that made its voters
        may be missing here): a quorum of the voters our committed log makes will do; a node whose log
        is empty knows no configuration but the founder's and takes the
        first leader it hears; a learner takes a leader that one of its voters elected; a voter takes
        the votes of a quorum less one, one of them not the leader's, or of a quorum of its voters with
        one of its learners promoted: a node that far behind has no more to check it
        against (what it then commits still needs a quorum's signed acks). A forced election's
        certificate holds the vote of every survivor it names, among this node's voters; one that
        leaves this node out is taken only while this node hears no leader (the table is stranded)."""
        return self._votes_problem(certificate) or self._count_problem(certificate)

    def _count_problem(self, certificate: Certificate) -> str | None:
        """What makes a certificate's votes, each its voter's own (``_votes_problem``), too few for
        this node (``_certificate_problem`` says which count it takes), or None."""
        signed = {vote.voter for vote in certificate.votes}
        configured = set(self._log.configuration(self._bootstrap)[0]) | set(self._voters)
        if certificate.forced:
            survivors = set(certificate.forced)
            if not survivors <= signed:
                return f"lacks the vote of survivor {sorted(survivors - signed)[0]} of its forced election"
            if not survivors <= configured:
                return f"names survivor {sorted(survivors - configured)[0]}, who is not a voter here"
            if self.node_id not in survivors and self._led_lately():
                return "leaves this node out of a forced election while its table has a leader"
            return None
        if self._holds_claim(certificate):
            # We hold the log the voters signed for: its voters are the ones the votes were counted in.
            voters = set(self._log.configuration(self._bootstrap, end=certificate.log_index)[0])
            behind = False
        else:
            voters = set(
                self._voters if self._forced is None else self._log.configuration(self._bootstrap)[0]
            )
            behind = True
        count = len(signed & voters)
        quorum = len(voters) // 2 + 1
        if count >= quorum:
            return None
        if behind:
            # Every later leader holds what we know committed, and with it the voters it makes.
            settled = set(self._log.configuration(self._bootstrap, end=self._log.committed)[0])
            if len(signed & settled) >= len(settled) // 2 + 1:
                return None
            # Our log lacks the entry the leader's log ended at: we may not know the changes that
            # made its voters.
            if self._log.last_index == 0:
                return None  # it knows no configuration but the founder's
            if self.node_id not in voters and count >= 1:
                return None  # a learner, which counts for nothing, follows a leader some voter elected
            if count >= quorum - 1 and signed & voters - {certificate.leader}:
                return None  # a change or two behind: the votes of all but one of a quorum
            if signed & set(self._learners) and count + 1 >= (len(voters) + 1) // 2 + 1:
                return None  # a learner promoted since: a quorum of our voters and that one
        return f"holds {count} votes of this node's {len(voters)} voters: no quorum"

    def _votes_problem(self, certificate: Certificate) -> str | None:
        """What makes a certificate's votes other than each voter's own signed vote for its leader, term
        and claimed log, or None (whether they are enough is ``_certificate_problem``'s to say)."""
        payload = certificate_payload(certificate)
        signed: set[str] = set()
        for vote in certificate.votes:
            if vote.voter in signed:
                return f"names {vote.voter} twice"
            if not self._signer.verify(vote.voter, payload, vote.signature):
                return f"holds a vote that {vote.voter} did not sign"
            signed.add(vote.voter)
        return None

    def _led_lately(self) -> bool:
        return self._leader is not None and self._election_elapsed < self._election_timeout

    # --- follower -------------------------------------------------------------------------------------

    def _handle_append(self, message: Message) -> str | None:
        sender = message.sender
        problem = self._membership_problem(message, sender) or self._head_problem(message, sender)
        if problem == NOT_SIGNED and message.log_index > self._log.committed:
            # Our entries before it differ from the leader's, though their terms agree (a convicted
            # leader's fork): start again from what we know committed.
            committed = self._log.committed
            self._send(message.sender, "app_resp", log_index=message.log_index, reject=True,
                       hint=committed, log_term=self._log.term(committed) or 0)  # fmt: skip
            return (
                f"append of term {message.term} does not chain on our log: asked from {self._log.committed}"
            )
        if problem:
            return Misconduct(f"append of term {message.term} refused: {problem}")
        if self._log.term(message.log_index) == message.log_term:
            unapproved = self._entries_approval_problem(message.log_index, message.entries)
            if unapproved:
                return self._convict(sender, f"append of term {message.term} refused: {unapproved}")
        if message.log_index < self._log.committed:
            self._acknowledge(message.sender, self._log.committed)
            return None
        try:
            # the commit index moves only on a quorum's acks (``_commit_proven``), not on the leader's word
            last_new = self._log.maybe_append(
                message.log_index, message.log_term, self._log.committed, message.entries
            )
        except ValueError as error:
            return f"append refused: {error}"
        self._refresh_config()
        if last_new is not None:
            refusal = self._commit_proven(message)
            if (
                message.entries
                or self._acked != (self._term, message.sender, last_new)
                or message.commit < last_new
            ):
                # An append that brings nothing (it moves the commit index) is answered only if we have
                # not told this leader we hold its log up to there, or it has not committed that far:
                # our answer may have been lost, and it would wait for it until the next entry (for
                # ever, for a leader on its way out: it takes no more).
                self._acknowledge(message.sender, last_new)
            return refusal
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

    def _acknowledge(self, leader: str, index: int) -> None:
        """Tell the leader we hold its log up to ``index``: signed, as a proof of commit is made of these."""
        chain = self._log.hash(index)
        assert chain is not None
        signature = self._signer.sign(ack_payload(self._term, index, chain))
        self._send(leader, "app_resp", log_index=index, commit=self._log.committed, signature=signature)
        self._acked = (self._term, leader, index)

    def _take_catch_up(self, message: Message) -> str | None:
        """Take the entries of a past term that a leader sends us because our log was too short to
        count its certificate (``_check_leader``), as that term's leader would have sent them: proven by
        that term's certificate, counted among the voters our own log makes where its votes were cast,
        and signed by that term's leader over the chain hash they make on our log (a fork of that
        term is caught as it would have been then). They lengthen our log, replacing at most an
        uncommitted tail of terms before theirs; nothing is committed or acknowledged here."""
        term, certificate = message.term, message.certificate
        asked_at = self._asked_to_catch_up.get(message.sender)
        if asked_at is None or self._ticks - asked_at > 2 * self._election_timeout:
            return f"catch_up of term {term} from {message.sender}, whom we did not ask lately"
        if certificate is None or certificate.term != term:
            return Misconduct(f"catch_up of term {term} without that term's election certificate")
        if certificate.leader in self.convicted:
            return f"catch_up of term {term}, whose leader's fork is proven: ignored"
        if self._log.term(message.log_index) != message.log_term:
            return f"catch_up of term {term} does not fit our log at {message.log_index}"
        if not self._holds_claim(certificate):
            return f"catch_up of term {term}: our log lacks the entry its certificate's votes were cast on"
        conflict = self._log.find_conflict(message.entries)
        if conflict == 0:
            return None  # nothing new
        if conflict <= self._log.last_index and (
            conflict <= self._log.committed or (self._log.term(self._log.last_index) or 0) >= term
        ):
            # Ours from there on would be replaced. Only entries of earlier terms, none committed, may
            # be: that term's leader did not keep them, so none was committed before it (every later
            # leader holds what was), and no ack of ours counted for a later commit (an ack counts at
            # an entry of its own term, which we would hold).
            return f"catch_up of term {term} differs from our entry {conflict}, which it may not replace"
        problem = self._certificate_problem(certificate)
        if problem:
            return Misconduct(f"catch_up of term {term} refused: its election certificate {problem}")
        problem = self._membership_problem(message, certificate.leader, certificate) or self._head_problem(
            message, certificate.leader
        )
        if problem == NOT_SIGNED:
            return f"catch_up of term {term}: {problem}"
        if problem:
            return Misconduct(f"catch_up of term {term} refused: {problem}")
        unapproved = self._entries_approval_problem(message.log_index, message.entries)
        if unapproved:
            return self._convict(certificate.leader, f"catch_up of term {term} refused: {unapproved}")
        self._log.maybe_append(message.log_index, message.log_term, self._log.committed, message.entries)
        self._refresh_config()
        self._keep_certificate(certificate)
        del self._asked_to_catch_up[message.sender]  # one batch an ask: a replay of it is not taken again
        return None

    def _commit_proven(self, message: Message) -> str | None:
        """Move our commit index to the leader's (at most our last index) only on the signed acks of a
        quorum of our voters, each at or above it and of an entry of this term that we hold too (the
        chain hash there being ours): no honest node applies an entry a quorum did not accept. Without
        acks nothing moves (the leader sends them when it knows we lack them); a forged one is refused."""
        target = min(message.commit, self._log.last_index)
        if target <= self._log.committed or not message.acks:
            return None
        voters = set(self._voters)
        held: dict[str, int] = {}
        quorum = self._quorum()
        # Our own ack first (no signature to check), then the leader's, then the highest: checked only
        # until a quorum is held, which proves as much as the rest would.
        ranked = sorted(
            message.acks, key=lambda ack: (ack.voter != self.node_id, ack.voter != message.sender, -ack.index)
        )
        for ack in ranked:
            if len(held) >= quorum:
                break
            if ack.voter not in voters or ack.voter in held:
                continue
            if ack.index > self._log.last_index or self._log.term(ack.index) != message.term:
                continue  # not of this term, or past our log: nothing we can check
            if not self._ack_is_signed(message.term, ack):
                return Misconduct(f"an acknowledgement of {ack.voter} its voter did not sign over our log")
            held[ack.voter] = ack.index
        if len(held) >= quorum:
            self._log.commit_to(min(target, sorted(held.values(), reverse=True)[quorum - 1]))
        return None

    def _ack_is_signed(self, term: int, ack: Ack) -> bool:
        key = (term, ack.voter, ack.index, ack.signature)
        if key in self._acks_checked:
            return True
        chain = self._log.hash(ack.index)
        head = self._heads.get((term, ack.index))
        if head is not None and head.leader == ack.voter and head.hash == chain:
            return True  # its leader signed our log up to there in this term: its head says as much
        if chain is None or not self._signer.verify(
            ack.voter, ack_payload(term, ack.index, chain), ack.signature
        ):
            return False
        self._acks_checked[key] = None
        while len(self._acks_checked) > ACKS_CHECKED:
            self._acks_checked.popitem(last=False)
        return True

    def _head_problem(self, message: Message, leader: str) -> str | None:
        """What is wrong with the signed head of an append that fits our log, or None: it must be
        ``leader``'s signature (its term's leader) of the chain hash the entries make on top of ours, and
        no other head that leader signed for that index in that term may differ (a fork: recorded, the
        leader convicted)."""
        if self._log.term(message.log_index) != message.log_term:
            return None  # it does not fit our log: rejected with a hint, nothing taken
        chain = self._log.hash(message.log_index)
        assert chain is not None
        for entry in message.entries:
            chain = chain_hash(chain, entry)
        index = message.log_index + len(message.entries)
        head = SignedHead(message.term, leader, index, chain, message.signature)
        if not head_is_signed(self._signer, head):
            return NOT_SIGNED
        proof = self.check_head(head, signed=True)
        if proof is not None:
            return f"{leader} signed two different logs for index {index} in term {message.term}"
        return None

    def check_head(self, head: SignedHead, signed: bool = False) -> ForkProof | None:
        """Compare a leader's signed head (from an append, or from another member: ``recent_heads``)
        with the heads this node holds: the proof of a fork when that leader signed another log for the
        same index and term (recorded in ``forks``, the leader convicted), else None. A head whose
        signature is not its leader's is ignored (``signed``: already checked)."""
        key = (head.term, head.index)
        known = self._heads.get(key)
        if known is not None and (known.leader != head.leader or known.hash == head.hash):
            return None  # nothing new (most heads another member shows): no signature to check
        if not signed and not head_is_signed(self._signer, head):
            return None
        if known is None:
            self._heads[key] = head
            self.heads_taken += 1
            while len(self._heads) > HEADS_KEPT:
                self._heads.popitem(last=False)
            return None
        if known.leader != head.leader or known.hash == head.hash:
            return None
        proof = ForkProof(known, head)
        self.take_fork_proof(proof)
        return proof

    def recent_heads(self, count: int) -> tuple[SignedHead, ...]:
        """The last ``count`` signed heads this node took, for other members to compare (``check_head``)."""
        return tuple(list(self._heads.values())[-count:])

    def take_fork_proof(self, proof: ForkProof) -> bool:
        """A proof of a fork, found here or by another member: its leader is convicted (never followed,
        voted for or counted again, ``convicted``). False when the proof does not hold."""
        if proof.leader in self.convicted or not fork_is_proven(self._signer, proof):
            return False
        self.forks.append(proof)
        self.convicted.add(proof.leader)
        if self._leader == proof.leader:
            self._become_follower(self._term, None)  # not in its lease any more: elect another
        return True

    def _membership_problem(
        self, message: Message, leader: str, certificate: Certificate | None = None
    ) -> str | None:
        """What breaks the membership rules in the conf entries ``leader`` wrote in its own term (the
        message's), or None: a change only once the one before it is committed (so four ghost voters
        cannot come in one append), and a ``force`` entry only from the leader its survivors elected
        (``certificate``: of that term; the one we checked when None), naming them."""
        certificate = certificate if certificate is not None else self._certificate
        previous = max((i for i in self._log.conf_indices if i <= message.log_index), default=0)
        for entry in message.entries:
            if entry.kind != "conf":
                continue
            change = ConfChange.from_entry(entry)
            if entry.term == message.term and change is not None:
                if change.kind == "force":
                    forced = certificate.forced if certificate is not None else ()
                    if change.voters != forced or change.node_id != leader:
                        return f"entry {entry.index} forces a configuration its leader was not elected with"
                elif previous > message.commit:
                    return (
                        f"entry {entry.index} changes the membership before the change at {previous} "
                        "is committed"
                    )
            previous = entry.index
        return None

    # --- leader ---------------------------------------------------------------------------------------

    def _count_leader_timeouts(self, ticks: int) -> None:
        """A leader's ``ticks`` more: its election timeout comes round as before (its lease, which
        ``_in_lease`` reads, is unchanged), and each time it does, a check of its quorum falls due at the
        next heartbeat. Checked at an election timeout exactly, a leader woke once more every other
        timeout (1000 ms is not a multiple of the 400 ms heartbeat), a sixth of its wake-ups at rest; at
        a heartbeat, the check comes at most a heartbeat later, and the answers each check counts are
        as many as before: at least two heartbeats' worth."""
        crossed, self._election_elapsed = divmod(self._election_elapsed + ticks, self._election_timeout)
        if crossed:
            self._quorum_check_due = True

    def _tick_leader(self) -> None:
        self._heartbeat_elapsed += 1
        self._count_leader_timeouts(1)
        if self._heartbeat_elapsed >= self._heartbeat_ticks:
            if self._quorum_check_due:
                self._quorum_check_due = False
                if self._check_quorum and not self._quorum_active():
                    self._become_follower(self._term, None)
                    return
            self._heartbeat_elapsed = 0
            for member, progress in self._progress.items():
                if member != self.node_id:
                    _, acks = self._commit_for(progress, progress.match)
                    commit = min(progress.match, self._log.committed)
                    progress.sent_commit = max(progress.sent_commit, commit)
                    certificate = self._certificate_for(progress)
                    self._send(member, "heartbeat", commit=commit, certificate=certificate, acks=acks)

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
        if message.kind == "heartbeat_resp" and message.reject:
            progress.certified = False  # it asks for our certificate (restarted, say): the next heartbeat
            if message.log_index:  # it cannot count it, its log too short
                return self._serve_catch_up(message, max(1, self._heartbeat_ticks // 2))
            return None
        progress.certified = True  # it answers in our term: it has checked our certificate
        progress.known_commit = max(progress.known_commit, message.commit)
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
        if not message.reject and message.sender in self._voters:
            chain = self._log.hash(message.log_index)
            assert chain is not None
            payload = ack_payload(self._term, message.log_index, chain)
            if not self._signer.verify(message.sender, payload, message.signature):
                return Misconduct(f"acknowledgement of index {message.log_index} not signed over our log")
            progress.take_ack(message.log_index, message.signature)
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
        commit, acks = self._commit_for(progress, max(progress.match, prev_index + len(entries)))
        self._send(
            to,
            "app",
            log_index=prev_index,
            log_term=self._log.term(prev_index) or 0,
            entries=tuple(entries),
            commit=commit,
            certificate=self._certificate_for(progress),
            signature=self._head_signature(prev_index + len(entries)),
            acks=acks,
        )
        progress.sent_commit = max(progress.sent_commit, min(self._log.committed, prev_index + len(entries)))
        if progress.replicating and entries:
            progress.next = entries[-1].index + 1
            progress.inflight.append(entries[-1].index)
        elif not progress.replicating:
            progress.probe_sent = True
        return True

    def _send_catch_up(self, to: str, asked: Message, before_term: int | None = None) -> bool:
        """Send a member that cannot count our certificate (its log ends at ``asked``'s log_index and
        log_term; ``hint``, its commit index) the entries of the first past term it lacks: a
        ``catch_up`` with that term's certificate and its leader's signed head (ours, made again, if we
        led it; else the latest one we took). It asks again at our next heartbeat, one term's batch at a
        time, until it holds the entry our votes were cast on. Asked beside its leader, a node sends
        the terms before the one that member was asked about (``before_term``), its own included.
        Whether a batch was sent."""
        # Where its log and ours agree: our last entry at or below its last of the same term (that
        # term's leader wrote both, and what came before them), else its commit index.
        start = self._log.find_conflict_by_term(asked.log_index, asked.log_term)
        if self._log.term(start) != asked.log_term:
            start = asked.hint
        term = self._log.term(start + 1)
        if self._log.term(start) is None or term is None or term >= (before_term or self._term):
            return False  # nothing of a past term it lacks (a log we do not hold, or our own term's)
        certificate = self._certificates.get(term)
        if certificate is None:
            return False  # a term we neither followed nor led, or one forgotten
        entries: list[Entry] = []
        size = 0
        for entry in self._log.slice(start + 1, start + 1 + MAX_APPEND_ENTRIES):
            size += len(entry.data)
            if entry.term != term or (entries and size > MAX_APPEND_BYTES):
                break
            entries.append(entry)
        heads = [
            head
            for (head_term, index), head in self._heads.items()
            if head_term == term and head.leader == certificate.leader
            and start < index <= entries[-1].index and head.hash == self._log.hash(index)
        ]  # fmt: skip
        if not heads:
            return False  # none of that term's leader's heads covers what it lacks (we never sign one again)
        head = max(heads, key=lambda head: head.index)
        entries, signature = entries[: head.index - start], head.signature
        start_term, commit = self._log.term(start) or 0, self._log.committed
        batch = tuple(entries)
        self._outbox.append(
            Message(
                "catch_up",
                term,
                self.node_id,
                to,
                start,
                start_term,
                batch,
                commit,
                certificate=certificate,
                signature=signature,
            )
        )
        return True

    def _commit_for(self, progress: Progress, reach: int) -> tuple[int, tuple[Ack, ...]]:
        """Our commit index, and, when the member (holding our log up to ``reach``) knows less committed
        than that, the signed acks that prove as much of it as they can: for each voter, its latest
        ack at or below ``reach`` of an entry of our term (what the member can check against its own
        log). The member commits up to the quorum's lowest of those (``_commit_proven``)."""
        commit = min(self._log.committed, reach)
        if commit <= progress.known_commit:
            return self._log.committed, ()
        chosen: list[Ack] = []
        for voter in self._voters:
            if voter == self.node_id:
                chosen.append(Ack(voter, commit, self._own_ack(commit)))
                continue
            member = self._progress.get(voter)
            if member is None:
                continue
            # Its latest ack at or below ``reach`` (acks are kept in order of index); an ack of an
            # entry of another term counts for nothing, nor does any before it (terms only grow).
            for index, signature in reversed(member.acks):
                if index <= reach:
                    if self._log.term(index) == self._term:
                        chosen.append(Ack(voter, index, signature))
                    break
        quorum = self._quorum()
        if len(chosen) < quorum:
            return self._log.committed, ()
        proven = min(commit, sorted((ack.index for ack in chosen), reverse=True)[quorum - 1])
        if proven <= progress.known_commit:
            return self._log.committed, ()
        return self._log.committed, tuple(ack for ack in chosen if ack.index >= proven)

    def _own_ack(self, index: int) -> bytes:
        key = (self._term, index)
        signature = self._own_acks.get(key)
        if signature is None:
            chain = self._log.hash(index)
            assert chain is not None
            signature = self._signer.sign(ack_payload(self._term, index, chain))
            self._own_acks[key] = signature
            while len(self._own_acks) > HEADS_KEPT:
                self._own_acks.popitem(last=False)
        return signature

    def _head_signature(self, index: int) -> bytes:
        """Our signature of our log's chain hash up to ``index`` in our term, made once for every
        follower that gets an append ending there."""
        term = self._term
        key = (term, index)
        signature = self._signed_heads.get(key)
        if signature is None:
            chain = self._log.hash(index)
            assert chain is not None
            signature = self._signer.sign(head_payload(term, self.node_id, index, chain))
            self._signed_heads[key] = signature
            # Kept and saved with the log: what we show of this term once we left it. We never sign a
            # head of a term we left: a leader of a later term may have changed our log under entries
            # that still say our term (a cheater may), and a second head for one place would be a fork
            # proven against us.
            head = SignedHead(term, self.node_id, index, chain, signature)
            self._heads[key] = head
            while len(self._heads) > HEADS_KEPT:
                self._heads.popitem(last=False)
            self._unsaved_heads.append(head)
            while len(self._signed_heads) > HEADS_KEPT:
                self._signed_heads.popitem(last=False)
        return signature

    def _certificate_for(self, progress: Progress) -> Certificate | None:
        return None if progress.certified else self._certificate

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
        problem = self._approvals_problem(change, self._voters, *self.approval_point())
        if problem:
            return f"conf change refused: {change.kind} {change.node_id} {problem}"
        return None

    def _approvals_problem(
        self, change: ConfChange, voters: tuple[str, ...], at: int, at_hash: bytes
    ) -> str | None:
        """What keeps ``change`` from applying to the configuration ``voters`` that the conf entry at
        ``at`` (chain hash ``at_hash``) makes, or None: a change of who votes holds the approvals of a
        quorum of those voters, each signed for that very point (built with ``changes_need_approval``)."""
        if not self._changes_need_approval or not change.needs_approval:
            return None
        if change.kind == "remove" and change.node_id not in voters:
            return None  # a learner leaves: it counted for nothing
        approved: set[str] = set()
        if (change.at, change.at_hash) == (at, at_hash):  # (approvals made elsewhere count for nothing)
            approved, forged = self._signers(change.approvals, voters, approval_payload(change))
            if forged:
                return f"carries an approval that {forged} did not sign"
        if len(approved) < len(voters) // 2 + 1:
            return (
                f"holds the approvals of {len(approved)} of its {len(voters)} voters (for the "
                f"configuration at {at}): no quorum"
            )
        return None

    def _entries_approval_problem(self, log_index: int, entries: tuple[Entry, ...]) -> str | None:
        """What breaks the approval rule (``_approvals_problem``; a ``force``'s, ``_force_problem``) in the
        conf entries of ``entries`` (following our entry ``log_index``) that our log does not hold yet,
        or None. Each is checked against the configuration the entries before it make, wherever they
        were written: a change in a past term's name needs the approvals of its own voters, which nobody
        but they can sign."""
        if not self._changes_need_approval or all(entry.kind != "conf" for entry in entries):
            return None
        new = self._log.find_conflict(entries)
        if new == 0 or not any(entry.kind == "conf" and entry.index >= new for entry in entries):
            return None
        voters, learners = self._log.configuration(self._bootstrap, end=log_index)
        at = max((i for i in self._log.conf_indices if i <= log_index), default=0)
        at_hash, chain = self._log.hash(at), self._log.hash(log_index)
        assert at_hash is not None and chain is not None
        for entry in entries:
            chain = chain_hash(chain, entry)
            if entry.kind != "conf":
                continue
            change = ConfChange.from_entry(entry)  # (bad bytes: every node skips them alike)
            if change is not None:
                if entry.index >= new:
                    problem = (
                        self._force_problem(change, entry.term, voters)
                        if change.kind == "force"
                        else self._approvals_problem(change, voters, at, at_hash)
                    )
                    if problem:
                        return f"entry {entry.index} ({change.kind} {change.node_id}) {problem}"
                voters, learners = change.apply_to(voters, learners)
            at, at_hash = entry.index, chain  # the next change's point (``approval_point``)
        return None

    def _force_problem(self, change: ConfChange, term: int, voters: tuple[str, ...]) -> str | None:
        """What keeps a ``force`` entry of ``term`` from being what its writer's forced election made, or
        None: the signed votes of every survivor it names for its writer in that term, each a voter
        before it (the configuration ``voters``). Without them, anyone could write in a past term's name
        that the table goes on with itself and keys it made up."""
        outsider = next((survivor for survivor in change.voters if survivor not in voters), None)
        if outsider is not None:
            return f"names survivor {outsider}, who was no voter"
        payload = vote_payload(term, change.node_id, *change.elected_at, change.voters)
        signed, forged = self._signers(change.approvals, change.voters, payload)
        if forged:
            return f"carries a vote that {forged} did not sign"
        missing = sorted(set(change.voters) - signed)
        if missing:
            return f"lacks the vote of survivor {missing[0]} for its writer in term {term}"
        return None

    def _signers(
        self, votes: Iterable[Vote], among: Iterable[str], payload: bytes
    ) -> tuple[set[str], str | None]:
        """The nodes of ``among`` whose signature of ``payload`` is in ``votes`` (each checked once), and
        the first of them whose signature there is not its own (None: none)."""
        allowed, signed = set(among), set[str]()
        for vote in votes:
            if vote.voter in allowed and vote.voter not in signed:
                if not self._signer.verify(vote.voter, payload, vote.signature):
                    return signed, vote.voter
                signed.add(vote.voter)
        return signed, None

    def _convict(self, leader: str, why: str) -> Misconduct:
        """``leader`` signed what no correct leader sends (``why``): never follow, vote for or count it
        again, as one whose fork is proven (every honest node that is sent it does the same)."""
        self.convicted.add(leader)
        if self._leader == leader:
            self._become_follower(self._term, None)
        return Misconduct(why)

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
        if self._led_lately() or self.node_id not in voters or message.sender not in self._voters:
            return
        if not set(voters) < set(self._voters):
            return
        # A voter we hear from is not gone: a seated cheater's forced election could otherwise drop
        # a live honest voter during an ordinary election (every live voter campaigns or answers).
        left_out = set(self._voters) - set(voters)
        if any(
            self._ticks - self._heard_at.get(voter, -self._silence_ticks) < self._silence_ticks
            for voter in left_out
        ):
            return
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
        certificate: Certificate | None = None,
        signature: bytes = b"",
        acks: tuple[Ack, ...] = (),
    ) -> None:
        self._outbox.append(
            Message(
                kind,
                self._term,
                self.node_id,
                to,
                log_index,
                log_term,
                entries,
                commit,
                reject,
                hint,
                certificate=certificate,
                signature=signature,
                acks=acks,
            )
        )

    def _malformed(self, message: Message) -> str | None:
        if message.to != self.node_id:
            return f"message for {message.to} delivered to {self.node_id}"
        if message.sender == self.node_id:
            return "message from ourselves"
        if self._well_formed.get(message.sender) is message:
            return None
        problem = check_message(message, MAX_ENTRY_BYTES)
        if problem is None and not message.entries:  # (frozen: it stays well formed; entries weigh)
            if len(self._well_formed) >= WELL_FORMED_KEPT and message.sender not in self._well_formed:
                self._well_formed.clear()
            self._well_formed[message.sender] = message
        return problem
