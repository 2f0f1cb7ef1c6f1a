"""``kdm play``: the terminal table, from the command line to the end of the game.

Owns the subcommand's arguments (``add_play_parser``) and its flow (``run_play``): straight to a table
with ``--bots N`` (on loopback, unadvertised, when the bots fill every other seat), to a table named or
given as ``HOST:PORT``, or through the lobby when nothing is said. A table you host plays the house rules
of ``--variant NAME`` (repeatable) with ``--option NAME=VALUE``, parsed and checked as ``kdm host`` does.
While a screen is up, this process's stderr, which the bot processes inherit, goes to a log file, so
that no warning scribbles over the table.

``python -m kdm.tui [ARGS]`` runs the same command without the rest of the CLI.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import platformdirs

from kdm import session
from kdm.errors import PinRefused, TableError, UsageError
from kdm.manager import Rules
from kdm.options import parse_assignments
from kdm.record import DECKS
from kdm.session import SessionConfig
from kdm.settings import (
    DECK_HELP,
    NO_BELL_HELP,
    TABLE_NAME_HELP,
    YOUR_NAME_HELP,
    your_language,
    your_names,
)
from kdm.tui.text import LANGUAGES, say

# The screens (prompt_toolkit) load when a screen is shown: every kdm command parses this one's
# arguments, and a headless one, a bot's process say, has no screen to show.
if TYPE_CHECKING:
    from kdm.tui.app import TableUI
    from kdm.tui.lobby import Create, Join

LOOPBACK = "127.0.0.1"
DEFAULT_PLAYERS = 4
#: What the table argument of ``kdm play``, ``kdm join`` and ``kdm bot`` may be.
TARGET_HELP = (
    "the table: its name on the LAN, or its address HOST:PORT[~KEY] as its screen shows it (the key is "
    "optional: without it, compare the key the table's screen shows)"
)
#: Where a table's screen needs a terminal and there is none, what does without one (``kdm play``
#: takes no ``--headless``; a headless seat waits for ever unless a bot plays it).
NO_TERMINAL = "the table needs a terminal"
HEADLESS_HINT = "without one, add --headless to print the game log"
PLAY_HEADLESS_HINT = (
    "without one, kdm host --headless or kdm join --headless prints the game log "
    "(add --as-bot greedy for a bot to play your seat)"
)


def add_play_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``kdm play`` to a CLI's subcommands; it runs ``run_play``."""
    play = commands.add_parser(
        "play",
        help="play at the terminal table: with bots, at a table on the LAN, or at a new one",
        description="Play at a table in the terminal. With no argument, list the tables on the LAN "
        "and offer to create one; with --bots N, play at once against N bot peers on this machine.",
    )
    play.add_argument("target", nargs="?", default=None, metavar="TABLE", help=f"{TARGET_HELP}, to join")
    play.add_argument("--bots", type=int, default=0, metavar="N", help="host a table with N bot peers")
    play.add_argument("--name", default="", help=YOUR_NAME_HELP)
    play.add_argument("--table", default="", help=TABLE_NAME_HELP)
    play.add_argument("--no-bell", action="store_true", help=NO_BELL_HELP)
    play.add_argument(
        "--players",
        type=int,
        default=None,
        metavar="N",
        help="seats at a table you host, 3 to 10 (default: bots + 1, or 4)",
    )
    play.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a table option for a table you host (repeatable)",
    )
    play.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="NAME",
        help="a rule plugin for a table you host (repeatable)",
    )
    play.add_argument(
        "--lang",
        choices=LANGUAGES,
        default=None,
        help="language of the table (en, fr; default: the one you chose last time, else your locale's)",
    )
    play.add_argument("--deck", choices=DECKS, default=None, help=DECK_HELP)
    play.add_argument(
        "--interface",
        default=None,
        metavar="ADDRESS",
        help="bind and advertise on this address only (also KDM_INTERFACE)",
    )
    play.add_argument(
        "--port", type=int, default=0, help="port to listen on, for a firewall (default: any free port)"
    )
    play.add_argument(
        "--pin",
        default=None,
        help="the table's PIN, 4 to 12 digits: a table you host admits only who proves it; "
        "at a table you join, yours proves it (also KDM_PIN)",
    )
    play.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)
    play.add_argument("--data-dir", type=Path, default=None, help=argparse.SUPPRESS)
    play.set_defaults(run=run_play)  # fmt: skip


def run_play(args: argparse.Namespace) -> int:
    """Play from the arguments ``add_play_parser`` parsed; a user mistake raises ``UsageError``."""
    options: dict[str, Any] = parse_assignments(args.option)
    pin = session.checked_pin(args.pin, os.environ.get(session.PIN_ENV) or None)
    players = args.players if args.players is not None else args.bots + 1 if args.bots else DEFAULT_PLAYERS
    if args.target is not None and (
        args.bots or args.players is not None or args.option or args.variant or args.table
    ):
        raise UsageError(
            "--bots, --players, --option, --variant and --table are for a table you host, not one you join"
        )
    if args.bots < 0:
        raise UsageError(f"--bots {args.bots} is not a number of bots: give 0 or more")
    if args.bots >= players:
        raise UsageError(f"--bots must be 0 to {players - 1} (the other seats at a table of {players})")
    if args.target is None:
        # An unknown variant, a bad option value or variants that do not go together: one line now,
        # before the screen takes the terminal (the lobby's form starts from these too).
        try:
            Rules.for_table(args.variant).resolve(players, options)
        except TableError as error:  # the table itself, its size included, not an option's value
            if args.players is not None or not args.bots or refused_at_every_size(args.variant, options):
                raise  # what is refused is not the size (spoons with piles): the refusal says why
            # The table's size came from --bots: say so, or "players must be 3 to 10" names a flag
            # the player never gave.
            raise UsageError(f"--bots {args.bots} makes a table of {players}: {error}") from error
    try:
        require_terminal()
    except UsageError:  # `kdm play` takes no --headless: name what does without a terminal
        raise UsageError(f"{NO_TERMINAL}; {PLAY_HEADLESS_HINT}") from None
    if not 0 <= args.port <= 0xFFFF:
        raise UsageError(f"--port {args.port} is not a port number: give 1 to 65535, or 0 for any free one")
    lang = your_language(args.lang, LANGUAGES, args.data_dir)
    config = SessionConfig(seed=args.seed, data_dir=args.data_dir, lang=lang, port=args.port)
    config.bell = not args.no_bell
    config.deck = args.deck
    config.name, config.table = your_names(args.name, args.table, args.data_dir, lang)
    config.pin = pin
    if args.interface:
        config.interface = args.interface
    elif args.bots and players == args.bots + 1 and args.target is None:
        # Bots take every other seat: nobody else can join, so stay on loopback and need no network.
        config.interface, config.advertise = LOOPBACK, False
    return run_at_table(config, lambda ui: play(args, config, players, options, ui))


def refused_at_every_size(variants: list[str], options: dict[str, Any]) -> bool:
    """Whether a table of ``variants`` and ``options`` is refused whatever its size, so that its size
    (which ``--bots`` chose) is not what is wrong. Sizes up to twice the most a game seats are tried."""
    rules = Rules.for_table(variants)
    for players in range(1, 21):
        try:
            rules.resolve(players, dict(options))
        except TableError:
            continue
        return False
    return True


def require_terminal() -> None:
    """The table's screen needs a terminal: else one line, saying what does without one."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError(f"{NO_TERMINAL}; {HEADLESS_HINT}")


def run_at_table(config: SessionConfig, start: Callable[[TableUI], Awaitable[Any]]) -> int:
    """Run ``start`` (a session given the table screen as its UI) at the terminal table: ``kdm play``,
    and ``kdm host`` and ``kdm join`` without ``--headless``."""
    require_terminal()
    with stderr_to(log_path(config)):
        asyncio.run(_at_table(config, start))
    return 0


async def _at_table(config: SessionConfig, start: Callable[[TableUI], Awaitable[Any]]) -> None:
    from kdm.tui.app import TableUI

    ui = TableUI(config.lang, bell=config.bell)
    try:
        await start(ui)
        await ui.show_final()
    finally:
        if ui.screen is not None and ui.screen.left and not ui.screen.over:
            print(say(config.lang, "leaving"), file=sys.__stdout__, flush=True)
        await ui.stop_bots()


async def play(
    args: argparse.Namespace, config: SessionConfig, players: int, options: dict[str, Any], ui: TableUI
) -> None:
    if args.target is not None:
        await session.join(config, args.target, ui=ui)
    elif args.bots or args.players is not None:
        await session.host(config, config.table, players, options, args.variant, bots=args.bots, ui=ui)
    else:
        await from_the_lobby(config, options, args.variant, ui)


async def run_lobby(
    config: SessionConfig,
    options: dict[str, Any],
    variants: list[str],
    message: str = "",
    ask_pin: Join | None = None,
) -> Join | Create | None:
    """The lobby's screen (``kdm.tui.lobby_app.run_lobby``), loaded when it is first shown."""
    from kdm.tui.lobby_app import run_lobby as lobby

    return await lobby(config, options, variants, message=message, ask_pin=ask_pin)


async def from_the_lobby(
    config: SessionConfig, options: dict[str, Any], variants: list[str], ui: TableUI
) -> None:
    """The lobby, then the table chosen there; back to the lobby, saying why, when joining or creating
    fails or when the player would rather not watch a table they cannot sit at. A mistake never quits."""
    from kdm.tui.lobby import Create, Join  # with the lobby, as its screen: a headless kdm has neither

    message = ""
    ask_pin: Join | None = None
    while True:
        choice = await run_lobby(config, options, variants, message=message, ask_pin=ask_pin)
        ask_pin = None
        try:
            if isinstance(choice, Join):
                config.pin = choice.pin or config.pin
                await session.join(config, choice.target, ui=ui, addresses=choice.addresses)
            elif isinstance(choice, Create):
                config.pin = choice.pin or None
                # The names given in the form are kept, as those given with --name and --table are.
                config.name = your_names(choice.player, choice.table, config.data_dir, config.lang)[0]
                await session.host(config, choice.table, choice.players, choice.options, choice.variants,
                                   bots=choice.bots, ui=ui)  # fmt: skip
            else:
                return
        except PinRefused as error:  # ask for it (again), where the player can type it
            if not isinstance(choice, Join):
                message = str(error)
                continue
            message = say(config.lang, "pin_wrong") if choice.pin else ""
            ask_pin = replace(choice, pin="")
            continue
        except UsageError as error:
            message = str(error)
            continue
        screen = ui.screen
        if screen is None or not (screen.left and screen.peer.seat is None and not screen.watching):
            return
        message = screen.say("not_watching")


def log_path(config: SessionConfig) -> Path:
    root = config.data_dir or Path(platformdirs.user_log_dir("kdm"))
    return root / "play.log"


@contextlib.contextmanager
def stderr_to(path: Path) -> Iterator[None]:
    """Send file descriptor 2 (ours and our children's) to ``path`` while the screen is up."""
    path.parent.mkdir(parents=True, exist_ok=True)
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with path.open("ab") as log:
            os.dup2(log.fileno(), 2)
            try:
                yield
            finally:
                sys.stderr.flush()
                os.dup2(saved, 2)
    finally:
        os.close(saved)


def main(argv: Sequence[str] | None = None) -> int:
    """``kdm play`` on its own: ``python -m kdm.tui [ARGS]``."""
    parser = argparse.ArgumentParser(prog="kdm")
    add_play_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["play", *(sys.argv[1:] if argv is None else argv)])
    try:
        return run_play(args)
    except UsageError as error:
        print(f"kdm play: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
