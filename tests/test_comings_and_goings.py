"""Players who leave and come back, and strangers who knock, with real ``kdm`` processes on 127.0.0.1.

A refused join changes nothing for the table: once it froze every screen for good (the refused process
had been made a voter, then left, and took the quorum with it). A player whose process dies comes back
to the same seat by running the same command again.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
from pathlib import Path

import pytest

from kdm.manager import installed_plugins
from kdm.session import ALONE_GIVE_UP_S
from tests.helpers.netns import wait_until
from tests.helpers.processes import DEADLINE_S, KDM, bot_player, start, table

pytestmark = pytest.mark.processes


def test_a_refused_join_after_a_player_died_does_not_stop_the_table(tmp_path: Path) -> None:
    with table(tmp_path, players=3, rounds=3) as scene:
        doomed = scene.processes[2]
        doomed.send_signal(signal.SIGKILL)
        doomed.wait(DEADLINE_S)
        stranger = subprocess.run(
            [*KDM, "join", scene.contact, "--headless", "--data-dir", str(tmp_path / "stranger")],
            capture_output=True, text=True, timeout=DEADLINE_S, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        assert stranger.returncode == 2, stranger.stdout + stranger.stderr
        assert stranger.stderr.strip().splitlines()[-1].endswith("the game has already started")
        scene.wait_all()  # the table did not freeze: the others play to the end
        assert [process.returncode for process in scene.processes] == [0, 0, -signal.SIGKILL]
    assert scene.report(0)["digest"] == scene.report(1)["digest"]


def test_a_player_whose_process_died_comes_back_to_the_same_seat(tmp_path: Path) -> None:
    with table(tmp_path, players=3, rounds=3) as scene:
        seated = next(line for line in scene.host.lines if line.endswith(" takes seat 2"))
        scene.processes[2].send_signal(signal.SIGKILL)
        scene.processes[2].wait(DEADLINE_S)
        assert scene.host.wait_for(lambda line: line.startswith("a bot stands in for seat 2"), DEADLINE_S)
        # The player starts the same command again: same data directory, so the same key, and the same
        # node (address, port and key): the same Raft member, with its log and its vote.
        _back, back_out = scene.player(2, "join", scene.contact)
        back = back_out.wait_for(lambda line: line.endswith("takes seat 2 back"), DEADLINE_S)
        node = re.compile(r"\((\S+)\) takes seat")  # "NAME (NODE) takes seat 2 [back]"
        assert back is not None and node.findall(back) == node.findall(seated) != []
        scene.wait_all()
        assert [process.returncode for process in scene.processes] == [0, 0, -signal.SIGKILL, 0]
    results = [scene.report(seat) for seat in range(3)]
    assert len({result["digest"] for result in results}) == 1
    assert [result["seat"] for result in results] == [0, 1, 2]
    assert [result["rejoined"] for result in results] == [False, False, True]


def test_a_leader_that_slept_takes_no_seat_from_the_players_it_stopped_hearing(tmp_path: Path) -> None:
    """The founder leads; its laptop sleeps past the takeover delay. When it wakes, everything it last
    heard is stale: it must not hand the live players' seats to bots (it did, most times)."""
    with table(tmp_path, players=4, rounds=4) as scene:
        sleeper, watcher = scene.processes[0], scene.outputs[1]
        sleeper.send_signal(signal.SIGSTOP)
        assert watcher.wait_for(lambda line: line.startswith("a bot stands in for seat 0"), DEADLINE_S)
        for _ in range(5):  # the others play on a while: what the sleeper heard last grows stale
            assert watcher.wait_for(lambda line: "passes to" in line or "draws" in line, DEADLINE_S)
        sleeper.send_signal(signal.SIGCONT)
        assert scene.host.wait_for(lambda line: line.endswith("takes seat 0 back"), DEADLINE_S)
        scene.wait_all()
        assert [process.returncode for process in scene.processes] == [0, 0, 0, 0]
    stolen = [line for output in scene.outputs for line in output.lines if f"({scene.founder}#" in line]
    assert stolen == []
    assert len({scene.report(seat)["digest"] for seat in range(4)}) == 1


def test_a_player_left_behind_when_everyone_else_has_gone_says_why_and_stops(tmp_path: Path) -> None:
    """Seat 2's laptop sleeps through the end of the game; the others finish and leave. Woken, it once
    said "no leader" and waited until it was killed 400 s later. Alone, it waits the others' answer for
    ``ALONE_GIVE_UP_S`` of its awake time (its sleep is not counted), then says why in one line."""
    with table(tmp_path, players=3, rounds=2) as scene:
        sleeper, output = scene.processes[2], scene.outputs[2]
        sleeper.send_signal(signal.SIGSTOP)
        assert scene.host.wait_for(lambda line: line.startswith("a bot stands in for seat 2"), DEADLINE_S)
        for process in scene.processes[:2]:
            process.wait(DEADLINE_S)
        sleeper.send_signal(signal.SIGCONT)
        sleeper.wait(ALONE_GIVE_UP_S + DEADLINE_S)
        assert [process.returncode for process in scene.processes] == [0, 0, 2]
        said = output.wait_for(lambda line: "no other member" in line, DEADLINE_S)
        assert said is not None and said == output.lines[-1]  # one line, the last
        assert said.startswith("kdm join: error: no other member of table ")
        ending = rf"has answered for {ALONE_GIVE_UP_S:.0f} s: it ended or went away without this laptop"
        assert re.search(ending + r" \(seen up to round \d+\)$", said), said


def test_a_joiner_that_lacks_the_tables_house_rule_is_told_which_in_one_line(tmp_path: Path) -> None:
    assert "lightaces" in installed_plugins(), "the example plugin is installed by make test: run it so"
    host, host_out = start(
        "host", "--players", "3", "--variant", "lightaces", "--no-advertise", *bot_player(tmp_path, 0),
    )  # fmt: skip
    try:
        listening = host_out.wait_for(lambda line: line.startswith("listening on "), DEADLINE_S)
        assert listening is not None
        without = {**os.environ, "KDM_DISABLE_PLUGIN_AUTOLOAD": "1"}  # this laptop never installed it
        refused = subprocess.run(
            [*KDM, "join", listening.split()[2], *bot_player(tmp_path, 1)],
            capture_output=True, text=True, timeout=DEADLINE_S, stdin=subprocess.DEVNULL, env=without,
        )  # fmt: skip
        assert refused.returncode == 2, refused.stderr
        version = installed_plugins()["lightaces"].version
        assert refused.stderr.strip().splitlines()[-1] == (
            f"kdm join: error: this table uses plugin lightaces {version}, which is not installed here"
        ), refused.stderr
        joined = start("join", listening.split()[2], *bot_player(tmp_path, 2))[0]  # one who has it sits
        try:
            assert host_out.wait_for(lambda line: line.endswith("takes seat 1"), DEADLINE_S)
        finally:
            joined.kill()
            joined.wait()
    finally:
        host.kill()
        host.wait()


def test_a_spectator_follows_the_table_and_never_holds_it_up(tmp_path: Path) -> None:
    """kdm join --watch: a learner that sees every public event; stopped, it does not hold the table
    up, which plays on without it; woken, it catches up and ends with the same digest."""
    host, host_out = start(
        "host", "--players", "3", "--bots", "2", "--option", "rounds=2", "--no-advertise",
        *bot_player(tmp_path, 0), "--json",
    )  # fmt: skip
    watcher = None
    try:
        listening = host_out.wait_for(lambda line: line.startswith("listening on "), DEADLINE_S)
        assert listening is not None
        watcher, watched = start("join", listening.split()[2], "--watch", "--headless", "--json",
                                 "--data-dir", str(tmp_path / "watcher"))  # fmt: skip
        assert watched.wait_for(lambda line: "passes to" in line, DEADLINE_S), "the spectator sees the game"
        watcher.send_signal(signal.SIGSTOP)
        stopped_at = len(host_out.lines)
        # The table plays on while the spectator sleeps: it never waits for one. Six passes, or the end
        # of the game if it comes sooner (a deal can bring a combo at the first checkpoint of a round).
        played_on = wait_until(
            lambda: (
                sum("passes to" in line for line in host_out.lines[stopped_at:]) >= 6
                or any(line.startswith("game over") for line in host_out.lines[stopped_at:])
            ),
            60,
        )
        assert played_on, "the table stopped with the spectator; the host said last:\n" + "\n".join(
            host_out.lines[-40:]
        )
        watcher.send_signal(signal.SIGCONT)
        assert host.wait(DEADLINE_S) == 0
        assert watcher.wait(DEADLINE_S) == 0
    finally:
        for process in (host, watcher):
            if process is not None and process.poll() is None:
                process.send_signal(signal.SIGCONT)
                process.kill()
                process.wait()
    host_summary, watcher_summary = (json.loads(out.lines[-1]) for out in (host_out, watched))
    assert watcher_summary["seat"] is None and watcher_summary["digest"] == host_summary["digest"]
    assert (
        sum(line.endswith(("takes seat 0", "takes seat 1", "takes seat 2")) for line in host_out.lines) == 3
    )


def test_headless_json_is_one_object_with_the_contract_fields(tmp_path: Path) -> None:
    done = subprocess.run(
        [*KDM, "host", "--players", "3", "--bots", "2", "--option", "rounds=1", "--no-advertise",
         *bot_player(tmp_path, 0), "--json"],
        capture_output=True, text=True, timeout=DEADLINE_S, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    (line,) = done.stdout.splitlines()  # stdout is the JSON object alone; the game log went to stderr
    summary = json.loads(line)
    assert {"table", "seat", "digest", "events", "rejoined"} <= set(summary)
    assert (summary["seat"], summary["rejoined"], summary["rounds"]) == (0, False, 1)
    assert "the game starts" in done.stderr and "listening on" in done.stderr
