"""How a session finds its table: by address, or by name among the tables on the LAN (no network here:
discovery's answer is replaced by a list of advertisements)."""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import math
from pathlib import Path
from types import SimpleNamespace

import pytest

from kdm import session
from kdm.cli import main
from kdm.errors import UsageError
from kdm.net.discovery import TableAd
from kdm.net.keys import new_keys
from kdm.net.node import listen

KEY = new_keys().token
KITCHEN = TableAd(
    name="kitchen", host="10.0.0.2", port=41000, node_id=f"10.0.0.2:41000~{KEY}", version=1, mode="kilo",
    plugins=("kilo=0.1.0",), seats_taken=1, seats_total=4, state="lobby",
    addresses=("10.0.0.2", "192.168.1.2"),
)  # fmt: skip


def resolve(
    monkeypatch: pytest.MonkeyPatch, tables: list[TableAd], target: str, held: tuple[str, ...] = ()
) -> list[str]:
    async def found(_target: str, _interface: str | None, _held: object = ()) -> list[TableAd]:
        return tables

    monkeypatch.setattr(session, "_tables_for", found)
    return asyncio.run(session._resolve(target, None, held))


def test_a_table_named_is_tried_at_every_address_it_advertises(monkeypatch: pytest.MonkeyPatch) -> None:
    both = [f"10.0.0.2:41000~{KEY}", f"192.168.1.2:41000~{KEY}"]
    assert resolve(monkeypatch, [KITCHEN], "kitchen") == both
    assert resolve(monkeypatch, [KITCHEN], "") == both


def test_an_address_with_its_key_is_taken_as_given(monkeypatch: pytest.MonkeyPatch) -> None:
    assert resolve(monkeypatch, [], f"10.9.8.7:4000~{KEY}") == [f"10.9.8.7:4000~{KEY}"]


def test_an_address_without_a_key_takes_the_key_the_node_there_gives(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[tuple[str, int]] = []

    async def node_there(host: str, port: int) -> str | None:
        asked.append((host, port))
        return f"10.9.8.7:4000~{KEY}" if port == 4000 else None

    monkeypatch.setattr(session, "ask_node_id", node_there)
    assert resolve(monkeypatch, [], "10.9.8.7:4000") == [f"10.9.8.7:4000~{KEY}"]
    with pytest.raises(UsageError) as refused:
        resolve(monkeypatch, [], "10.9.8.7:4001")
    assert str(refused.value) == "no table answered at 10.9.8.7:4001"
    assert asked == [("10.9.8.7", 4000), ("10.9.8.7", 4001)]


def test_two_tables_of_one_name_are_not_picked_from_silently(monkeypatch: pytest.MonkeyPatch) -> None:
    theirs = f"10.0.0.3:41000~{new_keys().token}"
    other = dataclasses.replace(KITCHEN, host="10.0.0.3", node_id=theirs, table_id=theirs, addresses=())
    with pytest.raises(UsageError) as refused:
        resolve(monkeypatch, [KITCHEN, other], "kitchen")
    assert str(refused.value) == (
        f"2 tables are named 'kitchen': 10.0.0.2:41000~{KEY} (key {KITCHEN.fingerprint}); "
        f"{theirs} (key {other.fingerprint}); compare the key with the host's screen and join that one "
        f"by its address"
    )


def test_no_such_table_says_which_tables_there_are(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(UsageError, match=r"no table named 'salon' found on the LAN \(tables seen: kitchen\)"):
        resolve(monkeypatch, [KITCHEN], "salon")


def test_network_mistakes_are_one_line_and_status_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["join", "kitchen", "--headless", "--port", "70000"]) == 2
    assert capsys.readouterr().err == (
        "kdm join: error: --port 70000 is not a port number: give 1 to 65535, or 0 for any free one\n"
    )
    assert main(["join", "kitchen", "--json"]) == 2
    assert (
        capsys.readouterr().err
        == "kdm join: error: --json prints a summary instead of the table: add --headless\n"
    )
    assert main(["join", "127.0.0.1:99999", "--headless"]) == 2  # an address with a mistake, not a name
    assert "is not a port number from 1 to 65535" in capsys.readouterr().err


def test_a_process_started_again_listens_as_the_node_it_was_even_on_the_port_the_os_gave_back(
    tmp_path: Path,
) -> None:
    """``NodeMemory``: the node a data directory was at a table comes back with its port and key, also
    when the OS happens to give the new process that very port (it was free again) under a new key."""
    table = "127.0.0.1:41000~founder"

    async def scene() -> tuple[str, str, str]:
        config = session.SessionConfig(interface="127.0.0.1", data_dir=tmp_path)
        first = await listen("127.0.0.1")
        first, _ = await session._same_node_as_before(config, table, first)  # remembered: a new table
        was = first.node_id
        await first.close()
        # The next process gets the same port from the OS, with a key of its own.
        again = await listen("127.0.0.1", port=int(was.rsplit("~")[0].rsplit(":")[1]))
        given = again.node_id
        again, starts = await session._same_node_as_before(config, table, again)
        assert starts == 1
        now = again.node_id
        await again.close()
        return was, given, now

    was, given, now = asyncio.run(scene())
    assert given != was and now == was


def test_the_leader_stays_for_the_members_it_hears_that_are_behind_at_the_end() -> None:
    """A peer that fell behind as the table ended (its kdm started again near the end) learns the end
    from the leader, which stays for it: the members it hears from that do not hold the whole log. Not
    for one gone silent (it would wait for nobody), nor for those up to date."""
    from types import SimpleNamespace

    match = {"me": 40, "up to date": 40, "behind": 31, "gone": 12}
    node = SimpleNamespace(
        node_id="me",
        members=tuple(match),
        silent_ms=lambda member: 60_000.0 if member == "gone" else 100.0,
        raft=SimpleNamespace(commit_index=40, match_index=match.__getitem__),
    )
    assert session.members_behind(node) == ["behind"]  # type: ignore[arg-type]


def test_the_table_where_the_player_holds_a_seat_is_theirs_among_namesakes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Back by name to a seat they hold, the player's own table is known by its id: it is the one
    joined though another table has its name (and the join waits no grace for namesakes)."""
    theirs = f"10.0.0.3:41000~{new_keys().token}"
    other = dataclasses.replace(KITCHEN, host="10.0.0.3", node_id=theirs, table_id=theirs, addresses=())
    assert resolve(monkeypatch, [KITCHEN, other], "kitchen", held=(theirs,)) == [theirs]


def test_a_join_by_name_to_a_held_seat_waits_no_grace_for_namesakes(monkeypatch: pytest.MonkeyPatch) -> None:
    class Browser:
        async def start(self, _interface: str | None) -> None:
            pass

        async def wait_for(self, _matches: object, _timeout: float) -> TableAd:
            return KITCHEN

        def tables(self) -> list[TableAd]:
            return [KITCHEN]

        async def close(self) -> None:
            pass

    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    monkeypatch.setattr(session, "TableBrowser", Browser)
    monkeypatch.setattr(session.asyncio, "sleep", sleep)
    assert asyncio.run(session._tables_for("kitchen", None, (KITCHEN.table_id,))) == [KITCHEN]
    assert slept == []
    asyncio.run(session._tables_for("kitchen", None))
    assert slept == [session.SAME_NAME_GRACE_S]


def test_a_leader_looks_at_its_membership_every_second_only_while_it_may_change_without_a_commit() -> None:
    """Issue 'Light on the CPU', item 2: a table of seated voters at rest changes its membership only
    through a commit (a seat taken, left or handed to a bot), which nudges the leader's look; it looked
    every second all the same. It still does while a learner may catch up or fall silent, while its
    record is not up to date, and while the change the seats ask for waits; a voter that is not the
    leader, only while it approves a change the leader has not made yet."""
    seats = [SimpleNamespace(home=home, away=False, laptop="") for home in ("a:1", "b:2", "c:3")]
    raft = SimpleNamespace(voters=("a:1", "b:2", "c:3"), learners=())
    node = SimpleNamespace(
        node_id="a:1", is_leader=True, members=("a:1", "b:2", "c:3"), raft=raft, leads_up_to_date=True,
        silent_ms=lambda _member: 100.0, caught_up=lambda _member: True,
    )  # fmt: skip
    table = SimpleNamespace(node=node, peer=SimpleNamespace(record=SimpleNamespace(seats=seats)))
    table._membership_change = functools.partial(session.TableSession._membership_change, table)
    table._approved_changes = functools.partial(session.TableSession._approved_changes, table)

    def period() -> float:
        return session.TableSession._membership_period_s(table)  # type: ignore[arg-type]

    assert period() == math.inf  # at rest
    raft.learners = ("d:4",)  # a spectator, who may fall silent
    assert period() == session.MEMBERSHIP_EVERY_S
    raft.learners = ()
    node.leads_up_to_date = False
    assert period() == session.MEMBERSHIP_EVERY_S
    node.leads_up_to_date = True
    seats.pop()  # c:3 left its seat: its vote must go (and goes, once the leader may propose it)
    assert period() == session.MEMBERSHIP_EVERY_S
    node.is_leader = False
    # A voter that backs a change the leader has not made gives its approval again every second...
    assert period() == session.MEMBERSHIP_EVERY_S
    node.node_id = "d:4"
    assert period() == math.inf  # ...but a node that does not vote approves nothing
    node.node_id = "a:1"
    raft.voters = ("a:1", "b:2")
    assert period() == math.inf  # and once the change is made, neither looks again
