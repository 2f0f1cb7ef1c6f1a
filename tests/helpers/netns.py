"""A LAN made of Linux network namespaces, for tests that need real multicast, partitions and kill -9.

This module owns the test LAN: `NamespaceLan(n)` creates n "host" namespaces, each with one veth cable
into a bridge that lives in a "switch" namespace of its own, so nothing is added to, or sent on, the
machine's real interfaces. Hosts get 10.231.0.10, .11, ... /24 (inside their namespace only), loopback up
and a multicast route, so mDNS works between them. Everything created is removed on exit, also after an
exception, and namespaces left by a crashed earlier run (their creator's pid is gone) are removed first.

The hosts can be on Wi-Fi instead: `NamespaceLan(n, link="wifi")` (or any profile of
`tests/helpers/wifi.py`: "perfect", "wifi", "bad"; `no_multicast=True` drops multicast on top) gives each
host a TAP device as its eth0, and the switch namespace holds, instead of the bridge, the forwarder that
carries frames between them with the profile's delays, stalls and losses. Same addresses, names, homes,
routes, `run`, `cut` and `restore` (the host's carrier goes off, as when its cable is pulled).

Each host is a laptop as Debian and Ubuntu ship them: a name of its own (`laptop0`, ...: a process runs
in a UTS namespace of its own too) that its /etc/hosts maps to 127.0.1.1 (`ip netns exec` mounts
/etc/netns/NAME/hosts over /etc/hosts), and a home directory of its own (so each laptop's player has
their own key and files). Processes run without `KDM_INTERFACE`, which the suite sets everywhere else:
inside the LAN, kdm runs as a player's would, with no flag.

Needs root, iproute2 and util-linux's `unshare`; `skip_reason()` says why it cannot run, and
`require_netns()` skips the test, or fails it under CI=true, where the LAN tests must run.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from types import TracebackType
from typing import IO, Any

import pytest

from tests.helpers.wifi import PROFILES

__all__ = [
    "LINKS", "LineWatcher", "NamespaceLan", "crashed_run", "namespaces", "require_netns", "running",
    "wait_until",
]  # fmt: skip

PREFIX = "kdmtest-"
#: Where `ip netns exec NAME` finds files to mount over /etc inside namespace NAME.
NETNS_ETC = Path("/etc/netns")
#: /etc/hosts as Debian and Ubuntu install it: the machine's own name on 127.0.1.1, not on a LAN address.
DEBIAN_HOSTS = """127.0.0.1\tlocalhost
127.0.1.1\t{name}

# The following lines are desirable for IPv6 capable hosts
::1     localhost ip6-localhost ip6-loopback
ff02::1 ip6-allnodes
ff02::2 ip6-allrouters
"""
SUBNET = "10.231.0"
_FIRST_HOST = 10
_LEFTOVER = re.compile(rf"^{PREFIX}(\d+)-")
_sequence = itertools.count()
# Links come up in microseconds; the deadline only matters on a machine that is badly overloaded.
_LINK_DEADLINE_S = 10.0
#: What joins the hosts: a veth cable each into a bridge, or the Wi-Fi forwarder with one of its profiles.
LINKS = ("bridge", *PROFILES)
#: On a Wi-Fi link, the forwarder's TAP in the switch namespace where a sniffer reads what is sent.
MONITOR = "air"


def require_netns() -> None:
    """Skip the calling test when namespaces are unavailable; under CI=true a skip is a failure."""
    reason = NamespaceLan.skip_reason()
    if reason is None:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI must run the LAN tests, but: {reason}")
    pytest.skip(reason)


class NamespaceLan:
    """n hosts on one switch, or on one access point (`link`: one of `LINKS`, with `seed` for its random
    draws). Use as a context manager; host indexes run from 0 to n-1."""

    def __init__(
        self, hosts: int, link: str = "bridge", *, no_multicast: bool = False, seed: int = 0
    ) -> None:
        if not 1 <= hosts <= 200:
            raise ValueError(f"a test LAN has 1 to 200 hosts, not {hosts}")
        if link not in LINKS:
            raise ValueError(f"a test LAN's link is one of {', '.join(LINKS)}, not {link!r}")
        if no_multicast and link == "bridge":
            raise ValueError("no_multicast needs a Wi-Fi link: link='perfect' is one with no delay")
        self.hosts = hosts
        self.link = link
        self.no_multicast = no_multicast
        self.seed = seed
        self._access_point: _AccessPoint | None = None
        self._base = f"{PREFIX}{os.getpid()}-{next(_sequence)}"
        self.switch = f"{self._base}-sw"
        self._processes: list[subprocess.Popen[Any]] = []
        self._created: list[str] = []
        self._homes = Path(tempfile.gettempdir()) / f"{self._base}-homes"

    # -- the harness as a context manager ------------------------------------------------------------

    def __enter__(self) -> NamespaceLan:
        remove_leftovers()
        try:
            self._build()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Kill every process started in the LAN and delete every namespace; safe to call twice."""
        for process in self._processes:
            if process.poll() is None:
                process.kill()
        for process in self._processes:
            # If one will not die, _delete_namespace kills whatever is still inside by pid.
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=_LINK_DEADLINE_S)
        self._processes.clear()
        if self._access_point is not None and self._access_point.process.stdin is not None:
            self._access_point.process.stdin.close()
        self._access_point = None
        failures = []
        # Hosts first: deleting a host namespace destroys its cable, so the switch is empty last.
        for name in reversed(self._created):
            failure = _delete_namespace(name)
            if failure:
                failures.append(failure)
        self._created.clear()
        shutil.rmtree(self._homes, ignore_errors=True)
        if failures:
            raise RuntimeError("test LAN cleanup failed: " + "; ".join(failures))

    # -- what tests use ------------------------------------------------------------------------------

    def namespace(self, i: int) -> str:
        """The name of host i's namespace (for `ip -n` or `ip netns exec`)."""
        self._check(i)
        return f"{self._base}-h{i}"

    def address(self, i: int) -> str:
        """Host i's IPv4 address, reachable from the other hosts only."""
        self._check(i)
        return f"{SUBNET}.{_FIRST_HOST + i}"

    def hostname(self, i: int) -> str:
        """Host i's machine name, which its /etc/hosts maps to 127.0.1.1."""
        self._check(i)
        return f"laptop{i}"

    def home(self, i: int) -> Path:
        """Host i's home directory (removed with the LAN)."""
        self._check(i)
        return self._homes / self.hostname(i)

    def environment(self, i: int, **extra: str) -> dict[str, str]:
        """What a program on host i runs with (``run``): this process's environment but for
        `KDM_INTERFACE` and the `XDG_` folders, host i's home, and `extra`."""
        environment = {
            k: v for k, v in os.environ.items() if k != "KDM_INTERFACE" and not k.startswith("XDG_")
        }
        return {**environment, "HOME": str(self.home(i)), **extra}

    def run(self, i: int, argv: Sequence[str], **popen_kwargs: Any) -> subprocess.Popen[Any]:
        """Start `argv` inside host i, under host i's name, in its home and without `KDM_INTERFACE`
        (unless `env` is given); it is killed when the LAN closes if it is still running."""
        popen_kwargs.setdefault("env", self.environment(i))
        named = ["unshare", "--uts", "sh", "-c", 'hostname "$0" && exec "$@"', self.hostname(i)]
        process: subprocess.Popen[Any] = subprocess.Popen(
            ["ip", "netns", "exec", self.namespace(i), *named, *argv], **popen_kwargs
        )
        self._processes.append(process)
        return process

    def capture(self, out: Path) -> subprocess.Popen[Any]:
        """Start capturing every TCP payload that crosses the switch (or the air) into ``out`` (see
        ``tests/capture_tcp.py``); it has started once it printed a line. Terminate it to stop."""
        if self._access_point is not None:
            # The forwarder copies every frame sent to its monitor TAP, which stays in the switch, with no
            # address of its own (addrgenmode none): it only listens.
            _ip(f"-n {self.switch} link set {MONITOR} addrgenmode none up")
            self._access_point.command("monitor")
        script = Path(__file__).with_name("capture_tcp.py")
        process: subprocess.Popen[Any] = subprocess.Popen(
            ["ip", "netns", "exec", self.switch, sys.executable, str(script), str(out)],
            stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
        )  # fmt: skip
        self._processes.append(process)
        return process

    def kill_all(self, i: int) -> None:
        """Host i dies: kill -9 of every process inside it at once (children included, such as the bots
        a player's kdm started), as a laptop's crash would."""
        pids = subprocess.run(["ip", "netns", "pids", self.namespace(i)], capture_output=True, text=True)
        for pid in pids.stdout.split():
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(pid), signal.SIGKILL)

    def cut(self, i: int) -> None:
        """Unplug host i's cable at the switch (on Wi-Fi: take it off the air): its address and sockets
        stay, its packets go nowhere, and it sees its carrier go."""
        if self._access_point is not None:
            self._access_point.command(f"cut {i}")
        else:
            _ip(f"-n {self.switch} link set {self._port(i)} down")
        self._wait_for_link(i, up=False)

    def restore(self, i: int) -> None:
        """Plug host i's cable back in."""
        if self._access_point is not None:
            self._access_point.command(f"restore {i}")
        else:
            _ip(f"-n {self.switch} link set {self._port(i)} up")
        self._wait_for_link(i, up=True)

    def hold(self, i: int, ms: float) -> None:
        """On Wi-Fi: for the next ``ms`` milliseconds nothing sent reaches host i, then all of it does."""
        if self._access_point is None:
            raise ValueError("only the Wi-Fi holds frames: NamespaceLan(n, link='wifi' or 'perfect')")
        self._access_point.command(f"hold {i} {ms}")

    def radio_counters(self) -> dict[str, int]:
        """What the Wi-Fi forwarder counted so far (frames received, sent, lost, ..., and `queued`: those
        still in flight). Only on a Wi-Fi link."""
        if self._access_point is None:
            raise RuntimeError(
                "a bridged test LAN has no radio: build it with link='wifi' (or another profile)"
            )
        counters: dict[str, int] = json.loads(self._access_point.command("stats"))
        return counters

    @staticmethod
    def skip_reason() -> str | None:
        """Why namespaces cannot be used here, or None when they can."""
        return _skip_reason()

    # -- building ------------------------------------------------------------------------------------

    def _build(self) -> None:
        switch = self.switch
        self._add_namespace(switch)
        if self.link == "bridge":
            # Snooping off: with no IGMP querier on this switch it could stop forwarding multicast to a port.
            _ip(f"-n {switch} link add br0 type bridge mcast_snooping 0")
            _ip(f"-n {switch} link set br0 up")
        else:
            self._access_point = _AccessPoint(self, [self._port(i) for i in range(self.hosts)])
            self._processes.append(self._access_point.process)  # killed first on close: its TAPs go with it
            self._access_point.wait_ready()
        for i in range(self.hosts):
            host, port = self.namespace(i), self._port(i)
            self._add_namespace(host)
            self.home(i).mkdir(parents=True, exist_ok=True)
            etc = NETNS_ETC / host
            etc.mkdir(parents=True, exist_ok=True)
            (etc / "hosts").write_text(DEBIAN_HOSTS.format(name=self.hostname(i)))
            _ip(f"-n {host} link set lo up")
            if self._access_point is not None:
                # The forwarder's TAP, created in the switch, becomes the host's eth0; the forwarder's
                # descriptor follows it.
                _ip(f"-n {switch} link set {port} netns {host} name eth0")
            else:
                # Created inside the switch with its other end moved straight into the host, so the root
                # namespace never holds either end.
                _ip(f"-n {switch} link add {port} type veth peer name eth0 netns {host}")
                _ip(f"-n {switch} link set {port} master br0 up")
            _ip(f"-n {host} addr add {self.address(i)}/24 dev eth0")
            _ip(f"-n {host} link set eth0 up")
            # Hosts have no default route; without this, multicast sends fail with ENETUNREACH.
            _ip(f"-n {host} route add 224.0.0.0/4 dev eth0")
        for i in range(self.hosts):
            self._wait_for_link(i, up=True)

    def _add_namespace(self, name: str) -> None:
        _ip(f"netns add {name}")
        self._created.append(name)

    def _wait_for_link(self, i: int, up: bool) -> None:
        host, port = self.namespace(i), self._port(i)

        def settled() -> bool:
            carrier = "LOWER_UP" in _ip(f"-n {host} -o link show eth0")
            if carrier != up:
                return False
            if not up or self._access_point is not None:
                return True
            return "state forwarding" in _ip(f"-n {self.switch} -d -o link show {port}")

        if not wait_until(settled, _LINK_DEADLINE_S):
            raise RuntimeError(f"host {i}'s link did not go {'up' if up else 'down'} in {_LINK_DEADLINE_S} s")

    def _port(self, i: int) -> str:
        self._check(i)
        return f"p{i}"

    def _check(self, i: int) -> None:
        if not 0 <= i < self.hosts:
            raise IndexError(f"host {i} is not on this LAN of {self.hosts}")


class _AccessPoint:
    """The Wi-Fi forwarder (`tests/helpers/wifi.py`) running in the switch namespace, and its commands."""

    def __init__(self, lan: NamespaceLan, taps: list[str]) -> None:
        script = Path(__file__).with_name("wifi.py")
        flags = ["--profile", lan.link, "--seed", str(lan.seed), "--monitor", MONITOR]
        flags += ["--no-multicast"] if lan.no_multicast else []
        # Its stdin is ours: if this process dies, the forwarder reads the end and exits, and its TAPs go.
        self.process: subprocess.Popen[str] = subprocess.Popen(
            ["ip", "netns", "exec", lan.switch, sys.executable, str(script), *flags, *taps],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        assert self.process.stdout is not None
        self._answers = LineWatcher(self.process.stdout)

    def wait_ready(self) -> None:
        """Return once the forwarder's TAPs exist."""
        if self._answers.wait_for(lambda line: line == "ready", _LINK_DEADLINE_S) is None:
            raise RuntimeError(f"the Wi-Fi forwarder did not start in {_LINK_DEADLINE_S} s")

    def command(self, line: str) -> str:
        """Send one command and return its answer."""
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        answer = self._answers.wait_for(lambda line: True, _LINK_DEADLINE_S)
        if answer is None or answer.startswith("error"):
            raise RuntimeError(f"the Wi-Fi forwarder did not do {line!r}: {answer}")
        return answer


class LineWatcher:
    """Reads a process's text output on a thread, so a test can wait for a line with a deadline."""

    def __init__(self, stream: IO[str]) -> None:
        self.lines: list[str] = []
        #: When the process last said something (``time.monotonic()``; its start until then).
        self.heard_at = time.monotonic()
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._thread = threading.Thread(target=self._pump, args=(stream,), daemon=True)
        self._thread.start()

    def wait_for(self, predicate: Callable[[str], bool], timeout: float) -> str | None:
        """The next line satisfying `predicate` within `timeout` seconds; None on timeout or end of output."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            try:
                line = self._queue.get(timeout=remaining)
            except queue.Empty:
                return None
            if line is None:
                self._queue.put(None)  # keep reporting the end to later calls
                return None
            if predicate(line):
                return line

    def _pump(self, stream: IO[str]) -> None:
        # A stream its owner closed meanwhile (``communicate()`` read the rest) ends the output too.
        with contextlib.suppress(ValueError):
            for line in stream:
                self.heard_at = time.monotonic()
                self.lines.append(line.rstrip("\n"))
                self._queue.put(line.rstrip("\n"))
        self._queue.put(None)


def remove_leftovers() -> None:
    """Delete namespaces of this harness whose creating process no longer exists (a crashed run)."""
    if shutil.which("ip") is None:
        return
    listing = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=False)
    for line in listing.stdout.splitlines():
        name = line.split(" ", 1)[0]
        match = _LEFTOVER.match(name)
        if match and not _alive(int(match.group(1))):
            _delete_namespace(name)
    left_files = [*(NETNS_ETC.glob(f"{PREFIX}*") if NETNS_ETC.is_dir() else ())]
    left_files += Path(tempfile.gettempdir()).glob(f"{PREFIX}*-homes")
    for path in left_files:
        match = _LEFTOVER.match(path.name)
        if match and not _alive(int(match.group(1))):
            shutil.rmtree(path, ignore_errors=True)


@cache
def _skip_reason() -> str | None:
    if not sys.platform.startswith("linux"):
        return f"network namespaces need Linux, this is {sys.platform}"
    if os.geteuid() != 0:
        return "network namespaces need root (CI runs these tests as root)"
    if shutil.which("ip") is None:
        return "network namespaces need iproute2's `ip` command"
    if shutil.which("unshare") is None:
        return "the test laptops need util-linux's `unshare` command, to have names of their own"
    probe = f"{PREFIX}{os.getpid()}-probe"
    try:
        _ip(f"netns add {probe}")
        try:
            _ip(f"-n {probe} link add br0 type bridge")
            _ip(f"-n {probe} link add v0 type veth peer name v1")
        finally:
            _delete_namespace(probe)
    except RuntimeError as error:
        return f"cannot build a namespace LAN here: {error}"
    return None


def _ip(command: str) -> str:
    """Run `ip COMMAND` (words separated by spaces; no names here contain one) and return its output."""
    result = subprocess.run(["ip", *command.split()], capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"`ip {command}` failed: {result.stderr.strip()}")
    return result.stdout


def _delete_namespace(name: str) -> str | None:
    """Kill what still runs inside `name` (by pid) and delete it; a message if that failed."""
    pids = subprocess.run(["ip", "netns", "pids", name], capture_output=True, text=True, check=False)
    for pid in pids.stdout.split():
        with contextlib.suppress(ProcessLookupError):
            os.kill(int(pid), signal.SIGKILL)
    shutil.rmtree(NETNS_ETC / name, ignore_errors=True)
    result = subprocess.run(["ip", "netns", "del", name], capture_output=True, text=True, check=False)
    if (
        result.returncode != 0
        and name
        in subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=False).stdout.split()
    ):
        return f"could not delete namespace {name}: {result.stderr.strip()}"
    return None


def namespaces() -> set[str]:
    """The names of the network namespaces that exist now, whoever made them."""
    listing = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=True)
    return {line.split(" ", 1)[0] for line in listing.stdout.splitlines()}


def running(pid: int) -> bool:
    """Whether process `pid` still runs (a zombie is as good as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            # The state follows the parenthesised command name.
            return stat.read().rpartition(")")[2].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def crashed_run(script: str, timeout: float) -> subprocess.CompletedProcess[str]:
    """``script`` (indented as in a test, where it builds a LAN and prints what it made) run by a fresh
    Python from the repository's root, which then kills itself with SIGKILL: a run that crashed before
    it could remove anything. Its output, for the test to look for what it left."""
    code = textwrap.dedent(script) + "\nimport os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n"
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parent.parent.parent,
        check=False,
        timeout=timeout,
    )


def wait_until(condition: Callable[[], bool], timeout: float) -> bool:
    """Whether ``condition`` came true within ``timeout`` seconds (polled every 10 ms)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)  # between polls of an observable condition, bounded by the deadline
    return True
