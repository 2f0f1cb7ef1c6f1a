"""The Raft log on disk: one append-only file per table, holding entries, the hard state and the
election certificates the node checked or won.

Each record is a msgpack map: ``{"e": [term, index, kind, data]}`` for an entry, ``{"h": [term, vote,
commit]}`` for a hard state, ``{"v": certificate}`` for an election certificate
(``raft_messages.certificate_to_dict``: a leader shows a past term's to a member that fell behind).
Appending entries that start before the end of the saved log replaces the saved suffix (Raft's conflict
repair): replay does the same, so the file never needs rewriting. A torn last record (a crash mid-write)
is ignored on load, and cut off before the file is appended to again: appends after it would be lost to
the next load, a term and a vote with them (a possible double vote). ``sync`` (after each batch Raft
saves) makes what was written durable. The file is the game record that ``kdm replay`` plays back.

The records are hash-chained (issue 12): each carries ``c``, a BLAKE2b hash of the previous record's
``c`` and its own bytes without it, so a record changed, removed, reordered or inserted breaks the chain
from there on. A load stops at the first record that does not follow the chain, as at a torn one, and
says which (``LogFile.broken``); ``kdm replay`` names it. So does a record that follows the chain but is
not well formed (a term that is not a number, an entry that leaves a gap): the chain is a checksum
anyone can recompute, not a signature, and what a load hands Raft must be what Raft wrote. (Files
written before the chain have no ``c``: they load, and are reported as unchained.)
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import msgpack

from .raft_log import MemoryStorage
from .raft_messages import (
    ENTRY_KINDS,
    Certificate,
    Entry,
    HardState,
    SignedHead,
    certificate_from_dict,
    certificate_to_dict,
    head_from_list,
    head_to_list,
)

log = logging.getLogger("kdm.net")


#: The chain's value before the first record.
CHAIN_START = bytes(16)


def _chained(previous: bytes, body: bytes) -> bytes:
    return hashlib.blake2b(previous + body, digest_size=16).digest()


@dataclass
class LogFile:
    """What a load of a log file found: where its intact records end, where its chain stands, and, when
    a record does not follow the chain, which one (``broken``, for people)."""

    intact: int = 0
    chain: bytes = CHAIN_START
    records: int = 0
    chained: bool = False
    broken: str = ""


def read_log(path: Path) -> tuple[HardState, list[Entry]]:
    """The hard state and entries saved in a log file, without opening it for writing."""
    hard_state, entries, _found = read_log_checked(path)
    return hard_state, entries


def read_log_checked(path: Path) -> tuple[HardState, list[Entry], LogFile]:
    """``read_log``, and what the load found of the file's chain."""
    storage = MemoryStorage()
    found = _load_into(storage, path.read_bytes())
    return storage.hard_state(), list(storage.entries()), found


def _load_into(storage: MemoryStorage, data: bytes) -> LogFile:
    """Load the records of ``data`` up to the first torn one (a crash mid-write), the first that does
    not follow the chain, or the first that is not a well-formed record (an altered file). The chain
    and ``intact`` move only past a record that was loaded, so a peer that cuts the file there and
    appends goes on from the chain of what it kept."""
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=True)
    unpacker.feed(data)
    found = LogFile()
    while True:
        try:
            record = next(unpacker)
        except StopIteration:
            break
        except (ValueError, TypeError, msgpack.UnpackException):
            break  # a torn tail from a crash: everything before it is intact
        if not isinstance(record, dict):
            found.broken = f"record {found.records + 1} is not a log record"
            break
        link = record.pop("c", None)
        expected = found.chain
        if link is not None or found.chained:
            expected = _chained(found.chain, msgpack.packb(record, use_bin_type=True))
            if link != expected:
                found.broken = _describe(found.records, record)
                break
        problem = _load_record(storage, record)
        if problem:
            found.broken = f"record {found.records + 1} {problem}"
            break
        found.chain, found.chained = expected, found.chained or link is not None
        found.intact = unpacker.tell()
        found.records += 1
    return found


#: The records of what a node keeps to prove past terms to a member behind: how each is read, kept and named.
_PROOFS: dict[str, tuple[Callable[[Any], Any], Callable[[MemoryStorage, Any], None], str]] = {
    "v": (certificate_from_dict, MemoryStorage.save_certificate, "election certificate"),
    "s": (head_from_list, MemoryStorage.save_head, "signed head"),
}


def _load_record(storage: MemoryStorage, record: dict[str, Any]) -> str:
    """Load one record into ``storage``; else say what is wrong with it (and load nothing)."""
    for key, (parse, keep, name) in _PROOFS.items():
        if len(record) == 1 and key in record:
            try:
                keep(storage, parse(record[key]))
            except ValueError:
                return f"holds a malformed {name}"
            return ""
    fields = record.get("e", record.get("h"))
    if len(record) != 1 or not isinstance(fields, list) or len(fields) != (4 if "e" in record else 3):
        return "is not an entry, a hard state, a certificate nor a signed head"
    if "e" in record:
        term, index, kind, payload = fields
        if not (_count(term) and _count(index) and kind in ENTRY_KINDS and isinstance(payload, bytes)):
            return "holds a malformed entry"
        try:
            MemoryStorage.append(storage, [Entry(term, index, payload, kind)])
        except ValueError as error:
            return f"does not follow the log: {error}"
        return ""
    term, vote, commit = fields
    if not (_count(term) and _count(commit) and (vote is None or isinstance(vote, str))):
        return "holds a malformed hard state"
    MemoryStorage.set_hard_state(storage, HardState(term, vote, commit))
    return ""


def _count(value: Any) -> bool:
    """Whether ``value`` is what a term, an index or a commit index is: an int, not negative (bool is
    an int in Python, but not one here)."""
    return type(value) is int and value >= 0


def _describe(position: int, record: Any) -> str:
    entry = record.get("e") if isinstance(record, dict) else None
    if isinstance(entry, list) and len(entry) == 4:
        return f"record {position + 1} (entry {entry[1]}) does not follow the chain"
    return f"record {position + 1} does not follow the chain"


class FileStorage(MemoryStorage):
    """A ``Storage`` kept in memory and mirrored to an append-only file."""

    def __init__(self, path: Path) -> None:
        self._file: IO[bytes] | None = None  # nothing to mirror while the base class sets itself up
        super().__init__()
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._chain = CHAIN_START
        if path.exists():
            data = path.read_bytes()
            found = _load_into(self, data)
            self._chain = found.chain
            if found.broken:
                log.warning("%s was altered: %s; it is cut off there", path, found.broken)
            elif found.intact < len(data):
                log.warning(
                    "%s ends in a torn record (a crash mid-write?): its last %d bytes are cut off",
                    path,
                    len(data) - found.intact,
                )
            if found.intact < len(data):
                with path.open("r+b") as torn:
                    torn.truncate(found.intact)
        self._file = path.open("ab")

    def append(self, entries: Sequence[Entry]) -> None:
        super().append(entries)
        self._write([{"e": [entry.term, entry.index, entry.kind, entry.data]} for entry in entries])

    def set_hard_state(self, hard_state: HardState) -> None:
        super().set_hard_state(hard_state)
        self._write([{"h": [hard_state.term, hard_state.vote, hard_state.commit]}])

    def save_certificate(self, certificate: Certificate) -> None:
        super().save_certificate(certificate)
        self._write([{"v": certificate_to_dict(certificate)}])

    def save_head(self, head: SignedHead) -> None:
        super().save_head(head)
        self._write([{"s": head_to_list(head)}])

    def _write(self, records: list[dict[str, Any]]) -> None:
        if self._file is None or not records:
            return
        chunks = []
        for record in records:
            self._chain = _chained(self._chain, msgpack.packb(record, use_bin_type=True))
            chunks.append(msgpack.packb({**record, "c": self._chain}, use_bin_type=True))
        self._file.write(b"".join(chunks))
        self._file.flush()

    def sync(self) -> None:
        if self._file is not None:
            os.fsync(self._file.fileno())

    @property
    def sync_waits_on_a_disk(self) -> bool:
        return True

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
