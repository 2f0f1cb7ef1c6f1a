"""A player's laptop killed with ``kill -9`` mid-game, on a LAN made of network namespaces, and the same
``kdm join NAME`` run again: the player is back at their seat, said once on every screen, and every press
their kdm makes from then on counts.

It did not, in 2 of 5 runs of a tester's evening: the restarted process's clock took a pong queued for
the dead one, and stood 3 s behind the leader's; the leader dropped each of its presses as forged
("a press timed -3210 ms from the leader's clock"), and the process proposed the first one again for the
rest of the game, each time older. Two laptops, a 3-seat table: laptop0 hosts with a bot of its own
(a separate process), laptop1 joins by name. Needs root (CI runs it).
"""

from __future__ import annotations

import signal
import time

import pytest

from tests.helpers.lan import DEADLINE_S, PLAYER, Kdm, events_go_on
from tests.helpers.netns import NamespaceLan, require_netns

pytestmark = pytest.mark.netns

ROUNDS = 8
#: Long enough after the kill for the leader to have answered the dead process's last ping, and for
#: zmq to back off reconnecting: what a player running the command again takes at least.
DOWN_S = 3.0


def slaps_by(player: str, lines: list[str]) -> int:
    return sum(1 for line in lines if line.startswith(f"SLAP! {player}"))


def test_a_player_killed_and_back_has_every_press_counted_and_is_said_back_once() -> None:
    require_netns()
    with NamespaceLan(2) as lan:
        processes: list[Kdm] = []
        try:
            # Two laptops, two votes (a player's bots share their laptop's): with laptop1 gone the
            # table is stranded, and its host goes on without it, as the person at it would be asked.
            host = Kdm(lan, 0, "host", "--table", "attic", "--players", "3", "--bots", "1", "--deck", "fair",
                       "--option", f"rounds={ROUNDS}", "--if-stranded", "go-on", *PLAYER)  # fmt: skip
            processes.append(host)
            host.says(lambda line: line.startswith("leader: "), "its leadership")
            player = Kdm(lan, 1, "join", "attic", *PLAYER)
            processes.append(player)
            seated = host.says(
                lambda line: line.startswith("laptop1 (") and " takes seat " in line, "laptop1 seated"
            )
            seat = int(seated.rsplit(" ", 1)[1])  # the bot the host started may sit first
            host.says(lambda line: "passes to" in line, "a first pass")
            events_go_on(host, 2)

            player.process.send_signal(signal.SIGKILL)
            player.process.wait(DEADLINE_S)
            host.says(lambda line: line.startswith(f"a bot stands in for seat {seat}"), "a stand-in")
            time.sleep(DOWN_S)  # the player walks back to their laptop; the table plays on
            away = len(host.log.lines)
            again = Kdm(lan, 1, "join", "attic", *PLAYER)
            processes.append(again)
            again.says(lambda line: line.endswith(f"takes seat {seat} back"), "the seat back")
            back = len(again.log.lines)
            summaries = [host.summary(), again.summary()]
        except BaseException:
            for process in processes:  # pytest shows this when the test fails
                print(f"--- laptop{process.laptop} ---", *process.log.lines[-40:], sep="\n")
            raise
    since_return = again.log.lines[back:]
    refused = [line for line in host.log.lines[away:] + since_return if "a press timed" in line]
    given_up = [line for line in since_return if "not proposed again" in line]
    assert refused == [] and given_up == []
    assert slaps_by("laptop1", host.log.lines[away:]) > 0  # it pressed after its return, and it counted
    assert len({summary["digest"] for summary in summaries}) == 1
    assert summaries[1]["seat"] == seat and summaries[1]["rejoined"]
    for said in (f"laptop1 is back for seat {seat}", f"takes seat {seat} back"):
        # The host's bot writes its warnings to the same stream: a line may hold a piece of another.
        for lines in (host.log.lines[away:], again.log.lines):
            assert sum(line.count(said) for line in lines) == 1, [line for line in lines if "back" in line]
