"""The plain data the Raft core takes in and hands out: entries, messages, hard state, Ready, conf changes.

Everything here is a frozen dataclass of plain values (str, int, bool, bytes, tuples of those), so the
wire codec can msgpack it through `message_to_dict` / `message_from_dict`. The second one is the only
place that checks the shape of a message coming from outside: it raises `ValueError` naming the first
problem it finds. Behaviour lives in `kdm.net.raft`; this module owns no state.

Message kinds, in the words of the Raft paper:

| kind             | sent by          | fields used                                                       |
|------------------|------------------|-------------------------------------------------------------------|
| `app`            | leader           | log_index/log_term = the entry before `entries`; entries; commit; |
|                  |                  | signature = the leader's over its chain hash after `entries`      |
| `app_resp`       | follower         | log_index = last index now matching (or the rejected one); reject;|
|                  |                  | commit = its commit index; signature (not on a reject) = its ack  |
|                  |                  | on reject: hint = a guess of the last matching index, log_term    |
|                  |                  | = the follower's term at `hint`                                   |
| `heartbeat`      | leader           | commit (never above what the follower is known to hold)           |
| `heartbeat_resp` | follower         | reject: "show me your election certificate" (term = the leader's);|
|                  |                  | commit = its commit index; a reject with log_index > 0: "I cannot |
|                  |                  | count it: my log lacks the changes that made your voters", with   |
|                  |                  | log_index/log_term = its last entry, hint = its commit index      |
| `catch_up`       | leader           | an `app` of a past term (term = that term), for a member whose log|
|                  |                  | is too short to count the leader's certificate: certificate = the |
|                  |                  | past term's, signature = that term's leader's over the chain hash |
|                  |                  | after `entries` (``RaftNode._take_catch_up``)                     |
| `vote`           | candidate        | log_index/log_term = the candidate's last entry; in a forced      |
|                  |                  | election, voters = the survivors it goes on with                  |
| `pre_vote`       | pre-candidate    | same, with term = the term it would campaign in                   |
| `vote_resp`,     | any voter        | reject; a granted `vote_resp` carries the voter's signature of    |
| `pre_vote_resp`  |                  | its vote (``raft_signing.vote_payload``)                          |
| `prop`           | follower         | entries (term and index 0: the leader assigns them)               |

A leader's `app` and `heartbeat` carry its election `certificate` until the follower has answered in
its term; a follower that answers a leader of a past term attaches the certificate of the leader it
follows, so that the old one learns of the new one from a proof rather than from a word.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

ENTRY_KINDS = ("normal", "conf")
MESSAGE_KINDS = (
    "app",
    "app_resp",
    "heartbeat",
    "heartbeat_resp",
    "vote",
    "vote_resp",
    "pre_vote",
    "pre_vote_resp",
    "prop",
    "catch_up",
)
CONF_CHANGE_KINDS = ("add_voter", "add_learner", "remove", "force")
#: The most voters a forced configuration (``ConfChange`` ``force``, a forced election's ``voters``) names.
MAX_FORCED_VOTERS = 64
ROLES = ("follower", "candidate", "pre_candidate", "leader", "learner")
#: The longest signature a message may carry (an Ed25519 one is 64 bytes).
MAX_SIGNATURE_BYTES = 64
#: The highest term a message may name: far beyond any real table, and below msgpack's limit even
#: after a campaign adds one.
MAX_TERM = 2**62


@dataclass(frozen=True)
class Entry:
    """One log entry. A `conf` entry's data is an encoded `ConfChange`; an empty `normal` entry is the
    no-op a new leader appends, which the application skips."""

    term: int
    index: int
    data: bytes
    kind: str = "normal"


@dataclass(frozen=True)
class Vote:
    """One voter's signed vote, as an election certificate holds it."""

    voter: str
    signature: bytes


@dataclass(frozen=True)
class Ack:
    """A voter's signed word that it holds the log up to ``index`` in the message's term, as the chain
    hash there says (``raft_signing.ack_payload``): a quorum of them proves a commit."""

    voter: str
    index: int
    signature: bytes


@dataclass(frozen=True)
class Certificate:
    """A leader's proof that it was elected in ``term``: the signed votes of a quorum of that term's
    voters for ``leader``, whose log ended at (``log_index``, ``log_term``) when it asked (in a forced
    election, with the survivors ``forced``)."""

    term: int
    leader: str
    log_index: int
    log_term: int
    votes: tuple[Vote, ...]
    forced: tuple[str, ...] = ()


@dataclass(frozen=True)
class SignedHead:
    """A leader's signature over the chain hash of its log up to ``index`` in ``term`` (every append
    carries one: ``raft_signing.head_payload``). Two of them by one leader for one index and term with
    different hashes are a fork, proven."""

    term: int
    leader: str
    index: int
    hash: bytes
    signature: bytes


@dataclass(frozen=True)
class ForkProof:
    """Two signed heads of one leader for one (term, index) that differ: that leader sent two logs."""

    first: SignedHead
    second: SignedHead

    @property
    def leader(self) -> str:
        return self.first.leader


@dataclass(frozen=True)
class Message:
    kind: str
    term: int
    sender: str
    to: str
    log_index: int = 0
    log_term: int = 0
    entries: tuple[Entry, ...] = ()
    commit: int = 0
    reject: bool = False
    hint: int = 0
    #: For a vote or pre-vote of a forced election (``RaftNode.force_configuration``): the voters it
    #: goes on with; () for any other message.
    voters: tuple[str, ...] = ()
    #: A granted `vote_resp`: the voter's signature of its vote. An `app`: the leader's signature of
    #: its log's chain hash up to the last entry the append carries (``raft_signing.head_payload``).
    signature: bytes = b""
    #: A leader's `app` or `heartbeat`, or a follower's `app_resp` to a leader of a past term: the
    #: election certificate of the term (``raft_signing``).
    certificate: Certificate | None = None
    #: A leader's `app` or `heartbeat` that moves the follower's commit index: the signed acks of a
    #: quorum that prove it (each at or above ``commit``, of an entry of this term).
    acks: tuple[Ack, ...] = ()


@dataclass(frozen=True)
class HardState:
    """What a node saves of its state: the term and the vote must be on disk before any message of the
    same Ready is sent; the commit index is saved with them but need not be synced (``save``)."""

    term: int = 0
    vote: str | None = None
    commit: int = 0


@dataclass(frozen=True)
class Ready:
    """What the caller does, in this order: append `entries` and save `hard_state` (if not None) to
    storage, send `messages`, apply `committed`, then call `RaftNode.advance(ready)`. A leader may send
    before its save is synced (``persist_and_send``); everything is synced before `committed` is applied.

    `leader` and `role` are soft state, for display only."""

    messages: tuple[Message, ...]
    entries: tuple[Entry, ...]
    hard_state: HardState | None
    committed: tuple[Entry, ...]
    leader: str | None
    role: str
    #: Election certificates this node checked or won since the last Ready, and the last head it took
    #: of each term it left, to save with the log (unsynced: one lost in a crash is one fewer past term
    #: this node can prove to a member behind, ``RaftNode._send_catch_up``).
    certificates: tuple[Certificate, ...] = ()
    heads: tuple[SignedHead, ...] = ()


@dataclass(frozen=True)
class ConfChange:
    """One membership change: `add_voter` (a new node or a learner's promotion), `add_learner` (a new
    non-voting node), `remove` (a voter or a learner), or `force`: the table goes on with `voters`
    alone, the other voters dropped (a forced reconfiguration, written by the leader its survivors
    elected: `node_id` names it; ``RaftNode.force_configuration``).

    A change of who votes (``needs_approval``) carries the signed approvals of a quorum of the voters
    before it (``approval_payload``), each made for the configuration the change applies to: the last
    conf entry before it, ``at`` (0: the bootstrap configuration), and the chain hash there,
    ``at_hash``. Each voter approves only what its application backs (a seated player's process
    votes): a leader alone can neither make up a voter nor retire one still at the table. A ``force``
    carries instead the votes of every survivor that elected its writer in its term (``approvals``, each
    a vote for the log its writer claimed, ``elected_at``: its last index and term), so that nobody
    writes one in a past term's name either."""

    kind: str
    node_id: str
    voters: tuple[str, ...] = ()
    at: int = 0
    at_hash: bytes = b""
    approvals: tuple[Vote, ...] = ()
    elected_at: tuple[int, int] = (0, 0)

    def __post_init__(self) -> None:
        if self.kind not in CONF_CHANGE_KINDS:
            raise ValueError(f"conf change kind {self.kind!r} is not one of {', '.join(CONF_CHANGE_KINDS)}")
        if not isinstance(self.node_id, str) or not self.node_id:
            raise ValueError("conf change needs a non-empty node id")
        if type(self.at) is not int or self.at < 0 or not isinstance(self.at_hash, bytes):
            raise ValueError("conf change: 'at' is a non-negative index and 'at_hash' bytes")
        if len(self.approvals) > MAX_FORCED_VOTERS or not all(
            isinstance(vote, Vote) and isinstance(vote.voter, str) and isinstance(vote.signature, bytes)
            and len(vote.signature) <= MAX_SIGNATURE_BYTES
            for vote in self.approvals
        ):  # fmt: skip
            raise ValueError(f"conf change: at most {MAX_FORCED_VOTERS} approvals, each a voter's signature")
        if self.kind != "force":
            if self.voters:
                raise ValueError(f"a {self.kind} change names one node, not voters")
            return
        problem = forced_voters_problem(self.voters)
        if problem:
            raise ValueError(f"force change: {problem}")
        if self.node_id not in self.voters:
            raise ValueError("force change: the node that writes it is one of its voters")

    def encode(self) -> bytes:
        fields: dict[str, Any] = {"change": self.kind, "node": self.node_id}
        if self.kind == "force":
            fields["voters"] = list(self.voters)
        if self.approvals:
            fields["at"], fields["at_hash"] = self.at, self.at_hash.hex()
            fields["approvals"] = [[vote.voter, vote.signature.hex()] for vote in self.approvals]
        if self.elected_at != (0, 0):
            fields["elected_at"] = list(self.elected_at)
        return json.dumps(fields, sort_keys=True).encode()

    @property
    def needs_approval(self) -> bool:
        """Whether this change may make or unmake a voter (``force`` has rules of its own; a learner
        counts for nothing, so adding one needs no approval, nor does removing one)."""
        return self.kind in ("add_voter", "remove")

    def approved(self, approvals: tuple[Vote, ...]) -> ConfChange:
        """The change at its point, with ``approvals``."""
        return ConfChange(
            self.kind, self.node_id, self.voters, self.at, self.at_hash, approvals, self.elected_at
        )

    def apply_to(
        self, voters: tuple[str, ...], learners: tuple[str, ...]
    ) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The (voters, learners) after this change, each sorted."""
        voter_set, learner_set = set(voters), set(learners)
        if self.kind == "force":
            voter_set = set(self.voters)
            learner_set -= voter_set
        elif self.kind == "add_voter":
            voter_set.add(self.node_id)
            learner_set.discard(self.node_id)
        elif self.kind == "add_learner":
            if self.node_id not in voter_set:
                learner_set.add(self.node_id)
        else:
            voter_set.discard(self.node_id)
            learner_set.discard(self.node_id)
        return tuple(sorted(voter_set)), tuple(sorted(learner_set))

    @classmethod
    def from_entry(cls, entry: Entry) -> ConfChange | None:
        """The change a `conf` entry holds; None for bad bytes, which every node skips alike."""
        try:
            return cls.decode(entry.data)
        except ValueError:
            return None

    @classmethod
    def decode(cls, data: bytes) -> ConfChange:
        """Raises ValueError when `data` is not an encoded conf change."""
        try:
            fields = json.loads(data)
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise ValueError(f"conf change is not JSON: {error}") from error
        optional = {"voters", "at", "at_hash", "approvals", "elected_at"}
        if not isinstance(fields, dict) or set(fields) - optional != {"change", "node"}:
            raise ValueError(
                "conf change must be an object with keys 'change' and 'node' (and 'voters', 'at', "
                "'at_hash', 'approvals', 'elected_at')"
            )
        voters = fields.get("voters", [])
        if not isinstance(voters, list):
            raise ValueError("conf change 'voters' must be a list")
        approvals = fields.get("approvals", [])
        if not isinstance(approvals, list) or not all(
            isinstance(pair, list) and len(pair) == 2 and all(isinstance(part, str) for part in pair)
            for pair in approvals
        ):
            raise ValueError("conf change 'approvals' must be a list of [voter, hex signature]")
        try:
            votes = tuple(Vote(voter, bytes.fromhex(signature)) for voter, signature in approvals)
            at_hash = bytes.fromhex(fields.get("at_hash", ""))
        except (TypeError, ValueError) as error:
            raise ValueError(f"conf change: a signature or hash is not hex: {error}") from error
        elected_at = fields.get("elected_at", [0, 0])
        if not (
            isinstance(elected_at, list) and len(elected_at) == 2 and all(type(n) is int for n in elected_at)
        ):
            raise ValueError("conf change 'elected_at' must be [index, term]")
        return cls(
            fields["change"], fields["node"], tuple(voters), fields.get("at", 0), at_hash, votes,
            (elected_at[0], elected_at[1]),
        )  # fmt: skip


def forced_voters_problem(voters: Any) -> str | None:
    """What is wrong with the voters of a forced configuration, or None: sorted distinct node ids."""
    if not isinstance(voters, tuple) or not voters:
        return "it names no voters"
    if len(voters) > MAX_FORCED_VOTERS:
        return f"it names over {MAX_FORCED_VOTERS} voters"
    if not all(isinstance(voter, str) and voter for voter in voters):
        return "a voter is not a non-empty string"
    if list(voters) != sorted(set(voters)):
        return "its voters are not sorted and distinct"
    return None


def check_message(message: Message, max_entry_bytes: int) -> str | None:
    """What is wrong with the shape of a message built in-process, or None; `message_from_dict` has
    already checked all this for one that came off the wire, except the order of entries."""
    if message.kind not in MESSAGE_KINDS:
        return f"unknown message kind {message.kind!r}"
    if message.voters:
        if message.kind not in ("vote", "pre_vote"):
            return f"a {message.kind} names no voters"
        problem = forced_voters_problem(message.voters)
        if problem:
            return f"forced election: {problem}"
    numbers = (message.term, message.log_index, message.log_term, message.commit, message.hint)
    if any(type(number) is not int or number < 0 for number in numbers):
        return "negative or non-integer field"
    if message.term > MAX_TERM:
        return f"term {message.term} is past the highest term a table reaches"
    if message.acks:
        if message.kind not in ("app", "heartbeat"):
            return f"a {message.kind} carries no acknowledgements"
        if len(message.acks) > MAX_FORCED_VOTERS:
            return f"over {MAX_FORCED_VOTERS} acknowledgements"
        for ack in message.acks:
            if not (isinstance(ack.voter, str) and ack.voter and type(ack.index) is int and ack.index >= 0):
                return "an acknowledgement names no voter or no index"
            if not isinstance(ack.signature, bytes) or len(ack.signature) > MAX_SIGNATURE_BYTES:
                return f"an acknowledgement's signature is not bytes of at most {MAX_SIGNATURE_BYTES}"
    signed_kinds = ("vote_resp", "app", "app_resp", "catch_up")
    if message.signature and (message.kind not in signed_kinds or message.reject):
        return f"a {'rejected ' if message.reject else ''}{message.kind} carries no signature"
    if message.certificate is not None:
        if message.kind not in ("app", "heartbeat", "app_resp", "catch_up"):
            return f"a {message.kind} carries no election certificate"
        problem = certificate_shape_problem(message.certificate)
        if problem:
            return f"election certificate: {problem}"
    if any(entry.kind not in ENTRY_KINDS or not isinstance(entry.data, bytes) for entry in message.entries):
        return "bad entry"
    if message.kind == "prop":
        if any(len(entry.data) > max_entry_bytes for entry in message.entries):
            return "oversized proposal"
        return None
    previous_term = message.log_term
    for offset, entry in enumerate(message.entries):
        if entry.index != message.log_index + 1 + offset or not previous_term <= entry.term <= message.term:
            return "append with entries out of order"
        previous_term = entry.term
    return None


def entry_to_dict(entry: Entry) -> dict[str, Any]:
    return {"term": entry.term, "index": entry.index, "data": entry.data, "kind": entry.kind}


def message_to_dict(message: Message) -> dict[str, Any]:
    """A dict of plain values (bytes for entry data), ready for msgpack; ``voters`` only when named."""
    fields = {
        "kind": message.kind,
        "term": message.term,
        "sender": message.sender,
        "to": message.to,
        "log_index": message.log_index,
        "log_term": message.log_term,
        "entries": [entry_to_dict(entry) for entry in message.entries],
        "commit": message.commit,
        "reject": message.reject,
        "hint": message.hint,
    }
    if message.voters:
        fields["voters"] = list(message.voters)
    if message.signature:
        fields["signature"] = message.signature
    if message.certificate is not None:
        fields["certificate"] = certificate_to_dict(message.certificate)
    if message.acks:
        fields["acks"] = [[ack.voter, ack.index, ack.signature] for ack in message.acks]
    return fields


def acks_from(value: Any) -> tuple[Ack, ...]:
    if not isinstance(value, (list, tuple)):
        raise ValueError("'acks' must be a list")
    acks = []
    for ack in value:
        if not (isinstance(ack, (list, tuple)) and len(ack) == 3):
            raise ValueError("an acknowledgement is [voter, index, signature]")
        acks.append(Ack(ack[0], ack[1], ack[2]))
    return tuple(acks)


def head_from_list(fields: Any) -> SignedHead:
    """A signed head as a list ``[term, leader, index, hash, signature]``; ValueError when it is not."""
    if not (isinstance(fields, list) and len(fields) == 5):
        raise ValueError("a signed head is [term, leader, index, hash, signature]")
    term, leader, index, chain, signature = fields
    if not (type(term) is int and type(index) is int and term >= 0 and index >= 0):
        raise ValueError("a signed head's term and index are counts")
    if not (isinstance(leader, str) and leader and isinstance(chain, bytes) and isinstance(signature, bytes)):
        raise ValueError("a signed head names its leader and holds bytes")
    if len(chain) != 32 or len(signature) > 64:
        raise ValueError("a signed head holds a 32-byte hash and a signature of at most 64 bytes")
    return SignedHead(term, leader, index, chain, signature)


def head_to_list(head: SignedHead) -> list[Any]:
    """A signed head as the list ``head_from_list`` reads (on the wire, and in the log file)."""
    return [head.term, head.leader, head.index, head.hash, head.signature]


def certificate_to_dict(certificate: Certificate) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "term": certificate.term,
        "leader": certificate.leader,
        "log_index": certificate.log_index,
        "log_term": certificate.log_term,
        "votes": [[vote.voter, vote.signature] for vote in certificate.votes],
    }
    if certificate.forced:
        fields["forced"] = list(certificate.forced)
    return fields


def certificate_shape_problem(certificate: Certificate) -> str | None:
    """What is wrong with the shape of a certificate (not its signatures), or None."""
    if not certificate.votes:
        return "it holds no vote"
    if len(certificate.votes) > MAX_FORCED_VOTERS:
        return f"it holds over {MAX_FORCED_VOTERS} votes"
    for vote in certificate.votes:
        if not isinstance(vote.voter, str) or not vote.voter:
            return "a vote names no voter"
        if not isinstance(vote.signature, bytes) or len(vote.signature) > MAX_SIGNATURE_BYTES:
            return f"a signature is not bytes of at most {MAX_SIGNATURE_BYTES}"
    if certificate.forced:
        problem = forced_voters_problem(certificate.forced)
        if problem:
            return f"its forced election: {problem}"
    return None


def certificate_from_dict(fields: Any) -> Certificate:
    if not isinstance(fields, Mapping):
        raise ValueError(f"a certificate must be a map, got {type(fields).__name__}")
    unknown = set(fields) - {"term", "leader", "log_index", "log_term", "votes", "forced"}
    if unknown:
        raise ValueError(f"unknown certificate keys: {sorted(map(str, unknown))}")
    votes = fields.get("votes")
    if not isinstance(votes, (list, tuple)):
        raise ValueError("certificate 'votes' must be a list")
    parsed = []
    for vote in votes:
        if not (isinstance(vote, (list, tuple)) and len(vote) == 2):
            raise ValueError("a certificate's vote must be [voter, signature]")
        parsed.append(Vote(vote[0], vote[1]))
    forced = fields.get("forced", [])
    if not isinstance(forced, (list, tuple)):
        raise ValueError("certificate 'forced' must be a list")
    certificate = Certificate(
        term=_count(fields, "term"),
        leader=_name(fields, "leader"),
        log_index=_count(fields, "log_index"),
        log_term=_count(fields, "log_term"),
        votes=tuple(parsed),
        forced=tuple(forced),
    )
    problem = certificate_shape_problem(certificate)
    if problem:
        raise ValueError(f"election certificate: {problem}")
    return certificate


_MESSAGE_INTS = ("term", "log_index", "log_term", "commit", "hint")
_MESSAGE_KEYS = frozenset(
    (
        *_MESSAGE_INTS,
        "kind",
        "sender",
        "to",
        "entries",
        "reject",
        "voters",
        "signature",
        "certificate",
        "acks",
    )
)


def _count(fields: Mapping[str, Any], key: str, default: int | None = None) -> int:
    value = fields.get(key, default)
    # bool is an int in Python, and a bool where a count belongs is a bad message
    if type(value) is not int or value < 0:
        raise ValueError(f"{key!r} must be a non-negative integer, got {value!r}")
    return value


def _name(fields: Mapping[str, Any], key: str) -> str:
    value = fields.get(key)
    if not isinstance(value, str) or not value:
        raise ValueError(f"{key!r} must be a non-empty string, got {value!r}")
    return value


def entry_from_dict(fields: Any) -> Entry:
    if not isinstance(fields, Mapping):
        raise ValueError(f"an entry must be a map, got {type(fields).__name__}")
    unknown = set(fields) - {"term", "index", "data", "kind"}
    if unknown:
        raise ValueError(f"unknown entry keys: {sorted(map(str, unknown))}")
    data = fields.get("data")
    if not isinstance(data, bytes):
        raise ValueError(f"entry 'data' must be bytes, got {type(data).__name__}")
    kind = fields.get("kind", "normal")
    if kind not in ENTRY_KINDS:
        raise ValueError(f"entry 'kind' must be one of {', '.join(ENTRY_KINDS)}, got {kind!r}")
    return Entry(_count(fields, "term"), _count(fields, "index"), data, kind)


def message_from_dict(fields: Any) -> Message:
    """The inverse of `message_to_dict`; raises ValueError naming what is wrong with a bad shape.

    `kind`, `term`, `sender` and `to` are required; the other fields default as in `Message`."""
    if not isinstance(fields, Mapping):
        raise ValueError(f"a message must be a map, got {type(fields).__name__}")
    unknown = set(fields) - _MESSAGE_KEYS
    if unknown:
        raise ValueError(f"unknown message keys: {sorted(map(str, unknown))}")
    kind = fields.get("kind")
    if kind not in MESSAGE_KINDS:
        raise ValueError(f"message 'kind' must be one of {', '.join(MESSAGE_KINDS)}, got {kind!r}")
    entries = fields.get("entries", ())
    if not isinstance(entries, (list, tuple)):
        raise ValueError(f"'entries' must be a list, got {type(entries).__name__}")
    reject = fields.get("reject", False)
    if not isinstance(reject, bool):
        raise ValueError(f"'reject' must be a bool, got {reject!r}")
    voters = fields.get("voters", [])
    if not isinstance(voters, (list, tuple)):
        raise ValueError(f"'voters' must be a list, got {type(voters).__name__}")
    if voters:
        problem = forced_voters_problem(tuple(voters))
        if problem or kind not in ("vote", "pre_vote"):
            raise ValueError(f"'voters' of a {kind}: {problem or 'only a vote or a pre_vote names voters'}")
    signature = fields.get("signature", b"")
    if not isinstance(signature, bytes) or len(signature) > MAX_SIGNATURE_BYTES:
        raise ValueError(f"'signature' must be bytes of at most {MAX_SIGNATURE_BYTES}")
    certificate = fields.get("certificate")
    return Message(
        kind=kind,
        term=_count(fields, "term"),
        sender=_name(fields, "sender"),
        to=_name(fields, "to"),
        log_index=_count(fields, "log_index", 0),
        log_term=_count(fields, "log_term", 0),
        entries=tuple(entry_from_dict(entry) for entry in entries),
        commit=_count(fields, "commit", 0),
        reject=reject,
        hint=_count(fields, "hint", 0),
        voters=tuple(voters),
        signature=signature,
        certificate=None if certificate is None else certificate_from_dict(certificate),
        acks=acks_from(fields.get("acks", [])),
    )
