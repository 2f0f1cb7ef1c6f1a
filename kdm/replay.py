"""``kdm replay FILE``: a table's log file played back through the rules, as a transcript.

The log file is what a peer keeps (``net/storage.py``); only committed entries are replayed, through
the same ``TableRecord`` every peer used, checking signatures and claimed faces as every peer did (with
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

from kdm.deck import OpenDeck
from kdm.errors import UsageError
from kdm.fair.table import FairDeck, deck_of_table
from kdm.manager import installed_plugins
from kdm.net.raft_messages import ConfChange
from kdm.net.storage import read_log_checked
from kdm.notices import Applied, Created, Notice, Rejected, Voided
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
) -> tuple[TableRecord, OpenDeck | FairDeck]:
    """The table the committed entries ``data`` make, applied as every peer applied them, and its deck:
    signatures checked from the founder's create on, and the faces a seat claims checked against the
    table's deck (a lie the table refused stays refused, and the digest is the table's; a fair deck
    shows the replay only the faces the table was shown). ``on_notice`` is told of each notice in
    order."""
    record = TableRecord(installed_plugins())
    # A fair table's deck (``deck_of_table``) holds no seat's secrets here, so the log shows it the
    # faces the table was shown, and nothing else.
    deck: OpenDeck | FairDeck = OpenDeck()
    record.check_claims = lambda event: (
        None if record.engine is None else deck.false_claim(record.engine, event)
    )
    record.take_deck_part = lambda part, seat: deck.committed(part, seat)
    record.show_keys = lambda seat, keys: deck.show_keys(seat, keys)
    for entry in data:
        if isinstance(entry, ConfChange):
            record.membership_changed(entry.kind, entry.node_id, entry.voters)
            continue
        try:
            decoded = msgpack.unpackb(entry, raw=False, strict_map_key=True)
        except Exception:
            continue  # every peer skipped it the same way
        if not record.table and isinstance(decoded, dict) and decoded.get("t") == "create":
            # The table's id is its founder's node id: from here on the entries' signatures are
            # checked as every peer checked them (a forged entry the table refused stays refused).
            ident = decoded.get("id")
            if isinstance(ident, list) and ident and isinstance(ident[0], str):
                record.table = ident[0]
        for notice in record.apply(decoded):
            if isinstance(notice, Created):
                deck = deck_of_table(record)
            if isinstance(notice, Voided) and record.engine is not None:
                deck.voided(record.engine.state)
            if isinstance(notice, Applied):
                if notice.event is not None:
                    deck.applied(notice.event, notice.seq)
                deck.observe(notice.effects)  # the faces each shuffle makes, as each peer learns them
            if on_notice is not None:
                on_notice(record, notice)
    return record, deck
