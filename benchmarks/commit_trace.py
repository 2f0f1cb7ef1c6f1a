"""Where a commit's time goes: every game action of a ``kdm selfplay`` game, stage by stage.

Each peer process of the game is traced from outside, with no change to kdm: a ``sitecustomize`` put on
``PYTHONPATH`` wraps the Raft node's ``step`` (each message in), the node's raft sends (each message
out), the log's ``sync`` and the node's ``advance`` (entries applied), and writes what it saw, stamped
on ``CLOCK_MONOTONIC`` (one clock for every process of the machine), when the process exits. The
entries are then followed from the proposer's ``prop`` to its own apply, through the leader and the
followers that made the quorum:

- ``to_leader``: the proposer sends its proposal → the leader reads it;
- ``leader_appends``: the leader reads it → sends the first append that carries it;
- ``to_followers``: that send → the follower reads it (the one whose ack completed the quorum);
- ``follower_saves``: the follower reads it → sends its ack (its log synced in a thread meanwhile);
- ``acks_back``: the leader sends the append → reads the ack that completes the quorum;
- ``commit_out``: that ack read → the commit index sent on;
- ``commit_to_proposer``: that send → the proposer reads it;
- ``proposer_applies``: the proposer reads the commit index → has applied the entry;
- ``total``: the proposer's send → its apply; ``sync_ms``: each sync of a log.

Only actions proposed by a follower are followed (the leader's own skip the first stages).

Figures are p50 and p99 in ms over every traced action (``slaps`` over the slaps alone: a slap
window is when every seat presses within a few ms of the others). Prints one JSON object.

    python benchmarks/commit_trace.py [--peers 10] [--rounds 2]
"""

from __future__ import annotations

import argparse
import bisect
import json
import os
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

from kdm.session import percentile

os.environ.setdefault("KDM_INTERFACE", "127.0.0.1")  # outside a namespace, benchmarks keep to loopback

#: Imported by every Python process started with the trace directory on PYTHONPATH.
SITECUSTOMIZE = r"""
import atexit, json, os, time

_DIR = os.environ.get("KDM_TRACE_DIR")
if _DIR:
    _seen = []

    def _now():
        return time.monotonic_ns() / 1e6

    def _span(message):
        entries = message.entries
        return (entries[0].index, entries[-1].index) if entries else (0, 0)

    def _slaps(entries):
        import msgpack
        found = []
        for entry in entries:
            try:
                data = msgpack.unpackb(entry.data, raw=False)
                event = data.get("event") if isinstance(data, dict) else None
                if isinstance(event, dict) and event.get("kind") == "slap":
                    found.append(entry.index)
            except Exception:
                pass
        return found

    def _install():
        from kdm.net import node, raft, storage

        step = raft.RaftNode.step
        def traced_step(self, message):
            before = self.last_index
            refusal = step(self, message)
            first, last = _span(message)
            if message.kind == "prop" and self.last_index > before:  # the leader appended it
                first, last = before + 1, self.last_index
            _seen.append(("in", _now(), self.node_id, message.kind, message.sender, first, last,
                          message.commit, message.log_index))
            return refusal
        raft.RaftNode.step = traced_step

        send = node.Node._send_raft
        def traced_send(self, message):
            first, last = _span(message)
            _seen.append(("out", _now(), self.node_id, message.kind, message.to, first, last,
                          message.commit, message.log_index))
            send(self, message)
        node.Node._send_raft = traced_send

        sync = storage.FileStorage.sync
        def traced_sync(self):
            began = _now()
            sync(self)
            _seen.append(("sync", began, str(self.path), _now() - began))
        storage.FileStorage.sync = traced_sync

        advance = raft.RaftNode.advance
        def traced_advance(self, ready):
            advance(self, ready)
            if ready.committed:
                _seen.append(("applied", _now(), self.node_id, ready.committed[-1].index,
                              _slaps(ready.committed)))
        raft.RaftNode.advance = traced_advance

    def _write():
        with open(os.path.join(_DIR, f"{os.getpid()}.json"), "w") as out:
            json.dump(_seen, out)

    _install()
    atexit.register(_write)
"""

STAGES = (
    "to_leader", "leader_appends", "to_followers", "follower_saves", "acks_back", "commit_out",
    "commit_to_proposer", "proposer_applies", "total",
)  # fmt: skip


def trace_game(peers: int, rounds: int) -> list[list[Any]]:
    """Play one selfplay game with every peer traced; what all of them saw."""
    with tempfile.TemporaryDirectory(prefix="kdm-trace-") as directory:
        Path(directory, "sitecustomize.py").write_text(SITECUSTOMIZE)
        path = os.pathsep.join(filter(None, [directory, os.environ.get("PYTHONPATH")]))
        env = {**os.environ, "PYTHONPATH": path, "KDM_TRACE_DIR": directory}
        game = ["selfplay", "--peers", str(peers), "--rounds", str(rounds), "--json"]
        subprocess.run(
            [sys.executable, "-m", "kdm", *game], env=env, check=True, capture_output=True, timeout=900
        )
        seen: list[list[Any]] = []
        for trace in Path(directory).glob("*.json"):
            seen.extend(json.loads(trace.read_text()))
    return seen


def stages(seen: list[list[Any]]) -> dict[str, Any]:
    """Each action's time in each stage (see the module docstring), and the syncs."""
    by_node: dict[str, list[list[Any]]] = defaultdict(list)
    syncs = [record[3] for record in seen if record[0] == "sync"]
    for record in seen:
        if record[0] != "sync":
            by_node[record[2]].append(record)
    for records in by_node.values():
        records.sort(key=lambda record: record[1])
    appended = [r for r in seen if r[0] == "in" and r[3] == "prop" and r[5]]  # at the leader: (first, last)
    slap_indices = {index for r in seen if r[0] == "applied" for index in r[4]}
    found: dict[str, list[float]] = defaultdict(list)
    slaps: dict[str, list[float]] = defaultdict(list)
    for _, received, leader, _, proposer, first, last, _, _ in appended:
        for index in range(first, last + 1):
            times = _follow(by_node, leader, proposer, index, received)
            if times is None:
                continue
            for name, value in times.items():
                found[name].append(value)
                if index in slap_indices:
                    slaps[name].append(value)
    return {
        "actions": len(found["total"]),
        "slaps": len(slaps["total"]),
        **{name: _p50_p99(found[name]) for name in STAGES},
        "slap_total": _p50_p99(slaps["total"]),
        "sync_ms": _p50_p99(syncs),
    }


def _follow(
    by_node: dict[str, list[list[Any]]], leader: str, proposer: str, index: int, received: float
) -> dict[str, float] | None:
    """The stages of the entry at ``index``, proposed by ``proposer`` and appended by ``leader`` at
    ``received``; None when a part of its way was not seen (a leader change)."""
    mine, its = by_node[proposer], by_node[leader]
    sent = _last(mine, lambda r: r[0] == "out" and r[3] == "prop" and r[4] == leader, before=received)
    first_append = _first(its, lambda r: r[0] == "out" and r[3] == "app" and r[5] <= index <= r[6], received)
    if sent is None or first_append is None:
        return None
    commit = _first(its, lambda r: r[0] == "out" and r[3] == "app" and r[7] >= index, after=first_append)
    if commit is None:
        return None
    start = bisect.bisect_left(its, first_append, key=lambda record: record[1])
    end = bisect.bisect_right(its, commit, key=lambda record: record[1])
    acks = [(r[1], r[4]) for r in its[start:end] if r[0] == "in" and r[3] == "app_resp" and r[8] >= index]
    learnt = _first(mine, lambda r: r[0] == "in" and r[7] >= index, after=first_append)
    applied = _first(mine, lambda r: r[0] == "applied" and r[3] >= index, after=first_append)
    if learnt is None or applied is None or not acks:
        return None
    ack_time, follower = acks[-1]  # the ack read last before the commit index went out: the quorum's
    theirs = by_node[follower]
    got = _first(
        theirs, lambda r: r[0] == "in" and r[3] == "app" and r[5] <= index <= r[6], after=first_append
    )
    answered = _first(
        theirs, lambda r: r[0] == "out" and r[3] == "app_resp" and r[8] >= index, after=first_append
    )
    if got is None or answered is None:
        return None
    return {
        "to_leader": received - sent, "leader_appends": first_append - received,
        "to_followers": got - first_append, "follower_saves": answered - got,
        "acks_back": ack_time - first_append, "commit_out": commit - ack_time,
        "commit_to_proposer": learnt - commit, "proposer_applies": applied - learnt, "total": applied - sent,
    }  # fmt: skip


def _first(records: list[list[Any]], wanted: Any, after: float) -> float | None:
    start = bisect.bisect_left(records, after, key=lambda record: record[1])
    return next((r[1] for r in records[start:] if wanted(r)), None)


def _last(records: list[list[Any]], wanted: Any, before: float) -> float | None:
    end = bisect.bisect_right(records, before, key=lambda record: record[1])
    return next((r[1] for r in reversed(records[:end]) if wanted(r)), None)


def _p50_p99(values: list[float]) -> dict[str, float | None]:
    ordered = sorted(values)
    return {"p50": _round(percentile(ordered, 50)), "p99": _round(percentile(ordered, 99))}


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--peers", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=2)
    arguments = parser.parse_args()
    figures = stages(trace_game(arguments.peers, arguments.rounds))
    print(json.dumps({"figure": "commit_stages", "peers": arguments.peers, "rounds": arguments.rounds,
                      **figures, "unit": "ms"}))  # fmt: skip


if __name__ == "__main__":
    main()
