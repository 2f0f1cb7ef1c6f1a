"""Finding tables on the LAN: mDNS/DNS-SD advertisements of type `_kdm._tcp.local.` (python-zeroconf).

This module owns the advertisement format (`TableAd` and its TXT record), advertising a table
(`Advertiser`), watching the tables on the network (`TableBrowser`, `find_tables`) and parsing a manual
`HOST:PORT` for networks that block multicast. Discovery only finds tables: whether a peer is alive is the
consensus heartbeats' business, so nothing here tracks liveness beyond mDNS's own goodbyes and TTLs.

Everything read from the network is untrusted: a malformed advertisement is logged on the "kdm.net"
logger and skipped, never raised to the caller.
"""

from __future__ import annotations

import asyncio
import hashlib
import ipaddress
import logging
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from zeroconf import InterfaceChoice, IPVersion, ServiceInfo, ServiceStateChange, Zeroconf
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

from kdm.net.keys import fingerprint, public_key_of

__all__ = [
    "SERVICE_TYPE",
    "STATES",
    "Advertiser",
    "TableAd",
    "TableBrowser",
    "find_tables",
    "parse_contact",
    "parse_host_port",
]

SERVICE_TYPE = "_kdm._tcp.local."
STATES = ("lobby", "playing", "over")

log = logging.getLogger("kdm.net")

# A peer that crashes sends no goodbye; with RFC 6762's 75-minute default its table would linger in every
# browser that long. Two minutes (the RFC's host-record TTL) bounds that at the cost of a refresh query
# now and then.
_TTL_S = 120
# How long the browser waits for the SRV/TXT/A answers of a service it has just seen.
_RESOLVE_TIMEOUT_MS = 3000
# DNS-SD instance labels are at most 63 bytes; TXT strings at most 255 (one length byte).
_MAX_LABEL_BYTES = 63
_MAX_TXT_ENTRY_BYTES = 255
_TXT_KEYS = ("v", "name", "mode", "plugins", "seats", "state", "node")
_DIGITS = re.compile(r"[0-9]{1,9}")
_SEATS = re.compile(r"([0-9]{1,4})/([0-9]{1,4})")
_PLUGIN = re.compile(r"[^,=\s]+=[^,=\s]+")
_HOSTNAME = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_.])?")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


@dataclass(frozen=True)
class TableAd:
    """What a table tells the LAN about itself; `host:port` is where its peer's transport listens."""

    name: str
    host: str
    port: int
    node_id: str
    version: int
    mode: str
    plugins: tuple[str, ...]
    seats_taken: int
    seats_total: int
    state: str
    #: Every address the table is advertised at, ``host`` first: a joiner keeps the first that answers.
    addresses: tuple[str, ...] = ()
    #: The table's id (its founder's node id); ``node_id`` is the member that advertises it now, its
    #: leader, which is another once the founder is gone.
    table_id: str = ""
    #: Whether the table admits only joiners that prove its PIN (``kdm.net.admission``).
    pin: bool = False

    def __post_init__(self) -> None:
        if not self.table_id:
            object.__setattr__(self, "table_id", self.node_id)
        others = tuple(address for address in self.addresses if address != self.host)
        object.__setattr__(self, "addresses", (self.host, *others))
        problems = []
        if not self.name or _CONTROL.search(self.name):
            problems.append(f"name {self.name!r} must be non-empty text")
        if not 1 <= self.port <= 0xFFFF:
            problems.append(f"port {self.port} is not a TCP port")
        if not self.node_id or _CONTROL.search(self.node_id):
            problems.append(f"node id {self.node_id!r} must be non-empty text")
        if _CONTROL.search(self.table_id):
            problems.append(f"table id {self.table_id!r} must be text")
        if self.version < 0:
            problems.append(f"protocol version {self.version} is negative")
        if not self.mode or _CONTROL.search(self.mode):
            problems.append(f"mode {self.mode!r} must be non-empty text")
        for plugin in self.plugins:
            if not _PLUGIN.fullmatch(plugin):
                problems.append(f"plugin {plugin!r} is not NAME=VERSION")
        if not 0 <= self.seats_taken <= self.seats_total or self.seats_total < 1:
            problems.append(f"seats {self.seats_taken}/{self.seats_total} are not taken/total")
        if self.state not in STATES:
            problems.append(f"state {self.state!r} is not one of {', '.join(STATES)}")
        if problems:
            raise ValueError("; ".join(problems))

    @property
    def fingerprint(self) -> str:
        """The table's key fingerprint (its founder's key): what people compare on their screens."""
        return fingerprint(self.table_id)

    @property
    def contacts(self) -> tuple[str, ...]:
        """``HOST:PORT~KEY`` for each address, ``host`` first: where and how to reach the advertiser."""
        key = self.node_id.rpartition("~")[2]
        return tuple(f"{_bracketed(host)}:{self.port}~{key}" for host in self.addresses)

    def to_txt(self) -> dict[str, str]:
        """The TXT record (**contract**): v, name, mode, plugins (NAME=VERSION,...), seats (taken/total),
        state, node; ``fp``, the table's key fingerprint, when its id carries a key; ``table``, the
        table's id, when another member than its founder advertises it; and ``pin=1`` when it has one."""
        txt = {
            "v": str(self.version),
            "name": self.name,
            "mode": self.mode,
            "plugins": ",".join(self.plugins),
            "seats": f"{self.seats_taken}/{self.seats_total}",
            "state": self.state,
            "node": self.node_id,
        }
        if self.table_id != self.node_id:
            txt["table"] = self.table_id
        if self.fingerprint:
            txt["fp"] = self.fingerprint
        if self.pin:
            txt["pin"] = "1"
        for key, value in txt.items():
            size = len(key.encode()) + 1 + len(value.encode())
            if size > _MAX_TXT_ENTRY_BYTES:
                raise ValueError(
                    f"the advertised {key} is {size} bytes with its key; mDNS allows {_MAX_TXT_ENTRY_BYTES}: "
                    f"shorten it"
                )
        return txt

    @classmethod
    def from_txt(
        cls, txt: Mapping[str, str | None], host: str, port: int, addresses: tuple[str, ...] = ()
    ) -> TableAd:
        """Parse a TXT record read from the network; ValueError says what is wrong with it.

        Unknown keys are ignored so that a newer peer can add some without hiding its table.
        """
        missing = [key for key in _TXT_KEYS if txt.get(key) is None]
        if missing:
            raise ValueError(f"TXT record lacks {', '.join(missing)}")
        fields = {key: txt[key] or "" for key in _TXT_KEYS}
        if not _DIGITS.fullmatch(fields["v"]):
            raise ValueError(f"protocol version {fields['v']!r} is not a number")
        seats = _SEATS.fullmatch(fields["seats"])
        if seats is None:
            raise ValueError(f"seats {fields['seats']!r} is not TAKEN/TOTAL")
        plugins = tuple(fields["plugins"].split(",")) if fields["plugins"] else ()
        ad = cls(
            name=fields["name"],
            host=host,
            port=port,
            node_id=fields["node"],
            version=int(fields["v"]),
            mode=fields["mode"],
            plugins=plugins,
            seats_taken=int(seats.group(1)),
            seats_total=int(seats.group(2)),
            state=fields["state"],
            addresses=addresses,
            table_id=txt.get("table") or "",
            pin=txt.get("pin") == "1",
        )
        if txt.get("fp") and txt["fp"] != ad.fingerprint:
            raise ValueError(f"fingerprint {txt['fp']!r} is not that of the table's key ({ad.fingerprint})")
        return ad

    @classmethod
    def from_info(cls, info: ServiceInfo) -> TableAd:
        """Parse a resolved zeroconf service; ValueError says what is wrong with it."""
        addresses = info.parsed_addresses(IPVersion.V4Only) or info.parsed_addresses()
        if not addresses:
            raise ValueError("service has no address")
        if info.port is None:
            raise ValueError("service has no port")
        # zeroconf's decoded_properties replaces undecodable bytes; a table name full of U+FFFD is
        # worse than no table, so decode strictly (UnicodeDecodeError is a ValueError).
        txt = {
            key.decode("ascii"): None if value is None else value.decode("utf-8")
            for key, value in info.properties.items()
        }
        return cls.from_txt(txt, addresses[0], info.port, tuple(addresses))


class Advertiser:
    """Advertises one table until closed; `update` republishes its TXT record (seats, state)."""

    def __init__(self) -> None:
        self._zeroconf: AsyncZeroconf | None = None
        self._info: ServiceInfo | None = None
        self._ad: TableAd | None = None
        self._addresses: list[str] = []
        self._announcing: set[asyncio.Future[object]] = set()

    @property
    def ad(self) -> TableAd | None:
        """The advertisement as last published, or None when not advertising."""
        return self._ad

    async def start(self, ad: TableAd, interface: str | None = None) -> None:
        """Probe for a unique name and announce `ad` at every one of `ad.addresses`.

        `interface` (an IPv4 address of this machine) limits mDNS to that one interface; else it runs on
        every interface, and the address records list every address of the ad on each of them (a
        browser keeps those it can reach).
        """
        if self._zeroconf is not None:
            raise RuntimeError("this advertiser is already advertising; update() or close() it")
        addresses = _advertised_addresses(ad.addresses)
        version_4 = all(ipaddress.ip_address(address).version == 4 for address in addresses)
        zeroconf = _open_zeroconf(interface, IPVersion.V4Only if version_4 else IPVersion.All)
        info = _service_info(ad, _instance_name(ad), addresses)
        try:
            # If another responder holds the name, zeroconf appends "-2" rather than failing.
            self._track(await zeroconf.async_register_service(info, allow_name_change=True))
        except BaseException:
            await zeroconf.async_close()
            raise
        self._zeroconf, self._info, self._ad = zeroconf, info, ad
        self._addresses = addresses
        log.info(
            "advertising table %r at %s, port %d, as %r", ad.name, ", ".join(addresses), ad.port, info.name
        )

    async def update(self, ad: TableAd) -> None:
        """Republish the advertisement, typically new seats or state; the node id cannot change."""
        if self._zeroconf is None or self._info is None or self._ad is None:
            raise RuntimeError("this advertiser is not advertising: start() it first")
        if ad.node_id != self._ad.node_id:
            raise ValueError(f"an advertiser belongs to node {self._ad.node_id!r}, not {ad.node_id!r}")
        if ad.addresses != self._ad.addresses:
            self._addresses = _advertised_addresses(ad.addresses)
        # The instance name stays the one that won probing, even if the table is renamed: the TXT
        # record carries the name people see.
        info = _service_info(ad, self._info.name, self._addresses)
        self._track(await self._zeroconf.async_update_service(info))
        self._info, self._ad = info, ad

    async def close(self) -> None:
        """Say goodbye on the network, so that browsers drop the table at once, and release the sockets."""
        zeroconf, info = self._zeroconf, self._info
        self._zeroconf, self._info, self._ad = None, None, None
        if zeroconf is None:
            return
        try:
            for pending in list(self._announcing):
                pending.cancel()
            if info is not None:
                await _await_if_future(await zeroconf.async_unregister_service(info))
        finally:
            await zeroconf.async_close()

    def _track(self, announcing: object) -> None:
        # zeroconf hands back the task that repeats the announcements; asyncio keeps only a weak
        # reference to tasks, so hold it until it is done.
        if isinstance(announcing, asyncio.Future):
            self._announcing.add(announcing)
            announcing.add_done_callback(self._announcing.discard)


class TableBrowser:
    """The tables currently advertised on the LAN, kept up to date while started.

    `on_change`, if given, is called on the event loop after every change to `tables()`.
    """

    def __init__(self, on_change: Callable[[], None] | None = None) -> None:
        self._on_change = on_change
        self._zeroconf: AsyncZeroconf | None = None
        self._browser: AsyncServiceBrowser | None = None
        self._tables: dict[str, TableAd] = {}
        # The number of the latest event for each service (numbered across all services and kept after a
        # removal), so that a slow resolution cannot overwrite a newer update or resurrect a removed table.
        self._latest_event: dict[str, int] = {}
        self._events = 0
        self._resolving: set[asyncio.Task[None]] = set()
        self._changed = asyncio.Event()

    async def start(self, interface: str | None = None) -> None:
        """Start browsing; `interface` (an IPv4 address of this machine) limits mDNS to that interface."""
        if self._zeroconf is not None:
            raise RuntimeError("this browser is already started")
        self._changed = asyncio.Event()
        self._zeroconf = _open_zeroconf(interface, IPVersion.V4Only)
        self._browser = AsyncServiceBrowser(
            self._zeroconf.zeroconf, SERVICE_TYPE, handlers=[self._on_service_state_change]
        )

    def tables(self) -> list[TableAd]:
        """The tables seen and not gone, by name then node id."""
        return sorted(self._tables.values(), key=lambda ad: (ad.name, ad.node_id))

    async def wait_for(self, predicate: Callable[[TableAd], bool], timeout: float) -> TableAd | None:
        """The first table satisfying `predicate`, waiting up to `timeout` seconds; None if none came."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            changed = self._changed
            for ad in self.tables():
                if predicate(ad):
                    return ad
            remaining = deadline - loop.time()
            if remaining <= 0:
                return None
            try:
                await asyncio.wait_for(changed.wait(), remaining)
            except asyncio.TimeoutError:
                return None

    async def close(self) -> None:
        """Stop browsing and release the sockets; `tables()` is then empty."""
        browser, zeroconf = self._browser, self._zeroconf
        self._browser, self._zeroconf = None, None
        for task in list(self._resolving):
            task.cancel()
        if self._resolving:
            await asyncio.gather(*self._resolving, return_exceptions=True)
        self._tables.clear()
        if browser is not None:
            await browser.async_cancel()
        if zeroconf is not None:
            await zeroconf.async_close()

    def _on_service_state_change(
        self, zeroconf: Zeroconf, service_type: str, name: str, state_change: ServiceStateChange
    ) -> None:
        self._events += 1
        self._latest_event[name] = event = self._events
        if state_change is ServiceStateChange.Removed:
            if self._tables.pop(name, None) is not None:
                log.debug("table %r went away", name)
                self._notify()
            return
        task = asyncio.ensure_future(self._resolve(zeroconf, service_type, name, event))
        self._resolving.add(task)
        task.add_done_callback(self._resolving.discard)

    async def _resolve(self, zeroconf: Zeroconf, service_type: str, name: str, event: int) -> None:
        info = AsyncServiceInfo(service_type, name)
        try:
            answered = await info.async_request(zeroconf, _RESOLVE_TIMEOUT_MS)
        except Exception:
            # A zeroconf failure while resolving one service must not stop the browser.
            log.exception("could not resolve %r", name)
            return
        if self._latest_event.get(name) != event:
            return
        if not answered:
            log.debug("no answer resolving %r", name)
            return
        try:
            ad = TableAd.from_info(info)
        except Exception as error:
            # Whatever a stranger put in its records, the browser goes on; a ValueError is a record we
            # understood and refused, anything else deserves its traceback.
            if isinstance(error, ValueError):
                log.warning("skipping table %r: malformed advertisement: %s", name, error)
            else:
                log.exception("skipping table %r: its advertisement could not be read", name)
            if self._tables.pop(name, None) is not None:
                self._notify()
            return
        if self._tables.get(name) != ad:
            self._tables[name] = ad
            self._notify()

    def _notify(self) -> None:
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()
        if self._on_change is not None:
            try:
                self._on_change()
            except Exception:
                # The callback runs inside zeroconf's record handling, which must not be broken by it.
                log.exception("the table browser's on_change callback failed")


async def find_tables(wait_s: float, interface: str | None = None) -> list[TableAd]:
    """The tables that answer within `wait_s` seconds (mDNS responders answer within a few hundred ms)."""
    browser = TableBrowser()
    await browser.start(interface)
    try:
        # Listening for a fixed time is the point: there is no way to know that every table has answered.
        await asyncio.sleep(wait_s)
        return browser.tables()
    finally:
        await browser.close()


def _bracketed(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def parse_contact(text: str) -> tuple[str, int, str]:
    """``HOST:PORT~KEY`` (a node's address and key, as a table's screen shows it) or ``HOST:PORT``:
    (host, port, the key's token or ""); ValueError with a one-line message."""
    address, sep, token = text.strip().partition("~")
    host, port = parse_host_port(address)
    if sep and public_key_of(text.strip()) is None:
        raise ValueError(f"{token!r} in {text!r} is not a table's key (52 letters and digits after ~)")
    return host, port, token


def parse_host_port(text: str) -> tuple[str, int]:
    """`HOST:PORT` (IPv6 as `[ADDR]:PORT`) as given to `--join`; ValueError with a one-line message."""
    example = "e.g. 192.168.1.20:47000 or [fe80::1]:47000"
    host, sep, port_text = text.strip().rpartition(":")
    if not sep or not host:
        raise ValueError(f"{text!r} is not HOST:PORT ({example})")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            raise ValueError(f"{host!r} in {text!r} is not an IPv6 address ({example})") from None
    elif ":" in host:
        raise ValueError(f"put an IPv6 address in brackets: [{host}]:{port_text}")
    elif not _HOSTNAME.fullmatch(host):
        raise ValueError(f"{host!r} in {text!r} is not a host name or address ({example})")
    if not _DIGITS.fullmatch(port_text) or not 1 <= int(port_text) <= 0xFFFF:
        raise ValueError(f"{port_text!r} in {text!r} is not a port number from 1 to 65535 ({example})")
    return host, int(port_text)


def _open_zeroconf(interface: str | None, ip_version: IPVersion) -> AsyncZeroconf:
    try:
        return AsyncZeroconf(
            interfaces=[interface] if interface else InterfaceChoice.All, ip_version=ip_version
        )
    except (OSError, ValueError) as error:
        where = f"the interface with address {interface}" if interface else "this machine's interfaces"
        raise OSError(f"cannot use mDNS on {where} ({error}): give an address of this machine") from error


async def _await_if_future(sending: object) -> None:
    # zeroconf's unregister hands back the task sending the goodbyes; wait for it so that they leave
    # before the sockets close.
    if isinstance(sending, asyncio.Future):
        await sending


def _advertised_addresses(addresses: tuple[str, ...]) -> list[str]:
    advertised = []
    for address in addresses:
        try:
            advertised.append(str(ipaddress.ip_address(address)))
        except ValueError:
            raise ValueError(f"advertise IP addresses, not {address!r}") from None
    if not advertised or any(ipaddress.ip_address(a).is_unspecified for a in advertised):
        raise ValueError("advertise the addresses others reach the table at, not 'any address'")
    return advertised


def _instance_name(ad: TableAd) -> str:
    """A readable DNS-SD instance label, unique per node: "kitchen [3f2a9c01]._kdm._tcp.local."."""
    suffix = f" [{hashlib.sha256(ad.node_id.encode()).hexdigest()[:8]}]"
    # Dots would be read as label separators by some resolvers; the TXT record keeps the real name.
    label = ad.name.replace(".", "-")
    budget = _MAX_LABEL_BYTES - len(suffix)
    label = label.encode()[:budget].decode("utf-8", "ignore")
    return f"{label}{suffix}.{SERVICE_TYPE}"


def _service_info(ad: TableAd, instance_name: str, addresses: list[str]) -> ServiceInfo:
    server = f"kdm-{hashlib.sha256(ad.node_id.encode()).hexdigest()[:16]}.local."
    return ServiceInfo(
        SERVICE_TYPE,
        instance_name,
        port=ad.port,
        properties=ad.to_txt(),
        server=server,
        host_ttl=_TTL_S,
        other_ttl=_TTL_S,
        parsed_addresses=addresses,
    )
