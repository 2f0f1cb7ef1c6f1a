"""A node's keys, and how its public key is written in the node's id.

A node has one Ed25519 key pair (issue 12). It signs the node's log entries, which every peer checks on
apply; and its Curve25519 form (the standard conversion, as libsodium does it) is the node's CurveZMQ key
pair: a node listens as a CURVE server under it, and connects to another as a CURVE client, which needs
the other's public key before the first byte. So the public key is part of the node's id,
``HOST:PORT~TOKEN``, where ``TOKEN`` is the 32-byte Ed25519 public key in lower-case base32 (52 letters
and digits, safe in a shell, a file name and an mDNS record). An id is then a promise nobody else can
keep: a connection that names itself by an id must hold that id's secret key, which the receiving
transport checks on every message, and an entry that says it comes from a node must be signed by it.

A fresh pair is made for each process: a restarted process is another node (its id changes), as it was
when the token was random. People compare tables by their ``fingerprint``, eight characters of a hash
of the key, shown on screen and in the table's mDNS record.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from functools import lru_cache
from typing import NamedTuple

from nacl.exceptions import CryptoError
from nacl.signing import SigningKey, VerifyKey
from zmq.utils import z85

__all__ = [
    "KEY_TOKEN_LENGTH", "CurveKeys", "NodeKeys", "curve_token_of", "fingerprint", "new_keys", "public_key_of",
    "raw_key_token", "verify_key_of",
]  # fmt: skip

#: Letters in a key token: 32 bytes in base32, without padding.
KEY_TOKEN_LENGTH = 52


class CurveKeys(NamedTuple):
    """A CURVE key pair, both halves Z85-encoded as zmq's socket options take them."""

    public: bytes
    secret: bytes


class NodeKeys:
    """A node's Ed25519 key pair, and its CURVE form."""

    def __init__(self, signing: SigningKey) -> None:
        self.signing = signing
        self.token = raw_key_token(bytes(signing.verify_key))
        self.curve = CurveKeys(
            z85.encode(bytes(signing.verify_key.to_curve25519_public_key())),
            z85.encode(bytes(signing.to_curve25519_private_key())),
        )

    def sign(self, message: bytes) -> bytes:
        """The 64-byte signature of ``message`` by this node."""
        return bytes(self.signing.sign(message).signature)


def new_keys() -> NodeKeys:
    """Fresh keys for a node (from libsodium's random source)."""
    return NodeKeys(SigningKey.generate())


def raw_key_token(public: bytes) -> str:
    """The token that names a public key given as its 32 bytes."""
    return base64.b32encode(public).decode().rstrip("=").lower()


def verify_key_of(node_id: str) -> VerifyKey | None:
    """The Ed25519 public key an id ends with (``...~TOKEN``), or None when it carries none."""
    if "~" not in node_id:
        return None
    return _verify_key(node_id.rpartition("~")[2])


@lru_cache(maxsize=4096)
def _verify_key(token: str) -> VerifyKey | None:
    if len(token) != KEY_TOKEN_LENGTH:
        return None
    try:
        return VerifyKey(base64.b32decode(token.upper() + "===="))
    except (binascii.Error, ValueError, CryptoError):
        return None


def public_key_of(node_id: str) -> bytes | None:
    """The Z85 CURVE public key of the node an id names, or None when the id carries no key."""
    curve = _curve_public(node_id.rpartition("~")[2]) if "~" in node_id else None
    return None if curve is None else z85.encode(curve)


def curve_token_of(node_id: str) -> str | None:
    """The token of the CURVE public key of the node an id names (what a ZAP handler labels its
    connections with), or None when the id carries no key."""
    if "~" not in node_id:
        return None
    return _curve_token(node_id.rpartition("~")[2])


@lru_cache(maxsize=4096)
def _curve_public(token: str) -> bytes | None:
    """The 32 bytes of the CURVE form of the Ed25519 key ``token`` names."""
    verify = _verify_key(token)
    if verify is None:
        return None
    try:
        return bytes(verify.to_curve25519_public_key())
    except CryptoError:  # not a point of the curve
        return None


@lru_cache(maxsize=4096)
def _curve_token(token: str) -> str | None:  # cached apart: read for every message received
    curve = _curve_public(token)
    return None if curve is None else raw_key_token(curve)


def fingerprint(node_id: str) -> str:
    """Eight characters people can compare to tell a table from an impostor (``ABCD-EFGH``), from the
    key an id carries; empty when it carries none."""
    verify = verify_key_of(node_id)
    if verify is None:
        return ""
    digest = base64.b32encode(hashlib.blake2b(bytes(verify), digest_size=5).digest()).decode()
    return f"{digest[:4]}-{digest[4:8]}"
