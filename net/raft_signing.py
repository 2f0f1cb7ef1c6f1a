"""What a consensus node signs, and how a vote and an election certificate are checked (issue 25).

A vote a voter grants is a signed statement: "in term T I vote for C, whose log ends at (I, J)", and,
in a forced election (``RaftNode.force_configuration``), "with these survivors". A leader proves its
term with an election certificate: the signed votes of a quorum of that term's voters (Tangaroa's
election certificate), which a follower checks once per term before it takes any append or heartbeat
of that term. A seated voter can then neither lead without an election nor stall the table with a term
it did not win: its messages of a term nobody elected it in carry no certificate, or one that fails.

The Raft core signs and verifies through a `Signer`, so it stays pure: `TableSigner` is the real one
(each node's Ed25519 key, the one its id names, over bytes that name the table), `Unsigned` the one for
tables whose ids carry no key (the in-memory network of the tests: nobody there could check a
signature anyway, so a vote's signature is empty and a certificate still has to name a quorum).
`net.raftsim.KeyRing` is the simulator's, cheap and unforgeable within a simulation.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from typing import Protocol

from nacl.exceptions import BadSignatureError

from .keys import NodeKeys, verify_key_of
from .raft_messages import Certificate, ConfChange, ForkProof, SignedHead

__all__ = [
    "Signer", "TableSigner", "Unsigned", "ack_payload", "approval_payload", "certificate_payload",
    "fork_is_proven", "head_is_signed", "head_payload", "vote_payload",
]  # fmt: skip

_VOTE = b"kdm raft vote\x00"


class Signer(Protocol):
    """Signs for one node and checks other nodes' signatures."""

    def sign(self, payload: bytes) -> bytes:
        """This node's signature of ``payload``."""
        ...

    def verify(self, node_id: str, payload: bytes, signature: bytes) -> bool:
        """Whether ``signature`` is ``node_id``'s over ``payload``."""
        ...


def vote_payload(
    term: int, candidate: str, log_index: int, log_term: int, forced: tuple[str, ...] = ()
) -> bytes:
    """The bytes a voter signs when it grants ``candidate`` its vote in ``term``: the log position the
    candidate claimed (so that the certificate proves the claim) and a forced election's survivors."""
    return _VOTE + json.dumps([term, candidate, log_index, log_term, list(forced)]).encode()


_APPROVAL = b"kdm raft approval\x00"


def approval_payload(change: ConfChange) -> bytes:
    """The bytes a voter signs to approve ``change`` (its kind and node) for the configuration the
    last conf entry before it makes (``change.at``, with the chain hash there): an approval of one
    change at one place in one log, never of another change or of the same one later."""
    place = json.dumps([change.kind, change.node_id, change.at]).encode()
    return _APPROVAL + place + b"\x00" + change.at_hash


_HEAD = b"kdm raft head\x00"


def head_payload(term: int, leader: str, index: int, chain_hash: bytes) -> bytes:
    """The bytes a leader signs for the log it sends: its chain hash up to ``index`` in ``term``."""
    return _HEAD + json.dumps([term, leader, index]).encode() + b"\x00" + chain_hash


_ACK = b"kdm raft ack\x00"


def ack_payload(term: int, index: int, chain_hash: bytes) -> bytes:
    """The bytes a voter signs to say it holds the log up to ``index`` (with that chain hash) in
    ``term``: what a quorum of, for an entry of that term, proves the entry committed."""
    return _ACK + json.dumps([term, index]).encode() + b"\x00" + chain_hash


def head_is_signed(signer: Signer, head: SignedHead) -> bool:
    """Whether ``head`` is signed by its leader."""
    return signer.verify(
        head.leader, head_payload(head.term, head.leader, head.index, head.hash), head.signature
    )


def fork_is_proven(signer: Signer, proof: ForkProof) -> bool:
    """Whether ``proof`` holds two heads its leader signed for one (term, index), with two hashes."""
    first, second = proof.first, proof.second
    same_place = (first.term, first.leader, first.index) == (second.term, second.leader, second.index)
    return (
        same_place
        and first.hash != second.hash
        and head_is_signed(signer, first)
        and head_is_signed(signer, second)
    )


def certificate_payload(certificate: Certificate) -> bytes:
    """What each vote of ``certificate`` signs."""
    return vote_payload(
        certificate.term, certificate.leader, certificate.log_index, certificate.log_term, certificate.forced
    )


class Unsigned:
    """For a table whose node ids carry no key: nothing is signed, and only an empty signature passes
    (a vote from a keyed node is no vote here, nor the other way round)."""

    def sign(self, payload: bytes) -> bytes:
        return b""

    def verify(self, node_id: str, payload: bytes, signature: bytes) -> bool:
        return signature == b""


#: Signatures a `TableSigner` remembers making, and checks it remembers passing: a follower acks the
#: same index again for an append that only moves the commit index, and the same acks and heads come
#: back in proofs of commit, from the leader and from other voters.
SIGNATURES_REMEMBERED = 512


class TableSigner:
    """Signs with a node's Ed25519 key over bytes that name ``table`` (a vote at one table is no vote
    at another), and checks a signature against the key a node id names (``kdm.net.keys``).

    Each signature is made once and each check passed once (Ed25519 signs deterministically, so a
    signature remembered is the one it would make again); a failed check is not remembered, so a
    forger gains nothing by sending the same bytes twice."""

    def __init__(self, keys: NodeKeys, table: str) -> None:
        self._keys = keys
        self._domain = b"kdm raft\x00" + table.encode() + b"\x00"
        self._made: OrderedDict[bytes, bytes] = OrderedDict()
        self._passed: OrderedDict[tuple[str, bytes, bytes], None] = OrderedDict()

    def sign(self, payload: bytes) -> bytes:
        signature = self._made.get(payload)
        if signature is None:
            signature = self._made[payload] = self._keys.sign(self._domain + payload)
            if len(self._made) > SIGNATURES_REMEMBERED:
                self._made.popitem(last=False)
        return signature

    def verify(self, node_id: str, payload: bytes, signature: bytes) -> bool:
        checked = (node_id, payload, signature)
        if checked in self._passed:
            return True
        if self._made.get(payload) == signature and node_id.rpartition("~")[2] == self._keys.token:
            return True  # our own, as we made it
        key = verify_key_of(node_id)
        if key is None or len(signature) != 64:
            return False
        try:
            key.verify(self._domain + payload, signature)
        except BadSignatureError:
            return False
        self._passed[checked] = None
        if len(self._passed) > SIGNATURES_REMEMBERED:
            self._passed.popitem(last=False)
        return True
