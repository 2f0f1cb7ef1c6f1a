"""Signed entries written by hand: nodes with keys of their own, and a table record they founded and
sit at (the pure record, no network). Shared by the signed-entry and takeover tests.
"""

from __future__ import annotations

from typing import Any

import msgpack

from kdm import entries
from kdm.entries import Create, EntryId, Join
from kdm.manager import installed_plugins
from kdm.net.keys import NodeKeys, new_keys
from kdm.notices import Created, Seated
from kdm.record import TableRecord, commitment

PLUGINS = {"kilo": installed_plugins()["kilo"].version}


class Node:
    """A node's keys and id, and the entries it writes (signed unless told otherwise)."""

    def __init__(self, port: int) -> None:
        self.keys: NodeKeys = new_keys()
        self.id = f"10.0.0.{port % 250}:{port}~{self.keys.token}"
        self.counter = 0

    def write(
        self, kind: type[Any], table: str, signer: NodeKeys | None = None, author: str = "", **fields: Any
    ) -> dict[str, Any]:
        """An entry of ``kind`` for ``table``, by this node (or as ``author``), signed by its key (or by
        ``signer``'s)."""
        self.counter += 1
        entry = kind(EntryId(author or self.id, self.counter), **fields)
        sign = (signer or self.keys).sign
        wire: dict[str, Any] = msgpack.unpackb(entries.encode(entry, sign, table), raw=False)
        return wire


def seated_table(players: int = 3) -> tuple[TableRecord, list[Node]]:
    nodes = [Node(41000 + i) for i in range(players)]
    table = nodes[0].id
    record = TableRecord(installed_plugins(), table=table)
    founder = nodes[0]
    created = record.apply(
        founder.write(Create, table, name="t", players=players, options={}, plugins=PLUGINS)
    )
    assert [type(n) for n in created] == [Created]
    for node in nodes:
        notices = record.apply(node.write(Join, table, commit=commitment(node.id.encode())))
        assert notices and isinstance(notices[0], Seated), notices
    return record, nodes
