"""Attacks on live tables of real ``kdm`` processes (``tests/helpers/processes.py``): the modified
clients' commands (``tests/modified_clients.py``), the players' logging, and a finished game checked for
agreement with what each process said and the attacks it was sent. Shared by the adversarial suites
(tests/test_adversary.py, tests/test_consensus_adversary.py).
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kdm import entries
from kdm.notices import Notice, Rejected
from kdm.record import TableRecord
from kdm.replay import read_committed, replayed
from tests.helpers.processes import Table
from tests.modified_clients import ATTACKS_ENV

CLIENTS = [sys.executable, str(Path(__file__).resolve().parents[1] / "modified_clients.py")]


#: Windows close sooner than the default 4 s: a bot that misses one (or the cheater, which never
#: slaps in time in a window it forges in) holds it open that long.
QUICK = ("slap_timeout_ms=1500",)


def client(role: str, *arguments: str) -> list[str]:
    """The command of a modified client (``tests/modified_clients.py``)."""
    return [*CLIENTS, role, *arguments]


def logging_env(root: Path) -> dict[str, str]:
    """The players log at info, and an attacker writes down its attacks in ``root``."""
    return {**os.environ, "KDM_LOG": "info", ATTACKS_ENV: str(root / "attacks.jsonl")}


@dataclass
class Game:
    """A finished game with an attacker: what each process said, the attacks, and the log replayed."""

    scene: Table
    honest: list[int]
    attacks: list[dict[str, Any]]
    #: The founder's committed log: each entry's id, and the record and notices its replay made.
    committed: set[tuple[str, int]]
    #: The entries of that log, decoded, in order (a membership change is none).
    logged: list[entries.Entry]
    record: TableRecord
    notices: list[Notice] = field(default_factory=list)

    def log(self, index: int) -> str:
        return "\n".join(self.scene.outputs[index].lines)

    def node(self, index: int) -> str:
        return str(self.scene.report(index)["node"])

    def made(self, attack: str) -> list[dict[str, Any]]:
        return [made for made in self.attacks if made["attack"] == attack]

    def refusals(self, holding: str) -> Counter[str]:
        """The replay's refusals whose reason holds ``holding``, each as a peer logs it."""
        return Counter(
            f"entry from {notice.node} refused: {notice.reason}"
            for notice in self.notices
            if isinstance(notice, Rejected) and holding in notice.reason
        )

    def assert_refused_everywhere(self, holding: str) -> int:
        """Every honest peer logged each refusal the replay makes for a reason holding ``holding``, as
        many times; returns how many there are (at least one)."""
        lines = self.refusals(holding)
        assert lines, f"the table refused nothing for {holding!r}"
        for index in self.honest:
            said = self.log(index)
            for line, times in lines.items():
                assert said.count(line) == times, (
                    f"peer {index} logged {said.count(line)} times, not {times}: {line}"
                )
        return sum(lines.values())

    def assert_never_applied(self, ids: list[tuple[str, int]], committed: bool) -> None:
        """None of ``ids`` changed the table; each is in the log (refused there) or is not (dropped by
        the peer it was sent to), as ``committed`` says."""
        assert ids
        assert not set(ids) & self.record.applied_ids
        in_log = [entry_id in self.committed for entry_id in ids]
        assert in_log == [committed] * len(ids), "committed" if not committed else "missing from the log"


def finished(scene: Table, honest: list[int], root: Path, sent_away: Sequence[int] = ()) -> Game:
    """The game at ``scene`` once every process has ended: each ended well (but those ``sent_away``,
    whose seat the table gave a bot for good: they end with its reason, status 2), and the honest
    players, the replay of the founder's log and every other player agree on the digest."""
    ended = [process.returncode for process in scene.processes]
    assert ended == [2 if index in sent_away else 0 for index in range(len(scene.processes))], ended
    attacks_file = root / "attacks.jsonl"
    attacks = (
        [json.loads(line) for line in attacks_file.read_text().splitlines()] if attacks_file.exists() else []
    )
    (founder_log,) = (root / "p0" / "tables").glob("*.log")
    data, _chained = read_committed(founder_log)
    notices: list[Notice] = []
    record = replayed(data, lambda _record, notice: notices.append(notice))
    logged = []
    for item in data:
        try:
            logged.append(entries.decode(item))
        except ValueError:
            continue
    committed = {(entry.id.node, entry.id.counter) for entry in logged}
    game = Game(scene, honest, attacks, committed, logged, record, notices)
    assert record.engine is not None and record.engine.over
    digests = {
        scene.report(index)["digest"] for index in range(len(scene.processes)) if index not in sent_away
    }
    assert digests == {record.engine.digest()}
    return game


def leaders(game: Game) -> set[str]:
    """Every leader an honest peer heard of during the game."""
    return {
        line.split()[1]
        for index in game.honest
        for line in game.scene.outputs[index].lines
        if line.startswith("leader: ")
    }
