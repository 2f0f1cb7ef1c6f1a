"""Capture every TCP payload that crosses a namespace's interfaces, as a sniffer on the LAN would.

Run inside the test LAN's switch namespace (``NamespaceLan.capture``): ``python capture_tcp.py OUT``
appends the payload of each IPv4 TCP segment it sees (on any interface of the namespace, so some twice)
to OUT until it is terminated. Needs root (a raw packet socket).
"""

from __future__ import annotations

import signal
import socket
import struct
import sys

ETH_P_ALL = 0x0003
ETH_P_IP = 0x0800


def tcp_payload(frame: bytes) -> bytes:
    """The TCP payload of an Ethernet frame, or b"" for anything else."""
    if len(frame) < 14 or struct.unpack("!H", frame[12:14])[0] != ETH_P_IP:
        return b""
    ip = frame[14:]
    if len(ip) < 20 or ip[9] != socket.IPPROTO_TCP:
        return b""
    header = (ip[0] & 0x0F) * 4
    total = struct.unpack("!H", ip[2:4])[0]
    tcp = ip[header:total]
    if len(tcp) < 20:
        return b""
    return tcp[(tcp[12] >> 4) * 4 :]


def main(out_path: str) -> None:
    sniffer = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.ntohs(ETH_P_ALL))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with open(out_path, "ab", buffering=0) as out:
        print("capturing", flush=True)
        while True:
            payload = tcp_payload(sniffer.recv(65535))
            if payload:
                out.write(payload)


if __name__ == "__main__":
    main(sys.argv[1])
