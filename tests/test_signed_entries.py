"""Signed entries (issue 12): at a table whose id carries a key, every entry must be signed by the node
it says wrote it, for that table; only the founder creates the table. Checked by the pure record, so
every peer refuses a forgery the same way, with the same reason."""

from __future__ import annotations

from pathlib import Path

import msgpack

from kdm.entries import Act, Create, Join, Takeover
from kdm.manager import installed_plugins
from kdm.net.raft_messages import Entry as RaftEntry
from kdm.net.raft_messages import HardState
from kdm.net.storage import FileStorage
from kdm.notices import Created, Rejected, Seated
from kdm.record import NO_TABLE_YET, TableRecord, commitment
from kdm.replay import replay
from tests.helpers.signed import PLUGINS, Node, seated_table


def test_signed_entries_seat_everyone() -> None:
    record, nodes = seated_table()
    assert [seat.node for seat in record.seats] == [node.id for node in nodes]


def test_an_entry_in_another_nodes_name_is_refused() -> None:
    record, nodes = seated_table()
    stranger = Node(42000)
    forged = nodes[1].write(Act, record.table, signer=stranger.keys, event={"kind": "slap", "seat": 1})
    (notice,) = record.apply(forged)
    assert isinstance(notice, Rejected) and notice.reason == f"not signed by {nodes[1].id}'s key"


def test_an_unsigned_or_mangled_entry_is_refused() -> None:
    record, nodes = seated_table()
    unsigned = nodes[2].write(Act, record.table, event={"kind": "slap", "seat": 2})
    del unsigned["sig"]
    mangled = nodes[2].write(Act, record.table, event={"kind": "slap", "seat": 2})
    mangled["event"] = {"kind": "slap", "seat": 1}  # the signature was over seat 2
    short = nodes[2].write(Act, record.table, event={"kind": "slap", "seat": 2}) | {"sig": b"x"}
    for entry in (unsigned, mangled, short):
        (notice,) = record.apply(entry)
        assert notice.reason == f"not signed by {nodes[2].id}'s key"


def test_a_takeover_in_a_seated_nodes_name_needs_its_key() -> None:
    record, nodes = seated_table()
    stranger = Node(42001)
    stand_in = f"{nodes[0].id}#1"
    forged = stranger.write(Takeover, record.table, author=stand_in, seat=1, commit=commitment(b"x"))
    (notice,) = record.apply(forged)
    assert notice.reason == f"not signed by {stand_in}'s key"


def test_an_entry_signed_for_another_table_is_refused() -> None:
    record, nodes = seated_table()
    elsewhere = nodes[1].write(Act, "another table", event={"kind": "slap", "seat": 1})
    (notice,) = record.apply(elsewhere)
    assert notice.reason == f"not signed by {nodes[1].id}'s key"


def test_only_the_founder_creates_the_table() -> None:
    founder, stranger = Node(41000), Node(42002)
    record = TableRecord(installed_plugins(), table=founder.id)
    early = stranger.write(Create, founder.id, name="mine", players=3, options={}, plugins=PLUGINS)
    (notice,) = record.apply(early)
    assert notice.reason == f"only the table's founder creates it, not {stranger.id}"
    assert record.engine is None
    created = record.apply(
        founder.write(Create, founder.id, name="t", players=3, options={}, plugins=PLUGINS)
    )
    assert [type(n) for n in created] == [Created]


def test_a_table_without_a_keyed_id_takes_unsigned_entries() -> None:
    # The in-memory networks of the tests name nodes without keys: their tables check no signature.
    record = TableRecord(installed_plugins(), table="h")
    create = {"t": "create", "id": ["h", 1], "name": "t", "players": 3, "options": {}, "plugins": PLUGINS}
    assert [type(n) for n in record.apply(create)] == [Created]


def test_a_replay_refuses_what_the_table_refused(tmp_path: Path) -> None:
    """``kdm replay`` checks signatures from the founder's create on, as every peer did: a forged entry
    in the log stays refused, and the replay says so."""
    nodes = [Node(41000 + i) for i in range(3)]
    table = nodes[0].id
    written = [nodes[0].write(Create, table, name="t", players=3, options={}, plugins=PLUGINS)]
    written += [node.write(Join, table, commit=commitment(node.id.encode())) for node in nodes]
    stranger = Node(42003)
    written.append(nodes[1].write(Act, table, signer=stranger.keys, event={"kind": "slap", "seat": 1}))
    path = tmp_path / "table.log"
    storage = FileStorage(path)
    storage.append([RaftEntry(1, i + 1, msgpack.packb(e, use_bin_type=True)) for i, e in enumerate(written)])
    storage.set_hard_state(HardState(1, table, len(written)))
    storage.close()
    said: list[str] = []
    summary = replay(path, say=said.append)
    assert said == [f"(refused: not signed by {nodes[1].id}'s key)"]
    assert summary["table"] == "t" and summary["log"] == "chained"


def test_an_entry_is_judged_once_and_a_forgery_uses_up_none_of_its_victims_ids() -> None:
    """A join that reached the log before the table was refused. The same entry committed again once
    the table exists (a proposal retried while the first was on its way, or a copy another player
    replays: entries are public) is not judged again, so it cannot act later than its author meant.
    A forgery is not remembered: the ids of the node it names stay that node's."""
    founder, joiner, forger = Node(41000), Node(41001), Node(42004)
    table = founder.id
    record = TableRecord(installed_plugins(), table=table)
    early = joiner.write(Join, table, commit=commitment(b"early"))
    (refused,) = record.apply(early)
    assert refused.code == NO_TABLE_YET
    record.apply(founder.write(Create, table, name="t", players=3, options={}, plugins=PLUGINS))
    assert record.apply(early) == [] and record.seats == []
    forger.counter = joiner.counter  # the id the joiner uses next
    forged = forger.write(Join, table, author=joiner.id, commit=commitment(b"forged"))
    (refused,) = record.apply(forged)
    assert refused.reason == f"not signed by {joiner.id}'s key"
    (seated,) = record.apply(joiner.write(Join, table, commit=commitment(b"again")))
    assert isinstance(seated, Seated) and record.seat_of(joiner.id) == 0
