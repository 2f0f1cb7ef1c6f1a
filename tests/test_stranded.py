"""A table whose quorum is gone, over real ``kdm`` processes on 127.0.0.1 (no namespaces needed: the
LAN version, with discovery and the 3 s bound, is tests/test_lan_stranded.py).

The founder plays with a bot it started (``--bots 1``: one laptop, one vote, the bot's shared with its
player); a joiner sits beside them. Every process of the founder's "laptop" (its process group: the
founder and its bot) is killed at once. The joiner says it is stranded, naming the founder and the bot;
with ``--if-stranded go-on`` it goes on without them, bots stand in, and the game ends there.
"""

from __future__ import annotations

import asyncio
import functools
import json
import math
import os
import signal
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

from kdm.cli import _session_config, build_parser
from kdm.session import (
    ALONE_EVERY_S,
    ALONE_GIVE_UP_S,
    ALONE_WAITING_EVERY_S,
    SILENT_S,
    SessionConfig,
    TableSession,
)
from kdm.testing import run_virtual
from tests.helpers.netns import LineWatcher
from tests.helpers.processes import DEADLINE_S, KDM, Table, bot_player, start

ROUNDS = 2


@pytest.mark.processes
def test_a_player_and_their_bot_killed_at_once_and_the_other_goes_on_when_told(tmp_path: Path) -> None:
    founder = subprocess.Popen(
        [*KDM, "host", "--players", "3", "--bots", "1", "--option", f"rounds={ROUNDS}", "--no-advertise",
         "--name", "ann", *bot_player(tmp_path, 0)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True,
        start_new_session=True,  # its bot is in its process group: a "laptop" killed with killpg
        env={**os.environ, "KDM_LOG": "info"},  # the leader says whom it makes a voter
    )  # fmt: skip
    assert founder.stdout is not None
    founder_said = LineWatcher(founder.stdout)
    joiner: subprocess.Popen[str] | None = None
    joiner_said: LineWatcher | None = None
    try:
        listening = founder_said.wait_for(lambda line: line.startswith("listening on "), DEADLINE_S)
        assert listening is not None
        joiner, joiner_said = start(
            "join", listening.split()[2], "--name", "bob", *bot_player(tmp_path, 1), "--if-stranded", "go-on",
            "--report", str(tmp_path / "bob.json"),
        )  # fmt: skip
        assert joiner_said.wait_for(lambda line: "passes to" in line, DEADLINE_S)
        seated = {line.split()[0]: line.split()[-4] for line in founder_said.lines if " takes seat " in line}
        nodes = {name: node.strip("()") for name, node in seated.items()}
        assert f"{nodes['bob']} votes from now on" in " ".join(founder_said.lines)  # one vote per laptop:
        assert f"{nodes['bot']} votes from now on" not in " ".join(founder_said.lines)  # not the bot's
        os.killpg(founder.pid, signal.SIGKILL)  # the founder's laptop dies: its kdm and its bot
        founder.wait(DEADLINE_S)
        stranded = joiner_said.wait_for(lambda line: line.startswith("stranded: "), DEADLINE_S)
        assert stranded == "stranded: the table cannot go on without ann, bot 1 (not heard from)"
        going_on = joiner_said.wait_for(lambda line: line.startswith("going on without "), DEADLINE_S)
        assert going_on == "going on without ann, bot 1: bots play their seats"
        assert joiner.wait(DEADLINE_S) == 0
    except BaseException:
        for name, said in (("founder", founder_said), ("joiner", joiner_said)):
            if said is not None:
                print(f"--- {name} ---", *said.lines[-30:], sep="\n")
        raise
    finally:
        for process in (founder, joiner):
            if process is not None and process.poll() is None:
                process.kill()
                process.wait()
    report = json.loads((tmp_path / "bob.json").read_text())
    assert report["rounds"] == ROUNDS and report["digest"]
    assert any(line.startswith("a bot stands in for seat 0 (ann)") for line in joiner_said.lines)


@pytest.mark.processes
def test_two_laptops_of_three_die_and_the_one_left_goes_on_alone(tmp_path: Path) -> None:
    """The dead cannot give their word on each other's seats: once the survivor went on without them
    (a forced configuration, in the log), its word alone lets a bot take each dead seat."""
    scene = Table(tmp_path)
    try:
        scene.player(0, "host", "--players", "3", "--option", f"rounds={ROUNDS}", "--no-advertise")
        listening = scene.host.wait_for(lambda line: line.startswith("listening on "), DEADLINE_S)
        assert listening is not None
        scene.player(1, "join", listening.split()[2], "--name", "ann")
        assert scene.host.wait_for(lambda line: line.endswith("takes seat 1"), DEADLINE_S)
        survivor, said = scene.player(
            2, "join", listening.split()[2], "--name", "bob", "--if-stranded", "go-on"
        )
        assert said.wait_for(lambda line: "passes to" in line, DEADLINE_S)
        for dead in scene.processes[:2]:
            dead.kill()
            dead.wait(DEADLINE_S)
        going_on = said.wait_for(lambda line: line.startswith("going on without "), DEADLINE_S)
        assert going_on is not None and going_on.endswith(": bots play their seats")
        assert survivor.wait(DEADLINE_S) == 0
    except BaseException:
        scene.show()
        raise
    finally:
        scene.stop()
    assert scene.report(2)["rounds"] == ROUNDS
    for seat in (0, 1):
        assert any(line.startswith(f"a bot stands in for seat {seat} ") for line in said.lines)


def stranded_alone(wait_for_ever: bool) -> SimpleNamespace:
    """What ``TableSession._give_up_when_alone`` reads of a headless session whose game is under way
    and whose every other member is silent (the others' laptops died, or the table ended without it)."""
    record = SimpleNamespace(started=True, engine=SimpleNamespace(over=False, state=SimpleNamespace(round=2)),
                             name="attic")  # fmt: skip
    node = SimpleNamespace(node_id="me", members=["me", "gone"], silent_ms=lambda member: math.inf,
                           leader_holds=lambda: False, leader_watch=asyncio.Event)  # fmt: skip
    session = SimpleNamespace(
        config=SessionConfig(wait_for_ever=wait_for_ever), peer=SimpleNamespace(record=record, table="t"),
        done=asyncio.Event(), error="", _alone=lambda: True, node=node,
    )  # fmt: skip
    session._alone_period_s = functools.partial(TableSession._alone_period_s, session)
    return session


def test_a_headless_peer_alone_gives_up_and_says_why_unless_told_to_wait_in_so_many_words() -> None:
    async def after(seconds: float, session: SimpleNamespace) -> str:
        task = asyncio.ensure_future(TableSession._give_up_when_alone(session))  # type: ignore[arg-type]
        await asyncio.sleep(seconds)  # virtual time: the table's silence, not the test's
        session.done.set()
        await asyncio.wait_for(task, 1.0)
        return str(session.error)

    # By default (wait, unsaid): after ALONE_GIVE_UP_S of silence it stops, saying why.
    said = run_virtual(after(ALONE_GIVE_UP_S + 5, stranded_alone(wait_for_ever=False)))
    assert said.startswith("no other member of table 'attic' has answered for 20 s"), said
    # --if-stranded wait given: the laptops it waits for may come back; it waits however long.
    assert run_virtual(after(10 * ALONE_GIVE_UP_S, stranded_alone(wait_for_ever=True))) == ""


def test_a_peer_that_hears_the_others_looks_whether_it_is_alone_only_when_it_could_be() -> None:
    """At a table at rest the others are heard several times a second. While the leader holds
    (``Node.leader_holds``: a voter hears its leader, or leads other voters), the look waits for the
    node's leader watch to nudge it (a voter that stops hearing the others campaigns, a leader steps
    down: every two seconds before). Otherwise it waits until they could all have been silent for
    ``SILENT_S``, not a second at a time; a waiting room, where nothing is counted, is looked at seldom;
    a peer alone looks every second."""
    silences = {"a": 300.0, "b": 1200.0}
    holds = [True]
    node = SimpleNamespace(node_id="me", members=["me", "a", "b"], silent_ms=silences.__getitem__,
                           leader_holds=lambda: holds[0], is_leader=False,
                           raft=SimpleNamespace(voters=("me", "a", "b")))  # fmt: skip
    session = SimpleNamespace(node=node)

    def period(under_way: bool, alone: bool) -> float:
        return TableSession._alone_period_s(session, under_way, alone)  # type: ignore[arg-type]

    assert period(under_way=True, alone=False) == math.inf  # a follower that hears its leader
    node.is_leader = True
    assert period(under_way=True, alone=False) == math.inf  # a leader of other voters
    node.raft.voters = ("me",)  # a leader of none (the others learners): it never steps down
    assert period(under_way=True, alone=False) == pytest.approx(SILENT_S - 0.3)  # "a" was heard last
    holds[0] = False  # a learner, or a voter whose leader went silent
    assert period(under_way=True, alone=False) == pytest.approx(SILENT_S - 0.3)
    silences["a"] = 1900.0
    assert period(under_way=True, alone=False) == ALONE_EVERY_S  # "b", heard last, silent in 0.8 s: 1 s
    assert period(under_way=True, alone=True) == ALONE_EVERY_S
    assert period(under_way=False, alone=False) == ALONE_WAITING_EVERY_S


def test_if_stranded_wait_given_is_told_from_the_default() -> None:
    parser = build_parser()
    configs = {
        flags: _session_config(parser.parse_args(["join", "attic", *flags]), None)
        for flags in ((), ("--if-stranded", "wait"), ("--if-stranded", "go-on"))
    }
    assert [(c.if_stranded, c.wait_for_ever) for c in configs.values()] == [
        ("wait", False),
        ("wait", True),
        ("go-on", False),
    ]
