"""What a sniffer on the LAN learns from a game (issue 12): four laptops in network namespaces play
Kem's (whose partners exchange a private note) while the switch records every TCP payload; nothing in
the capture is readable: no committed entry of the game's log, not even twelve bytes of one, no msgpack
envelope, no node id. Discovery (mDNS) is public by design and is not TCP, so it is not looked at. Needs
root (CI runs it).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kdm.net.storage import FileStorage
from kdm.net.wire import PROTOCOL_VERSION
from tests.helpers.netns import LineWatcher, NamespaceLan, require_netns

pytestmark = pytest.mark.netns

LAPTOPS = 4
DEADLINE_S = 180.0
PLAYER = ["--headless", "--as-bot", "greedy", "--json"]
#: A slice this long of a plaintext entry cannot turn up in random bytes by chance.
WINDOW = 12


def committed(home: Path) -> list[bytes]:
    (path,) = sorted((home / ".local" / "share" / "kdm" / "tables").glob("*.log"))
    storage = FileStorage(path)
    try:
        return [entry.data for entry in storage.entries()[: storage.hard_state().commit] if entry.data]
    finally:
        storage.close()


def test_a_four_laptop_kems_game_shows_a_sniffer_nothing(tmp_path: Path) -> None:
    require_netns()
    capture = tmp_path / "capture.bin"
    with NamespaceLan(LAPTOPS) as lan:
        sniffer = lan.capture(capture)
        assert sniffer.stdout is not None and sniffer.stdout.readline().strip() == "capturing"
        kdm = [sys.executable, "-m", "kdm"]
        host = lan.run(
            0, [*kdm, "host", "--table", "kitchen", "--players", "4", "--variant", "kems",
                "--option", "target=1", *PLAYER],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
        )  # fmt: skip
        assert host.stderr is not None
        host_log = LineWatcher(host.stderr)
        listening = host_log.wait_for(lambda line: line.startswith("listening on"), DEADLINE_S)
        assert listening is not None, host_log.lines
        joiners = [
            lan.run(laptop, [*kdm, "join", "kitchen", *PLAYER],
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
            for laptop in range(1, LAPTOPS)
        ]  # fmt: skip
        summaries = []
        for process in [host, *joiners]:
            out, err = process.communicate(timeout=DEADLINE_S)
            assert process.returncode == 0, err[-2000:]
            summaries.append(json.loads([line for line in out.splitlines() if line.startswith("{")][-1]))
        sniffer.terminate()
        sniffer.wait(10)
        entries = committed(lan.home(0))
        node_ids = [str(summary["node"]) for summary in summaries]

    assert len({summary["digest"] for summary in summaries}) == 1
    seen = capture.read_bytes()
    assert len(seen) > 20_000, len(seen)  # the whole game went through the switch
    assert b"CURVE" in seen  # what zmq's greeting says in clear: the mechanism, no more
    assert len(entries) > 20
    for entry in entries:
        for start in range(0, max(1, len(entry) - WINDOW), WINDOW):
            assert entry[start : start + WINDOW] not in seen, entry
    envelope = b"\x85\xa1v" + bytes([PROTOCOL_VERSION]) + b"\xa5table"
    for clear in (
        envelope,
        b"\xa4kind",
        b"\xa6direct",
        b"\xa4note",
        b"kitchen",
        *(n.encode() for n in node_ids),
    ):
        assert clear not in seen, clear
