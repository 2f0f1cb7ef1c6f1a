"""A node's CurveZMQ key pair, and how its public half is written in the node's id.

Every zmq connection of a table is encrypted and authenticated with CurveZMQ (issue 12): a node listens
as a CURVE server under its own key pair, and connects to another as a CURVE client, which needs the
other's public key before the first byte. So the key is part of the node's id, ``HOST:PORT~TOKEN``,
where ``TOKEN`` is the 32-byte public key in lower-case base32 (52 letters and digits, safe in a shell, a
file name and an mDNS record). An id is then a promise nobody else can keep: a connection that names
itself by an id must hold that id's secret key, which the receiving transport checks on every message.

A fresh pair is made for each process: a restarted process is another node (its id changes), as it was
when the token was random. People compare tables by their ``fingerprint``, eight characters of a hash
of the key, shown on screen and in the table's mDNS record.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from typing import NamedTuple

import zmq
from zmq.utils import z85

__all__ = [
    "KEY_TOKEN_LENGTH",
    "CurveKeys",
    "fingerprint",
    "key_token",
    "new_keys",
    "public_key_of",
    "raw_key_token",
]

#: Letters in a key token: 32 bytes in base32, without padding.
KEY_TOKEN_LENGTH = 52


class CurveKeys(NamedTuple):
    """A CURVE key pair, both halves Z85-encoded as zmq's socket options take them."""

    public: bytes
    secret: bytes

    @property
    def token(self) -> str:
        """The public key as it is written at the end of a node id."""
        return key_token(self.public)


def new_keys() -> CurveKeys:
    """A fresh key pair (libzmq's, from libsodium's random source)."""
    public, secret = zmq.curve_keypair()
    return CurveKeys(public, secret)


def key_token(public_z85: bytes) -> str:
    """The token that names a Z85-encoded public key in node ids."""
    return raw_key_token(z85.decode(public_z85))


def raw_key_token(public: bytes) -> str:
    """The token that names a public key given as its 32 bytes (as a ZAP request carries it)."""
    return base64.b32encode(public).decode().rstrip("=").lower()


def public_key_of(node_id: str) -> bytes | None:
    """The Z85 public key an id ends with (``...~TOKEN``), or None when it carries none."""
    token = node_id.rpartition("~")[2]
    if len(token) != KEY_TOKEN_LENGTH or "~" not in node_id:
        return None
    try:
        raw = base64.b32decode(token.upper() + "====")
    except (binascii.Error, ValueError):
        return None
    return z85.encode(raw)


def fingerprint(node_id: str) -> str:
    """Eight characters people can compare to tell a table from an impostor (``ABCD-EFGH``), from the
    key an id carries; empty when it carries none."""
    public = public_key_of(node_id)
    if public is None:
        return ""
    digest = base64.b32encode(hashlib.blake2b(public, digest_size=5).digest()).decode()
    return f"{digest[:4]}-{digest[4:8]}"
