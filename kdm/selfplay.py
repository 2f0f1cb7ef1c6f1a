"""``kdm selfplay``: bot peers as separate processes on 127.0.0.1 play a game; do they agree?

One process hosts, the others join it by address; nothing is advertised and no traffic leaves
loopback. Each peer writes a report (digest, commit latencies, windows) and, through the chaos hook
(``kdm.net.chaos``, on for every peer selfplay starts), a journal of every entry it saw committed; the
summary gathers them and checks the journals against the final logs (``lost_commits``).

With ``chaos`` (``kdm.faults``), faults are injected into the peers while the game plays, from the
game's start until a peer has finished: a seeded plan of kills, pauses, partitions and garbage, on
``max(1, (peers - 1) // 3)`` lanes at once (so a majority of the seats' processes stays up). A killed
peer is started again on its data directory, as a player whose kdm died runs it again, and comes back as
the same node (``kdm.identity.NodeMemory``) to take its seat back: a joiner with its own command line,
but joining through a member that is up and under no fault (the one it first joined through may be
down), again and through another member until it joins, as its player would; the host as ``kdm join``
through a member too, since ``kdm host`` finds its own table again only through mDNS, which selfplay
does not use (with ``--no-advertise`` it would found a second, empty table). A peer down or cut off when
the table finishes (its seat's stand-in played the end) has no report: it is stopped ``END_GRACE_S``
after the first peer finished, listed in ``missed_the_end``, and its journal is checked all the same.

``longest_stall_s`` is the longest time during the game when no peer saw a new entry committed.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kdm.errors import UsageError
from kdm.faults import Fault, FaultPlan, Planned, check_commits, longest_stall, read_journal, send_garbage
from kdm.launcher import kdm_command
from kdm.manager import Rules
from kdm.net import chaos
from kdm.net.storage import read_log
from kdm.record import DECKS
from kdm.session import percentile

LOOPBACK = "127.0.0.1"
#: How often the injector looks at its peers (their exits, their logs, the faults due).
LOOK_EVERY_S = 0.05
#: How long a peer's start may take before it is ready for faults, and the host's before it listens.
START_S = 30.0
#: A peer up for this long is a good member to join through (it has caught up with the log).
SETTLE_S = 5.0
#: How long after the first peer finished the others may take to finish too (a second, usually).
END_GRACE_S = 10.0
#: A peer without a report missed the end if a fault of its ended this close to it (or later): its
#: seat's stand-in may have played the end (a seat silent for ``kdm.peer.TAKEOVER_AFTER_S`` is taken).
LATE_FAULT_S = 10.0


@dataclass
class PeerProcess:
    """One seat's player: their process (the current one), command line, data directory and log file."""

    index: int
    port: int
    argv: list[str]
    data: Path
    out: Path
    process: subprocess.Popen[bytes] | None = None
    #: The fault it is under, if any.
    fault: Fault | None = None
    restarts: int = 0
    failed_restarts: int = 0
    #: Its process is down before the game's end (killed, or it could not join), to be started again.
    wants_restart: bool = False
    #: When its current process was started (``time.monotonic``).
    started_at: float = 0.0
    _read: int = 0
    lines: list[str] = field(default_factory=list)

    @property
    def up(self) -> bool:
        return self.process is not None and self.process.poll() is None

    @property
    def ready(self) -> bool:
        """Running, and its chaos hook installed (a SIGUSR1 before would kill it)."""
        if not self.up or self.fault is not None:
            return False
        assert self.process is not None
        try:
            return (self.data / chaos.READY_FILE).read_text().strip() == str(self.process.pid)
        except OSError:
            return False

    def new_lines(self) -> list[str]:
        """The lines its processes printed since the last call."""
        try:
            with self.out.open("rb") as out:
                out.seek(self._read)
                data = out.read()
        except OSError:
            return []
        complete = data[: data.rfind(b"\n") + 1]
        self._read += len(complete)
        lines = complete.decode(errors="replace").splitlines()
        self.lines.extend(lines)
        return lines


def selfplay(
    peers: int,
    rounds: int,
    seed: int,
    timeout_s: float = 300.0,
    variants: Sequence[str] = (),
    options: Mapping[str, str] | None = None,
    chaos_kinds: Sequence[str] = (),
    keep: Path | None = None,
    deck: str = "open",
) -> dict[str, Any]:
    """Play one game between ``peers`` bot processes and summarise it; with ``chaos_kinds``, under faults.

    ``rounds`` applies to a game of rounds; a game mode that plays to a target (Kem's) takes its
    ``options`` instead. The table's rules check the player count and options before any process starts.
    ``keep``: play in this directory and leave it (logs, journals, data directories) for a post-mortem.
    """
    if not 3 <= peers <= 10:
        raise UsageError("peers must be 3 to 10")
    if rounds < 1:
        raise UsageError("rounds must be at least 1")
    rules = Rules.for_table(variants)
    given: dict[str, Any] = dict(options or {})
    if rules.declares("rounds"):
        given.setdefault("rounds", str(rounds))
    rules.resolve(peers, dict(given))  # one clear line for a bad count or option, before any process
    table_flags = [flag for name, value in given.items() for flag in ("--option", f"{name}={value}")]
    table_flags += [flag for name in variants for flag in ("--variant", name)]
    if deck not in DECKS:
        raise UsageError(f"deck {deck!r}: give one of {', '.join(DECKS)}")
    table_flags += ["--deck", deck]
    if keep is not None:
        if keep.exists() and (not keep.is_dir() or any(keep.iterdir())):
            raise UsageError(f"--keep {keep}: give a new or empty directory")
        keep.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="kdm-selfplay-") as scratch:
        root = keep or Path(scratch)
        game = _Game(root, peers, seed, chaos_kinds, timeout_s)
        return game.play(table_flags, rounds)


class _Game:
    def __init__(self, root: Path, peers: int, seed: int, kinds: Sequence[str], timeout_s: float) -> None:
        self.root, self.seed, self.kinds = root, seed, tuple(kinds)
        self.started = time.monotonic()
        self.deadline = self.started + timeout_s
        self.timeout_s = timeout_s
        ports = _free_ports(peers)
        self.peers = [
            PeerProcess(i, ports[i], [], root / f"data{i}", root / f"peer{i}.out") for i in range(peers)
        ]
        self.plan = FaultPlan(kinds, seed)
        self.faults: list[Fault] = []
        self.leader: int | None = None
        self.game_started: float | None = None
        #: When the first peer finished (monotonic): the game is over, no more faults.
        self.game_over_at: float | None = None

    @property
    def game_over(self) -> bool:
        return self.game_over_at is not None

    # --- the game ----------------------------------------------------------------------------------

    def play(self, table_flags: list[str], rounds: int) -> dict[str, Any]:
        seed, root, peers = self.seed, self.root, self.peers
        common = ["--interface", LOOPBACK, "--headless"]
        host = peers[0]
        host.argv = ["host", "--players", str(len(peers)), *table_flags, "--as-bot", "greedy",
                     "--no-advertise", "--table", "selfplay", "--seed", str(seed), *common,
                     "--port", str(host.port), "--data-dir", str(host.data),
                     "--report", str(root / "peer0.json")]  # fmt: skip
        try:
            self._spawn(host)
            contact = self._wait_for_line(host, "listening on ").split()[2]
            for peer in peers[1:]:
                peer.argv = ["join", contact, "--as-bot", "greedy", "--seed", str(seed * 100 + peer.index),
                             *common, "--port", str(peer.port), "--data-dir", str(peer.data),
                             "--report", str(root / f"peer{peer.index}.json")]  # fmt: skip
                self._spawn(peer)
            if self.kinds:
                self._wait_for_line(host, "the game starts")
                self.game_started = time.monotonic()
            self._run()
        finally:
            for peer in peers:
                if peer.process is not None and peer.process.poll() is None:
                    peer.process.kill()
                    peer.process.wait()
        return self._summary(rounds)

    def _spawn(self, peer: PeerProcess, argv: list[str] | None = None) -> None:
        env = {**os.environ, chaos.CHAOS_ENV: "1"}
        peer.started_at = time.monotonic()
        with peer.out.open("ab") as out:
            peer.process = subprocess.Popen(
                kdm_command(argv or peer.argv),
                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=env,
            )  # fmt: skip

    def _wait_for_line(self, peer: PeerProcess, start: str) -> str:
        deadline = min(self.deadline, time.monotonic() + START_S)
        while time.monotonic() < deadline:
            peer.new_lines()
            found = next((line for line in peer.lines if line.startswith(start)), None)
            if found is not None:
                return found
            if not peer.up:
                said = peer.lines[-1] if peer.lines else "no output"
                raise UsageError(f"the host did not start: {said.strip()}")
            time.sleep(LOOK_EVERY_S)
        raise UsageError(f"the host did not say {start.strip()!r} within {START_S:.0f} s (see {peer.out})")

    def _run(self) -> None:
        lanes = max(1, (len(self.peers) - 1) // 3) if self.kinds else 0
        next_at = [time.monotonic() + 1.0 + lane for lane in range(lanes)]
        waiting: list[Planned | None] = [None] * lanes
        while True:
            now = time.monotonic()
            if now > self.deadline:
                raise UsageError(f"selfplay did not finish within {self.timeout_s:.0f} s")
            self._look_at_peers()
            for peer in self.peers:
                fault = peer.fault
                if fault is not None and (
                    self.game_over or now >= fault.at_s + self.started + fault.duration_s
                ):
                    self._end(peer, now)
            lane_faults = [p for p in self.peers if p.fault is not None or p.wants_restart]
            for lane in range(lanes):
                if self.game_over or now < next_at[lane] or len(lane_faults) >= lanes:
                    continue
                planned = waiting[lane] or self.plan.next()
                target = self._pick(planned)
                if target is None:
                    waiting[lane], next_at[lane] = planned, now + 0.5  # nobody is up for it yet
                    continue
                waiting[lane] = None
                self._start(target, planned, now)
                lane_faults.append(target)
                next_at[lane] = now + planned.duration_s + planned.gap_s
            if self.game_over_at is not None and now > self.game_over_at + END_GRACE_S:
                self._stop_the_stragglers()
            if all(not p.up and p.fault is None and not p.wants_restart for p in self.peers):
                return
            time.sleep(LOOK_EVERY_S)

    def _look_at_peers(self) -> None:
        for peer in self.peers:
            for line in peer.new_lines():
                if line.startswith("leader: "):
                    self.leader = self._peer_of(line.split()[1])
            process = peer.process
            if process is not None and process.poll() is not None and peer.fault is None:
                if process.returncode == 0:
                    self.game_over_at = self.game_over_at or time.monotonic()
                elif peer.restarts:
                    # Started again, it could not join: the member it asked went down meanwhile. It
                    # tries again, through another member, as its player would.
                    peer.failed_restarts += 1
                    peer.process, peer.wants_restart = None, True
            if not peer.wants_restart:
                continue
            if self.game_over and not any(other.up for other in self.peers):
                peer.wants_restart = False  # the table finished while it was down: nobody to join
            elif self._restart(peer):
                peer.wants_restart = False

    def _stop_the_stragglers(self) -> None:
        """Long after the first peer finished, the peers still running missed the end (cut off or down
        when the table finished, they wait for a table that is gone): stopped, they are listed."""
        for peer in self.peers:
            peer.wants_restart = False
            if peer.process is not None and peer.process.poll() is None:
                peer.process.kill()
                peer.process.wait()

    def _missed_the_end(self, peer: PeerProcess) -> bool:
        """Whether ``peer`` was under a fault when the game ended, or shortly before: its seat's stand-in
        may have finished the game without it, rightly."""
        if self.game_over_at is None:
            return False
        ended = self.game_over_at - self.started
        return any(
            f.peer == peer.index and f.at_s + f.duration_s >= ended - LATE_FAULT_S for f in self.faults
        )

    def _peer_of(self, node_id: str) -> int | None:
        try:
            port = int(node_id.rsplit("~", 1)[0].rsplit(":", 1)[1])
        except (IndexError, ValueError):
            return None
        return next((peer.index for peer in self.peers if peer.port == port), None)

    # --- faults ------------------------------------------------------------------------------------

    def _pick(self, planned: Planned) -> PeerProcess | None:
        ready = [peer for peer in self.peers if peer.ready]
        if planned.at_leader and self.leader is not None and self.peers[self.leader] in ready:
            return self.peers[self.leader]
        return ready[int(planned.pick * len(ready))] if ready else None

    def _start(self, peer: PeerProcess, planned: Planned, now: float) -> None:
        process = peer.process
        assert process is not None
        fault = Fault(
            planned.kind, peer.index, now - self.started, planned.duration_s, peer.index == self.leader
        )
        self.faults.append(fault)
        if fault.kind == "kill":
            process.kill()
            process.wait()
        elif fault.kind == "pause":
            process.send_signal(signal.SIGSTOP)
        elif fault.kind == "partition":
            process.send_signal(chaos.CUT_SIGNAL)
        elif fault.kind == "garbage":
            with contextlib.suppress(OSError):  # the peer went away meanwhile: nothing to send to
                send_garbage(LOOPBACK, peer.port, self.plan.garbage_rng())
            return
        peer.fault = fault

    def _end(self, peer: PeerProcess, now: float) -> None:
        fault, process = peer.fault, peer.process
        assert fault is not None and process is not None
        if fault.kind == "kill":
            peer.process, peer.wants_restart = None, True  # started again at the next look
        elif fault.kind == "pause":
            process.send_signal(signal.SIGCONT)
        elif fault.kind == "partition":
            process.send_signal(chaos.HEAL_SIGNAL)
        fault.duration_s = now - self.started - fault.at_s
        peer.fault = None

    def _contacts(self, exclude: PeerProcess | None) -> list[PeerProcess]:
        """The members a peer may join through: up, under no fault and up for a while (one started
        again may still be replaying the log) if any is."""
        up = [p for p in self.peers if p is not exclude and p.ready]
        calm = [p for p in up if p.fault is None]
        settled = [p for p in calm if time.monotonic() - p.started_at > SETTLE_S]
        return settled or calm or up

    def _restart(self, peer: PeerProcess) -> bool:
        """Start ``peer``'s player again on its data directory, joining through a member that is up."""
        contacts = self._contacts(exclude=peer)
        if not contacts:
            return False
        via = contacts[(peer.index + peer.restarts) % len(contacts)]
        if peer.argv[0] == "host":  # the founder comes back as the join its `kdm host` would make
            drop = {"--players", "--option", "--variant", "--table", "--deck"}
            argv = ["join", f"{LOOPBACK}:{via.port}", *_without(peer.argv[1:], drop, {"--no-advertise"})]
        else:
            argv = ["join", f"{LOOPBACK}:{via.port}", *peer.argv[2:]]
        peer.restarts += 1
        self._spawn(peer, argv)
        return True

    # --- the summary -------------------------------------------------------------------------------

    def _summary(self, rounds: int) -> dict[str, Any]:
        root, peers = self.root, self.peers
        reports = [json.loads((root / f"peer{p.index}.json").read_text())
                   for p in peers if (root / f"peer{p.index}.json").exists()]  # fmt: skip
        absent = [p for p in peers if not (root / f"peer{p.index}.json").exists()]
        missed = [p.index for p in absent if self._missed_the_end(p)]
        unfinished = [p.index for p in absent if p.index not in missed]
        if not reports or (unfinished and not self.kinds):
            raise UsageError(
                f"only {len(reports)} of {len(peers)} peers finished; run with KDM_LOG=info to see why"
            )
        latencies = sorted(ms for report in reports for ms in report["latencies_ms"])
        journals = [read_journal(p.data / chaos.JOURNAL_FILE) for p in peers]
        logs = [_final_log(p.data) for p in peers]
        check = check_commits(journals, [log for log in logs if log is not None])
        summary: dict[str, Any] = {
            "peers": len(peers),
            "rounds": rounds,
            "digests": [report["digest"] for report in reports],
            "commit_latency_ms": {"p50": percentile(latencies, 50), "p99": percentile(latencies, 99)},
            "slap_windows": reports[0]["slap_windows"],
            "deck": ",".join(sorted({report.get("deck", "open") for report in reports})),
            "cheats": sorted({cheat for report in reports for cheat in report.get("cheats", [])}),
            "lost_commits": check.lost,
            "journaled_commits": check.journaled,
            "divergent_logs": check.divergent,
            "faults": [fault.as_json() for fault in self.faults],
        }
        if check.examples:
            summary["lost_examples"] = check.examples
        if self.kinds:
            # Under a fault when the table finished, or just before: it rightly ended without them.
            summary["missed_the_end"] = missed
            # No report for another reason: a peer that could not come back, or crashed.
            summary["unfinished"] = unfinished
            since = self.game_started or self.started
            until = max((line.seen_s for journal in journals for line in journal), default=since)
            stall, ended = longest_stall(journals, since, until)
            summary["chaos"] = list(self.kinds)
            summary["restarts"] = sum(p.restarts for p in peers)
            # The longest time no peer saw a new commit, and when (since the start) it ended.
            summary["longest_stall_s"] = round(stall, 3)
            summary["longest_stall_ended_at_s"] = round(ended - self.started, 3)
        summary["seconds"] = round(time.monotonic() - self.started, 3)
        return summary


def _without(argv: list[str], flags: set[str], switches: set[str]) -> list[str]:
    """``argv`` less each flag of ``flags`` with its value, and each of ``switches``."""
    kept: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg in flags:
            skip = True
        elif arg not in switches:
            kept.append(arg)
    return kept


def _final_log(data: Path) -> tuple[int, list[Any]] | None:
    """The log of a peer's last process (its newest log file): (its commit index, its entries)."""
    files = sorted((data / "tables").glob("*.log"), key=lambda path: path.stat().st_mtime)
    if not files:
        return None
    hard_state, entries = read_log(files[-1])
    return hard_state.commit, entries


def _free_ports(count: int) -> list[int]:
    """Ports free on loopback now, one per peer, kept across a peer's restarts."""
    sockets = [socket.socket() for _ in range(count)]
    try:
        for sock in sockets:
            sock.bind((LOOPBACK, 0))
        return [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()
