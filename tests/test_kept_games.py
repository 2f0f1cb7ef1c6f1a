"""The games a player keeps (``kdm.kept_games``): listed newest first, the oldest finished ones forgotten
past the player's limit, unfinished ones only once stale, and ``kdm replay N`` naming one by number."""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path

import pytest

from kdm import session
from kdm.errors import UsageError
from kdm.kept_games import STALE_DAYS, TABLES, card_of, chosen_game, kept_games, listing, prune
from kdm.session import SessionConfig
from kdm.settings import DEFAULT_KEEP_GAMES, Settings, keep_games

DAY = 86400.0
NOW = 1_800_000_000.0


def a_log(root: Path, name: str, at: float, finished: bool = True) -> Path:
    """A log file in ``root``'s tables, written ``at``; with the card of a finished game."""
    path = root / TABLES / f"{name}.log"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"log")
    if finished:
        card = {
            "table": name,
            "game": "kilo",
            "players": ["Ana", "Bea", "bot 1"],
            "winners": ["Bea"],
            "at": at,
        }
        card_of(path).write_text(json.dumps(card), encoding="utf-8")
    else:
        os.utime(path, (at, at))
    return path


def test_games_are_listed_newest_first_with_who_won(tmp_path: Path) -> None:
    a_log(tmp_path, "kitchen", NOW - 2 * DAY)
    a_log(tmp_path, "garden", NOW - DAY)
    a_log(tmp_path, "attic", NOW - 3 * DAY, finished=False)
    games = kept_games(tmp_path)
    assert [(game.table, game.finished) for game in games] == [
        ("garden", True),
        ("kitchen", True),
        ("", False),
    ]
    lines = listing(games, keep=20)
    assert lines[0].endswith("garden  (kilo, 3 players): won by Bea") and lines[0].startswith("  1  ")
    assert "unfinished: left before its end  (attic.log)" in lines[2]
    assert (
        lines[-1]
        == "kdm replay N plays game N back; the last 20 finished games are kept (kdm replay --keep N)"
    )
    assert chosen_game(tmp_path, "2") == tmp_path / TABLES / "kitchen.log"
    assert chosen_game(tmp_path, "some/file.log") == Path("some/file.log")
    with pytest.raises(UsageError, match=r"^no kept game 4: `kdm replay` lists them \(1 to 3\)$"):
        chosen_game(tmp_path, "4")
    assert listing([], keep=20) == [
        "no game kept yet: a game you play to its end is kept here to watch again"
    ]


def test_the_oldest_finished_games_are_forgotten_past_the_limit(tmp_path: Path) -> None:
    logs = [a_log(tmp_path, f"game{day}", NOW - day * DAY) for day in range(5)]
    left = a_log(tmp_path, "left", NOW - 2 * DAY, finished=False)  # its player may come back to it
    forgotten = prune(tmp_path, keep=2, now=NOW)
    assert sorted(forgotten) == sorted(logs[2:])
    assert all(not path.exists() and not card_of(path).exists() for path in logs[2:])
    assert [game.log for game in kept_games(tmp_path)] == [logs[0], logs[1], left]
    assert prune(tmp_path, keep=2, now=NOW + STALE_DAYS * DAY) == [left]  # a week on, it is stale


def test_the_limit_is_remembered_in_the_settings(tmp_path: Path) -> None:
    assert keep_games(folder=tmp_path) == DEFAULT_KEEP_GAMES
    assert keep_games(3, tmp_path) == 3
    assert keep_games(folder=tmp_path) == 3 and Settings.load(tmp_path).keep_games == 3
    (tmp_path / "settings.json").write_text('{"keep_games": -4, "name": "Ana"}', encoding="utf-8")
    assert Settings.load(tmp_path) == Settings(name="Ana")  # a limit below 0 is ignored


@pytest.mark.processes
def test_a_game_left_before_its_end_is_named_by_its_table_and_whose_copy_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The bug: the bots' copies of a game quit early were listed by file name
    ("unfinished: left before its end (127.0.0.1_37101_…log)")."""
    config = SessionConfig(
        interface="127.0.0.1", name="Ana", bot="greedy", advertise=False, data_dir=tmp_path
    )

    async def leave_once_started() -> None:
        hosting = asyncio.ensure_future(session.host(config, "kitchen", 3, {"rounds": 100}, [], bots=2))
        said = ""
        deadline = time.monotonic() + 60
        try:
            while "the game starts" not in said:
                assert time.monotonic() < deadline and not hosting.done(), said
                await asyncio.sleep(0.05)
                said += capsys.readouterr().out
        finally:
            hosting.cancel()  # the player quits; the bots it started are stopped
            await asyncio.gather(hosting, return_exceptions=True)

    asyncio.run(leave_once_started())
    lines = listing(kept_games(tmp_path), keep=20)
    left = sorted(line.rsplit("  ", 1)[1] for line in lines[:-1])  # after the number and the date
    assert left == [
        "kitchen (Ana's copy): unfinished, left before its end",
        "kitchen (bot 1's copy): unfinished, left before its end",
        "kitchen (bot 2's copy): unfinished, left before its end",
    ], lines
