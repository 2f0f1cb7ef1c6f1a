"""The ``kdm`` command's first import: it loads ``hashlib``, ``hmac`` and ``asyncio`` without OpenSSL.

Why: kdm never speaks TLS (CurveZMQ and every signature use libsodium), and each hash it uses (SHA-256,
SHA-512, BLAKE2b) has CPython's own implementation beside OpenSSL's. Yet ``import hashlib`` loads
OpenSSL's libcrypto for them, and ``import asyncio`` loads ``ssl`` for TLS transports nobody opens:
together about 4.6 MiB of an idle ``kdm host``'s 41 MiB resident (issue "Light on the CPU" asks 35). The same
algorithm gives the same digest whoever computes it; for kdm's short inputs CPython's own take under a
microsecond, as OpenSSL's do.

So while these three are imported, Python is told OpenSSL's two modules (``_hashlib``, ``ssl``) do not
exist, as on a Python built without them, which those modules are written for. The hiding is undone at
once: a plugin that imports ``ssl`` itself still gets it (only asyncio's own TLS stays off). A plugin
run by the ``kdm`` command gets the hashes every Python guarantees (``hashlib.algorithms_guaranteed``:
MD5, SHA-1, SHA-2, SHA-3, BLAKE2), not those only OpenSSL has (``hashlib.new("ripemd160")``,
``hashlib.scrypt``, ``pbkdf2_hmac`` since 3.12); in its tests, run by pytest, which imports hashlib
first, it has them all.

Only the command does this (``kdm/cli.py`` imports this module before anything else), and only when
nothing has imported these modules yet: a program that imports kdm as a library keeps its OpenSSL. A
Python whose ``hashlib`` lacks its own code for one of the guaranteed hashes (some distributions build
it so, and hashlib would log an error for each) keeps OpenSSL's ``hashlib`` and loses only ``ssl``.
"""

from __future__ import annotations

import sys
from importlib.util import find_spec

#: What OpenSSL enters Python through: hashlib's backend and the ssl module (asyncio imports it).
OPENSSL_MODULES = ("_hashlib", "ssl")

#: Imported here with OpenSSL hidden: the modules that would otherwise load it at import.
LOADED_WITHOUT = ("hashlib", "hmac", "asyncio")


def has_own_hashes() -> bool:
    """Whether this Python's hashlib has its own code for every hash it guarantees, without OpenSSL:
    MD5, SHA-1, SHA-3, BLAKE2 and SHA-2 (``_sha2`` since 3.12, ``_sha256`` and ``_sha512`` before)."""
    sha2 = find_spec("_sha2") is not None or (
        find_spec("_sha256") is not None and find_spec("_sha512") is not None
    )
    return sha2 and all(find_spec(name) is not None for name in ("_md5", "_sha1", "_sha3", "_blake2"))


def import_without_openssl() -> list[str]:
    """Import ``LOADED_WITHOUT`` with OpenSSL's modules hidden, unless one of them or of those is
    already imported; the modules that were hidden (none when it did nothing)."""
    if any(name in sys.modules for name in (*LOADED_WITHOUT, *OPENSSL_MODULES)):
        return []
    hidden = [name for name in OPENSSL_MODULES if name != "_hashlib" or has_own_hashes()]
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
