"""A cheater's relays on the Wi-Fi (issue 'A consensus no cheater can split or stall', found by a review):
a seated voter relays presses timed just inside the 700 ms within which the other voters relay and watch
them, and votes against the leader itself; the leader's radio hiccups for a moment meanwhile (the test
holds what is sent to it: ``tests/helpers/wifi.py``'s ``hold``), so those presses reach it later. Before,
it refused them past 1 s as too old, the voters that watched them distrusted it, and with the cheater's
vote they deposed it. Now a press another node relays has 1.7 s at the leader (the trip a press from its
author has, from the relaying voter: ``kdm/host/proposals.py``, ``RELAYED_T_SYNC_BOUND_MS``).

Four laptops, kdm run as players run it (the cheater's is the modified client ``edge-relayer``,
``tests/modified_clients.py``): laptop0 hosts, the three others join by name, each with a bot playing for
its player. Needs root (CI runs it).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.helpers.attacks import client
from tests.helpers.lan import DEADLINE_S, PLAYER, Kdm, leaders_said, shown_and_stopped
from tests.helpers.netns import NamespaceLan, require_netns, wait_until
from tests.modified_clients import ATTACKS_ENV

pytestmark = pytest.mark.netns

#: The cheater's laptop; how long the leader's radio is deaf each time, and how many times.
EDGE_RELAYER, HICCUP_MS, HICCUPS = 2, 420.0, 4
#: Enough rounds for the attack (``EDGE_S``) to run its course while the game does.
ROUNDS = 6


def test_a_cheater_relaying_presses_at_the_edge_cannot_depose_a_leader_whose_radio_hiccups(
    tmp_path: Path,
) -> None:
    """No honest process distrusts the founder or follows another leader, the game ends on one digest,
    and the cheater relayed all along."""
    require_netns()
    attacks = tmp_path / "attacks.jsonl"
    with NamespaceLan(4, link="wifi") as lan:
        processes: list[Kdm] = []
        with shown_and_stopped(processes):
            host = Kdm(lan, 0, "host", "--table", "porch", "--players", "4", "--option", f"rounds={ROUNDS}",
                       *PLAYER, log_level="info")  # fmt: skip
            processes.append(host)
            founder = host.says(lambda line: line.startswith("leader: "), "its leadership").split()[1]
            for laptop in (1, 2, 3):
                program = client("edge-relayer") if laptop == EDGE_RELAYER else []
                processes.append(
                    Kdm(lan, laptop, "join", "porch", *PLAYER, program=program, log_level="info",
                        env={ATTACKS_ENV: str(attacks)})
                )  # fmt: skip
                host.says(lambda line, seat=laptop: line.endswith(f"takes seat {seat}"), f"seat {laptop}")
            assert wait_until(attacks.exists, DEADLINE_S), "the edge-relayer never struck"
            for _ in range(HICCUPS):
                time.sleep(1.5)  # the cheater's relays go on meanwhile (not a synchronisation)
                lan.hold(0, HICCUP_MS)
            summaries = [process.summary() for process in processes]
    made = [json.loads(line) for line in attacks.read_text().splitlines()]
    (relaying,) = [note for note in made if note["attack"] == "edge relays"]
    (sent,) = [note for note in made if note["attack"] == "edge relays sent"]
    assert relaying["leader"] == founder and sent["count"] > 0, made
    assert len({summary["digest"] for summary in summaries}) == 1
    for process in processes:
        if process.laptop == EDGE_RELAYER:
            continue
        assert not [line for line in process.log.lines if "appended none of" in line], process.laptop
        leaders = leaders_said(process)
        first = leaders.index(f"leader: {founder}")
        assert leaders[first:] == [f"leader: {founder}"], (process.laptop, leaders)
