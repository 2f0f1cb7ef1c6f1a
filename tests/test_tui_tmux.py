"""End to end: the real ``kdm play --bots 3`` in an 80×24 tmux pane, driven by ``send-keys``.

Three bot peers run as separate processes on loopback. The test passes three times, checking each time
that the passed card left the hand and that the log gained "tester passes to bot N"; then it slaps and
waits for the window's result (its order, who draws) on the table; then it quits (asking first). Every
wait polls ``capture-pane`` against a deadline. It skips without tmux, except under ``CI=true``, where a
skip is a failure. It runs ``kdm play`` when the CLI has it, else the same command as ``python -m kdm.tui``.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.tmux import REPO, STEP_S, Pane, require_tmux

pytestmark = pytest.mark.tmux

NAME = "tester"


def play_command() -> list[str]:
    """``kdm play`` if the CLI has it, else the same subcommand on its own."""
    probe = subprocess.run(
        [sys.executable, "-m", "kdm", "play", "--help"], capture_output=True, timeout=60, cwd=REPO
    )
    return (
        [sys.executable, "-m", "kdm", "play"] if probe.returncode == 0 else [sys.executable, "-m", "kdm.tui"]
    )


@contextlib.contextmanager
def kdm_in_tmux(
    tmp_path: Path, *flags: str, folder: Path = REPO, play: list[str] | None = None
) -> Iterator[Pane]:
    """``kdm play --bots 3`` (and ``flags``) in a tmux pane of 80×24, stopped with its bots at the end;
    run from ``folder``, as ``play`` (a command line that means ``kdm play``) when given."""
    tmux = require_tmux()
    socket = f"kdm-test-{os.getpid()}"
    command = [*(play or play_command()), "--bots", "3", "--name", NAME, "--data-dir", str(tmp_path), *flags]
    shell = f"cd {shlex.quote(str(folder))} && {shlex.join(command)}; echo KDM-EXIT=$?; sleep 120"
    terminal = Pane(tmux, socket)
    terminal.run("new-session", "-d", "-s", "kdm", "-x", "80", "-y", "24",
                 "-e", "LANG=C.UTF-8", "-e", "TERM=xterm-256color", "sh", "-c", shell)  # fmt: skip
    socket_path = terminal.run("display-message", "-p", "#{socket_path}").strip()
    shell_pid = int(terminal.run("list-panes", "-t", "kdm", "-F", "#{pane_pid}").split()[0])
    try:
        yield terminal
    finally:
        # A failed test leaves kdm and its bots running: stop them by pid, then the server.
        leftovers = descendants(shell_pid)
        subprocess.run([tmux, "-L", socket, "kill-server"], capture_output=True, timeout=30)
        for pid in leftovers:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
        Path(socket_path).unlink(missing_ok=True)


@pytest.fixture
def pane(tmp_path: Path) -> Iterator[Pane]:
    with kdm_in_tmux(tmp_path) as terminal:
        yield terminal


def descendants(pid: int) -> list[int]:
    """The processes under ``pid`` (children first found, then theirs)."""
    found: list[int] = []
    parents = [pid]
    while parents:
        listing = subprocess.run(
            ["ps", "-o", "pid=", "--ppid", ",".join(map(str, parents))], capture_output=True, text=True
        )
        parents = [int(word) for word in listing.stdout.split()]
        found += parents
    return found


def footer_row(screen: str) -> int | None:
    """The row (from 0) of the table's footer, the line of its keys, or None."""
    rows = [i for i, line in enumerate(screen.split("\n")) if "q quit" in line]
    return rows[-1] if rows else None


def hand(screen: str) -> str:
    lines = screen.splitlines()
    index = next(i for i, line in enumerate(lines) if line.startswith(" Your hand"))
    return lines[index + 1]


def log_lines(screen: str) -> list[str]:
    """The log panel's rows: right of the rule, from under its heading down to the hand."""
    rows = []
    for line in screen.splitlines()[2:]:
        if "│" not in line:
            break
        rows.append(line.split("│", 1)[1].rstrip())
    while rows and not rows[-1]:
        rows.pop()
    return rows


def new_log(before: list[str], after: list[str]) -> str:
    """What the log gained: ``after`` is ``before`` scrolled up by some rows, plus new rows."""
    for shift in range(len(before) + 1):
        kept = before[shift:]
        if after[: len(kept)] == kept:
            return "".join(after[len(kept) :])
    return "".join(after)


#: The hint in place of "your turn" when the deal or a pass left us four of a kind or of a suit.
OUR_COMBO = "a combo: slap now!"


def slap_our_combo(pane: Pane) -> None:
    """We hold a combo at a checkpoint: slap, as a player would, and wait for the window's result."""
    before = log_lines(pane.text())
    pane.keys("Space")
    pane.wait(lambda s: f"SLAP! {NAME}" in new_log(before, log_lines(s)), "our slap of our combo in the log")
    pane.wait(lambda s: re.search(r"order:\s+1\. ", s) is not None and "draws:" in s, "our combo's result")


def pass_first_card(pane: Pane) -> None:
    """On our turn, pass card 1; see it leave the hand and our pass join the log. The deal is the
    peers' (a fair shuffle nobody sets), so a hand may be a combo: then we slap it first."""
    screen = pane.wait(lambda s: "your turn: pass a card" in s or OUR_COMBO in s, "our turn")
    while OUR_COMBO in screen:
        slap_our_combo(pane)
        screen = pane.wait(lambda s: "your turn: pass a card" in s or OUR_COMBO in s, "our turn")
    cards, log = hand(screen), log_lines(screen)
    passed = cards.split()[1]  # " 1  K♥   2  Q♠ ..." → the first card
    pane.keys("1", "Enter")
    screen = pane.wait(
        lambda s: passed not in hand(s) and f"{NAME} passes to bot " in new_log(log, log_lines(s)),
        f"our pass of {passed} in the hand and the log",
    )
    assert hand(screen) != cards


def test_play_with_three_bots_in_tmux(pane: Pane) -> None:
    for _ in range(3):
        pass_first_card(pane)

    # The terminal grows: the screen follows at once, told by SIGWINCH (it does not poll the size).
    pane.run("resize-window", "-t", "kdm", "-x", "100", "-y", "30")
    pane.wait(lambda s: footer_row(s) == 29 and any(len(line) > 80 for line in s.splitlines()), "30 rows")

    # Between a window's judging and the next deal slapping is refused ("no slapping now"): press again.
    before = log_lines(pane.text())
    deadline = time.monotonic() + STEP_S
    while pane.poll(lambda s: f"SLAP! {NAME}" in new_log(before, log_lines(s)), timeout=0.0) is None:
        assert time.monotonic() < deadline, f"our slap never reached the log:\n{pane.text()}"
        pane.keys("Space")
        pane.poll(lambda s: f"SLAP! {NAME}" in new_log(before, log_lines(s)), timeout=1.0)
    screen = pane.wait(lambda s: re.search(r"order:\s+1\. ", s) is not None and "draws:" in s, "the result")
    assert NAME in screen.split("order:")[1] and "slap by" in screen

    pane.keys("q")
    pane.wait(lambda s: "Leave? (y/n" in s, "the quit question")
    pane.keys("y")
    pane.wait(lambda s: "KDM-EXIT=0" in s, "kdm play to exit", timeout=90)


def test_a_french_table_reads_roi_dame_valet_and_a_chat_line(tmp_path: Path) -> None:
    with kdm_in_tmux(tmp_path, "--lang", "fr") as french:
        # The queens are called at every deal: « la place N a la D♥ », never Q♥.
        screen = french.wait(lambda s: "a la D♥" in s and " Votre main" in s, "la dame de cœur annoncée")
        assert not re.search(r"(?<![0-9])[KQJ][♥♠♦♣]", screen), screen
        french.keys("/")
        french.wait(lambda s: "dire : ▏" in s, "la ligne de discussion ouverte")
        french.run("send-keys", "-t", "kdm", "-l", "à vous l'honneur")
        french.keys("Enter")
        screen = french.wait(lambda s: f"{NAME} : à vous l'honneur" in s, "la ligne dite, avec notre nom")
        assert not re.search(r"(?<![0-9])[KQJ][♥♠♦♣]", screen), screen
        french.keys("q")
        french.wait(lambda s: "Partir ? (o/n" in s, "la question avant de partir")
        french.keys("q")  # q twice leaves
        french.wait(lambda s: "KDM-EXIT=0" in s, "kdm play qui se termine", timeout=90)


def test_the_bots_sit_when_kdm_starts_in_the_folder_that_holds_its_clone(tmp_path: Path) -> None:
    """The issue's "Show": ``cd ..`` from the clone (named ``kdm``), then ``kdm/.venv/bin/kdm play
    --bots 3``: the bots sit and the game starts. They used to die on an ImportError (``python -m kdm``
    imported the clone's folder), and the table waited for them for ever."""
    program = Path(sys.executable).with_name("kdm")
    if not program.is_relative_to(REPO):
        pytest.skip(f"kdm runs from {program}, not from a venv inside the clone")
    home = tmp_path / "home"
    home.mkdir()
    (home / "kdm").symlink_to(REPO, target_is_directory=True)
    play = [str(Path("kdm") / program.relative_to(REPO)), "play"]
    with kdm_in_tmux(tmp_path, folder=home, play=play) as pane:
        screen = pane.wait(
            lambda s: re.search(rf"your turn: pass a card|bot \d is passing|{OUR_COMBO}", s) is not None,
            "the bots to sit and the game to start",
        )
        assert all(f"bot {n}" in screen for n in (1, 2, 3))
        pane.keys("q")
        pane.wait(lambda s: "Leave? (y/n" in s, "the quit question")
        pane.keys("y")
        pane.wait(lambda s: "KDM-EXIT=0" in s, "kdm play to exit", timeout=90)
