"""The games a player keeps to watch again: what each was, listing them, and forgetting the oldest.

A table's log file (``DATA/tables/TABLE--NODE.log``, ``net/storage.py``) is the whole game. When a game
ends at a player's process, a small card beside it (the same name, ``.json``) says what it was: the
table's name, the game and its house rules, the players, when it ended and who won. ``kdm replay``
lists the kept games from their cards, newest first, and plays one back by its number. Each game's end
forgets the oldest finished games past the player's limit (``kdm replay --keep N``, kept in
``settings.json``). A bot that filled a seat keeps nothing: it never comes back, and its copy of the
log is the table's, which the players keep.

A log without a card is a game this process left before its end (the player may come back to it);
it is listed as unfinished, by its table's name and the name of the player (or bot) whose copy it is,
as its create and join entries say, and forgotten once it is older than ``STALE_DAYS``.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from kdm.entries import Create, Join, decode
from kdm.errors import UsageError
from kdm.net.storage import read_log_checked
from kdm.record import TableRecord

log = logging.getLogger("kdm.kept_games")

#: An unfinished game's log is forgotten once nobody has written to it for this long.
STALE_DAYS = 7
TABLES = "tables"


@dataclass(frozen=True)
class KeptGame:
    """One kept game: its log file and, for a finished one, what its card says."""

    log: Path
    table: str = ""
    game: str = ""
    players: list[str] = field(default_factory=list)
    winners: list[str] = field(default_factory=list)
    #: When it ended (seconds since the epoch), or when its log was last written for an unfinished one.
    at: float = 0.0
    finished: bool = False
    #: For an unfinished game: who played from this copy of the log (a bot's name for a bot's copy).
    player: str = ""


def log_file_name(table: str, node: str) -> str:
    """The name of the log file of ``table`` (the founder's node id) kept by ``node``: ``TABLE--NODE``,
    with what a file name cannot hold replaced."""
    safe = "".join(c if c.isalnum() or c in "-." else "_" for c in f"{table}--{node}")
    return f"{safe}.log"


def card_of(log_file: Path) -> Path:
    """The card beside a log file."""
    return log_file.with_suffix(".json")


def remember_game(log_file: Path, record: TableRecord, now: float | None = None) -> None:
    """Write the card of the finished game ``record`` beside its log. A card that cannot be written is
    worth a warning: the log is still there to replay by its path."""
    engine = record.engine
    if engine is None or not engine.over:
        return
    names = [seat.name for seat in record.seats]
    winners = [names[seat] for seat in record.rules.winners(engine.state) if 0 <= seat < len(names)]
    card = {
        "table": record.name,
        "game": ", ".join(record.rules.names),
        "players": names,
        "winners": winners,
        "at": time.time() if now is None else now,
    }
    try:
        card_of(log_file).write_text(json.dumps(card, ensure_ascii=False) + "\n", encoding="utf-8")
    except OSError as error:
        log.warning("could not keep the game's card beside %s: %s", log_file, error)


def forget_log(log_file: Path) -> None:
    """Remove a log and its card (a bot's copy once its game is over)."""
    for path in (log_file, card_of(log_file)):
        path.unlink(missing_ok=True)


def kept_games(root: Path) -> list[KeptGame]:
    """Every game kept under the data directory ``root``, newest first."""
    games = [_read(path) for path in (root / TABLES).glob("*.log")]
    return sorted(games, key=lambda game: game.at, reverse=True)


def _read(log_file: Path) -> KeptGame:
    try:
        written = log_file.stat().st_mtime
    except OSError:
        written = 0.0
    try:
        card = json.loads(card_of(log_file).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return _unfinished(log_file, written)
    except (OSError, ValueError) as error:
        log.warning("ignored the card beside %s: %s", log_file, error)
        return _unfinished(log_file, written)
    if not isinstance(card, dict):
        return _unfinished(log_file, written)
    return KeptGame(
        log_file,
        table=str(card.get("table", "")),
        game=str(card.get("game", "")),
        players=[str(name) for name in card.get("players", [])],
        winners=[str(name) for name in card.get("winners", [])],
        at=float(card.get("at", written)),
        finished=True,
    )


def _unfinished(log_file: Path, written: float) -> KeptGame:
    """A game left before its end, named by its log: the table's name (its create) and the player whose
    copy this is (the join of the node the file is named after); unnamed when the log does not say."""
    try:
        _hard_state, entries, _found = read_log_checked(log_file)
    except OSError:
        return KeptGame(log_file, at=written)
    table_id = table = player = ""
    for entry in entries:  # the create comes first, then the joins
        if entry.kind != "normal" or not entry.data:
            continue
        try:
            decoded = decode(entry.data)
        except ValueError:
            continue
        if isinstance(decoded, Create) and not table_id:
            table_id, table = decoded.id.node, decoded.name
        elif (
            isinstance(decoded, Join)
            and table_id
            and log_file.name == log_file_name(table_id, decoded.id.node)
        ):
            player = decoded.name
    return KeptGame(log_file, table=table, at=written, player=player)


def prune(root: Path, keep: int, now: float | None = None) -> list[Path]:
    """Forget the finished games past the newest ``keep``, and unfinished ones older than
    ``STALE_DAYS``; returns the logs removed."""
    now = time.time() if now is None else now
    games = kept_games(root)
    finished = [game for game in games if game.finished]
    stale = [game for game in games if not game.finished and now - game.at > STALE_DAYS * 86400]
    forgotten = [game.log for game in [*finished[max(0, keep) :], *stale]]
    for path in forgotten:
        forget_log(path)
    return forgotten


def chosen_game(root: Path, which: str) -> Path:
    """The log ``kdm replay WHICH`` means: a number from the list, or a path to a log file."""
    if which.isdigit():
        games = kept_games(root)
        number = int(which)
        if not 1 <= number <= len(games):
            kept = f"1 to {len(games)}" if games else "none are kept yet"
            raise UsageError(f"no kept game {number}: `kdm replay` lists them ({kept})")
        return games[number - 1].log
    return Path(which)


def listing(games: list[KeptGame], keep: int) -> list[str]:
    """The lines of ``kdm replay``: one per kept game, newest first, then how to use them."""
    if not games:
        return ["no game kept yet: a game you play to its end is kept here to watch again"]
    lines = []
    for number, game in enumerate(games, 1):
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(game.at))
        if game.finished:
            won = " and ".join(game.winners) or "nobody"
            lines.append(
                f"{number:>3}  {when}  {game.table}  ({game.game}, {len(game.players)} players): won by {won}"
            )
        elif game.table:
            whose = f" ({game.player}'s copy)" if game.player else ""
            lines.append(f"{number:>3}  {when}  {game.table}{whose}: unfinished, left before its end")
        else:  # a log that does not say which table it is
            lines.append(f"{number:>3}  {when}  unfinished: left before its end  ({game.log.name})")
    lines.append(
        f"kdm replay N plays game N back; the last {keep} finished games are kept (kdm replay --keep N)"
    )
    return lines


def as_json(game: KeptGame) -> dict[str, object]:
    """A kept game for ``kdm replay --json`` (with no game named)."""
    return {**asdict(game), "log": str(game.log)}
