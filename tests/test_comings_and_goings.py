"""Players who leave and come back, and strangers who knock, with real ``kdm`` processes on 127.0.0.1.

A refused join changes nothing for the table: once it froze every screen for good (the refused process
had been made a voter, then left, and took the quorum with it). A player whose process dies comes back
to the same seat by running the same command again.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from kdm.manager import installed_plugins
from tests.netns import LineWatcher, wait_until

KDM = [sys.executable, "-m", "kdm"]
DEADLINE_S = 120.0


def start(*args: str) -> tuple[subprocess.Popen[str], LineWatcher]:
    process = subprocess.Popen(
        [*KDM, *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True
    )
    assert process.stdout is not None
    return process, LineWatcher(process.stdout)


def bot_player(root: Path, index: int) -> list[str]:
    """The flags of a headless bot player with a data directory (and so a key) of its own."""
    return ["--headless", "--as-bot", "greedy", "--data-dir", str(root / f"p{index}")]


def test_a_refused_join_after_a_player_died_does_not_stop_the_table(tmp_path: Path) -> None:
    reports = [tmp_path / f"report{i}.json" for i in range(3)]
    host, host_out = start(
        "host", "--players", "3", "--option", "rounds=3", "--no-advertise", *bot_player(tmp_path, 0),
        "--report", str(reports[0]),
    )  # fmt: skip
    processes = [host]
    try:
        listening = host_out.wait_for(lambda line: line.startswith("listening on "), DEADLINE_S)
        assert listening is not None
        contact = listening.split()[2]
        joiners = [
            start("join", contact, *bot_player(tmp_path, i), "--report", str(reports[i])) for i in (1, 2)
        ]
        processes += [process for process, _ in joiners]
        assert host_out.wait_for(lambda line: line == "the game starts", DEADLINE_S), host_out.lines
        assert host_out.wait_for(lambda line: "passes to" in line, DEADLINE_S)
        doomed = joiners[1][0]
        doomed.send_signal(signal.SIGKILL)
        doomed.wait(DEADLINE_S)
        stranger = subprocess.run(
            [*KDM, "join", contact, "--headless", "--data-dir", str(tmp_path / "stranger")],
            capture_output=True, text=True, timeout=DEADLINE_S, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        assert stranger.returncode == 2, stranger.stdout + stranger.stderr
        assert stranger.stderr.strip().splitlines()[-1].endswith("the game has already started")
        for process in (host, joiners[0][0]):
            process.wait(DEADLINE_S)
            assert process.returncode == 0
    except BaseException:
        print("--- host ---", *host_out.lines[-40:], sep="\n")  # pytest shows this when the test fails
        raise
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait()
    digests = {json.loads(report.read_text())["digest"] for report in reports[:2]}
    assert len(digests) == 1


def test_a_player_whose_process_died_comes_back_to_the_same_seat(tmp_path: Path) -> None:
    reports = [tmp_path / f"report{i}.json" for i in range(3)]
    host, host_out = start(
        "host", "--players", "3", "--option", "rounds=3", "--no-advertise", *bot_player(tmp_path, 0),
        "--report", str(reports[0]),
    )  # fmt: skip
    processes = [host]
    try:
        listening = host_out.wait_for(lambda line: line.startswith("listening on "), DEADLINE_S)
        assert listening is not None
        contact = listening.split()[2]
        joiners = []
        for i in (1, 2):  # one after the other, so that joiner i takes seat i
            joiners.append(start("join", contact, *bot_player(tmp_path, i), "--report", str(reports[i])))
            processes.append(joiners[-1][0])
            assert host_out.wait_for(lambda line, i=i: line.endswith(f"takes seat {i}"), DEADLINE_S)
        assert host_out.wait_for(lambda line: line == "the game starts", DEADLINE_S)
        assert host_out.wait_for(lambda line: "passes to" in line, DEADLINE_S)
        joiners[1][0].send_signal(signal.SIGKILL)
        joiners[1][0].wait(DEADLINE_S)
        assert host_out.wait_for(lambda line: line.startswith("a bot stands in for seat 2"), DEADLINE_S)
        # The player starts the same command again: same data directory, so the same key.
        back, back_out = start("join", contact, *bot_player(tmp_path, 2), "--report", str(reports[2]))
        processes.append(back)
        assert back_out.wait_for(lambda line: line.endswith("takes seat 2 back"), DEADLINE_S)
        for process in (host, joiners[0][0], back):
            process.wait(DEADLINE_S)
            assert process.returncode == 0
    except BaseException:
        print("--- host ---", *host_out.lines[-40:], sep="\n")
        raise
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait()
    results = [json.loads(report.read_text()) for report in reports]
    assert len({result["digest"] for result in results}) == 1
    assert [result["seat"] for result in results] == [0, 1, 2]
    assert [result["rejoined"] for result in results] == [False, False, True]


def test_a_leader_that_slept_takes_no_seat_from_the_players_it_stopped_hearing(tmp_path: Path) -> None:
    """The founder leads; its laptop sleeps past the takeover delay. When it wakes, everything it last
    heard is stale: it must not hand the live players' seats to bots (it did, most times)."""
    reports = [tmp_path / f"report{i}.json" for i in range(4)]
    host, host_out = start(
        "host", "--players", "4", "--option", "rounds=4", "--no-advertise", *bot_player(tmp_path, 0),
        "--report", str(reports[0]),
    )  # fmt: skip
    processes = [host]
    outputs = [host_out]
    try:
        listening = host_out.wait_for(lambda line: line.startswith("listening on "), DEADLINE_S)
        assert listening is not None
        contact = listening.split()[2]
        leader = host_out.wait_for(lambda line: line.startswith("leader: "), DEADLINE_S)
        assert leader is not None
        founder = leader.split()[1]
        for i in (1, 2, 3):
            joiner, joiner_out = start("join", contact, *bot_player(tmp_path, i), "--report", str(reports[i]))
            processes.append(joiner)
            outputs.append(joiner_out)
            assert host_out.wait_for(lambda line, i=i: line.endswith(f"takes seat {i}"), DEADLINE_S)
        assert host_out.wait_for(lambda line: "passes to" in line, DEADLINE_S)
        host.send_signal(signal.SIGSTOP)
        watcher = outputs[1]
        assert watcher.wait_for(lambda line: line.startswith("a bot stands in for seat 0"), DEADLINE_S)
        for _ in range(5):  # the others play on a while: what the sleeper heard last grows stale
            assert watcher.wait_for(lambda line: "passes to" in line or "draws" in line, DEADLINE_S)
        host.send_signal(signal.SIGCONT)
        assert host_out.wait_for(lambda line: line.endswith("takes seat 0 back"), DEADLINE_S)
        for process in processes:
            process.wait(DEADLINE_S)
            assert process.returncode == 0
    except BaseException:
        for i, output in enumerate(outputs):
            print(f"--- peer {i} ---", *output.lines[-30:], sep="\n")
        raise
    finally:
        for process in processes:
            if process.poll() is None:
                process.send_signal(signal.SIGCONT)
                process.kill()
                process.wait()
    stolen = [line for output in outputs for line in output.lines if f"({founder}#" in line]
    assert stolen == []
    assert len({json.loads(report.read_text())["digest"] for report in reports}) == 1


def test_a_joiner_that_lacks_the_tables_house_rule_is_told_which_in_one_line(tmp_path: Path) -> None:
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
        # The table plays on while the spectator sleeps: it never waits for one.
        assert wait_until(lambda: sum("passes to" in line for line in host_out.lines[stopped_at:]) >= 6, 60)
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
