"""How a session finds its table: by address, or by name among the tables on the LAN (no network here:
discovery's answer is replaced by a list of advertisements)."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest

from kdm import session
from kdm.cli import main
from kdm.errors import UsageError
from kdm.net.discovery import TableAd

KITCHEN = TableAd(
    name="kitchen", host="10.0.0.2", port=41000, node_id="10.0.0.2:41000~aa", version=1, mode="kilo",
    plugins=("kilo=0.1.0",), seats_taken=1, seats_total=4, state="lobby",
    addresses=("10.0.0.2", "192.168.1.2"),
)  # fmt: skip


def resolve(monkeypatch: pytest.MonkeyPatch, tables: list[TableAd], target: str) -> list[tuple[str, int]]:
    async def found(_target: str, _interface: str | None) -> list[TableAd]:
        return tables

    monkeypatch.setattr(session, "_tables_for", found)
    return asyncio.run(session._resolve(target, None))


def test_a_table_named_is_tried_at_every_address_it_advertises(monkeypatch: pytest.MonkeyPatch) -> None:
    assert resolve(monkeypatch, [KITCHEN], "kitchen") == [("10.0.0.2", 41000), ("192.168.1.2", 41000)]
    assert resolve(monkeypatch, [KITCHEN], "") == [("10.0.0.2", 41000), ("192.168.1.2", 41000)]


def test_an_address_is_taken_as_given_without_looking_at_the_lan(monkeypatch: pytest.MonkeyPatch) -> None:
    assert resolve(monkeypatch, [], "10.9.8.7:4000") == [("10.9.8.7", 4000)]


def test_two_tables_of_one_name_are_not_picked_from_silently(monkeypatch: pytest.MonkeyPatch) -> None:
    other = dataclasses.replace(KITCHEN, host="10.0.0.3", node_id="10.0.0.3:41000~bb", addresses=())
    with pytest.raises(UsageError) as refused:
        resolve(monkeypatch, [KITCHEN, other], "kitchen")
    assert str(refused.value) == (
        "2 tables are named 'kitchen' (at 10.0.0.2:41000, 10.0.0.3:41000); join one by HOST:PORT"
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
