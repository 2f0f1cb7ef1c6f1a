"""The ``kdm`` command's first import: it loads ``hashlib``, ``hmac`` and ``asyncio`` without OpenSSL.

Why: kdm never speaks TLS (CurveZMQ and every signature use libsodium), and each hash it uses (SHA-256,
SHA-512, BLAKE2b) has CPython's own implementation beside OpenSSL's. Yet ``import hashlib`` loads
OpenSSL's libcrypto for them, and ``import asyncio`` loads ``ssl`` for TLS transports nobody opens:
together 4.7 MiB of an idle ``kdm host``'s 42 MiB resident (issue "Light on the CPU" asks 35). The same
algorithm gives the same digest whoever computes it; for kdm's short inputs CPython's own take under a
microsecond, as OpenSSL's do.

So while these three are imported, Python is told OpenSSL's two modules (``_hashlib``, ``ssl``) do not
exist, as on a Python built without them, which those modules are written for. The hiding is undone at
once: a plugin that imports ``ssl`` itself still gets it (only asyncio's own TLS stays off).

Only the command does this (``kdm/cli.py`` imports this module before anything else), and only when
nothing has imported these modules yet: a program that imports kdm as a library keeps its OpenSSL. A
Python whose ``hashlib`` has no hashes of its own for SHA-2 (some distributions build it so) keeps
OpenSSL's ``hashlib`` and loses only ``ssl``.
"""

from __future__ import annotations

import sys
from importlib.util import find_spec

#: What OpenSSL enters Python through: hashlib's backend and the ssl module (asyncio imports it).
OPENSSL_MODULES = ("_hashlib", "ssl")

#: Imported here with OpenSSL hidden: the modules that would otherwise load it at import.
LOADED_WITHOUT = ("hashlib", "hmac", "asyncio")


def _has_own_sha2() -> bool:
    """Whether this Python's hashlib has SHA-256 and SHA-512 without OpenSSL (``_sha2`` since 3.12,
    ``_sha256`` and ``_sha512`` before; BLAKE2 is always its own)."""
    if find_spec("_sha2") is not None:
        return True
    return find_spec("_sha256") is not None and find_spec("_sha512") is not None


def import_without_openssl() -> list[str]:
    """Import ``LOADED_WITHOUT`` with OpenSSL's modules hidden, unless one of them or of those is
    already imported; the modules that were hidden (none when it did nothing)."""
    if any(name in sys.modules for name in (*LOADED_WITHOUT, *OPENSSL_MODULES)):
        return []
    hidden = [name for name in OPENSSL_MODULES if name != "_hashlib" or _has_own_sha2()]
    modules: dict[str, object] = sys.modules  # type: ignore[assignment]  # None: "not found"
    for name in hidden:
        modules[name] = None
    try:
        for name in LOADED_WITHOUT:
            __import__(name)
    finally:
        for name in hidden:
            if modules.get(name, False) is None:
                del modules[name]
    return hidden


HIDDEN = import_without_openssl()
