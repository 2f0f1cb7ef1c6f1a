"""The Raft log on disk (``kdm.net.storage``): a torn tail is cut before the file is appended to, so
nothing written after a crash is lost to the next load; what Raft saves is made durable before it
sends what rests on it."""

from __future__ import annotations

import io
import logging
import os
from pathlib import Path

import msgpack
import pytest

from kdm.errors import UsageError
from kdm.net.raft_log import persist, persist_and_send
from kdm.net.raft_messages import Certificate, Entry, HardState, Message, Ready, SignedHead, Vote
from kdm.net.storage import CHAIN_START, FileStorage, _chained, read_log, read_log_checked
from kdm.replay import replay


def entries(first: int, last: int, term: int = 1) -> list[Entry]:
    return [Entry(term, index, f"entry {index}".encode()) for index in range(first, last + 1)]


def test_a_torn_tail_is_cut_before_appending_so_later_appends_survive(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "table.log"
    storage = FileStorage(path)
    storage.append(entries(1, 3))
    storage.set_hard_state(HardState(1, "a", 2))
    storage.close()
    torn = msgpack.packb({"e": [1, 4, "normal", b"entry 4, torn"]}, use_bin_type=True)
    with path.open("ab") as crashed:
        crashed.write(torn[: len(torn) // 2])  # the process died mid-write

    caplog.set_level(logging.WARNING, logger="kdm.net")
    reopened = FileStorage(path)
    assert [entry.index for entry in reopened.entries()] == [1, 2, 3]
    assert "ends in a torn record" in caplog.text
    reopened.append(entries(4, 5, term=2))
    reopened.set_hard_state(HardState(2, "b", 5))  # a newer term and vote: they must not be lost
    reopened.close()

    hard_state, saved = read_log(path)
    assert [(entry.index, entry.term) for entry in saved] == [(1, 1), (2, 1), (3, 1), (4, 2), (5, 2)]
    assert hard_state == HardState(2, "b", 5)


def ready(
    saved: list[Entry],
    hard_state: HardState | None,
    role: str = "follower",
    messages: tuple[Message, ...] = (),
) -> Ready:
    return Ready(
        messages=messages, entries=tuple(saved), hard_state=hard_state, committed=(), leader=None, role=role
    )


def test_what_raft_saves_is_synced_before_it_is_sent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[int] = []
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(fd))
    storage = FileStorage(tmp_path / "table.log")
    persist(storage, ready(entries(1, 2), HardState(1, "a", 0)))
    assert len(synced) == 1  # once for the batch, after both are written
    persist(storage, ready([], None))
    assert len(synced) == 1  # nothing saved, nothing to sync
    persist(storage, ready([], HardState(1, "a", 2)))
    assert len(synced) == 1  # the commit index alone is saved, not synced: the leader says it again
    persist(storage, ready([], HardState(2, None, 2)))
    assert len(synced) == 2  # a new term is synced
    storage.close()
    assert read_log(tmp_path / "table.log")[0] == HardState(2, None, 2)


@pytest.mark.parametrize(
    ("role", "saved", "hard_state", "order"),
    [
        ("follower", entries(1, 1), None, ["sync", "send"]),  # an ack promises the entry
        ("candidate", [], HardState(2, "me", 0), ["sync", "send"]),  # a vote request, its term and vote
        ("leader", entries(1, 1), None, ["send", "sync"]),  # appends go while the leader syncs
        ("leader", entries(1, 1), HardState(1, None, 1), ["send", "sync"]),  # with a new commit index
        ("leader", entries(1, 1), HardState(3, "me", 0), ["sync", "send"]),  # never before a new term
        ("follower", [], HardState(1, None, 1), ["send"]),  # the commit index alone: no sync at all
    ],
)
def test_a_leaders_appends_go_before_its_sync_and_every_other_message_after(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    role: str,
    saved: list[Entry],
    hard_state: HardState | None,
    order: list[str],
) -> None:
    done: list[str] = []
    monkeypatch.setattr(os, "fsync", lambda fd: done.append("sync"))
    storage = FileStorage(tmp_path / "table.log")
    storage.set_hard_state(HardState(1, None, 0))
    message = Message("app", 1, "me", "you")
    persist_and_send(storage, ready(saved, hard_state, role, (message,)), lambda sent: done.append("send"))
    storage.close()
    assert done == order


def written_log(path: Path) -> None:
    storage = FileStorage(path)
    storage.append(entries(1, 4))
    storage.set_hard_state(HardState(1, "a", 4))
    storage.append(entries(5, 6, term=2))
    storage.close()


def records(path: Path) -> list[dict[str, object]]:
    return list(msgpack.Unpacker(io.BytesIO(path.read_bytes()), raw=False))


def test_every_record_is_chained_and_an_intact_log_loads_whole(tmp_path: Path) -> None:
    path = tmp_path / "table.log"
    written_log(path)
    assert all(isinstance(record["c"], bytes) and len(record["c"]) == 16 for record in records(path))
    _hard_state, saved, found = read_log_checked(path)
    assert [entry.index for entry in saved] == [1, 2, 3, 4, 5, 6] and found.chained and not found.broken
    reopened = FileStorage(path)  # appends go on from where the chain stands
    reopened.append(entries(7, 7, term=2))
    reopened.close()
    assert not read_log_checked(path)[2].broken


@pytest.mark.parametrize("change", ["payload", "drop", "swap", "insert", "strip"])
def test_an_altered_log_breaks_the_chain_at_the_first_changed_record(tmp_path: Path, change: str) -> None:
    path = tmp_path / "table.log"
    written_log(path)
    kept = records(path)
    if change == "payload":
        kept[2]["e"][3] = b"entry 3, altered"  # type: ignore[index]
    elif change == "drop":
        del kept[2]
    elif change == "swap":
        kept[2], kept[3] = kept[3], kept[2]
    elif change == "insert":
        kept.insert(2, {"e": [1, 3, "normal", b"forged"], "c": bytes(16)})
    else:
        del kept[2]["c"]  # a record without its link, after chained ones
    path.write_bytes(b"".join(msgpack.packb(record, use_bin_type=True) for record in kept))
    _hard, saved, found = read_log_checked(path)
    assert found.broken.startswith("record 3 ")
    assert [entry.index for entry in saved] == [1, 2]  # nothing after the break is believed


def test_a_running_peer_cuts_an_altered_log_where_it_breaks(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "table.log"
    written_log(path)
    kept = records(path)
    kept[3]["e"][3] = b"altered"  # type: ignore[index]
    path.write_bytes(b"".join(msgpack.packb(record, use_bin_type=True) for record in kept))
    caplog.set_level(logging.WARNING, logger="kdm.net")
    reopened = FileStorage(path)
    assert [entry.index for entry in reopened.entries()] == [1, 2, 3]
    assert "was altered: record 4 (entry 4) does not follow the chain; it is cut off there" in caplog.text
    reopened.append(entries(4, 4, term=3))  # what the leader sends again
    reopened.close()
    assert not read_log_checked(path)[2].broken


def chained_file(path: Path, kept: list[dict[str, object]]) -> None:
    """``kept`` written as a log file, the chain recomputed around whatever the records hold."""
    link, out = CHAIN_START, []
    for record in kept:
        plain = {key: value for key, value in record.items() if key != "c"}
        link = _chained(link, msgpack.packb(plain, use_bin_type=True))
        out.append(msgpack.packb({**plain, "c": link}, use_bin_type=True))
    path.write_bytes(b"".join(out))


@pytest.mark.parametrize(
    ("record", "reason"),
    [
        ({"h": ["1", None, 2]}, "record 6 holds a malformed hard state"),
        ({"h": [1, 7, 2]}, "record 6 holds a malformed hard state"),
        ({"h": [1, None]}, "record 6 is not an entry, a hard state, a certificate nor a signed head"),
        ({"e": [1, 5, "con", b"x"]}, "record 6 holds a malformed entry"),
        ({"e": [True, 5, "normal", b"x"]}, "record 6 holds a malformed entry"),
        ({"e": [1, 5, "normal", "text"]}, "record 6 holds a malformed entry"),
        ({"e": [1, 9, "normal", b"x"]}, "record 6 does not follow the log: entries start at 9"),
        (
            {"e": [1, 5, "normal", b"x"], "h": [1, None, 2]},
            "record 6 is not an entry, a hard state, a certificate nor a signed head",
        ),
        (
            {"v": {"term": 1, "leader": "a", "log_index": 0, "log_term": 0, "votes": []}},
            "record 6 holds a malformed election certificate",
        ),
        ({"s": [1, "a", 5, b"short", b""]}, "record 6 holds a malformed signed head"),
    ],
)
def test_a_malformed_record_that_follows_the_chain_is_refused_like_an_altered_one(
    tmp_path: Path, record: dict[str, object], reason: str
) -> None:
    """Found by tests/test_fuzz.py: the chain is a checksum anyone can recompute, so a rewritten record
    that follows it loaded as it was (a term of "1", an entry kind of "con"), and a peer or ``kdm replay``
    failed on it later with a traceback."""
    path = tmp_path / "table.log"
    written_log(path)
    kept = records(path)
    kept.insert(5, record)
    chained_file(path, kept)
    hard_state, saved, found = read_log_checked(path)
    assert found.broken.startswith(reason)
    assert [entry.index for entry in saved] == [1, 2, 3, 4] and hard_state == HardState(1, "a", 4)
    with pytest.raises(UsageError, match="was altered: record 6 "):
        replay(path, say=lambda line: None)


def test_appends_after_a_record_cut_off_survive_the_next_load(tmp_path: Path) -> None:
    """Found by tests/test_fuzz.py: a record that followed the chain but could not be loaded moved the
    chain on without being kept, so what a peer appended after reopening the file broke the chain and
    was lost to the next load (a term and a vote with it)."""
    path = tmp_path / "table.log"
    written_log(path)
    kept = records(path)
    kept.insert(5, {"h": [1, None]})  # follows the chain, cannot be loaded
    chained_file(path, kept)
    reopened = FileStorage(path)
    assert [entry.index for entry in reopened.entries()] == [1, 2, 3, 4]
    reopened.append(entries(5, 5, term=3))
    reopened.set_hard_state(HardState(3, "b", 5))
    reopened.close()
    hard_state, saved, found = read_log_checked(path)
    assert not found.broken and [entry.index for entry in saved] == [1, 2, 3, 4, 5]
    assert hard_state == HardState(3, "b", 5)


def test_election_certificates_and_heads_are_saved_with_the_log_and_read_back(tmp_path: Path) -> None:
    """A leader shows a past term's certificate and head to a member that fell behind, after a restart
    too."""
    path = tmp_path / "table.log"
    certificate = Certificate(3, "a", 5, 2, (Vote("a", b"s" * 64), Vote("b", b"t" * 64)), ("a", "b"))
    head = SignedHead(3, "a", 2, b"h" * 32, b"s" * 64)
    storage = FileStorage(path)
    saved_ready = Ready(
        (), tuple(entries(1, 2)), HardState(3, "a", 0), (), None, "leader", (certificate,), (head,)
    )
    persist(storage, saved_ready)
    storage.close()
    reopened = FileStorage(path)
    assert reopened.certificates() == (certificate,) and reopened.heads() == (head,)
    hard_state, saved, found = read_log_checked(path)
    assert hard_state == HardState(3, "a", 0) and len(saved) == 2 and not found.broken
