"""Tables of real ``kdm`` processes on 127.0.0.1, for the tests that need one: each player a process of
its own (a headless bot player with a key of its own), its output read line by line with a deadline.

Shared by tests/test_comings_and_goings.py (players who leave and come back) and the adversarial suites
(attackers at the table, tests/helpers/attacks.py), where a seat may be played by a modified client
(``program``).
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

from tests.helpers.netns import LineWatcher

KDM = [sys.executable, "-m", "kdm"]
#: The longest a step may take (a line awaited, a process to end), and the longest a table playing a
#: game may stay silent: it says a line for each move.
DEADLINE_S = 120.0
#: No game of the suite plays this long (the longest, three rounds at three seats, took 17 to 97 s
#: alone): a table still playing then is one that talks but never ends.
LONGEST_GAME_S = 600.0
#: How often ``Table.wait_all`` looks whether the processes have ended.
LOOK_S = 0.01


def start(
    *args: str,
    program: Sequence[str] = KDM,
    env: Mapping[str, str] | None = None,
    stdin: int = subprocess.DEVNULL,
) -> tuple[subprocess.Popen[str], LineWatcher]:
    """``program`` (``kdm`` unless told) with ``args``, its output and its log read as one stream."""
    process = subprocess.Popen(
        [*program, *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=stdin, text=True,
        env=dict(env) if env is not None else None,
    )  # fmt: skip
    assert process.stdout is not None
    return process, LineWatcher(process.stdout)


def bot_player(root: Path, index: int) -> list[str]:
    """The flags of a headless bot player with a data directory (and so a key) of its own."""
    return ["--headless", "--as-bot", "greedy", "--data-dir", str(root / f"p{index}")]


class Table:
    """A founder and joiners on 127.0.0.1, each a headless bot player with a key of its own, seat i for
    joiner i; each writes its report (``report i``) when the game ends. ``env`` is every player's
    environment (None: the test's)."""

    def __init__(self, root: Path, env: Mapping[str, str] | None = None) -> None:
        self.root = root
        self.env = env
        self.processes: list[subprocess.Popen[str]] = []
        self.outputs: list[LineWatcher] = []
        self.contact = self.founder = ""

    def report(self, seat: int) -> dict[str, object]:
        result: dict[str, object] = json.loads((self.root / f"report{seat}.json").read_text())
        return result

    def player(
        self, seat: int, *args: str, program: Sequence[str] = KDM, stdin: int = subprocess.DEVNULL
    ) -> tuple[subprocess.Popen[str], LineWatcher]:
        """Start the player of ``seat``: ``args`` is its command (host or join) before the player's flags,
        run by ``program`` (``kdm``, or a modified client that takes the same arguments)."""
        process, output = start(
            *args, *bot_player(self.root, seat), "--report", str(self.root / f"report{seat}.json"),
            program=program, env=self.env, stdin=stdin,
        )  # fmt: skip
        self.processes.append(process)
        self.outputs.append(output)
        return process, output

    @property
    def host(self) -> LineWatcher:
        return self.outputs[0]

    def wait_all(self, look: Callable[[], object] = lambda: None, silent_s: float = DEADLINE_S) -> None:
        """Until every process has ended (the killed ones have already), ``look`` called between looks.

        A game lasts as long as its deal makes it, so what fails is a table that stops: every process
        silent for ``silent_s``, or one still playing after ``LONGEST_GAME_S``."""
        started = time.monotonic()
        while True:
            look()
            running = [index for index, process in enumerate(self.processes) if process.poll() is None]
            if not running:
                return
            now = time.monotonic()
            quiet_s = now - max(output.heard_at for output in self.outputs)
            assert quiet_s < silent_s, f"processes {running} run, and none said a word in {quiet_s:.0f} s"
            assert now - started < LONGEST_GAME_S, f"processes {running} play on after {now - started:.0f} s"
            time.sleep(LOOK_S)  # between looks at the processes, bounded by the deadlines above

    def show(self, last: int = 30) -> None:
        """Print what each process said last (pytest shows it when the test fails)."""
        for index, output in enumerate(self.outputs):
            print(f"--- process {index} ---", *output.lines[-last:], sep="\n")

    def stop(self) -> None:
        """Stop every process still running (woken first, if a test stopped it)."""
        for process in self.processes:
            if process.poll() is None:
                process.send_signal(signal.SIGCONT)
                process.kill()
                process.wait()


@contextmanager
def table(
    root: Path,
    players: int,
    rounds: int | None,
    programs: Mapping[int, Sequence[str]] | None = None,
    env: Mapping[str, str] | None = None,
    options: Sequence[str] = (),
    variants: Sequence[str] = (),
    playing: str | None = "passes to",
    deck: str | None = None,
) -> Iterator[Table]:
    """A table of ``players`` bot players, seated in order, the game started (``programs``: the seats
    played by another program than ``kdm``; ``options``: more table options, ``NAME=VALUE``, with
    ``rounds`` unless None, which a game without rounds takes; ``variants``: the rule plugins, as
    ``--variant``), and ``playing`` said by the host (a line of its game's first moves; None: the game
    starting is enough); ``deck`` is the table's deck service (``--deck``; None: kdm's own choice);
    everything is stopped after, and what each process said is shown when the test fails."""
    scene = Table(root, env)
    programs = programs or {}
    try:
        chosen = [*([f"rounds={rounds}"] if rounds is not None else []), *options]
        flags = [flag for option in chosen for flag in ("--option", option)]
        flags += [flag for variant in variants for flag in ("--variant", variant)]
        flags += ["--deck", deck] if deck is not None else []
        scene.player(
            0, "host", "--players", str(players), *flags, "--no-advertise", program=programs.get(0, KDM)
        )
        listening = scene.host.wait_for(lambda line: line.startswith("listening on "), DEADLINE_S)
        leader = scene.host.wait_for(lambda line: line.startswith("leader: "), DEADLINE_S)
        assert listening is not None and leader is not None
        scene.contact, scene.founder = listening.split()[2], leader.split()[1]
        for seat in range(1, players):  # one after the other, so that joiner i takes seat i
            scene.player(seat, "join", scene.contact, program=programs.get(seat, KDM))
            assert scene.host.wait_for(
                lambda line, seat=seat: line.endswith(f"takes seat {seat}"), DEADLINE_S
            )
        assert scene.host.wait_for(lambda line: line == "the game starts", DEADLINE_S)
        if playing is not None:
            assert scene.host.wait_for(lambda line: playing in line, DEADLINE_S)
        yield scene
    except BaseException:
        scene.show()
        raise
    finally:
        scene.stop()
