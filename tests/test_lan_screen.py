"""The terminal table on a LAN laptop that did not found the table: a friend runs ``kdm join kitchen``
(no flag: the table screen) in tmux on laptop1, presses ``b`` in the waiting room, and a bot starts on
laptop1 and sits; the waiting room tells where others join. The table was founded on laptop0, a
headless bot player. Needs root and tmux (CI has both); see tests/test_lan.py for the whole evening.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.netns import LineWatcher, NamespaceLan, require_netns
from tests.helpers.tmux import REPO, Pane, require_tmux

pytestmark = [pytest.mark.netns, pytest.mark.tmux]

DEADLINE_S = 60.0


def test_a_friend_adds_a_bot_from_the_table_screen_on_their_own_laptop(tmp_path: Path) -> None:
    require_netns()
    tmux = require_tmux()
    with NamespaceLan(2) as lan:
        host = lan.run(
            0,
            [sys.executable, "-m", "kdm", "host", "--table", "kitchen", "--players", "3", "--headless",
             "--as-bot", "greedy", "--option", "rounds=1"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True,
        )  # fmt: skip
        assert host.stdout is not None
        host_log = LineWatcher(host.stdout)
        listening = host_log.wait_for(lambda line: line.startswith("listening on "), DEADLINE_S)
        assert listening is not None
        address = listening.split()[2].rpartition("~")[0]  # shown without its key, which joiners ask for

        socket = f"kdm-lan-{os.getpid()}"
        command = f"cd {REPO} && {sys.executable} -m kdm join kitchen; echo KDM-EXIT=$?; sleep 120"
        started = lan.run(
            1,
            [tmux, "-u", "-L", socket, "new-session", "-d", "-s", "kdm", "-x", "80", "-y", "24",
             "-e", "LANG=C.UTF-8", "-e", "TERM=xterm-256color", "sh", "-c", command],
        )  # fmt: skip
        assert started.wait(DEADLINE_S) == 0
        pane = Pane(tmux, socket)
        try:
            screen = pane.wait(lambda s: "others join with: kdm play kitchen" in s, "the waiting room")
            assert "laptop1" in screen  # the friend sits under their laptop's name
            assert f"or by address: {address}" in " ".join(screen.split())  # where laptop1 reached it
            pane.keys("b")
            screen = pane.wait(lambda s: "your bot sits at seat 2" in s, "the bot seated")
            assert host_log.wait_for(lambda line: line.endswith("takes seat 2"), DEADLINE_S)
            assert host_log.wait_for(lambda line: line == "the game starts", DEADLINE_S)
            pane.wait(lambda s: "Your hand" in s, "the game on screen")
            pane.keys("q")
            pane.wait(lambda s: "Leave? (y/n" in s, "the quit question")
            pane.keys("y")
            pane.wait(lambda s: "KDM-EXIT=0" in s, "kdm join to exit")
        except BaseException:
            print("--- laptop0 ---", *host_log.lines[-30:], sep="\n")
            raise
        finally:
            subprocess.run([tmux, "-L", socket, "kill-server"], capture_output=True, timeout=30)
