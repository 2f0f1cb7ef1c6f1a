"""A terminal in tmux: a detached 80×24 session on a private server, its screen read and keys sent,
every wait bounded by a deadline. Skips without tmux, except under CI=true, where a skip is a failure.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

TMUX = shutil.which("tmux")


REPO = Path(__file__).resolve().parents[2]


STEP_S = 60.0


def require_tmux() -> str:
    if TMUX is None:
        if os.environ.get("CI") == "true":
            pytest.fail("CI must run the tmux end-to-end test, but tmux is not installed")
        pytest.skip("tmux is not installed")
    return TMUX


class Pane:
    """One detached tmux session on a private server, 80×24."""

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
