"""Which of this machine's addresses to offer, and which of a table's addresses answers.

A laptop has several addresses (Wi-Fi, Ethernet, a VPN, a container bridge) and its host name is no
guide: Debian and Ubuntu map it to 127.0.1.1 in /etc/hosts. So a table listens on every interface and
offers every IPv4 address that is not loopback (`offered_addresses`, read with ifaddr, which
python-zeroconf already depends on); loopback only when the machine has nothing else. A joiner tries the
addresses a table offers and keeps the first one a TCP connection reaches (`first_reachable`); the local
end of that connection is the address the table can reach the joiner at, on that same network.

Nothing here sends a packet except `first_reachable`'s connection attempts; `primary_address` only asks
the kernel for a route.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import socket
from collections.abc import Sequence
from dataclasses import dataclass

import ifaddr

__all__ = ["LOOPBACK", "Reached", "first_reachable", "offered_addresses", "primary_address"]

log = logging.getLogger("kdm.net")

LOOPBACK = "127.0.0.1"
#: Every interface, as a bind address.
EVERYWHERE = "0.0.0.0"
# The mDNS group: the route to it is the one the kernel sends advertisements on.
_MDNS_GROUP = ("224.0.0.251", 5353)


def offered_addresses() -> list[str]:
    """This machine's IPv4 addresses that others on a LAN may reach, best first; loopback if none.

    Link-local addresses (169.254/16: two laptops on a cable with no DHCP) come after the others; the
    address the kernel would send mDNS from comes first, since that is the network tables are seen on.
    """
    found: list[ipaddress.IPv4Address] = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if not isinstance(ip.ip, str):
                continue  # IPv6: (address, flowinfo, scope) tuples; the LAN tests and zmq ids use IPv4
            try:
                address = ipaddress.IPv4Address(ip.ip)
            except ValueError:
                continue
            if not (address.is_loopback or address.is_unspecified or address.is_multicast) and (
                address not in found
            ):
                found.append(address)
    if not found:
        return [LOOPBACK]
    route = _route_source(_MDNS_GROUP)
    found.sort(key=lambda address: (str(address) != route, address.is_link_local))
    return [str(address) for address in found]


def primary_address() -> str:
    """The one address to name this machine by when one is needed (a node id): the first offered."""
    return offered_addresses()[0]


@dataclass(frozen=True)
class Reached:
    """A table address that answered, and this machine's address on the way to it."""

    host: str
    port: int
    local: str

    @property
    def endpoint(self) -> str:
        return f"{self.host}:{self.port}"


async def first_reachable(candidates: Sequence[tuple[str, int]], timeout_s: float = 3.0) -> Reached | None:
    """The first of ``candidates`` (host, port) that accepts a TCP connection within ``timeout_s``.

    All are tried at once and the first to answer wins. The connection is closed at once: it only
    proves the route, and names the local end.
    """
    if not candidates:
        return None
    attempts = [asyncio.ensure_future(_reach(host, port, timeout_s)) for host, port in candidates]
    try:
        for finished in asyncio.as_completed(attempts):
            reached = await finished
            if reached is not None:
                return reached
        return None
    finally:
        for attempt in attempts:
            attempt.cancel()
        await asyncio.gather(*attempts, return_exceptions=True)


async def _reach(host: str, port: int, timeout_s: float) -> Reached | None:
    try:
        _reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout_s)
    except (OSError, asyncio.TimeoutError) as error:
        log.info("no answer from %s:%d: %s", host, port, error or "timed out")
        return None
    try:
        local = str(writer.get_extra_info("sockname")[0])
    finally:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()
    return Reached(host, port, local)


def _route_source(destination: tuple[str, int]) -> str | None:
    """The address the kernel would send to ``destination`` from; a UDP connect() sends nothing."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(destination)
        except OSError:
            return None
        source: str = probe.getsockname()[0]
    return source
