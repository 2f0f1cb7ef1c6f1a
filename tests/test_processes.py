"""Real ``kdm`` processes on 127.0.0.1: selfplay agrees on the digest at 4 and 10 peers, a live peer
shrugs off garbage sent to its port, and network mistakes are one line with exit status 2."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import msgpack
import pytest
import zmq

from kdm.net.discovery import parse_contact
from kdm.net.keys import new_keys, public_key_of
from kdm.net.node import MAX_LEARNERS, ask_table_id, listen, node_codec
from kdm.net.wire import PROTOCOL_VERSION

pytestmark = pytest.mark.processes

KDM = [sys.executable, "-m", "kdm"]


def run_kdm(*args: str, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*KDM, *args], capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
    )


@pytest.mark.parametrize(("peers", "rounds"), [(4, 3), (10, 2)])
def test_selfplay_peers_agree(peers: int, rounds: int) -> None:
    done = run_kdm("selfplay", "--peers", str(peers), "--rounds", str(rounds), "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["peers"] == peers and result["rounds"] == rounds
    assert len(result["digests"]) == peers and len(set(result["digests"])) == 1
    assert result["slap_windows"] >= rounds
    assert result["commit_latency_ms"]["p50"] is not None


def test_selfplay_plays_kems_to_its_target_and_the_peers_agree() -> None:
    done = run_kdm(
        "selfplay", "--peers", "4", "--variant", "kems", "--option", "target=1",
        "--option", "sweep_after_ms=300", "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert len(result["digests"]) == 4 and len(set(result["digests"])) == 1


@pytest.mark.parametrize(
    "game",
    [
        ["--rounds", "2"],
        ["--variant", "kems", "--option", "target=1", "--option", "sweep_after_ms=300"],
        [
            "--rounds",
            "2",
            "--variant",
            "seven_in_reserve",
            "--variant",
            "piles",
            "--option",
            "flush_to=shuffle",
        ],
    ],
    ids=["base", "kems", "variants"],
)
def test_selfplay_with_the_fair_deck_agrees_and_its_audits_name_nobody(game: list[str]) -> None:
    """``kdm selfplay --deck fair`` (contract): the same game, every card dealt, passed and shown through
    the fair deck between real processes: one digest, and every audit finds nobody."""
    done = run_kdm("selfplay", "--deck", "fair", "--peers", "4", *game, "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["deck"] == "fair" and result["cheats"] == []
    assert len(result["digests"]) == 4 and len(set(result["digests"])) == 1


def test_selfplay_refuses_a_kems_table_of_five_in_one_line() -> None:
    done = run_kdm("selfplay", "--peers", "5", "--variant", "kems")
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "4, 6 or 8 players" in done.stderr


def bot_table(report: Path, data: Path) -> list[str]:
    """``kdm host`` for a 3-seat, 4-round table of bots on 127.0.0.1, its report at ``report``."""
    return [*KDM, "host", "--players", "3", "--bots", "2", "--as-bot", "greedy", "--headless",
            "--no-advertise", "--interface", "127.0.0.1", "--option", "rounds=4", "--report", str(report),
            "--data-dir", str(data)]  # fmt: skip


def wait_for_the_game(host: subprocess.Popen[bytes]) -> str:
    """The contact ``host`` printed first, once it says the game started."""
    assert host.stdout is not None
    contact = host.stdout.readline().decode().split()[-1]
    while (line := host.stdout.readline().decode()) and line.strip() != "the game starts":
        pass
    return contact


def test_a_live_peer_drops_garbage_and_keeps_playing(tmp_path: Path) -> None:
    """Random bytes, msgpack with wrong fields, a 10 MB frame and a stale raft term at the host's port."""
    report = tmp_path / "host.json"
    host = subprocess.Popen(
        bot_table(report, tmp_path),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
        env={**os.environ, "KDM_LOG": "info"},
    )  # fmt: skip
    try:
        contact = wait_for_the_game(host)  # garbage mid-game, once a leader has a term it is behind
        stranger = send_garbage(contact)
        out, err = host.communicate(timeout=240)
    finally:
        if host.poll() is None:
            host.kill()
            host.wait()
    assert host.returncode == 0, err.decode()[-2000:]
    log = err.decode()
    result = json.loads(report.read_text())
    assert result["rounds"] == 4 and result["digest"]
    assert result["dropped"] >= 3
    assert f"from {stranger}: not msgpack" in log
    assert f"from {stranger}: missing envelope field 'v'" in log
    assert f"from {stranger}: protocol version 99, this peer speaks {PROTOCOL_VERSION}" in log
    assert "message for table 'not-this-one'" in log
    assert re.search(rf"raft \w+ from {re.escape(stranger)}: not a member of this table", log)
    assert "its connection holds another key" in log  # the one sent under the table's own id
    assert "game over" in out.decode()


def test_sixty_learners_from_one_stranger_stay_sixteen_and_the_game_plays_on(tmp_path: Path) -> None:
    """One stranger, 60 keys: each says hello for a few seconds mid-game. The table takes at most
    ``MAX_LEARNERS`` of them (they read the log, and never vote), refuses the rest with the reason, and
    plays to the end."""
    report, errors = tmp_path / "host.json", tmp_path / "host.err"
    host = subprocess.Popen(
        bot_table(report, tmp_path),
        # Its log to a file: hundreds of refusals would fill a pipe and stop the host mid-knock.
        stdout=subprocess.PIPE, stderr=errors.open("wb"), stdin=subprocess.DEVNULL,
        env={**os.environ, "KDM_LOG": "info"},
    )  # fmt: skip
    try:
        contact = wait_for_the_game(host)
        knock_sixty(contact, seconds=6.0)
        out, _ = host.communicate(timeout=240)
    finally:
        if host.poll() is None:
            host.kill()
            host.wait()
    log = errors.read_text()
    assert host.returncode == 0, log[-2000:]
    # The knockers (not the bots) the table held at once: it adds them one at a time, each a commit,
    # and lets go those that fell silent.
    held, most, added = 0, 0, 0
    for line in log.splitlines():
        if re.search(r"adding 127\.0\.0\.1:9~\w+ as a learner", line):
            held, added = held + 1, added + 1
        elif re.search(r"127\.0\.0\.1:9~\w+ leaves the table's membership", line):
            held -= 1
        most = max(most, held)
    assert added >= 5 and most <= MAX_LEARNERS, f"{added} knockers added, {most} at once"
    assert added < 60 or f"the table has {MAX_LEARNERS} learners already" in log
    assert json.loads(report.read_text())["rounds"] == 4 and "game over" in out.decode()


def knock_sixty(contact: str, seconds: float) -> None:
    """60 CURVE clients, each with a key of its own and an id claiming a port where nothing listens,
    say hello to the member at ``contact`` every 0.1 s for ``seconds``."""
    host, port, _key = parse_contact(contact)
    table = asyncio.run(table_at(contact))
    server_key = public_key_of(contact)
    assert server_key is not None
    context = zmq.Context()
    try:
        knockers = []
        for _ in range(60):
            keys = new_keys()
            dealer = context.socket(zmq.DEALER)
            dealer.setsockopt(zmq.LINGER, 0)
            dealer.setsockopt(zmq.CURVE_SERVERKEY, server_key)
            dealer.setsockopt(zmq.CURVE_PUBLICKEY, keys.curve.public)
            dealer.setsockopt(zmq.CURVE_SECRETKEY, keys.curve.secret)
            dealer.connect(f"tcp://{host}:{port}")
            knockers.append((dealer, f"127.0.0.1:9~{keys.token}"))
        codec = node_codec(table)
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            for dealer, name in knockers:
                with contextlib.suppress(zmq.Again):  # not through the handshake yet (20 a second)
                    dealer.send_multipart([name.encode(), codec.encode(name, "hello", {"node": name})],
                                          flags=zmq.NOBLOCK)  # fmt: skip
            time.sleep(0.1)  # a knocker's pace, not a test synchronisation
        for dealer, _name in knockers:
            dealer.close()
    finally:
        context.term()


def send_garbage(contact: str) -> str:
    """What a stranger on the LAN can send to the member at ``contact`` (``HOST:PORT~KEY``); returns
    the stranger's id."""
    rng = random.Random(7)
    host, port, _key = parse_contact(contact)
    table = asyncio.run(table_at(contact))
    # Not even ZMTP: the raw TCP connection is refused by zmq's handshake.
    with socket.create_connection((host, port), timeout=5) as raw:
        raw.sendall(bytes(rng.randrange(256) for _ in range(4096)))
    keys = new_keys()
    stranger = f"127.0.0.1:9~{keys.token}"
    context = zmq.Context()
    try:
        plain = context.socket(zmq.DEALER)  # ZMTP without CURVE: refused at the handshake
        plain.setsockopt(zmq.LINGER, 0)
        plain.connect(f"tcp://{host}:{port}")
        plain.send_multipart([stranger.encode(), b"in clear"])
        dealer = context.socket(zmq.DEALER)
        dealer.setsockopt(zmq.LINGER, 0)
        server_key = public_key_of(contact)
        assert server_key is not None
        dealer.setsockopt(zmq.CURVE_SERVERKEY, server_key)
        dealer.setsockopt(zmq.CURVE_PUBLICKEY, keys.curve.public)
        dealer.setsockopt(zmq.CURVE_SECRETKEY, keys.curve.secret)
        dealer.connect(f"tcp://{host}:{port}")

        def send(payload: bytes, sender: str = stranger) -> None:
            dealer.send_multipart([sender.encode(), payload])

        send(bytes(rng.randrange(256) for _ in range(300)))  # random bytes in a valid frame
        send(msgpack.packb({"hello": "world"}))  # valid msgpack, wrong fields
        send(msgpack.packb({"v": 99, "table": "t", "from": "x", "kind": "raft", "body": {}}))
        send(msgpack.packb({"v": PROTOCOL_VERSION, "table": "not-this-one", "from": stranger,
                            "kind": "raft", "body": {}}))  # fmt: skip
        # A well-formed append for this very table, from a term long gone and a stranger: dropped.
        stale = {"kind": "app", "term": 0, "sender": stranger, "to": table, "log_index": 0,
                 "log_term": 0, "entries": [], "commit": 0, "reject": False, "hint": 0}  # fmt: skip
        send(msgpack.packb({"v": PROTOCOL_VERSION, "table": table, "from": stranger, "kind": "raft",
                            "body": stale}))  # fmt: skip
        # The same under the table's founder's id: the connection does not hold that id's key.
        send(msgpack.packb({"v": PROTOCOL_VERSION, "table": table, "from": table, "kind": "raft",
                            "body": stale | {"sender": table}}), sender=table)  # fmt: skip
        send(b"\x00" * (10 * 1024 * 1024))  # 10 MB: zmq drops it and the connection
        time.sleep(0.2)  # let the frames leave before the socket closes (not a test synchronisation)
        dealer.close()
        plain.close()
    finally:
        # destroy, not term: term waited for ever once here on a close not yet through (as in test_fuzz).
        context.destroy(linger=0)
    return stranger


async def table_at(contact: str) -> str:
    transport = await listen("127.0.0.1")
    host, port, _key = parse_contact(contact)
    try:
        return (await ask_table_id(transport, contact, f"tcp://{host}:{port}")).table
    finally:
        await transport.close()


def test_port_in_use_is_one_line_and_status_2() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = run_kdm(
            "host", "--headless", "--no-advertise", "--interface", "127.0.0.1", "--port", str(port)
        )
    assert done.returncode == 2
    assert (
        done.stderr.strip().splitlines()[-1]
        == f"kdm host: error: port {port} on 127.0.0.1 is in use; choose another with --port"
    )


def test_joining_where_nobody_listens_is_one_line_and_status_2() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    done = run_kdm("join", f"127.0.0.1:{port}", "--headless", "--interface", "127.0.0.1", timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip() == f"kdm join: error: no table answered at 127.0.0.1:{port}"


def test_bad_join_target_is_one_line_and_status_2() -> None:
    done = run_kdm("join", "127.0.0.1:99999", "--headless", "--interface", "127.0.0.1", timeout=60)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


def test_replay_gives_the_digest_the_table_had(tmp_path: Path) -> None:
    report = tmp_path / "host.json"
    done = run_kdm(
        "host",
        "--players",
        "3",
        "--bots",
        "2",
        "--as-bot",
        "greedy",
        "--headless",
        "--no-advertise",
        "--interface",
        "127.0.0.1",
        "--option",
        "rounds=2",
        "--report",
        str(report),
        "--data-dir",
        str(tmp_path),
    )
    assert done.returncode == 0, done.stderr
    # The bots that filled seats keep nothing once the game is over: the host's log is the game kept.
    (log_file,) = (tmp_path / "tables").glob("*.log")
    replayed = run_kdm("replay", str(log_file), "--json")
    summary = json.loads(replayed.stdout)
    assert summary["digest"] == json.loads(report.read_text())["digest"]
    (kept,) = json.loads(run_kdm("replay", "--json", "--data-dir", str(tmp_path)).stdout)
    assert kept["finished"] and kept["log"] == str(log_file) and kept["game"] == "kilo"
    assert kept["table"] == summary["table"] and len(kept["players"]) == 3 and kept["winners"]
    listed = run_kdm("replay", "--data-dir", str(tmp_path)).stdout
    assert re.match(
        rf"  1  \d{{4}}-\d\d-\d\d \d\d:\d\d  {re.escape(summary['table'])}  \(kilo, 3 players\)", listed
    )
    first = run_kdm("replay", "1", "--json", "--data-dir", str(tmp_path))
    assert json.loads(first.stdout)["digest"] == summary["digest"]
    beyond = run_kdm("replay", "2", "--data-dir", str(tmp_path))
    assert beyond.returncode == 2
    assert beyond.stderr.strip() == "kdm replay: error: no kept game 2: `kdm replay` lists them (1 to 1)"
    assert summary["over"] and summary["rounds"] == 2 and summary["players"] == 3
    transcript = run_kdm("replay", str(log_file), "--lang", "fr").stdout
    assert "Dame de cœur" in transcript and "fin de la partie" in transcript
    assert summary["log"] == "chained"
    missing = run_kdm("replay", str(tmp_path / "nope.log"))
    assert missing.returncode == 2 and missing.stderr.strip().startswith("kdm replay: error: cannot read")
    # One byte of one committed entry changed: the replay names where the chain breaks, in one line.
    altered = tmp_path / "altered.log"
    data = bytearray(log_file.read_bytes())
    middle = data.index(b"\xa5event", len(data) // 2)
    data[middle + 1] ^= 0x01
    altered.write_bytes(bytes(data))
    refused = run_kdm("replay", str(altered), "--json")
    assert refused.returncode == 2, refused.stdout
    assert re.fullmatch(
        r"kdm replay: error: \S+altered\.log was altered: record \d+ \(entry \d+\) does not follow the chain",
        refused.stderr.strip(),
    ), refused.stderr
