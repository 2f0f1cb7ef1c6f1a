"""``kdm replay FILE``: a table's log file played back through the rules, as a transcript.

The log file is what a peer keeps (``net/storage.py``); only committed entries are replayed, through
a table host like every peer's (``kdm.host``), checking signatures and claimed faces as every peer did (with
the open deck they all held), so the digest printed at the end is the one the table had.
The file's hash chain is checked first: an altered file is refused, naming the first record that does
not follow the chain (the summary's ``log`` says ``chained``, or ``unchained`` for a file written before
records were chained).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import msgpack

from kdm.deck import Deck
from kdm.driver import SteppedClock
from kdm.errors import UsageError
from kdm.host import Committed, MembershipChanged, TableHost, Tell
from kdm.manager import installed_plugins
from kdm.net.raft_messages import ConfChange
from kdm.net.storage import read_log_checked
from kdm.notices import Applied, Notice, Rejected
from kdm.record import TableRecord


def replay(path: Path, lang: str = "en", say: Callable[[str], None] = print) -> dict[str, Any]:
    """Replay the committed entries of a log file; returns a summary (events, rounds, digest)."""
    data, chained = read_committed(path)

    def tell(record: TableRecord, notice: Notice) -> None:
        if isinstance(notice, Rejected):
            say(f"(refused: {notice.reason})")
        for effect in notice.effects if isinstance(notice, Applied) else ():
            line = record.describe(effect, lang) if record.engine is not None else None
            if line:
                say(line)

    record = replayed(data, tell)
    engine = record.engine
    if engine is None:
        raise UsageError(f"{path} holds no committed table")
    return {
        "table": record.name,
        "players": record.players,
        "events": engine.state.seq,
        "rounds": engine.state.round,
        "over": engine.over,
        "scores": list(engine.state.scores),
        "digest": engine.digest(),
        "log": "chained" if chained else "unchained",
    }


def read_committed(path: Path) -> tuple[list[bytes | ConfChange], bool]:
    """The committed entries of a log file that the table applied, in order: the data of each game
    entry and each membership change (a forced one changes whose word a takeover needs; leaders'
    no-ops are not the table's business), and whether the file is chained. An unreadable or altered
    file is a ``UsageError`` naming what is wrong."""
    try:
        hard_state, entries, found = read_log_checked(path)
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror}") from None
    if found.broken:
        raise UsageError(f"{path} was altered: {found.broken}")
    data: list[bytes | ConfChange] = []
    for entry in entries[: hard_state.commit]:
        if entry.kind == "normal" and entry.data:
            data.append(entry.data)
        elif entry.kind == "conf" and (change := ConfChange.from_entry(entry)) is not None:
            data.append(change)
    return data, found.chained


def replayed(
    data: Iterable[bytes | ConfChange], on_notice: Callable[[TableRecord, Notice], None] | None = None
) -> TableRecord:
    """The table the committed entries ``data`` make (``replayed_with_deck``)."""
    return replayed_with_deck(data, on_notice)[0]


def replayed_with_deck(
    data: Iterable[bytes | ConfChange], on_notice: Callable[[TableRecord, Notice], None] | None = None
) -> tuple[TableRecord, Deck]:
    """The table the committed entries ``data`` make, applied as every peer applied them, and its deck:
    by a table host that plays no seat (``kdm.host.TableHost``), so signatures are checked from the
    founder's create on, and the faces a seat claims against the table's deck (a lie the table refused
    stays refused, and the digest is the table's; a fair deck shows the replay only the faces the table
    was shown). ``on_notice`` is told of each notice in order."""
    host = TableHost(_Spectator(), installed_plugins(), SteppedClock())
    record = host.record
    for entry in data:
        if isinstance(entry, ConfChange):
            host.step(MembershipChanged(entry))
            continue
        if not record.table:
            _learn_the_table(record, entry)
        for output in host.step(Committed(entry)):
            if isinstance(output, Tell) and on_notice is not None:
                on_notice(record, output.notice)
    return record, host.deck


def _learn_the_table(record: TableRecord, entry: bytes) -> None:
    """The table's id is its founder's node id, which its ``create`` names: from there on the entries'
    signatures are checked as every peer checked them (a forged entry the table refused stays refused)."""
    try:
        decoded = msgpack.unpackb(entry, raw=False, strict_map_key=True)
    except Exception:
        return  # every peer skipped it the same way
    if isinstance(decoded, dict) and decoded.get("t") == "create":
        ident = decoded.get("id")
        if isinstance(ident, list) and ident and isinstance(ident[0], str):
            record.table = ident[0]


class _Spectator:
    """The node of a replay: it plays no seat and leads nothing, and hears nobody."""

    node_id = "replay"
    is_leader = False
    leader = None

    def silent_ms(self, node_id: str) -> float:
        return 0.0
