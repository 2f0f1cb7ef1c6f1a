"""``kdm replay FILE``: a table's log file played back through the rules, as a transcript.

The log file is what a peer keeps (``net/storage.py``); only committed entries are replayed, through
the same ``TableRecord`` every peer used, so the digest printed at the end is the one the table had.
The file's hash chain is checked first: an altered file is refused, naming the first record that does
not follow the chain (the summary's ``log`` says ``chained``, or ``unchained`` for a file written before
records were chained).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgpack

from kdm.errors import UsageError
from kdm.manager import installed_plugins
from kdm.net.storage import read_log_checked
from kdm.record import TableRecord


def replay(path: Path, lang: str = "en", say: Callable[[str], None] = print) -> dict[str, Any]:
    """Replay the committed entries of a log file; returns a summary (events, rounds, digest)."""
    try:
        hard_state, entries, found = read_log_checked(path)
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror}") from None
    if found.broken:
        raise UsageError(f"{path} was altered: {found.broken}")
    record = TableRecord(installed_plugins())
    for entry in entries[: hard_state.commit]:
        if entry.kind != "normal" or not entry.data:
            continue  # membership changes and leaders' no-ops are not the game's business
        try:
            decoded = msgpack.unpackb(entry.data, raw=False, strict_map_key=True)
        except Exception:
            continue  # every peer skipped it the same way
        if not record.table and isinstance(decoded, dict) and decoded.get("t") == "create":
            # The table's id is its founder's node id: from here on the entries' signatures are
            # checked as every peer checked them (a forged entry the table refused stays refused).
            ident = decoded.get("id")
            if isinstance(ident, list) and ident and isinstance(ident[0], str):
                record.table = ident[0]
        for notice in record.apply(decoded):
            if notice.kind == "rejected":
                say(f"(refused: {notice.reason})")
            for effect in notice.effects:
                line = record.rules.describe(effect, lang) if record.engine is not None else None
                if line:
                    say(line)
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
        "log": "chained" if found.chained else "unchained",
    }
