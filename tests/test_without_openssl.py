"""The ``kdm`` command runs without OpenSSL (``kdm/without_openssl.py``): a waiting host maps no
libcrypto, its hashes are the standard ones, ``ssl`` can still be imported after, and a program that
imported asyncio before kdm keeps its OpenSSL."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.helpers.netns import LineWatcher

pytestmark = [
    pytest.mark.processes,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/PID/maps (Linux)"),
]

OPENSSL_LIBRARIES = ("libcrypto", "libssl")


def _openssl_mapped(pid: int | str) -> list[str]:
    with open(f"/proc/{pid}/maps") as maps:
        return sorted({line.split()[-1] for line in maps if any(lib in line for lib in OPENSSL_LIBRARIES)})


def _python(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_waiting_host_maps_no_openssl(tmp_path: Path) -> None:
    env = {**os.environ, "HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data")}
    command = [sys.executable, "-m", "kdm", "host", "--headless", "--players", "4", "--name", "Lean"]
    with subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    ) as host:
        try:
            assert host.stdout is not None
            said = LineWatcher(host.stdout)
            # once seated at its advertised table: discovery, the node and zmq are all up
            assert said.wait_for(lambda line: "takes seat 0" in line, 60), said.lines
            assert _openssl_mapped(host.pid) == []
        finally:
            host.terminate()
            host.wait(10)


def test_the_same_hashes_and_ssl_still_there() -> None:
    out = _python(
        """
        import sys
        from kdm import cli

        print(cli.without_openssl.HIDDEN, "_hashlib" in sys.modules, "ssl" in sys.modules)
        import asyncio.sslproto
        import hashlib

        print(asyncio.sslproto.ssl, hashlib.sha256(b"abc").hexdigest()[:16], end=" ")
        print(hashlib.sha512(b"abc").hexdigest()[:16])
        import ssl

        print(ssl.PROTOCOL_TLS_CLIENT is not None)
        """
    ).split("\n")
    from kdm.without_openssl import has_own_hashes  # (this process's hashlib was imported before)

    hidden = ["_hashlib", "ssl"] if has_own_hashes() else ["ssl"]  # (as on Fedora's Python)
    assert out[0] == f"{hidden} {'_hashlib' not in hidden} False"
    assert out[1] == "None ba7816bf8f01cfea ddaf35a193617aba"  # FIPS 180-2's "abc" vectors
    assert out[2] == "True"


def test_a_program_that_imported_asyncio_first_keeps_openssl() -> None:
    out = _python(
        """
        import asyncio
        import sys
        from kdm import cli

        print(cli.without_openssl.HIDDEN, "_hashlib" in sys.modules, "ssl" in sys.modules)
        """
    )
    assert out.strip() == "[] True True"
