"""How much CPU kdm spends: per commit and per idle second at a table, and in an idle kdm (issue 28).

A table here is ``benchmarks/consensus_latency.py``'s: N node processes on 127.0.0.1 with CurveZMQ, signed
consensus, the leader's screening and logs on disk, and no game. For each size this script starts one,
lets it settle, then reads every process's CPU (its CPU clock, to the nanosecond: all its threads, zmq's
I/O thread included) over two spans:

- ``--idle-s`` seconds with nothing to commit: the **idle** cost, in cores for the table and in percent of
  a core per peer;
- ``--entries`` entries proposed by one follower, one at a time, ``--gap-ms`` apart: the CPU of that span,
  less the idle cost over its length, divided by the entries, is the **work per commit**, summed over
  every peer.

and each process's resident memory after. An idle ``kdm`` is measured the way people leave one: ``kdm host
--headless`` waiting alone for players (its table advertised, on 127.0.0.1), and ``kdm play`` showing the
lobby in a terminal (a pseudo-terminal here), each for ``--idle-s`` seconds after ``--settle-s``; a
``kdm`` table in play at rest is ``--seats`` players' ``kdm host`` and ``kdm join`` (headless, by name,
each with a home of its own) once the game has started and its first player thinks, and the same table
with its host a player at the table screen (``kdm host`` in a pseudo-terminal).

Several trees (each a checkout with its own ``.venv``, as ``make test`` makes it) are measured side by
side: every round runs each figure on each tree in turn, so a change in the machine's load falls on all of
them. ``--profile DIR`` also profiles every node of the first round (CPU time of the main thread, under
cProfile: slower, so its runs' figures are not summarised) and prints the leader's and a follower's top
lines, per tree. Prints one JSON object per run, then one per tree and figure: the median over the
rounds and the spread. Linux only (``/proc``). Nothing here asserts on time.

    python benchmarks/cpu.py [--trees . /tmp/kdm-before] [--peers [4 10]] [--runs 3] [--entries 150]
        [--gap-ms 20] [--idle-s 10] [--settle-s 3] [--no-kdm] [--seats [4]] [--profile DIR]
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import pstats
import pty
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from consensus_latency import _line, stop  # this folder's: the table measured is that script's

# Outside a namespace the benchmarks keep to loopback, like the tests (tests/conftest.py).
os.environ.setdefault("KDM_INTERFACE", "127.0.0.1")
# Measured as installed: pip writes the bytecode caches, and a process that may not (a shell with
# PYTHONDONTWRITEBYTECODE, as some development machines have) compiles every module at each start, and
# keeps about 2 MiB more resident for it.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
_TABLES = itertools.count()

# Run by a tree's python in place of ``consensus_latency.py --child ...``: the same node, its main thread's
# CPU profiled (``time.thread_time``: what it computes, not what it waits for), the stats left in a file.
_PROFILED = """
import cProfile, runpy, sys, time
out, script = sys.argv[1], sys.argv[2]
sys.argv = sys.argv[2:]
profiler = cProfile.Profile(time.thread_time)
try:
    profiler.runcall(runpy.run_path, script, run_name="__main__")
finally:
    profiler.dump_stats(out)
"""


def cpu_s(pid: int) -> float:
    """The CPU time process ``pid`` has used so far, every thread of it (those that ended too), in seconds.

    Read from the process's CPU clock, to the nanosecond (Linux gives every process one, readable by its
    user: ``clock_getcpuclockid``, which Python lacks, makes its id so). ``/proc/PID/stat``, read before
    2026-12-07, counts in 10 ms ticks: over a 20 s span at rest, a step of 0.05 % of a core, as large as
    the differences measured; it is the fallback where the clock cannot be read."""
    try:
        return time.clock_gettime(_process_cpu_clock(pid))
    except OSError:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime + stime


def _process_cpu_clock(pid: int) -> int:
    """The id of process ``pid``'s CPU clock, as glibc's ``clock_getcpuclockid`` makes it (the kernel's
    ``MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED)``)."""
    return ((~pid) << 3) | 2


def main_thread_wakes(pid: int) -> int:
    """How many times process ``pid``'s main thread has gone to sleep and been woken so far: its voluntary
    context switches. At rest every one is a wake-up (a message, a timer), and a wake-up, more than the
    work it does, is what a peer at rest spends (issue 28: 0.4 to 1 ms of CPU each on this machine)."""
    return _status_number(Path(f"/proc/{pid}/task/{pid}/status"), "voluntary_ctxt_switches")


def rss_mib(pid: int) -> float:
    return _status_number(Path(f"/proc/{pid}/status"), "VmRSS") / 1024


def _status_number(path: Path, field: str) -> int:
    """The number a ``/proc`` status file gives for ``field`` (its first word after the name)."""
    for line in path.read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1])
    raise RuntimeError(f"no {field} in {path}")


def _summary(values: list[float], digits: int = 3) -> dict[str, float]:
    return {
        "median": round(statistics.median(values), digits),
        "min": round(min(values), digits),
        "max": round(max(values), digits),
    }


@contextlib.contextmanager
def _table(tree: Path, peers: int, profile_to: Path | None) -> Iterator[list[subprocess.Popen[str]]]:
    """``peers`` node processes of ``tree``'s ``consensus_latency.py``, every one a voter, founder first."""
    python, script = str(tree / ".venv" / "bin" / "python"), str(tree / "benchmarks" / "consensus_latency.py")
    with tempfile.TemporaryDirectory(prefix="kdm-cpu-") as folder:
        processes: list[subprocess.Popen[str]] = []
        try:
            founder = ""
            for index in range(peers):
                child = [script, "--child", str(index), "--folder", folder]
                child += ["--founder", founder] if founder else []
                if profile_to is not None:
                    child = ["-c", _PROFILED, str(profile_to / f"node{index}.prof"), *child]
                process = subprocess.Popen(
                    [python, *child], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=tree
                )
                processes.append(process)
                founder = founder or _line(process)  # its id (the founder's names the table)
                if index:
                    _line(process)
                _line(process)  # a voter now
            yield processes
        finally:
            stop(processes)


def _cpu_of(processes: list[subprocess.Popen[str]]) -> float:
    return sum(cpu_s(process.pid) for process in processes)


def table_run(
    tree: Path, peers: int, args: argparse.Namespace, profile_to: Path | None = None
) -> dict[str, object]:
    """One table of ``tree``: its idle cost, then its work per commit (see the module's docstring)."""
    with _table(tree, peers, profile_to) as processes:
        time.sleep(args.settle_s)  # the joins' catch-up traffic over
        before, started = _cpu_of(processes), time.perf_counter()
        time.sleep(args.idle_s)
        idle_s = time.perf_counter() - started
        idle_cores = (_cpu_of(processes) - before) / idle_s
        proposer = processes[1]
        assert proposer.stdin is not None
        before, started = _cpu_of(processes), time.perf_counter()
        proposer.stdin.write(f"propose {args.entries} {args.gap_ms}\n")
        proposer.stdin.flush()
        latencies = json.loads(_line(proposer))
        busy_s = time.perf_counter() - started
        busy_cpu = _cpu_of(processes) - before
        rss = [rss_mib(process.pid) for process in processes]
    latencies.sort()
    return {
        "figure": "table",
        "tree": str(tree),
        "peers": peers,
        "profiled": profile_to is not None,
        "idle_cores": round(idle_cores, 4),
        "idle_percent_per_peer": round(100 * idle_cores / peers, 3),
        "cpu_per_commit_ms": round((busy_cpu - idle_cores * busy_s) * 1000 / args.entries, 3),
        "commit_p50_ms": round(statistics.median(latencies), 2),
        "commit_p99_ms": round(latencies[int(0.99 * (len(latencies) - 1))], 2),
        "rss_mib_max": round(max(rss), 1),
    }


def idle_kdm(tree: Path, what: str, args: argparse.Namespace) -> dict[str, object]:
    """An idle ``kdm``: ``waiting_room`` (``kdm host --headless``, alone) or ``lobby`` (``kdm play`` in a
    terminal, listing tables); its CPU over ``--idle-s`` and its resident memory."""
    kdm = str(tree / ".venv" / "bin" / "kdm")
    with tempfile.TemporaryDirectory(prefix="kdm-cpu-home-") as home:
        env = {
            **os.environ,
            "HOME": home,
            "XDG_DATA_HOME": f"{home}/data",
            "XDG_CONFIG_HOME": f"{home}/config",
        }
        if what == "waiting_room":
            command = [kdm, "host", "--headless", "--players", "4", "--name", "Bench"]
            process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env=env,
            )
            terminal = None
        else:
            terminal, other_end = pty.openpty()
            os.set_blocking(terminal, False)
            env["TERM"] = "xterm-256color"
            process = subprocess.Popen(
                [kdm, "play", "--name", "Bench"], stdin=other_end, stdout=other_end, stderr=other_end, env=env
            )
            os.close(other_end)
        try:
            _keep_read(terminal, args.settle_s)
            if process.poll() is not None:
                raise RuntimeError(f"{what}: kdm exited with status {process.returncode}")
            before, started = cpu_s(process.pid), time.perf_counter()
            _keep_read(terminal, args.idle_s)
            used, seconds = cpu_s(process.pid) - before, time.perf_counter() - started
            rss = rss_mib(process.pid)
        finally:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
            if terminal is not None:
                os.close(terminal)
    return {
        "figure": what,
        "tree": str(tree),
        "idle_percent": round(100 * used / seconds, 3),
        "rss_mib": round(rss, 1),
    }


def game_at_rest(tree: Path, seats: int, args: argparse.Namespace, screen: bool = False) -> dict[str, object]:
    """A ``kdm`` table in play with nothing to do: ``kdm host --headless`` and ``seats - 1`` ``kdm join
    --headless`` by name, each with a home of its own and a player who does not play, measured once the
    game has started (the first player to act thinks): every process's CPU over ``--idle-s`` and its
    resident memory. What a table of friends costs while one of them thinks: its seat watchers and
    the rest of ``kdm``, which a table of nodes has not. ``host_wakes_per_s`` and ``joiner_wakes_per_s``
    count the main thread's wake-ups (``main_thread_wakes``), the host's and the joiners' median.

    With ``screen`` (the figure ``screen_at_rest``), the host is a player at their table screen (``kdm
    host`` in a pseudo-terminal, its output read as a terminal would): ``screen_percent`` is its CPU."""
    kdm = str(tree / ".venv" / "bin" / "kdm")
    table = f"rest{os.getpid()}x{next(_TABLES)}"  # a name of its own: another run's may still be listed
    terminal: int | None = None
    with tempfile.TemporaryDirectory(prefix="kdm-cpu-rest-") as folder:
        processes: list[subprocess.Popen[bytes]] = []
        logs: list[Path] = []
        try:
            for seat in range(seats):
                home = Path(folder) / f"player{seat}"
                home.mkdir()
                env = {**os.environ, "HOME": str(home), "XDG_DATA_HOME": f"{home}/data",
                       "XDG_CONFIG_HOME": f"{home}/config"}  # fmt: skip
                command = (
                    [kdm, "host", "--players", str(seats), "--table", table]
                    if seat == 0
                    else [kdm, "join", table, "--headless"]
                )
                argv = [*command, "--name", f"P{seat}"]
                if seat == 0 and screen:
                    terminal, other_end = pty.openpty()
                    os.set_blocking(terminal, False)
                    env["TERM"] = "xterm-256color"
                    processes.append(
                        subprocess.Popen(argv, stdin=other_end, stdout=other_end, stderr=other_end, env=env)
                    )
                    os.close(other_end)
                    _wait_on_screen(terminal, table.encode(), processes)  # its waiting room is up
                    continue
                if seat == 0:
                    argv.insert(2, "--headless")
                logs.append(home / "log")
                with logs[-1].open("wb") as log:
                    # stdin stays open and silent: a player who does not play yet; the log on stdout
                    processes.append(
                        subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=log, stderr=log, env=env)
                    )
                if seat == 0:
                    _wait_for(logs[0], "listening on", processes)
            for log in logs:
                _wait_for(log, "the game starts", processes, terminal)
            _keep_read(terminal, args.settle_s)
            before, started = [cpu_s(process.pid) for process in processes], time.perf_counter()
            slept = [main_thread_wakes(process.pid) for process in processes]
            _keep_read(terminal, args.idle_s)
            seconds = time.perf_counter() - started
            used = [cpu_s(process.pid) - then for process, then in zip(processes, before, strict=True)]
            woken = [
                main_thread_wakes(process.pid) - then for process, then in zip(processes, slept, strict=True)
            ]
            rss = [rss_mib(process.pid) for process in processes]
        finally:
            stop_all(processes)
            if terminal is not None:
                os.close(terminal)
    figures: dict[str, object] = {
        "figure": "screen_at_rest" if screen else "game_at_rest",
        "tree": str(tree),
        "peers": seats,
        "idle_percent_per_peer": round(100 * sum(used) / seconds / seats, 3),
        "idle_percent_max": round(100 * max(used) / seconds, 3),
        "rss_mib_max": round(max(rss), 1),
        # The host leads: it wakes for its heartbeats and every answer; a joiner, for each heartbeat.
        "host_wakes_per_s": round(woken[0] / seconds, 2),
        "joiner_wakes_per_s": round(statistics.median(woken[1:]) / seconds, 2),
    }
    if screen:
        figures["screen_percent"] = round(100 * used[0] / seconds, 3)
    return figures


def _keep_read(terminal: int | None, seconds: float) -> None:
    """Sleep ``seconds``, reading the terminal's output meanwhile (as a terminal would) if there is one."""
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        _drain(terminal)
        time.sleep(min(0.25, left))


def _wait_on_screen(
    terminal: int, text: bytes, processes: list[subprocess.Popen[bytes]], timeout_s: float = 60.0
) -> None:
    """Until the terminal shows ``text``; RuntimeError if a process ended, or at the timeout."""
    shown, deadline = b"", time.monotonic() + timeout_s
    while text not in shown:
        if any(process.poll() is not None for process in processes) or time.monotonic() > deadline:
            raise RuntimeError(f"no {text!r} on the screen: {shown[-400:]!r}")
        with contextlib.suppress(BlockingIOError, OSError):
            shown += os.read(terminal, 65536)
        time.sleep(0.05)


def _wait_for(
    log: Path,
    start: str,
    processes: list[subprocess.Popen[bytes]],
    terminal: int | None = None,
    timeout_s: float = 60.0,
) -> None:
    """Until a line of ``log`` starts with ``start`` (reading ``terminal`` meanwhile, if any);
    RuntimeError if a process ended, or at the timeout."""
    deadline = time.monotonic() + timeout_s
    while not any(line.startswith(start) for line in log.read_text(errors="replace").splitlines()):
        if any(process.poll() is not None for process in processes) or time.monotonic() > deadline:
            raise RuntimeError(f"no {start!r} in {log}: " + log.read_text(errors="replace")[-400:])
        _drain(terminal)
        time.sleep(0.1)


def stop_all(processes: list[subprocess.Popen[bytes]]) -> None:
    for process in processes:
        if process.poll() is None:
            process.terminate()
    for process in processes:
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _drain(terminal: int | None) -> None:
    if terminal is None:
        return
    with contextlib.suppress(BlockingIOError, OSError):
        while os.read(terminal, 65536):
            pass


def print_profile(tree: Path, folder: Path, top: int) -> None:
    """The leader's and one follower's top lines by own CPU time, as JSON."""
    for index, role in ((0, "leader"), (2, "follower")):
        path = folder / f"node{index}.prof"
        if not path.exists():
            continue
        stats = pstats.Stats(str(path))
        rows = sorted(stats.stats.items(), key=lambda item: item[1][2], reverse=True)[:top]  # type: ignore[attr-defined]
        lines = [
            {
                "function": f"{Path(file).name}:{line}({name})",
                "calls": calls,
                "own_s": round(own, 3),
                "cumulative_s": round(cumulative, 3),
            }
            for (file, line, name), (_primitive, calls, own, cumulative, _callers) in rows
        ]
        total = round(stats.total_tt, 3)  # type: ignore[attr-defined]
        print(
            json.dumps({"figure": "profile", "tree": str(tree), "node": role, "cpu_s": total, "top": lines})
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--trees", type=Path, nargs="+", default=[Path(".")], help="checkouts, each with .venv"
    )
    parser.add_argument(
        "--peers", type=int, nargs="*", default=[4, 10], help="table sizes (none: only the idle kdm)"
    )
    parser.add_argument(
        "--runs", type=int, default=3, help="rounds; each measures every figure on every tree"
    )
    parser.add_argument("--entries", type=int, default=150, help="entries proposed, one at a time")
    parser.add_argument("--gap-ms", type=float, default=20.0, help="pause after each commit")
    parser.add_argument("--idle-s", type=float, default=10.0, help="how long each idle span lasts")
    parser.add_argument("--settle-s", type=float, default=3.0, help="wait before measuring")
    parser.add_argument("--no-kdm", action="store_true", help="tables only: no idle kdm host or lobby")
    parser.add_argument(
        "--seats", type=int, nargs="*", default=[4], help="sizes of kdm tables measured at rest in play"
    )
    parser.add_argument("--profile", type=Path, help="profile the first round's nodes into this folder")
    parser.add_argument("--top", type=int, default=15, help="lines of each profile printed")
    args = parser.parse_args()
    trees = [tree.resolve() for tree in args.trees]
    results: dict[tuple[str, str, int], list[dict[str, object]]] = {}
    if args.profile is not None:
        for tree in trees:
            for peers in args.peers:
                folder = args.profile / f"{tree.name or 'root'}-{peers}"
                folder.mkdir(parents=True, exist_ok=True)
                print(json.dumps(table_run(tree, peers, args, folder)), flush=True)
                print_profile(tree, folder, args.top)
    for _ in range(args.runs):
        for peers in args.peers:
            for tree in trees:  # in turn, so the machine's mood falls on every tree
                run = table_run(tree, peers, args)
                print(json.dumps(run), flush=True)
                results.setdefault((str(tree), "table", peers), []).append(run)
        if args.no_kdm:
            continue
        for what in ("waiting_room", "lobby"):
            for tree in trees:
                run = idle_kdm(tree, what, args)
                print(json.dumps(run), flush=True)
                results.setdefault((str(tree), what, 0), []).append(run)
        for seats, screen in itertools.product(args.seats, (False, True)):
            for tree in trees:
                run = game_at_rest(tree, seats, args, screen)
                print(json.dumps(run), flush=True)
                results.setdefault((str(tree), str(run["figure"]), seats), []).append(run)
    for (tree_name, figure, peers), runs in results.items():
        keys = [key for key, value in runs[0].items() if isinstance(value, float) and key != "peers"]
        summary = {key: _summary([float(run[key]) for run in runs]) for key in keys}  # type: ignore[arg-type]
        print(
            json.dumps(
                {
                    "figure": f"{figure}_summary",
                    "tree": tree_name,
                    "peers": peers,
                    "runs": len(runs),
                    **summary,
                }
            )
        )


if __name__ == "__main__":
    sys.exit(main())
