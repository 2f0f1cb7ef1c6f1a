"""Table discovery (kdm.net.discovery): the TXT contract, hostile input, and real mDNS between namespaces."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import subprocess
import sys
import textwrap
from typing import Any

import pytest
from zeroconf import ServiceInfo, ServiceStateChange

from kdm.net import discovery
from kdm.net.discovery import SERVICE_TYPE, TableAd, TableBrowser, parse_host_port
from kdm.net.keys import fingerprint, new_keys
from tests.helpers.netns import (
    NETNS_ETC,
    LineWatcher,
    NamespaceLan,
    crashed_run,
    namespaces,
    require_netns,
    running,
)  # fmt: skip

KITCHEN = TableAd(
    name="kitchen",
    host="10.231.0.10",
    port=47000,
    node_id="3f2a9c01d4",
    version=1,
    mode="kems",
    plugins=("spoons=0.1.0", "jokers=1.2"),
    seats_taken=2,
    seats_total=4,
    state="lobby",
)

# -- the TXT record ----------------------------------------------------------------------------------


def test_txt_record_has_the_contract_keys() -> None:
    assert KITCHEN.to_txt() == {
        "v": "1",
        "name": "kitchen",
        "mode": "kems",
        "plugins": "spoons=0.1.0,jokers=1.2",
        "seats": "2/4",
        "state": "lobby",
        "node": "3f2a9c01d4",
    }


def test_txt_record_carries_the_tables_key_fingerprint() -> None:
    founder = f"10.231.0.10:47000~{new_keys().token}"
    keyed = dataclasses.replace(KITCHEN, node_id=founder, table_id=founder)
    txt = keyed.to_txt()
    assert txt["fp"] == keyed.fingerprint == fingerprint(keyed.node_id)
    assert len(txt["fp"]) == 9 and txt["fp"][4] == "-"
    assert TableAd.from_txt(txt, keyed.host, keyed.port) == keyed
    assert keyed.contacts == (keyed.node_id,)
    other = fingerprint(f"x:1~{new_keys().token}")
    with pytest.raises(ValueError, match="is not that of the table's key"):
        TableAd.from_txt(txt | {"fp": other}, keyed.host, keyed.port)


@pytest.mark.parametrize(
    "ad",
    [
        KITCHEN,
        dataclasses.replace(KITCHEN, plugins=(), state="playing", seats_taken=4),
        dataclasses.replace(KITCHEN, name="Salle à manger · 2", state="over", seats_taken=0, seats_total=10),
    ],
)
def test_txt_round_trip(ad: TableAd) -> None:
    assert TableAd.from_txt(ad.to_txt(), ad.host, ad.port) == ad


def test_a_table_with_a_pin_says_so_in_its_txt_record() -> None:
    ad = dataclasses.replace(KITCHEN, pin=True)
    assert ad.to_txt()["pin"] == "1" and "pin" not in KITCHEN.to_txt()
    assert TableAd.from_txt(ad.to_txt(), ad.host, ad.port) == ad


def test_round_trip_through_a_zeroconf_service_info() -> None:
    info = discovery._service_info(KITCHEN, discovery._instance_name(KITCHEN), [KITCHEN.host])
    # Through the wire format: what a browser unpacks is what the advertiser packed.
    received = ServiceInfo(
        SERVICE_TYPE, info.name, port=info.port, properties=info.text, addresses=info.addresses
    )
    assert TableAd.from_info(received) == KITCHEN
    assert info.name.startswith("kitchen [") and info.name.endswith(SERVICE_TYPE)


def test_a_table_on_several_networks_is_advertised_at_every_address() -> None:
    wifi_and_cable = dataclasses.replace(KITCHEN, addresses=(KITCHEN.host, "192.168.1.20"))
    info = discovery._service_info(
        wifi_and_cable, discovery._instance_name(wifi_and_cable), list(wifi_and_cable.addresses)
    )
    received = ServiceInfo(
        SERVICE_TYPE, info.name, port=info.port, properties=info.text, addresses=info.addresses
    )
    ad = TableAd.from_info(received)
    assert ad == wifi_and_cable and ad.host == KITCHEN.host
    assert ad.addresses == ("10.231.0.10", "192.168.1.20")


def test_a_table_advertised_by_another_member_than_its_founder_names_its_table() -> None:
    assert "table" not in KITCHEN.to_txt() and KITCHEN.table_id == KITCHEN.node_id
    by_leader = dataclasses.replace(KITCHEN, node_id="10.231.0.11:47001~bb", table_id=KITCHEN.node_id)
    txt = by_leader.to_txt()
    assert txt["table"] == KITCHEN.node_id and txt["node"] == "10.231.0.11:47001~bb"
    assert TableAd.from_txt(txt, by_leader.host, by_leader.port) == by_leader


def test_an_ads_host_is_always_its_first_address() -> None:
    assert KITCHEN.addresses == (KITCHEN.host,)
    moved = dataclasses.replace(KITCHEN, host="10.0.0.7", addresses=["10.0.0.7", "10.0.0.8"])  # type: ignore[arg-type]
    assert moved.addresses == ("10.0.0.7", "10.0.0.8")


def test_instance_name_fits_a_dns_label() -> None:
    long = dataclasses.replace(KITCHEN, name="é" * 100 + ".local")
    label = discovery._instance_name(long).removesuffix("." + SERVICE_TYPE)
    assert len(label.encode()) <= 63
    assert "." not in label


def test_a_field_too_long_for_txt_is_refused_with_its_name() -> None:
    with pytest.raises(ValueError, match="advertised name"):
        dataclasses.replace(KITCHEN, name="x" * 300).to_txt()


@pytest.mark.parametrize(
    ("change", "complaint"),
    [
        ({"v": "one"}, "protocol version"),
        ({"v": "-1"}, "protocol version"),
        ({"seats": "2"}, "seats"),
        ({"seats": "5/4"}, "seats"),
        ({"seats": "0/0"}, "seats"),
        ({"state": "sleeping"}, "state"),
        ({"plugins": "spoons"}, "NAME=VERSION"),
        ({"plugins": "spoons=1,"}, "NAME=VERSION"),
        ({"name": ""}, "name"),
        ({"name": "evil\x1b[2J"}, "name"),
        ({"node": None}, "lacks node"),
    ],
)
def test_malformed_txt_is_refused(change: dict[str, str | None], complaint: str) -> None:
    txt: dict[str, str | None] = {**KITCHEN.to_txt(), **change}
    with pytest.raises(ValueError, match=complaint):
        TableAd.from_txt(txt, "10.0.0.1", 47000)


def test_unknown_txt_keys_are_ignored() -> None:
    assert TableAd.from_txt({**KITCHEN.to_txt(), "future": "x"}, KITCHEN.host, KITCHEN.port) == KITCHEN


def test_undecodable_txt_is_refused() -> None:
    properties = {key.encode(): value.encode() for key, value in KITCHEN.to_txt().items()}
    properties[b"name"] = b"\xff\xfe"
    info = ServiceInfo(
        SERVICE_TYPE, "x." + SERVICE_TYPE, port=1, properties=properties, parsed_addresses=["10.0.0.1"]
    )
    with pytest.raises(ValueError):
        TableAd.from_info(info)


# -- the browser with resolution faked (no network) --------------------------------------------------


class FakeResolutions:
    """Stands in for AsyncServiceInfo: answers come from `answers`, optionally held until released."""

    def __init__(self) -> None:
        self.answers: dict[str, ServiceInfo] = {}
        self.hold = asyncio.Event()
        self.hold.set()

    def __call__(self, service_type: str, name: str) -> Any:
        fake = self

        class Resolved:
            async def async_request(self, zeroconf: object, timeout: float) -> bool:
                await fake.hold.wait()
                self.info = fake.answers[name]
                return True

            def __getattr__(self, attribute: str) -> Any:
                return getattr(self.info, attribute)

        return Resolved()

    def advertise(self, name: str, properties: dict[str, str] | dict[bytes, bytes]) -> None:
        self.answers[name] = ServiceInfo(
            SERVICE_TYPE, name, port=47000, properties=properties, parsed_addresses=["10.231.0.10"]
        )


def fire(browser: TableBrowser, name: str, change: ServiceStateChange) -> None:
    browser._on_service_state_change(None, SERVICE_TYPE, name, change)  # type: ignore[arg-type]


def test_browser_skips_and_logs_a_malformed_table(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    async def scenario() -> None:
        fakes = FakeResolutions()
        monkeypatch.setattr(discovery, "AsyncServiceInfo", fakes)
        browser = TableBrowser()
        fakes.advertise("bad." + SERVICE_TYPE, {**KITCHEN.to_txt(), "seats": "lots"})
        fakes.advertise("good." + SERVICE_TYPE, KITCHEN.to_txt())
        fire(browser, "bad." + SERVICE_TYPE, ServiceStateChange.Added)
        fire(browser, "good." + SERVICE_TYPE, ServiceStateChange.Added)
        found = await browser.wait_for(lambda ad: ad.node_id == KITCHEN.node_id, timeout=5)
        assert found == KITCHEN
        assert browser.tables() == [KITCHEN]
        # A table whose update turns malformed is dropped rather than shown stale.
        fakes.advertise("good." + SERVICE_TYPE, {**KITCHEN.to_txt(), "state": "?"})
        fire(browser, "good." + SERVICE_TYPE, ServiceStateChange.Updated)
        await asyncio.gather(*browser._resolving)
        assert browser.tables() == []
        await browser.close()

    with caplog.at_level(logging.WARNING, logger="kdm.net"):
        asyncio.run(scenario())
    warnings = [record.getMessage() for record in caplog.records if record.name == "kdm.net"]
    assert any("'bad._kdm._tcp.local.'" in message and "seats" in message for message in warnings)
    assert any("'good._kdm._tcp.local.'" in message and "state" in message for message in warnings)


def test_browser_updates_and_forgets_and_never_resurrects(monkeypatch: pytest.MonkeyPatch) -> None:
    async def scenario() -> None:
        fakes = FakeResolutions()
        monkeypatch.setattr(discovery, "AsyncServiceInfo", fakes)
        changes: list[list[TableAd]] = []
        browser = TableBrowser(on_change=lambda: changes.append(browser.tables()))
        name = "kitchen." + SERVICE_TYPE
        fakes.advertise(name, KITCHEN.to_txt())
        fire(browser, name, ServiceStateChange.Added)
        assert await browser.wait_for(lambda ad: ad.state == "lobby", timeout=5) == KITCHEN
        playing = dataclasses.replace(KITCHEN, state="playing", seats_taken=4)
        fakes.advertise(name, playing.to_txt())
        fire(browser, name, ServiceStateChange.Updated)
        assert await browser.wait_for(lambda ad: ad.state == "playing", timeout=5) == playing
        # The goodbye arrives while an update is still being resolved: the table must stay gone.
        fakes.hold.clear()
        fire(browser, name, ServiceStateChange.Updated)
        fire(browser, name, ServiceStateChange.Removed)
        fakes.hold.set()
        await asyncio.gather(*browser._resolving)
        assert browser.tables() == []
        assert changes == [[KITCHEN], [playing], []]
        assert await browser.wait_for(lambda ad: True, timeout=0.05) is None
        await browser.close()

    asyncio.run(scenario())


# -- --join HOST:PORT --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("192.168.1.20:47000", ("192.168.1.20", 47000)),
        ("  kitchen.local:5 ", ("kitchen.local", 5)),
        ("[fe80::1]:47000", ("fe80::1", 47000)),
        ("my-laptop:65535", ("my-laptop", 65535)),
    ],
)
def test_parse_host_port(text: str, expected: tuple[str, int]) -> None:
    assert parse_host_port(text) == expected


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        ("kitchen", "is not HOST:PORT"),
        (":47000", "is not HOST:PORT"),
        ("host:", "not a port number"),
        ("host:0", "not a port number"),
        ("host:65536", "not a port number"),
        ("host:47a", "not a port number"),
        ("host:-1", "not a port number"),
        ("fe80::1:47000", "brackets"),
        ("[nonsense]:47000", "not an IPv6 address"),
        ("bad host:47000", "not a host name"),
        ("-x:47000", "not a host name"),
    ],
)
def test_parse_host_port_errors_are_one_line(text: str, complaint: str) -> None:
    with pytest.raises(ValueError, match=complaint) as raised:
        parse_host_port(text)
    assert "\n" not in str(raised.value)


# -- real mDNS between network namespaces ------------------------------------------------------------

# Each script prints one JSON object per line, stamped with time.monotonic(), which is one clock for
# every namespace of the machine, so times printed by different hosts can be subtracted.

ADVERTISER = textwrap.dedent(
    """
    import asyncio, json, sys, time
    from kdm.net.discovery import Advertiser, TableAd

    def say(event, **fields):
        print(json.dumps({"event": event, "t": time.monotonic(), **fields}), flush=True)

    def table(fields):
        return TableAd(**{**fields, "plugins": tuple(fields["plugins"])})

    async def main():
        advertiser = Advertiser()
        say("advertising")
        await advertiser.start(table(json.loads(sys.argv[2])), sys.argv[1])
        say("advertised")
        loop = asyncio.get_running_loop()
        while True:
            command = (await loop.run_in_executor(None, sys.stdin.readline)).strip()
            if command.startswith("update "):
                await advertiser.update(table(json.loads(command.removeprefix("update "))))
                say("updated")
            elif command in ("close", ""):
                say("closing")
                await advertiser.close()
                say("closed")
                return

    asyncio.run(main())
    """
)

# Advertises a table whose TXT record is garbage, straight through zeroconf.
VANDAL = textwrap.dedent(
    """
    import asyncio, sys
    from zeroconf import ServiceInfo
    from zeroconf.asyncio import AsyncZeroconf
    from kdm.net.discovery import SERVICE_TYPE

    async def main():
        zeroconf = AsyncZeroconf(interfaces=[sys.argv[1]])
        garbage = {"v": "x", "seats": "many"}
        info = ServiceInfo(SERVICE_TYPE, "vandal." + SERVICE_TYPE, port=1, properties=garbage,
                           server="vandal.local.", parsed_addresses=[sys.argv[1]])
        await zeroconf.async_register_service(info)
        print("advertised", flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
        await zeroconf.async_close()

    asyncio.run(main())
    """
)

WATCHER = textwrap.dedent(
    """
    import asyncio, dataclasses, json, logging, sys, time
    from kdm.net.discovery import TableBrowser

    def say(event, **fields):
        print(json.dumps({"event": event, "t": time.monotonic(), **fields}), flush=True)

    class Relay(logging.Handler):
        def emit(self, record):
            say("log", level=record.levelname, message=record.getMessage())

    logging.getLogger("kdm.net").addHandler(Relay(logging.DEBUG))
    logging.getLogger("kdm.net").setLevel(logging.DEBUG)

    async def main():
        def changed():
            say("tables", tables=[dataclasses.asdict(ad) for ad in browser.tables()])

        browser = TableBrowser(changed)
        say("starting")
        await browser.start(sys.argv[1])
        say("started")
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
        await browser.close()

    asyncio.run(main())
    """
)

FINDER = textwrap.dedent(
    """
    import asyncio, dataclasses, json, sys
    from kdm.net.discovery import find_tables

    tables = asyncio.run(find_tables(float(sys.argv[2]), sys.argv[1]))
    print(json.dumps([dataclasses.asdict(ad) for ad in tables]), flush=True)
    """
)

DEADLINE_S = 10.0


def start(lan: NamespaceLan, host: int, script: str, *args: str) -> tuple[subprocess.Popen[str], LineWatcher]:
    process = lan.run(
        host,
        [sys.executable, "-c", script, lan.address(host), *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    return process, LineWatcher(process.stdout)


def event(output: LineWatcher, name: str, where: Any = lambda event: True) -> dict[str, Any]:
    """The next JSON event called `name` satisfying `where`, within the deadline."""

    def matches(line: str) -> bool:
        if not line.startswith("{"):
            return False
        parsed = json.loads(line)
        return bool(parsed["event"] == name and where(parsed))

    line = output.wait_for(matches, DEADLINE_S)
    assert line is not None, f"no {name!r} event within {DEADLINE_S} s; output so far: {output.lines}"
    parsed: dict[str, Any] = json.loads(line)
    return parsed


def as_json(ad: TableAd) -> Any:
    return json.loads(json.dumps(dataclasses.asdict(ad)))


def from_json(fields: dict[str, Any]) -> TableAd:
    return TableAd(**{**fields, "plugins": tuple(fields["plugins"])})


def listed(ad: TableAd) -> Any:
    return lambda event: as_json(ad) in event["tables"]


def find_tables(lan: NamespaceLan, host: int) -> list[TableAd]:
    """`find_tables` run on `host` with a 1.5 s window."""
    finder = lan.run(
        host, [sys.executable, "-c", FINDER, lan.address(host), "1.5"], stdout=subprocess.PIPE, text=True
    )
    output, _ = finder.communicate(timeout=DEADLINE_S)
    assert finder.returncode == 0
    return [from_json(table) for table in json.loads(output)]


def send(process: subprocess.Popen[str], line: str) -> None:
    assert process.stdin is not None
    process.stdin.write(line + "\n")
    process.stdin.flush()


@pytest.mark.netns
def test_tables_are_found_updated_and_dropped_over_real_multicast() -> None:
    require_netns()
    with NamespaceLan(4) as lan:
        ad = dataclasses.replace(KITCHEN, host=lan.address(0))
        # Host 1 watches from before the table exists; host 2 asks once with find_tables; host 3 starts
        # browsing after the table is up, as `kdm tables` would.
        watcher, watcher_output = start(lan, 1, WATCHER)
        event(watcher_output, "started")

        advertiser, advertiser_output = start(lan, 0, ADVERTISER, json.dumps(dataclasses.asdict(ad)))
        advertising = event(advertiser_output, "advertising")
        first_seen = event(watcher_output, "tables", listed(ad))
        event(advertiser_output, "advertised")
        elapsed_ms = 1000 * (first_seen["t"] - advertising["t"])
        print(f"advertised -> listed by a running browser: {elapsed_ms:.0f} ms")

        late, late_output = start(lan, 3, WATCHER)
        late_started = event(late_output, "starting")
        late_seen = event(late_output, "tables", listed(ad))
        print(f"browser started -> table listed: {1000 * (late_seen['t'] - late_started['t']):.0f} ms")

        assert find_tables(lan, 2) == [ad]
        # Across an unplugged cable nothing is found; plugged back in, the table answers again.
        lan.cut(0)
        assert find_tables(lan, 2) == []
        lan.restore(0)
        assert find_tables(lan, 2) == [ad]

        playing = dataclasses.replace(ad, state="playing", seats_taken=4)
        send(advertiser, "update " + json.dumps(dataclasses.asdict(playing)))
        event(watcher_output, "tables", listed(playing))
        event(late_output, "tables", listed(playing))

        vandal = lan.run(
            0,
            [sys.executable, "-c", VANDAL, lan.address(0)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert vandal.stdout is not None
        assert LineWatcher(vandal.stdout).wait_for(lambda line: line == "advertised", DEADLINE_S)
        complaint = event(watcher_output, "log", lambda event: "vandal" in event["message"])
        assert complaint["level"] == "WARNING" and "malformed" in complaint["message"]

        send(advertiser, "close")
        closing = event(advertiser_output, "closing")
        gone = event(watcher_output, "tables", lambda event: event["tables"] == [])
        event(late_output, "tables", lambda event: event["tables"] == [])
        event(advertiser_output, "closed")
        print(f"advertiser closing -> table dropped: {1000 * (gone['t'] - closing['t']):.0f} ms")
        assert advertiser.wait(timeout=DEADLINE_S) == 0

        for process in (watcher, late, vandal):
            send(process, "")
            assert process.wait(timeout=DEADLINE_S) == 0


# -- the namespace harness itself ----------------------------------------------------------------------


@pytest.mark.netns
def test_the_lan_is_removed_when_a_test_fails() -> None:
    require_netns()
    created: list[str] = []
    with pytest.raises(RuntimeError, match="boom"), NamespaceLan(2) as lan:
        created = [lan.switch, lan.namespace(0), lan.namespace(1)]
        assert set(created) <= namespaces()
        assert (NETNS_ETC / lan.namespace(0) / "hosts").is_file()
        raise RuntimeError("boom")
    assert created and not set(created) & namespaces()
    assert not any((NETNS_ETC / name).exists() for name in created)


@pytest.mark.netns
def test_a_test_laptop_is_named_as_debian_names_it_and_has_no_kdm_flag() -> None:
    require_netns()
    probe = (
        "import os, socket; name = socket.gethostname(); "
        "print(name, socket.gethostbyname(name), os.environ.get('KDM_INTERFACE'))"
    )
    with NamespaceLan(2) as lan:
        outputs = [
            lan.run(i, [sys.executable, "-c", probe], stdout=subprocess.PIPE, text=True).communicate(
                timeout=DEADLINE_S
            )[0]
            for i in range(2)
        ]
    # The name resolves to 127.0.1.1, which no other laptop can reach: kdm must not advertise it.
    assert [output.split() for output in outputs] == [
        ["laptop0", "127.0.1.1", "None"],
        ["laptop1", "127.0.1.1", "None"],
    ]


@pytest.mark.netns
def test_a_crashed_runs_lan_is_removed_by_the_next_one() -> None:
    require_netns()
    crashed = crashed_run(
        """
        import subprocess, sys
        from tests.helpers.netns import NamespaceLan
        lan = NamespaceLan(2).__enter__()
        # Its own output goes nowhere, or it would hold the test's pipe open after the crash.
        orphan = lan.run(0, [sys.executable, "-c", "import signal; signal.pause()"],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        print(lan.switch, lan.namespace(0), lan.namespace(1), orphan.pid, flush=True)
        """,
        DEADLINE_S,
    )
    *left, orphan = crashed.stdout.split()
    assert len(left) == 3 and set(left) <= namespaces(), crashed.stderr
    assert running(int(orphan))
    with NamespaceLan(1):
        assert not set(left) & namespaces()
    assert not running(int(orphan))


@pytest.mark.parametrize(("ci", "outcome"), [("", pytest.skip.Exception), ("true", pytest.fail.Exception)])
def test_without_namespaces_the_lan_tests_skip_but_fail_under_ci(
    monkeypatch: pytest.MonkeyPatch, ci: str, outcome: type[BaseException]
) -> None:
    monkeypatch.setattr(NamespaceLan, "skip_reason", staticmethod(lambda: "network namespaces need root"))
    monkeypatch.setenv("CI", ci)
    with pytest.raises(outcome, match="need root"):
        require_netns()
