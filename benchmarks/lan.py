"""LAN figures between laptops made of Linux network namespaces: discovery, a player back at their seat,
and a dead leader, with ``kdm`` run as players run it (no ``--interface``, real multicast, kill -9).

Each run builds a fresh LAN of four laptops (``tests.helpers.netns.NamespaceLan``: a namespace, a name, a home
each) and plays one table on it. laptop0 hosts ``kdm host --name bench --players 4 --headless --as-bot
greedy --option rounds=30``; laptop1 and laptop2 join it by name (``kdm join bench``), and laptop2 adds a
``kdm bot bench``. Every process's output (its game log: stdout, without ``--json``) is read on a thread
that notes the ``time.monotonic()`` each line arrives at, one clock for every namespace of the machine.
Prints one JSON object per figure (min, median and max over the runs, in ms):

- ``discovery_running_browser``: from the host printing ``listening on ...`` to a ``TableBrowser``
  already running on laptop1 listing the table (the host first elects itself leader of its one-node
  table, then advertises, and mDNS probes before it announces; ``leader_after_listening_median_ms`` is
  the first part, up to the host's own ``leader: `` line);
- ``discovery_new_browser``: a ``TableBrowser`` started on laptop3 once the table is advertised, from its
  start to the table listed;
- ``discovery_tables_command``: the wall time of ``kdm tables --json --wait 0.5`` on laptop3 (it always
  listens for the whole wait), and how many runs listed the table;
- ``takeover``: laptop1's ``kdm join`` killed (SIGKILL) mid-game → the host prints ``a bot stands in for
  seat 1``;
- ``rejoin``: the same ``kdm join bench`` started again on laptop1 → the host prints ``... takes seat 1
  back`` (joining by name goes on once the table answers, and another of that name had 0.3 s to;
  ``first_line_median_ms`` is the part up to the new process's first line, printed once it has
  reached the table);
- ``rejoin_lobby``: that process killed too; a lobby already open on laptop1 (``LOBBY``: a
  ``TableBrowser``, as ``kdm play``'s lobby holds) lists the table with the seat the player holds, and
  the player presses Enter on "return to your seat": from then, what the lobby does (``session.join``
  with the advertised addresses, no PIN asked) → the host prints ``... takes seat 1 back``;
- ``failover_leader``, ``failover_next_event``, ``failover_stand_in``: the host (the leader) killed → a
  survivor (laptop2's joiner) prints ``leader: `` naming another node; → its next game event (a pass, a
  draw, a slap, a card held) after that; → ``a bot stands in for seat 0``. When the dead seat was the
  one to play, the next event waits for its stand-in (``waited_for_dead_seat`` counts those runs).

Needs root, iproute2 and util-linux's ``unshare``, like the LAN tests.

    sudo .venv/bin/python benchmarks/lan.py [--runs 5]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import signal
import statistics
import subprocess
import sys
import textwrap
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository root, for `tests`

from tests.helpers.netns import NamespaceLan

TABLE = "bench"
LAPTOPS = 4
PLAYER = ["--headless", "--as-bot", "greedy"]  # a player who lets a bot play; the game log on stdout
OPTIONS = ["--option", "rounds=30"]  # far more than a run plays: the game never ends during one
TABLES_WAIT_S = 0.5
DEADLINE_S = 60.0

#: A TableBrowser, as ``kdm tables`` and ``kdm join NAME`` use it, printing when the table list changes.
BROWSER = textwrap.dedent(
    """
    import asyncio, json, sys, time
    from kdm.net.discovery import TableBrowser

    def say(event, **fields):
        print(json.dumps({"event": event, "t": time.monotonic(), **fields}), flush=True)

    async def main():
        browser = TableBrowser(lambda: say("tables", names=[ad.name for ad in browser.tables()]))
        say("starting")
        await browser.start()
        say("started")
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
        await browser.close()

    asyncio.run(main())
    """
)


#: The lobby's "return to your seat": a browser lists the table, the player presses Enter once it shows,
#: and the lobby hands ``session.join`` the table's advertised addresses (``kdm.tui.command``), here
#: headless with a bot at the seat, as ``PLAYER`` plays.
LOBBY = textwrap.dedent(
    """
    import asyncio, json, socket, sys, time
    from kdm import session
    from kdm.net.discovery import TableBrowser

    def say(event, **fields):
        print(json.dumps({"event": event, "t": time.monotonic(), **fields}), flush=True)

    async def main():
        listed = asyncio.Event()

        def changed():
            if any(ad.name == sys.argv[1] for ad in browser.tables()):
                listed.set()

        browser = TableBrowser(changed)
        await browser.start()
        await listed.wait()
        (ad,) = [ad for ad in browser.tables() if ad.name == sys.argv[1]]
        await browser.close()
        config = session.SessionConfig(bot="greedy", name=socket.gethostname())
        say("enter")
        await session.join(config, ad.name, addresses=ad.contacts)

    asyncio.run(main())
    """
)


class Lines:
    """A process's output read on a thread as it comes, each line with the monotonic time it arrived."""

    def __init__(self, name: str, stream: IO[str]) -> None:
        self.name = name
        self.lines: list[tuple[float, str]] = []
        self.ended = False
        self._changed = threading.Condition()
        threading.Thread(target=self._pump, args=(stream,), daemon=True).start()

    def _pump(self, stream: IO[str]) -> None:
        for line in stream:
            arrived = time.monotonic()
            with self._changed:
                self.lines.append((arrived, line.rstrip("\n")))
                self._changed.notify_all()
        with self._changed:
            self.ended = True
            self._changed.notify_all()

    def mark(self) -> int:
        """Where the output is now: `wait_for` from here sees only lines that come after."""
        with self._changed:
            return len(self.lines)

    def wait_for(
        self, predicate: Callable[[str], bool], what: str, start: int = 0, timeout: float = DEADLINE_S
    ) -> tuple[int, float, str]:
        """The first line from index `start` on satisfying `predicate`: (its index, arrival, text)."""
        deadline = time.monotonic() + timeout
        with self._changed:
            index = start
            while True:
                while index < len(self.lines):
                    arrived, line = self.lines[index]
                    if predicate(line):
                        return index, arrived, line
                    index += 1
                remaining = deadline - time.monotonic()
                if self.ended or remaining <= 0:
                    why = "ended" if self.ended else f"{timeout:.0f} s passed"
                    raise RuntimeError(f"{self.name} did not say {what} ({why})")
                self._changed.wait(remaining)


class Laptops:
    """The processes of one run on a NamespaceLan, by name, with their output read live."""

    def __init__(self, lan: NamespaceLan) -> None:
        self.lan = lan
        self.processes: dict[str, tuple[subprocess.Popen[str], Lines]] = {}

    def start(self, name: str, laptop: int, argv: list[str]) -> tuple[subprocess.Popen[str], Lines]:
        process = self.lan.run(
            laptop,
            [sys.executable, *argv],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,  # one timeline: kdm's warnings (``kdm.peer: ...``) among the log
            text=True,
        )
        assert process.stdout is not None
        self.processes[name] = (process, Lines(name, process.stdout))
        return self.processes[name]

    def kdm(self, name: str, laptop: int, *args: str) -> tuple[subprocess.Popen[str], Lines]:
        return self.start(name, laptop, ["-m", "kdm", *args])

    def dump(self, out: IO[str]) -> None:
        for name, (_, lines) in self.processes.items():
            print(f"--- {name} ---", file=out)
            for arrived, line in lines.lines[-30:]:
                print(f"{arrived:12.3f} {line}", file=out)


def is_event(line: str) -> bool:
    return any(word in line for word in ("passes to", "draws", "SLAP", "feints", "holds"))


def browser_event(event: str, name: str | None = None) -> Callable[[str], bool]:
    def matches(line: str) -> bool:
        if not line.startswith("{"):
            return False
        said = json.loads(line)
        return bool(said["event"] == event and (name is None or name in said.get("names", [])))

    return matches


def at(line: str) -> float:
    """The monotonic time a browser line says it was printed at."""
    return float(json.loads(line)["t"])


def one_run(samples: dict[str, list[float]], counts: dict[str, int]) -> None:
    """One table on a fresh LAN; each figure's sample is added to `samples` as soon as it is measured."""

    def note(figure: str, seconds: float) -> None:
        samples.setdefault(figure, []).append(seconds * 1000)

    with NamespaceLan(LAPTOPS) as lan:
        laptops = Laptops(lan)
        try:
            # Discovery by a browser already running on laptop1.
            browser, browser_out = laptops.start("browser@laptop1", 1, ["-c", BROWSER])
            browser_out.wait_for(browser_event("started"), "started")
            _, host_out = laptops.kdm("host@laptop0", 0, "host", "--table", TABLE, "--players", "4",
                                      *OPTIONS, *PLAYER)  # fmt: skip
            _, listening, line = host_out.wait_for(lambda line: line.startswith("listening on "), "listening")
            contact = line.split()[2]
            _, leading, _ = host_out.wait_for(lambda line: line.startswith("leader: "), "its own leader")
            _, _, seen = browser_out.wait_for(browser_event("tables", TABLE), "the table listed")
            note("discovery_running_browser", at(seen) - listening)
            note("host_listening_to_leader", leading - listening)
            assert browser.stdin is not None
            browser.stdin.write("\n")
            browser.stdin.flush()

            # A browser started once the table is advertised, then `kdm tables`, on laptop3.
            _, fresh_out = laptops.start("new browser@laptop3", 3, ["-c", BROWSER])
            _, _, starting = fresh_out.wait_for(browser_event("starting"), "starting")
            _, _, seen = fresh_out.wait_for(browser_event("tables", TABLE), "the table listed")
            note("discovery_new_browser", at(seen) - at(starting))
            fresh, _ = laptops.processes["new browser@laptop3"]
            assert fresh.stdin is not None
            fresh.stdin.write("\n")
            fresh.stdin.flush()
            started = time.monotonic()
            tables, tables_out = laptops.kdm("tables@laptop3", 3, "tables", "--json", "--wait",
                                             str(TABLES_WAIT_S))  # fmt: skip
            tables.wait(DEADLINE_S)
            note("discovery_tables_command", time.monotonic() - started)
            listed = [json.loads(line) for _, line in tables_out.lines if line.startswith("[")]
            if listed and any(table["name"] == TABLE for table in listed[0]):
                counts["tables_listed"] = counts.get("tables_listed", 0) + 1

            # Two friends join by name; laptop2 adds a bot.
            joiner1, _ = laptops.kdm("join@laptop1", 1, "join", TABLE, *PLAYER)
            host_out.wait_for(lambda line: line.endswith("takes seat 1"), "seat 1 taken")
            _, survivor_out = laptops.kdm("join@laptop2", 2, "join", TABLE, *PLAYER)
            laptops.kdm("bot@laptop2", 2, "bot", TABLE)
            mark = host_out.mark()
            index, _, _ = host_out.wait_for(lambda line: line == "the game starts", "the start", mark)
            host_out.wait_for(lambda line: "passes to" in line, "a first pass", index)

            # laptop1's kdm dies; a bot stands in; the player starts the same command again.
            mark = host_out.mark()
            killed = time.monotonic()
            joiner1.send_signal(signal.SIGKILL)
            index, stand_in, _ = host_out.wait_for(
                lambda line: line.startswith("a bot stands in for seat 1"), "a stand-in for seat 1", mark
            )
            note("takeover", stand_in - killed)
            joiner1.wait(DEADLINE_S)
            restarted = time.monotonic()
            _, back_out = laptops.kdm("join again@laptop1", 1, "join", TABLE, *PLAYER)
            index, back, _ = host_out.wait_for(
                lambda line: line.endswith("takes seat 1 back"), "seat 1 back", index
            )
            note("rejoin", back - restarted)
            _, first, _ = back_out.wait_for(lambda line: True, "a first line")
            note("rejoin_first_line", first - restarted)
            index, _, _ = host_out.wait_for(is_event, "a game event after its return", index + 1)

            # Killed again; this time the player comes back through the lobby, already open.
            again, _ = laptops.processes["join again@laptop1"]
            again.send_signal(signal.SIGKILL)
            index, _, _ = host_out.wait_for(
                lambda line: line.startswith("a bot stands in for seat 1"), "a stand-in again", index
            )
            again.wait(DEADLINE_S)
            _, lobby_out = laptops.start("lobby@laptop1", 1, ["-c", LOBBY, TABLE])
            _, _, entered = lobby_out.wait_for(browser_event("enter"), "Enter pressed")
            index, back, _ = host_out.wait_for(
                lambda line: line.endswith("takes seat 1 back"), "seat 1 back from the lobby", index
            )
            note("rejoin_lobby", back - at(entered))
            host_out.wait_for(is_event, "a game event after its return", index + 1)

            # The host, the leader, dies.
            host, _ = laptops.processes["host@laptop0"]
            mark = survivor_out.mark()
            killed = time.monotonic()
            host.send_signal(signal.SIGKILL)
            index, leader, line = survivor_out.wait_for(
                lambda line: line.startswith("leader: ") and not line.startswith(f"leader: {contact}~"),
                "a new leader",
                mark,
            )
            note("failover_leader", leader - killed)
            index, event, _ = survivor_out.wait_for(is_event, "a game event after the new leader", index + 1)
            note("failover_next_event", event - killed)
            _, stand_in, _ = survivor_out.wait_for(
                lambda line: line.startswith("a bot stands in for seat 0"), "a stand-in for seat 0", mark
            )
            note("failover_stand_in", stand_in - killed)
            if stand_in < event:
                counts["waited_for_dead_seat"] = counts.get("waited_for_dead_seat", 0) + 1
        except BaseException:
            laptops.dump(sys.stderr)
            raise


def machine() -> dict[str, object]:
    return {
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "date": datetime.date.today().isoformat(),
    }


def summary(figure: str, values_ms: list[float], **extra: Any) -> dict[str, object]:
    return {
        "figure": figure,
        "runs": len(values_ms),
        "min_ms": round(min(values_ms), 1),
        "median_ms": round(statistics.median(values_ms), 1),
        "max_ms": round(max(values_ms), 1),
        **extra,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="tables to play, one fresh LAN each (default 5)")
    args = parser.parse_args()
    reason = NamespaceLan.skip_reason()
    if reason is not None:
        parser.exit(2, f"{parser.prog}: error: {reason}\n")
    samples: dict[str, list[float]] = {}
    counts: dict[str, int] = {}
    failures = 0
    for run in range(args.runs):
        began = time.monotonic()
        try:
            one_run(samples, counts)
        except Exception:
            failures += 1
            traceback.print_exc()
        print(f"run {run + 1}/{args.runs}: {time.monotonic() - began:.1f} s", file=sys.stderr, flush=True)
    common = {"laptops": LAPTOPS, "players": 4, "failed_runs": failures, **machine()}

    def median_of(name: str) -> float | None:
        return round(statistics.median(samples[name]), 1) if samples.get(name) else None

    extras: dict[str, dict[str, object]] = {
        "discovery_running_browser": {
            "leader_after_listening_median_ms": median_of("host_listening_to_leader")
        },
        "discovery_tables_command": {"wait_s": TABLES_WAIT_S, "listed": counts.get("tables_listed", 0)},
        "rejoin": {"first_line_median_ms": median_of("rejoin_first_line")},
        "failover_next_event": {"waited_for_dead_seat": counts.get("waited_for_dead_seat", 0)},
    }
    figures = ["discovery_running_browser", "discovery_new_browser", "discovery_tables_command", "takeover",
               "rejoin", "rejoin_lobby", "failover_leader", "failover_next_event",
               "failover_stand_in"]  # fmt: skip
    for figure in figures:
        if samples.get(figure):
            line = summary(figure, samples[figure], **extras.get(figure, {}), **common)
            print(json.dumps(line), flush=True)
    if failures:
        sys.exit(1)


if __name__ == "__main__":
    main()
