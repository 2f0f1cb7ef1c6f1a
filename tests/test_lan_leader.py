"""A table on the Wi-Fi keeps its leader: Raft's heartbeats come often enough that its stalls and tails
(``tests/helpers/wifi.py``'s ``wifi`` profile: delays of milliseconds, a tail to 250 ms, frames lost now and
then) never make a follower think its leader is gone (issue 'Light on the CPU': heartbeats at the rate
failure detection needs, and no faster).

Four laptops, kdm run as players run it: laptop0 hosts, the three others join by name, each with a bot
playing for its player; the waiting room, the game and its end are watched. Every process says which
leader it follows each time that changes (``leader: NODE`` or ``no leader``): once the founder leads, no
process says anything else. Needs root (CI runs it).
"""

from __future__ import annotations

import pytest

from tests.helpers.lan import PLAYER, Kdm, leaders_said, shown_and_stopped
from tests.helpers.netns import NamespaceLan, require_netns

pytestmark = pytest.mark.netns

ROUNDS = 6


def test_a_table_on_wifi_keeps_its_leader_from_the_waiting_room_to_the_end() -> None:
    require_netns()
    with NamespaceLan(4, link="wifi") as lan:
        processes: list[Kdm] = []
        with shown_and_stopped(processes):
            host = Kdm(lan, 0, "host", "--table", "porch", "--players", "4", "--option", f"rounds={ROUNDS}",
                       *PLAYER)  # fmt: skip
            processes.append(host)
            founder = host.says(lambda line: line.startswith("leader: "), "its leadership").split()[1]
            for laptop in (1, 2, 3):
                processes.append(Kdm(lan, laptop, "join", "porch", *PLAYER))
                host.says(lambda line, seat=laptop: line.endswith(f"takes seat {seat}"), f"seat {laptop}")
            summaries = [process.summary() for process in processes]
    assert len({summary["digest"] for summary in summaries}) == 1
    assert all(summary["rounds"] == ROUNDS for summary in summaries)
    for process in processes:
        said = leaders_said(process)
        # A joiner may hear of no leader before it reaches the table; from the founder on, nothing else.
        first = said.index(f"leader: {founder}")
        assert said[first:] == [f"leader: {founder}"], (process.laptop, said)
