"""End to end: a person plays Snap in the real ``kdm play --bots 3 --variant snap``, in an 80×24 tmux
pane driven by ``send-keys``, with three bot processes on loopback and the fair deck a person's table
plays with. The test turns its card on its turn, slaps the centre and sees its slap judged, then
leaves (asking first). Every wait polls ``capture-pane`` against a deadline. It skips without tmux,
except under ``CI=true``, where a skip is a failure.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

NAME = "tester"
STEP_S = 60.0


class Pane:
    """One detached tmux session on a private server."""

    def __init__(self, tmux: str, socket: str) -> None:
        self.tmux, self.socket = tmux, socket

    def run(self, *args: str) -> str:
        done = subprocess.run(
            [self.tmux, "-u", "-L", self.socket, *args], capture_output=True, text=True, timeout=30
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    def keys(self, *keys: str) -> None:
        self.run("send-keys", "-t", "kdm", *keys)

    def text(self) -> str:
        return self.run("capture-pane", "-p", "-t", "kdm")

    def poll(self, condition: Callable[[str], bool], timeout: float) -> str | None:
        """The screen once ``condition`` holds on it, or None after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            screen = self.text()
            if condition(screen):
                return screen
            if time.monotonic() > deadline:
                return None
            time.sleep(0.02)  # a polling interval, not a wait for the game: the deadline bounds it

    def wait(self, condition: Callable[[str], bool], what: str, timeout: float = STEP_S) -> str:
        """The screen once ``condition`` holds on it; fails with the screen after ``timeout``."""
        screen = self.poll(condition, timeout)
        if screen is None:
            raise AssertionError(f"timed out waiting for {what}; the screen:\n{self.text()}")
        return screen


@contextlib.contextmanager
def snap_in_tmux(tmp_path: Path) -> Iterator[Pane]:
    tmux = shutil.which("tmux")
    if tmux is None:
        if os.environ.get("CI") == "true":
            pytest.fail("CI must run the tmux end-to-end test, but tmux is not installed")
        pytest.skip("tmux is not installed")
    command = [sys.executable, "-m", "kdm", "play", "--bots", "3", "--variant", "snap", "--name", NAME,
               "--data-dir", str(tmp_path)]  # fmt: skip
    shell = f"{shlex.join(command)}; echo KDM-EXIT=$?; sleep 120"
    pane = Pane(tmux, f"kdm-snap-test-{os.getpid()}")
    pane.run("new-session", "-d", "-s", "kdm", "-x", "80", "-y", "24", "-e", "LANG=C.UTF-8",
             "-e", "TERM=xterm-256color", "-e", "KDM_INTERFACE=127.0.0.1", "sh", "-c", shell)  # fmt: skip
    socket_path = pane.run("display-message", "-p", "#{socket_path}").strip()
    shell_pid = int(pane.run("list-panes", "-t", "kdm", "-F", "#{pane_pid}").split()[0])
    try:
        yield pane
    finally:
        # A failed test leaves kdm and its bots running: stop them by pid, then the server.
        leftovers = descendants(shell_pid)
        subprocess.run([tmux, "-L", pane.socket, "kill-server"], capture_output=True, timeout=30)
        for pid in leftovers:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, 15)
        Path(socket_path).unlink(missing_ok=True)


def descendants(pid: int) -> list[int]:
    found: list[int] = []
    parents = [pid]
    while parents:
        listing = subprocess.run(
            ["ps", "-o", "pid=", "--ppid", ",".join(map(str, parents))], capture_output=True, text=True
        )
        parents = [int(word) for word in listing.stdout.split()]
        found += parents
    return found


def log(screen: str) -> str:
    """The log panel's rows (right of the rule), as one text."""
    return "\n".join(line.split("│", 1)[1] for line in screen.splitlines() if "│" in line)


@pytest.mark.tmux
def test_a_person_turns_cards_and_slaps_at_a_snap_table_in_tmux(tmp_path: Path) -> None:
    with snap_in_tmux(tmp_path) as pane:
        screen = pane.wait(lambda s: "your turn: Enter turns your card" in s, "our first turn")
        assert "Snap · card 0 of 500" in screen.splitlines()[0]
        assert all(f"bot {n}" in screen for n in (1, 2, 3))
        pane.keys("Enter")
        pane.wait(lambda s: f"{NAME} turns " in log(s), "our card turned, in the log")
        # A card lies on the centre whenever nobody has just won it: slap it, pair or not. A press
        # the table refuses (the centre just won, a reaction quicker than a person) is pressed again.
        deadline = time.monotonic() + STEP_S

        def slapped(screen: str) -> bool:
            return f"{NAME}: Snap!" in log(screen)

        while pane.poll(slapped, timeout=0.0) is None:
            assert time.monotonic() < deadline, f"our slap never reached the log:\n{pane.text()}"
            pane.keys("Space")
            pane.poll(slapped, timeout=1.0)
        screen = pane.wait(
            lambda s: "was quickest" in s or "no pair!" in s, "our slap judged on the table panel"
        )
        assert "order:" in screen and NAME in screen.split("order:")[1]
        pane.keys("q")
        pane.wait(lambda s: "Leave? (y/n" in s, "the quit question")
        pane.keys("y")
        pane.wait(lambda s: "KDM-EXIT=0" in s, "kdm play to exit", timeout=90)
