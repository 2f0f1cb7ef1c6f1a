"""Attacks on live tables of real ``kdm`` processes on 127.0.0.1 (issue 12's adversarial suite).

An attacker runs kdm's own code, modified, under a key of its own (``tests/modified_clients.py``): a
seated player's client that cheats, or a stranger's that reads the log as a spectator and sends what it
may not. The honest players are ``kdm`` itself, one process each, logging at ``KDM_LOG=info``. Each
test checks that every honest peer refused the attack, its log naming the reason (for what only the
leader can check, the leader's), and that the game ended with one digest on every peer and in a
replay of the log. Each attacker makes all its attacks in one game at a table of its own, both games
at once (a module fixture); the join race starts tables of its own.

Issue 12's other attacks are replayed elsewhere: garbage and 60 learners at a live table
(tests/test_processes.py), a thousand identities and a learner's raft messages at one node over zmq
(tests/test_node_inputs.py), mutated and torn logs (tests/test_storage.py, and ``kdm replay`` in
tests/test_processes.py), a wrong PIN (tests/test_admission.py), a PIN guessed at every member at once
(tests/test_pin_guessing.py), a sniffer (tests/test_capture.py).
A seated player's client that forges raft messages as the voter it is (an append a term ahead, as if
elected; a leader that forks its log) is in tests/test_consensus_adversary.py, a PIN guesser in
tests/test_pin_guessing.py.
"""

from __future__ import annotations

import os
import re
import subprocess
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from kdm.net.node import MAX_STRANGER_SOCKETS, STRANGER_ANSWERS_PER_S
from tests.helpers.attacks import QUICK, Game, client, finished, leaders, logging_env
from tests.helpers.processes import DEADLINE_S, Table, table
from tests.modified_clients import FORGED, FORGED_DONES, FORGED_REACTION_MS

#: One worker runs this module (``tests/conftest.py``'s ``ONE_WORKER_MODULES``): its attackers' games
#: are a module fixture, which each worker that ran one of their tests would play again.
pytestmark = pytest.mark.processes

#: Tables started at once with their joiners, for the join race.
STARTS = 8
#: How many more files a peer may hold open at once while a stranger knocks under a thousand ids (a
#: socket and its connection for each of a second's answers), and a second after it is done: the few
#: sockets it keeps, and the stranger's own connections.
FILES_AT_ONCE, FILES_KEPT, SETTLE_S = 4 * STRANGER_ANSWERS_PER_S, 4 * MAX_STRANGER_SOCKETS, 1.0
CHEATER = 2  # the cheater's seat (and process) at its table


# --- the join race ---------------------------------------------------------------------------------


def test_joiners_started_with_the_founder_are_seated_and_every_game_ends_agreed(tmp_path: Path) -> None:
    """A joiner's join was once committed before the founder's create, and that table waited forever
    (about 1 start in 60). Here each of ``STARTS`` tables is started at once with two joiners that have
    kdm loaded already and join the moment the founder listens: every table starts, plays and agrees."""
    scenes = [Table(tmp_path / f"start{index}") for index in range(STARTS)]

    def open_the_doors(scene: Table) -> None:
        listening = scene.outputs[2].wait_for(lambda line: line.startswith("listening on "), DEADLINE_S)
        assert listening is not None
        for joiner in scene.processes[:2]:
            assert joiner.stdin is not None
            joiner.stdin.write(listening.split()[2] + "\n")
            joiner.stdin.flush()

    try:
        for scene in scenes:
            for seat in (1, 2):
                scene.player(seat, "join", "CONTACT", program=client("door"), stdin=subprocess.PIPE)
        for scene in scenes:
            for door in scene.outputs:
                assert door.wait_for(lambda line: line == "at the door", DEADLINE_S)
        openers = []
        for scene in scenes:
            quick = [flag for option in QUICK for flag in ("--option", option)]
            scene.player(0, "host", "--players", "3", "--option", "rounds=1", *quick, "--no-advertise")
            openers.append(threading.Thread(target=open_the_doors, args=(scene,)))
            openers[-1].start()
        for opener in openers:
            opener.join(DEADLINE_S)
        for scene in scenes:
            scene.wait_all()
    except BaseException:
        for scene in scenes:
            scene.show()
        raise
    finally:
        for scene in scenes:
            scene.stop()
    for scene in scenes:
        assert [process.returncode for process in scene.processes] == [0, 0, 0]
        digests = {scene.report(seat)["digest"] for seat in range(3)}
        assert len(digests) == 1 and None not in digests


def test_a_join_committed_before_the_create_is_refused_everywhere_and_asked_again(tmp_path: Path) -> None:
    """The race forced: a founder that holds its ``create`` back until both joins were committed and
    refused. Every peer refuses them for the same reason; the joiners ask again once the table exists,
    and the game is played to one digest."""
    scene = Table(tmp_path, env=logging_env(tmp_path))
    try:
        scene.player(0, "host", "--players", "3", "--option", "rounds=1", "--no-advertise",
                     program=client("late-founder", "2"))  # fmt: skip
        listening = scene.host.wait_for(lambda line: line.startswith("listening on "), DEADLINE_S)
        assert listening is not None
        for seat in (1, 2):
            scene.player(seat, "join", listening.split()[2])
        scene.wait_all()
    except BaseException:
        scene.show()
        raise
    finally:
        scene.stop()
    game = finished(scene, [0, 1, 2], tmp_path)
    early = game.refusals("there is no table to join yet")
    assert set(early) == {
        f"entry from {game.node(seat)} refused: there is no table to join yet" for seat in (1, 2)
    }
    game.assert_refused_everywhere("there is no table to join yet")


# --- the attackers' games --------------------------------------------------------------------------


@dataclass
class Knocked:
    """The game a stranger knocked at, and how many files each honest player held open, sampled from
    before the stranger came to the game's end: (time, files of each)."""

    game: Game
    files: list[tuple[float, list[int]]]

    def grown(self, index: int, since: float = 0.0) -> int:
        """How many more files player ``index`` held at most, from ``since`` on, than at first."""
        held = [files[index] for at, files in self.files if at >= since]
        assert held, "the game ended before it could be seen"
        return max(held) - self.files[0][1][index]


def play_cheated(root: Path) -> Game:
    """Three seats, the last played by the cheater's client (``modified_clients.cheat``), three rounds:
    one ends at the window the cheater opens to lie about its hand, the others at windows it forges
    its way into."""
    cheater = {CHEATER: client("cheat")}
    with table(root, 3, rounds=3, programs=cheater, env=logging_env(root), options=QUICK) as scene:
        scene.wait_all()
        return finished(scene, [0, 1], root)


def open_files(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except FileNotFoundError:  # it has just ended
        return 0


def play_knocked(root: Path) -> Knocked:
    """Three honest seats, and a stranger's client (``modified_clients.stranger``) that watches the
    game from its start."""
    files: list[tuple[float, list[int]]] = []

    def count() -> None:
        files.append((time.time(), [open_files(process.pid) for process in scene.processes[:3]]))

    with table(root, 3, rounds=2, env=logging_env(root), options=QUICK) as scene:
        count()
        scene.player(3, "join", scene.contact, "--watch", program=client("stranger"))
        scene.wait_all(look=count)
        return Knocked(finished(scene, [0, 1, 2], root), files)


@pytest.fixture(scope="module")
def attacked(tmp_path_factory: pytest.TempPathFactory) -> tuple[Game, Knocked]:
    """Both attackers' games, each at a table of its own, played at the same time (the suite's time
    goes into waiting for bots to think, not into work)."""
    with ThreadPoolExecutor(2) as games:
        cheated = games.submit(play_cheated, tmp_path_factory.mktemp("cheated"))
        knocked = games.submit(play_knocked, tmp_path_factory.mktemp("knocked"))
        return cheated.result(), knocked.result()


@pytest.fixture
def cheated(attacked: tuple[Game, Knocked]) -> Game:
    return attacked[0]


@pytest.fixture
def knocked(attacked: tuple[Game, Knocked]) -> Knocked:
    return attacked[1]


def ids(attacks: list[dict[str, Any]]) -> list[tuple[str, int]]:
    return [(made["id"][0], made["id"][1]) for made in attacks]


# --- a seated cheater ------------------------------------------------------------------------------


def test_a_reaction_quicker_than_a_person_is_refused_by_every_peer(cheated: Game) -> None:
    forged = cheated.made("reaction time")
    cheated.assert_never_applied(ids(forged), committed=True)
    reason = (
        f"a reaction in {FORGED_REACTION_MS:.0f} ms is quicker than a person: this table's minimum is 100 ms"
    )
    # Each forged press is refused (never applied, above); one that reaches the log after the window it
    # joins has closed is refused for that instead ("no slapping now"): at most one per press.
    assert 1 <= cheated.assert_refused_everywhere(reason) <= len(forged)


def test_a_press_timed_seconds_early_is_dropped_by_the_leader_and_never_committed(cheated: Game) -> None:
    """Only the leader can tell a press time from a forged one (its clock is the table's), so only the
    leader refuses it: it never reaches the log, and no other peer sees it."""
    forged = cheated.made("press time")
    cheated.assert_never_applied(ids(forged), committed=False)
    assert leaders(cheated) == {cheated.node(0)}  # the founder led the whole game
    drops = re.findall(
        rf"dropped a proposal from {re.escape(cheated.node(CHEATER))}: a press timed -(\d+) ms from the "
        r"leader's clock \(at most (\d+) ms off\)",
        cheated.log(0),
    )
    assert len(drops) >= len(forged) and all(int(off) > int(bound) for off, bound in drops)


def test_the_cheater_wins_none_of_the_windows_it_forged_a_press_in(cheated: Game) -> None:
    orders: dict[int, list[int]] = {}  # the seq of each window's opening → its seats, first first
    opened = -1
    for notice in cheated.notices:
        for effect in getattr(notice, "effects", ()):
            if effect["kind"] == "slapped" and effect["opened"]:
                opened = effect["seq"]
            elif effect["kind"] == "window_closed":
                orders[opened] = [seat for seat, _effective in effect["order"]]
    forged = {made["window"] for made in cheated.attacks if made["attack"] in ("reaction time", "press time")}
    judged = [orders[window] for window in forged if window in orders]
    assert judged, "the cheater forged no press in a window the table judged"
    assert all(CHEATER not in order for order in judged), judged  # no press of its counted: it is last


def test_faces_that_were_not_dealt_are_refused_by_every_peer(cheated: Game) -> None:
    lies = cheated.made("faces")
    cheated.assert_never_applied(ids(lies), committed=True)
    refused = cheated.assert_refused_everywhere(f"{cheated.node(CHEATER)}'s ")
    assert refused == len(lies), [made["kind"] for made in lies]


def test_a_slap_for_another_seat_is_refused_by_every_peer_in_its_players_name_or_the_cheaters(
    cheated: Game,
) -> None:
    forged = cheated.made("slap for another seat")
    cheated.assert_never_applied(ids(forged), committed=True)
    (victim, _), (cheater, _) = ids(forged)
    cheated.assert_refused_everywhere(f"not signed by {victim}'s key")
    cheated.assert_refused_everywhere(f"{cheater} cannot act for seat {forged[0]['seat']}")


def test_done_entries_in_the_other_players_names_are_refused_and_the_table_plays_on(cheated: Game) -> None:
    """Issue 12's mute: 400 forged ``done`` entries froze a table. Each is refused by every peer for
    its signature, and the game went on to its end (``finished``)."""
    (dones,) = cheated.made("done in others' names")
    forged = [(node, counter) for node, counter in dones["ids"]]
    cheated.assert_never_applied(forged, committed=True)
    refused = sum(
        cheated.assert_refused_everywhere(f"not signed by {node}'s key") for node in {n for n, _ in forged}
    )
    assert refused == FORGED_DONES + 1  # and the slap in its victim's name


def test_a_seated_players_takeover_of_a_live_seat_is_refused_by_every_peer(cheated: Game) -> None:
    (theft,) = cheated.made("takeover")
    cheated.assert_never_applied(ids([theft]), committed=False)
    for index in cheated.honest:
        said = cheated.log(index)
        assert f"dropped a proposal from {cheated.node(CHEATER)}: only the leader takes a seat over" in said
        assert "a bot stands in for seat" not in said


def test_a_seated_player_can_neither_remove_a_voter_nor_add_ghost_voters(cheated: Game) -> None:
    (changes,) = cheated.made("membership")
    seated = {cheated.node(index) for index in range(3)}
    for index in cheated.honest:
        said = cheated.log(index)
        refusal = f"dropped a proposal from {cheated.node(CHEATER)}: only the leader changes the membership"
        assert said.count(refusal) == 1 + changes["ghosts"]
        assert f"{changes['removed']} leaves the table's membership" not in said
        assert set(re.findall(r"(\S+) votes from now on", said)) <= seated


# --- a leader that decides alone -------------------------------------------------------------------


def test_a_leaders_takeover_of_a_live_seat_is_refused_by_every_peer_for_one_reason(tmp_path: Path) -> None:
    """The founder's client leads and takes seat 1 over while its process plays on: the other voter,
    asked, gives no word, so the takeover carries the thief's own and one it signed in that voter's
    name. It is committed (a leader's entries pass no door), and every peer, the thief's own record
    too, refuses it for the same reason; seat 1 is never played by a bot and the game ends agreed."""
    thief = {0: client("thief")}
    with table(tmp_path, 3, rounds=2, programs=thief, env=logging_env(tmp_path), options=QUICK) as scene:
        scene.wait_all()
        game = finished(scene, [1, 2], tmp_path)
    (theft,) = game.made("leader takeover")
    assert theft["leader"] and theft["heard_ms"] < 1000  # it led, and had heard seat 1 lately
    game.assert_never_applied(ids([theft]), committed=True)
    victim, other = game.node(1), game.node(2)
    refusal = (
        f"entry from {game.node(0)}#1 refused: {game.node(0)}#1 cannot take over seat 1 alone: 2 of the 2"
        f" other voters must say its process {victim} is silent, 1 did; {other}'s word is not signed by"
        " its key for the seat as it stands"
    )
    assert game.refusals("cannot take over seat") == Counter({refusal: 1})
    game.assert_refused_everywhere("cannot take over seat")
    assert refusal in game.log(0)  # the thief's own kdm refuses it too
    asked = f"{game.node(0)} asked whether seat 1 ({victim}) is silent: not as heard from here"
    assert asked in game.log(2)
    for index in range(3):
        assert "a bot stands in for seat" not in game.log(index)


# --- a stranger ------------------------------------------------------------------------------------


def test_a_stranger_proposes_nothing_but_its_join_nor_changes_the_membership_at_any_peer(
    knocked: Knocked,
) -> None:
    """A slap in a player's name, a takeover, ``done`` entries and membership changes (a voter
    removed, ghosts added), sent by a learner to every member: each drops each one."""
    game = knocked.game
    (proposals,) = game.made("learner proposals")
    stranger = game.node(3)
    for index in game.honest:
        said = game.log(index)
        without_a_seat = (
            f"dropped a proposal from {stranger}: a node without a seat proposes nothing but its own join"
        )
        assert said.count(without_a_seat) == proposals["count"]
        changes = said.count(f"dropped a proposal from {stranger}: only the leader changes the membership")
        assert changes == proposals["changes"]
        assert "a bot stands in for seat" not in said and "leaves the table's membership" not in said
    assert not [entry_id for entry_id in game.committed if entry_id[1] >= FORGED]  # none reached the log


def test_a_stranger_can_neither_lead_nor_move_the_term(knocked: Knocked) -> None:
    """What only a leader or a candidate sends (an append, a heartbeat, a vote request), a term ahead,
    and an answer a term ahead: one would have deposed the leader."""
    game = knocked.game
    (ahead,) = game.made("raft a term ahead")
    stranger = game.node(3)
    for index in game.honest:
        said = game.log(index) + "\n"
        for kind in ("heartbeat", "app", "vote"):
            assert (
                f"dropped a raft message from {stranger}: a node that does not vote sends no {kind}\n" in said
            )
        assert f"from {stranger}: a node that does not vote cannot move the term to {ahead['term']}" in said
    assert leaders(game) == {game.node(0)}  # the founder led the whole game


def test_no_connection_speaks_under_another_members_id(knocked: Knocked) -> None:
    game = knocked.game
    members = {game.node(index) for index in range(3)}
    for index in game.honest:
        posed = re.findall(r"dropped a message from (\S+): its connection holds another key", game.log(index))
        assert posed and set(posed) <= members - {game.node(index)}


def test_a_garbage_identity_and_hello_are_dropped_by_every_peer(knocked: Knocked) -> None:
    game = knocked.game
    (garbage,) = game.made("garbage hello")
    who = garbage["id"]
    for index in game.honest:
        assert f"dropped a hello for '{who}' from {who}: it names no address" in game.log(index)


def test_a_thousand_identities_leave_every_peer_a_few_sockets(knocked: Knocked) -> None:
    """One connection asks "which table?" under a thousand ids, each naming an address to answer at:
    every peer answers a few a second (the rest is dropped and said), each over a socket of its own
    that it closes once a few newer ones are open. Unbounded, each peer held about 1,100 more files."""
    game = knocked.game
    (identities,) = game.made("identities")
    for index in game.honest:
        assert f"more than {STRANGER_ANSWERS_PER_S} to non-members this second" in game.log(index)
        # A second's answers at once (a socket and its connection each, closed by zmq a moment later).
        assert knocked.grown(index) <= FILES_AT_ONCE, f"peer {index} held {knocked.grown(index)} more files"
        # Then the few sockets kept, and the stranger's own connections.
        settled = knocked.grown(index, since=identities["at"] + SETTLE_S)
        assert settled <= FILES_KEPT, f"peer {index} kept {settled} more files"
