"""Which addresses a table offers (kdm.net.addresses), and how a joiner picks the one that answers.

No traffic leaves loopback here: the machine's interfaces are replaced by fakes, and the reachability
probe connects to sockets this test opens on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import socket

import ifaddr
import pytest

from kdm.net import addresses
from kdm.net.addresses import first_reachable, offered_addresses


def adapter(name: str, *ips: str | tuple[str, int, int]) -> ifaddr.Adapter:
    return ifaddr.Adapter(name, name, [ifaddr.IP(ip, 24, name) for ip in ips])


@pytest.fixture
def interfaces(monkeypatch: pytest.MonkeyPatch) -> list[ifaddr.Adapter]:
    machine: list[ifaddr.Adapter] = []
    monkeypatch.setattr(addresses.ifaddr, "get_adapters", lambda: machine)
    monkeypatch.setattr(addresses, "_route_source", lambda _destination: None)
    return machine


def test_a_laptop_offers_its_lan_addresses_and_never_loopback(interfaces: list[ifaddr.Adapter]) -> None:
    interfaces += [
        adapter("lo", "127.0.0.1", ("::1", 0, 0)),
        adapter("wlan0", "192.168.1.20", ("fe80::1", 0, 2)),
        adapter("eth0", "169.254.7.7"),  # a cable to another laptop, no DHCP: usable, but last
        adapter("docker0", "172.17.0.1"),
    ]
    assert offered_addresses() == ["192.168.1.20", "172.17.0.1", "169.254.7.7"]


def test_the_network_mdns_goes_out_on_comes_first(
    interfaces: list[ifaddr.Adapter], monkeypatch: pytest.MonkeyPatch
) -> None:
    interfaces += [adapter("docker0", "172.17.0.1"), adapter("wlan0", "192.168.1.20")]
    monkeypatch.setattr(addresses, "_route_source", lambda _destination: "192.168.1.20")
    assert offered_addresses() == ["192.168.1.20", "172.17.0.1"]


def test_a_machine_with_no_network_offers_loopback(interfaces: list[ifaddr.Adapter]) -> None:
    interfaces += [adapter("lo", "127.0.0.1", ("::1", 0, 0))]
    assert offered_addresses() == ["127.0.0.1"]
    assert addresses.primary_address() == "127.0.0.1"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def test_a_joiner_keeps_the_address_that_answers_and_learns_its_own_end() -> None:
    async def scene() -> None:
        server = await asyncio.start_server(lambda _r, w: w.close(), "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        async with server:
            closed = free_port()
            reached = await first_reachable([("127.0.0.1", closed), ("127.0.0.1", port)], timeout_s=2)
            assert reached is not None
            assert (reached.host, reached.port, reached.local) == ("127.0.0.1", port, "127.0.0.1")
            assert reached.endpoint == f"127.0.0.1:{port}"
            assert await first_reachable([("127.0.0.1", closed)], timeout_s=2) is None
            assert await first_reachable([]) is None

    asyncio.run(scene())
