"""The Raft log on disk: one append-only file per table, holding entries and the hard state.

Each record is a msgpack map: ``{"e": [term, index, kind, data]}`` for an entry, ``{"h": [term, vote,
commit]}`` for a hard state. Appending entries that start before the end of the saved log replaces the
saved suffix (Raft's conflict repair): replay does the same, so the file never needs rewriting. A torn
last record (a crash mid-write) is ignored on load, and cut off before the file is appended to again:
appends after it would be lost to the next load, a term and a vote with them (a possible double vote).
``sync`` (after each batch Raft saves) makes what was written durable. The file is the game record that
``kdm replay`` plays back.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

import msgpack

from .raft_log import MemoryStorage
from .raft_messages import Entry, HardState

log = logging.getLogger("kdm.net")


def read_log(path: Path) -> tuple[HardState, list[Entry]]:
    """The hard state and entries saved in a log file, without opening it for writing."""
    storage = MemoryStorage()
    _load_into(storage, path.read_bytes())
    return storage.hard_state(), list(storage.entries())


def _load_into(storage: MemoryStorage, data: bytes) -> int:
    """Load the records of ``data``; returns where the last intact one ends (a crash may have torn
    the next)."""
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=True)
    unpacker.feed(data)
    intact = 0
    try:
        for record in unpacker:
            if "e" in record:
                term, index, kind, payload = record["e"]
                MemoryStorage.append(storage, [Entry(term, index, payload, kind)])
            elif "h" in record:
                term, vote, commit = record["h"]
                MemoryStorage.set_hard_state(storage, HardState(term, vote, commit))
            intact = unpacker.tell()
    except (ValueError, TypeError, KeyError, msgpack.UnpackException):
        pass  # a torn tail from a crash: everything before it is intact
    return intact


class FileStorage(MemoryStorage):
    """A ``Storage`` kept in memory and mirrored to an append-only file."""

    def __init__(self, path: Path) -> None:
        self._file: IO[bytes] | None = None  # nothing to mirror while the base class sets itself up
        super().__init__()
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists():
            data = path.read_bytes()
            intact = _load_into(self, data)
            if intact < len(data):
                log.warning(
                    "%s ends in a torn record (a crash mid-write?): its last %d bytes are cut off",
                    path,
                    len(data) - intact,
                )
                with path.open("r+b") as torn:
                    torn.truncate(intact)
        self._file = path.open("ab")

    def append(self, entries: Sequence[Entry]) -> None:
        super().append(entries)
        self._write([{"e": [entry.term, entry.index, entry.kind, entry.data]} for entry in entries])

    def set_hard_state(self, hard_state: HardState) -> None:
        super().set_hard_state(hard_state)
        self._write([{"h": [hard_state.term, hard_state.vote, hard_state.commit]}])

    def _write(self, records: list[dict[str, Any]]) -> None:
        if self._file is None or not records:
            return
        self._file.write(b"".join(msgpack.packb(record, use_bin_type=True) for record in records))
        self._file.flush()

    def sync(self) -> None:
        if self._file is not None:
            os.fsync(self._file.fileno())

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
