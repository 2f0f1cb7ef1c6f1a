"""The Raft log in memory, the storage it is saved to, and a leader's view of each member's copy.

`RaftLog` owns the node's copy of the log, the chain hash after each entry (``chain_hash``: what a
leader signs, and how two logs are compared), and three marks on it: `stable` (the last index the caller
has saved), `committed` and `applied` (0 <= applied <= committed <= last index). It never truncates a
committed entry. The log is the game record, kept whole from index 1: there are no snapshots.

`RaftLog.configuration` folds the `conf` entries of the log into the bootstrap membership.
`Progress` is what a leader knows of one member's log.

`Storage` is what survives a crash: the hard state and the saved entries. The Raft core only reads it
when a node is built; the caller writes it from each `Ready` (`persist`, or `persist_and_send`, which
sends a leader's messages before its sync). `MemoryStorage` is the one
used by tests and the simulator, which keep it across a simulated crash.
"""

from __future__ import annotations

import hashlib
import struct
from collections import deque
from collections.abc import Callable, Sequence
from itertools import pairwise
from typing import NamedTuple, Protocol

from .raft_messages import Certificate, ConfChange, Entry, HardState, Message, Ready, SignedHead

MAX_APPEND_ENTRIES = 64
MAX_APPEND_BYTES = 32 * 1024  # well under the wire's 64 KiB cap; one larger entry still goes alone
MAX_INFLIGHT_APPENDS = 64
#: Signed acks a leader keeps of each member (to prove commits to members that hold less).
ACKS_KEPT = 32

#: Committed entries handed out by one Ready (the rest by the next ones).
MAX_APPLY_AT_ONCE = 256

Configuration = tuple[tuple[str, ...], tuple[str, ...]]  # (voters, learners), each sorted


class Storage(Protocol):
    def hard_state(self) -> HardState: ...

    def entries(self) -> Sequence[Entry]:
        """Every saved entry, index 1 first."""
        ...

    def append(self, entries: Sequence[Entry]) -> None:
        """Save `entries`, dropping any saved entry at or after the first one's index."""
        ...

    def set_hard_state(self, hard_state: HardState) -> None: ...

    def certificates(self) -> Sequence[Certificate]:
        """Every election certificate saved, the oldest first."""
        ...

    def save_certificate(self, certificate: Certificate) -> None:
        """Save an election certificate this node checked or won (``RaftNode._certificates``)."""
        ...

    def heads(self) -> Sequence[SignedHead]:
        """Every signed head saved, the oldest first."""
        ...

    def save_head(self, head: SignedHead) -> None:
        """Save the last head this node took of a term it left (``RaftNode._send_catch_up``)."""
        ...

    def sync(self) -> None:
        """Make everything saved so far durable (it must survive a crash before a vote or an
        acknowledgement leaves this node)."""
        ...

    @property
    def sync_waits_on_a_disk(self) -> bool:
        """Whether ``sync`` waits on a disk (a node then syncs in a thread and goes on reading)."""
        ...


def check_contiguous(entries: Sequence[Entry], last_index: int) -> None:
    """Raise ValueError unless `entries` run without a gap and start at most one after `last_index`."""
    if not entries:
        return
    if not 1 <= entries[0].index <= last_index + 1:
        raise ValueError(f"entries start at {entries[0].index}, but the log ends at {last_index}")
    for before, after in pairwise(entries):
        if after.index != before.index + 1:
            raise ValueError(f"entries jump from index {before.index} to {after.index}")


class MemoryStorage:
    """A `Storage` in memory; keep the object to simulate a crash and restart."""

    def __init__(self, hard_state: HardState | None = None, entries: Sequence[Entry] = ()) -> None:
        self._hard_state = hard_state or HardState()
        self._entries: list[Entry] = []
        self._certificates: list[Certificate] = []
        self._heads: list[SignedHead] = []
        self.append(entries)

    def hard_state(self) -> HardState:
        return self._hard_state

    def entries(self) -> Sequence[Entry]:
        return tuple(self._entries)

    def append(self, entries: Sequence[Entry]) -> None:
        check_contiguous(entries, len(self._entries))
        if entries:
            del self._entries[entries[0].index - 1 :]
            self._entries.extend(entries)

    def set_hard_state(self, hard_state: HardState) -> None:
        self._hard_state = hard_state

    def certificates(self) -> Sequence[Certificate]:
        return tuple(self._certificates)

    def save_certificate(self, certificate: Certificate) -> None:
        self._certificates.append(certificate)

    def heads(self) -> Sequence[SignedHead]:
        return tuple(self._heads)

    def save_head(self, head: SignedHead) -> None:
        self._heads.append(head)

    def sync(self) -> None:
        """Nothing to do: memory is as durable as this storage gets."""

    @property
    def sync_waits_on_a_disk(self) -> bool:
        return False


class Saved(NamedTuple):
    """What ``save`` leaves to do: ``sync`` (something it wrote must be made durable) and whether the
    ready's messages may go out before that sync (``send_first``: a leader's, see ``persist_and_send``)."""

    sync: bool
    send_first: bool


def save(storage: Storage, ready: Ready) -> Saved:
    """Write what `ready` asks to save, unsynced, and say what is left to do."""
    before = storage.hard_state()
    if ready.entries:
        storage.append(ready.entries)
    if ready.hard_state is not None:
        storage.set_hard_state(ready.hard_state)
    for certificate in ready.certificates:
        storage.save_certificate(certificate)
    for head in ready.heads:
        storage.save_head(head)
    after = ready.hard_state
    new_term_or_vote = after is not None and (after.term, after.vote) != (before.term, before.vote)
    # The commit index alone need not be synced (as in etcd's raft): a node that loses it learns it
    # again from the leader, and syncing it would put a sync on every node's path to applying each entry.
    return Saved(
        sync=bool(ready.entries) or new_term_or_vote,
        send_first=ready.role == "leader" and not new_term_or_vote,
    )


def persist(storage: Storage, ready: Ready) -> None:
    """Save what `ready` asks to save, durably where it must be; call before sending its messages (a
    vote or an acknowledgement promises that what it counts on survives a crash)."""
    if save(storage, ready).sync:
        storage.sync()


def persist_and_send(storage: Storage, ready: Ready, send: Callable[[Message], None]) -> None:
    """Save what `ready` asks to save and send its messages, in the order Raft allows: a follower's or
    a candidate's messages wait for the sync (they promise what was saved); a leader's go first when
    its term and vote are unchanged (Raft thesis §10.2.1): they ask the followers to save the same
    entries, so its own sync runs while they work, and it counts its own copy toward a commit only on
    acks it reads after this call, once the sync is done."""
    saved = save(storage, ready)
    if saved.sync and not saved.send_first:
        storage.sync()
    for message in ready.messages:
        send(message)
    if saved.sync and saved.send_first:
        storage.sync()


#: The chain hash before the first entry.
GENESIS = hashlib.sha256(b"kdm raft chain").digest()


def chain_hash(previous: bytes, entry: Entry) -> bytes:
    """The hash of the log up to ``entry``, given the hash of the log before it: a leader that signs it
    signs every entry before it too (issue 25: a fork is two signed hashes for one index)."""
    header = struct.pack(">QQ?", entry.term, entry.index, entry.kind == "conf")
    return hashlib.sha256(previous + header + entry.data).digest()


class RaftLog:
    def __init__(self, entries: Sequence[Entry] = (), committed: int = 0) -> None:
        check_contiguous(entries, 0)
        self._entries: list[Entry] = list(entries)
        self._hashes: list[bytes] = []
        self._chain_from(0)
        self.stable = len(self._entries)
        self.committed = min(committed, self.stable)
        self.applied = 0
        self.conf_indices: list[int] = [entry.index for entry in self._entries if entry.kind == "conf"]

    @property
    def last_index(self) -> int:
        return len(self._entries)

    @property
    def last_term(self) -> int:
        return self._entries[-1].term if self._entries else 0

    def term(self, index: int) -> int | None:
        """The term of the entry at `index` (0 before the first entry), None past the end."""
        if index == 0:
            return 0
        if 1 <= index <= len(self._entries):
            return self._entries[index - 1].term
        return None

    def entry(self, index: int) -> Entry:
        return self._entries[index - 1]

    def hash(self, index: int) -> bytes | None:
        """The chain hash of the log up to ``index`` (``GENESIS`` at 0), None past the end."""
        if index == 0:
            return GENESIS
        if 1 <= index <= len(self._hashes):
            return self._hashes[index - 1]
        return None

    def _chain_from(self, start: int) -> None:
        """Recompute the chain hashes from index ``start`` + 1 on."""
        del self._hashes[start:]
        previous = self.hash(start)
        assert previous is not None
        for entry in self._entries[start:]:
            previous = chain_hash(previous, entry)
            self._hashes.append(previous)

    def slice(self, start: int, end: int) -> tuple[Entry, ...]:
        """Entries with start <= index < end."""
        return tuple(self._entries[max(start, 1) - 1 : max(end - 1, 0)])

    def is_up_to_date(self, last_index: int, last_term: int) -> bool:
        """Whether a log ending at (last_index, last_term) is at least as up to date as this one."""
        return last_term > self.last_term or (last_term == self.last_term and last_index >= self.last_index)

    def find_conflict(self, entries: Sequence[Entry]) -> int:
        """The index of the first of `entries` that is new or differs from ours; 0 when all match.
        Entries are compared by chain hash, not only by term: two entries of one term at one index
        differ when a leader forked (its log then loses to the next leader's)."""
        if not entries:
            return 0
        chain = self.hash(entries[0].index - 1)
        for entry in entries:
            if chain is None:
                return entry.index
            chain = chain_hash(chain, entry)
            if self.hash(entry.index) != chain:
                return entry.index
        return 0

    def find_conflict_by_term(self, index: int, term: int) -> int:
        """The largest index <= `index` whose term is <= `term` (0 when none): where a leader and a
        follower that rejected an append most probably agree."""
        index = min(index, self.last_index)
        while index > 0 and self._entries[index - 1].term > term:
            index -= 1
        return index

    def append(self, entries: Sequence[Entry]) -> None:
        """Append, dropping our entries from the first one's index on. Never drops a committed one."""
        check_contiguous(entries, self.last_index)
        if not entries:
            return
        first = entries[0].index
        if first <= self.committed:
            raise ValueError(f"refusing to overwrite committed entry {first} (committed {self.committed})")
        del self._entries[first - 1 :]
        self._entries.extend(entries)
        self._chain_from(first - 1)
        self.stable = min(self.stable, first - 1)
        while self.conf_indices and self.conf_indices[-1] >= first:
            self.conf_indices.pop()
        self.conf_indices.extend(entry.index for entry in entries if entry.kind == "conf")

    def maybe_append(
        self, prev_index: int, prev_term: int, commit: int, entries: Sequence[Entry]
    ) -> int | None:
        """A follower's side of an append: None if our log lacks (prev_index, prev_term); else add what
        is new, commit up to what the leader committed, and return the last index now known to match."""
        if self.term(prev_index) != prev_term:
            return None
        last_new = prev_index + len(entries)
        conflict = self.find_conflict(entries)
        if conflict:
            self.append(entries[conflict - prev_index - 1 :])
        self.commit_to(min(commit, last_new))
        return last_new

    def configuration(self, bootstrap: Configuration, end: int | None = None) -> Configuration:
        """`bootstrap` changed by every conf entry up to index `end` (the whole log when None)."""
        voters, learners = bootstrap
        for index in self.conf_indices:
            if end is not None and index > end:
                break
            change = ConfChange.from_entry(self.entry(index))
            if change is not None:
                voters, learners = change.apply_to(voters, learners)
        return voters, learners

    def last_conf_entry(self) -> tuple[int, int]:
        """(index, term) of the last conf entry, (0, 0) when there is none."""
        if not self.conf_indices:
            return (0, 0)
        return self.conf_indices[-1], self.entry(self.conf_indices[-1]).term

    def commit_to(self, index: int) -> bool:
        if index > self.committed:
            self.committed = min(index, self.last_index)
            return True
        return False

    def unstable(self) -> tuple[Entry, ...]:
        return tuple(self._entries[self.stable :])

    def stable_to(self, index: int, term: int) -> None:
        # an entry the caller saved may have been replaced since; the log matching property makes
        # an equal (index, term) mean an equal prefix
        if index > self.stable and self.term(index) == term:
            self.stable = index

    def next_committed(self) -> tuple[Entry, ...]:
        """The next committed entries to apply, at most ``MAX_APPLY_AT_ONCE``: a node replaying a long
        log applies it in batches, and its caller may read the network between them."""
        return tuple(self._entries[self.applied : min(self.committed, self.applied + MAX_APPLY_AT_ONCE)])

    def applied_to(self, index: int) -> None:
        self.applied = max(self.applied, min(index, self.committed))


class Progress:
    """What a leader knows of one member's log. In probe mode it sends one append at a time and waits
    for the answer (or the next heartbeat's); in replicate mode it streams appends optimistically, up
    to MAX_INFLIGHT_APPENDS unacknowledged ones."""

    def __init__(self, next_index: int) -> None:
        self.match = 0
        self.next = next_index
        self.replicating = False
        self.probe_sent = False
        self.recent_active = False
        self.sent_commit = 0  # the highest commit index this member has been able to learn from us
        #: Whether the member has answered us in this term, having checked our election certificate: until
        #: then every append and heartbeat to it carries the certificate.
        self.certified = False
        #: The member's commit index, as it last told us: a commit above it travels with its proof.
        self.known_commit = 0
        #: The member's last signed acks in this term, (index, signature), in order of index.
        self.acks: deque[tuple[int, bytes]] = deque(maxlen=ACKS_KEPT)
        self.inflight: deque[int] = deque()  # last index of each unacknowledged append, in order

    def take_ack(self, index: int, signature: bytes) -> None:
        """Keep the member's signed ack of our log up to ``index``, in order of index (one come late,
        the answer to an older append, goes in its place; one of an index kept replaces it)."""
        acks = self.acks
        if not acks or index > acks[-1][0]:
            acks.append((index, signature))
            return
        kept = [ack for ack in acks if ack[0] != index] + [(index, signature)]
        acks.clear()
        acks.extend(sorted(kept, key=lambda ack: ack[0])[-ACKS_KEPT:])

    def paused(self) -> bool:
        return len(self.inflight) >= MAX_INFLIGHT_APPENDS if self.replicating else self.probe_sent

    def become_probe(self) -> None:
        self.replicating, self.probe_sent, self.next = False, False, self.match + 1
        self.inflight.clear()

    def become_replicate(self) -> None:
        self.replicating, self.next = True, self.match + 1
        self.inflight.clear()

    def update(self, index: int) -> bool:
        """The member holds our log up to `index`; True if that is news."""
        self.next = max(self.next, index + 1)
        while self.inflight and self.inflight[0] <= index:
            self.inflight.popleft()
        if index <= self.match:
            return False
        self.match, self.probe_sent = index, False
        return True

    def decrease_to(self, rejected: int, probe_hint: int) -> bool:
        """The member rejected an append after `rejected`; False if that answer is stale."""
        if self.replicating:
            if rejected <= self.match:
                return False
            self.become_probe()
            return True
        if rejected != self.next - 1:
            return False
        self.next = max(min(rejected, probe_hint + 1), self.match + 1)
        self.probe_sent = False
        return True
