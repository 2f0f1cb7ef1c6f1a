"""The ``kdm`` command line: parses arguments, runs a command, turns user mistakes into one line.

A user mistake (a bad player count, an unknown option, a bad value) prints one line saying what is
wrong and what is allowed, and exits with status 2; it never shows a traceback.
"""

from __future__ import annotations

# Before anything imports hashlib or asyncio: they come without OpenSSL (see the module).
from kdm import without_openssl  # noqa: F401

# isort: split

import argparse
import asyncio
import json
import logging
import os
import re
import socket
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn, cast

from kdm import __version__, session
from kdm.agents import STRATEGIES
from kdm.engine import Effect
from kdm.errors import UsageError
from kdm.events import Event
from kdm.identity import data_root
from kdm.manager import Rules
from kdm.net.discovery import parse_contact
from kdm.options import parse_assignments
from kdm.plugins_command import add_plugins_parser
from kdm.record import DECKS
from kdm.session import SessionConfig, default_interface
from kdm.settings import (
    DECK_HELP,
    NO_BELL_HELP,
    TABLE_NAME_HELP,
    YOUR_NAME_HELP,
    keep_games,
    your_language,
    your_names,
)
from kdm.tui.command import TARGET_HELP, add_play_parser
from kdm.tui.text import LANGUAGES

USAGE_ERROR = 2


class _Parser(argparse.ArgumentParser):
    """argparse, but a mistake is one line and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(USAGE_ERROR, f"{self.prog}: error: {message}\n")


class _Subcommand(_Parser):
    """A subcommand's parser: it refuses the arguments it does not know itself, so that the line names
    the subcommand (``kdm play: error: ...``); argparse leaves them to the top parser, which says ``kdm``."""

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        parsed, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(
                f"unrecognized arguments: {' '.join(extras)} ({self.prog} --help lists the ones it takes)"
            )
        return parsed, extras


#: A target whose host part is an IP address is meant as an address (a table name is rarely one).
_IP_HOST = re.compile(r"(\d{1,3}(\.\d{1,3}){3}|\[[0-9A-Fa-f:.]*\]):.*")


def checked_target(target: str | None) -> None:
    """A table given as ``HOST:PORT[~KEY]`` by an IP address, checked: a mistake in it is one line (the
    port is not a number, ...) instead of a search of the LAN for a table of that name."""
    if target and _IP_HOST.fullmatch(target.strip()):
        try:
            parse_contact(target)
        except ValueError as error:
            raise UsageError(str(error)) from None


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="kdm",
        description="kdm: card games at a table of laptops on one LAN, with no server.",
        epilog="kdm COMMAND --help says more of each; kdm play --bots 3 plays at once.",
    )
    parser.add_argument("--version", action="version", version=f"kdm {__version__}")
    commands = parser.add_subparsers(
        dest="command", title="commands", metavar="COMMAND", parser_class=_Subcommand
    )

    sim = commands.add_parser(
        "sim",
        help="play bots-only games in this process, no network",
        description="Play a bots-only game in one process on simulated time.",
    )
    sim.add_argument("--players", type=int, default=4, help="players, 3 to 10 (default 4)")
    sim.add_argument("--rounds", default="10", help="rounds to play, or 'pile' (default 10)")
    sim.add_argument("--seed", type=int, default=0, help="game seed (default 0)")
    sim.add_argument("--bots", choices=STRATEGIES, default="greedy", help="bot strategy")
    sim.add_argument(
        "--option", action="append", default=[], metavar="NAME=VALUE", help="a table option (repeatable)"
    )
    sim.add_argument(
        "--variant", action="append", default=[], metavar="NAME", help="a rule plugin to add (repeatable)"
    )
    sim.add_argument("--json", action="store_true", help="print one JSON summary")
    sim.add_argument("--watch", action="store_true", help="pace the transcript for a person")
    sim.add_argument("--speed", type=float, default=1.0, help="with --watch, play this many times faster")
    sim.add_argument("--lang", choices=("en", "fr"), default="en", help="transcript language")
    sim.set_defaults(run=run_sim)

    def network_flags(command: argparse.ArgumentParser) -> None:
        command.add_argument(
            "--interface",
            default=None,
            metavar="ADDRESS",
            help="bind and advertise on this address only (also KDM_INTERFACE)",
        )
        command.add_argument(
            "--port", type=int, default=0, help="port to listen on, for a firewall (default: any free port)"
        )
        command.add_argument("--headless", action="store_true", help="no terminal table: print the game log")
        command.add_argument(
            "--json", action="store_true", help="with --headless: print one JSON summary when the game ends"
        )
        command.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)
        command.add_argument("--report", type=Path, default=None, help=argparse.SUPPRESS)
        command.add_argument("--data-dir", type=Path, default=None, help=argparse.SUPPRESS)
        command.add_argument(
            "--lang",
            choices=LANGUAGES,
            default=None,
            help="language of the game log (default: as last chosen)",
        )
        command.add_argument(
            "--pin",
            default=None,
            help="the table's PIN, 4 to 12 digits: a table hosted with one admits only who proves it "
            "(also KDM_PIN)",
        )

    def if_stranded_flag(command: argparse.ArgumentParser) -> None:
        command.add_argument(
            "--if-stranded",
            choices=session.IF_STRANDED,
            default=None,
            help="with --headless, when the table cannot go on without laptops not heard from: wait for "
            "them (the default; given in so many words, wait for ever, else give up after "
            f"{session.ALONE_GIVE_UP_S:.0f} s of hearing nobody), or go on without them, bots playing "
            "their seats (a screen asks instead)",
        )

    host = commands.add_parser(
        "host",
        help="open a table on this machine and play at it",
        description="Open a table on the LAN and take its first seat.",
    )
    host.add_argument("--name", default="", help=YOUR_NAME_HELP)
    host.add_argument("--table", default="", help=TABLE_NAME_HELP)
    host.add_argument("--players", type=int, default=4, help="players, 3 to 10 (default 4)")
    host.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help="a table option")
    host.add_argument("--variant", action="append", default=[], metavar="NAME", help="a rule plugin to add")
    host.add_argument("--bots", type=int, default=0, help="start this many bot peers to fill seats")
    host.add_argument("--as-bot", choices=STRATEGIES, default=None, help="let a bot play this seat")
    host.add_argument("--no-advertise", action="store_true", help="do not announce the table on the LAN")
    host.add_argument("--deck", choices=DECKS, default=None, help=DECK_HELP)
    host.add_argument("--no-bell", action="store_true", help=NO_BELL_HELP)
    network_flags(host)
    if_stranded_flag(host)
    host.set_defaults(run=run_host)

    join = commands.add_parser(
        "join",
        help="join a table by name, or by its address HOST:PORT[~KEY] as its screen shows it",
        description="Join a table on the LAN and take a free seat.",
    )
    join.add_argument("target", metavar="TABLE", help=TARGET_HELP)
    join.add_argument("--name", default="", help=YOUR_NAME_HELP)
    join.add_argument("--as-bot", choices=STRATEGIES, default=None, help="let a bot play this seat")
    join.add_argument("--watch", action="store_true", help="watch the table without taking a seat")
    join.add_argument("--no-bell", action="store_true", help=NO_BELL_HELP)
    network_flags(join)
    if_stranded_flag(join)
    join.set_defaults(run=run_join)

    bot = commands.add_parser(
        "bot",
        help="a headless bot peer that takes a seat",
        description="Join a table as a bot (the only table on the LAN if none is named).",
    )
    bot.add_argument("target", nargs="?", default=None, metavar="TABLE", help=TARGET_HELP)
    bot.add_argument("--strategy", choices=STRATEGIES, default="greedy", help="how the bot plays")
    bot.add_argument("--name", default="", help='the name the bot sits under (default: "bot")')
    network_flags(bot)
    bot.set_defaults(run=run_bot)

    tables = commands.add_parser("tables", help="list the tables on the LAN")
    tables.add_argument("--json", action="store_true", help="one JSON list")
    tables.add_argument("--wait", type=float, default=1.5, metavar="SECONDS", help="how long to listen")
    tables.add_argument("--interface", default=None, metavar="ADDRESS", help="listen on this address only")
    tables.set_defaults(run=run_tables)

    selfplay = commands.add_parser(
        "selfplay",
        help="check this machine: bot peers play over loopback",
        description="Start bot peers as separate processes on 127.0.0.1 and play.",
    )
    selfplay.add_argument("--peers", type=int, default=4, help="peers, 3 to 10 (default 4)")
    selfplay.add_argument("--rounds", type=int, default=3, help="rounds to play (default 3)")
    selfplay.add_argument(
        "--seed", type=int, default=0, help="seed of the bots and of the faults (default 0)"
    )
    selfplay.add_argument(
        "--chaos",
        default="",
        metavar="KINDS",
        help="inject seeded faults while playing, a comma list of: kill, pause, partition, garbage",
    )
    selfplay.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="NAME",
        help="a rule plugin or game mode (repeatable)",
    )
    selfplay.add_argument(
        "--option", action="append", default=[], metavar="NAME=VALUE", help="a table option (repeatable)"
    )
    selfplay.add_argument(
        "--deck",
        choices=DECKS,
        default="open",
        help="the table's deck: fair (no peer reads a hidden card) or open",
    )
    selfplay.add_argument("--json", action="store_true", help="print one JSON summary")
    selfplay.add_argument("--timeout", type=float, default=300.0, help=argparse.SUPPRESS)
    selfplay.add_argument("--keep", type=Path, default=None, help=argparse.SUPPRESS)  # logs for a post-mortem
    selfplay.set_defaults(run=run_selfplay)

    replay = commands.add_parser(
        "replay",
        help="list the games you kept, or play one back",
        description=(
            "With no GAME, list the games kept to watch again, newest first. With GAME (a number from "
            "that list, or a table's log file), play it back through the rules."
        ),
    )
    replay.add_argument("game", nargs="?", default=None, metavar="GAME")
    replay.add_argument(
        "--keep", type=int, default=None, metavar="N", help="keep the last N finished games from now on"
    )
    replay.add_argument("--data-dir", type=Path, default=None, help=argparse.SUPPRESS)
    replay.add_argument("--json", action="store_true", help="print only a JSON summary")
    replay.add_argument("--lang", choices=("en", "fr"), default="en", help="transcript language")
    replay.set_defaults(run=run_replay)
    add_play_parser(cast("argparse._SubParsersAction[argparse.ArgumentParser]", commands))
    add_plugins_parser(cast("argparse._SubParsersAction[argparse.ArgumentParser]", commands))
    return parser  # fmt: skip


def run_replay(args: argparse.Namespace) -> int:
    from kdm import kept_games
    from kdm.replay import replay

    root = data_root(args.data_dir)
    if args.keep is not None:
        if args.keep < 0:
            raise UsageError(f"--keep {args.keep} is not a number of games: give 0 or more")
        forgotten = kept_games.prune(root, keep_games(args.keep, args.data_dir))
        print(f"the last {args.keep} finished games are kept; {len(forgotten)} forgotten now")
        if args.game is None:
            return 0
    if args.game is None:
        games = kept_games.kept_games(root)
        if args.json:
            print(json.dumps([kept_games.as_json(game) for game in games]))
        else:
            print("\n".join(kept_games.listing(games, keep_games(folder=args.data_dir))))
        return 0
    path = kept_games.chosen_game(root, args.game)
    summary = replay(path, args.lang, say=(lambda _line: None) if args.json else print)
    print(json.dumps(summary) if args.json else f"digest {summary['digest']}")
    return 0


def _session_config(args: argparse.Namespace, bot: str | None) -> SessionConfig:
    if args.json and not args.headless:
        raise UsageError("--json prints a summary instead of the table: add --headless")
    config = SessionConfig(
        bot=bot, seed=args.seed, report=args.report, data_dir=args.data_dir, lang=args.lang or "en"
    )
    if args.interface:
        config.interface = args.interface
    if not 0 <= args.port <= 0xFFFF:
        raise UsageError(f"--port {args.port} is not a port number: give 1 to 65535, or 0 for any free one")
    config.port = args.port
    config.name = getattr(args, "name", "") or socket.gethostname()
    config.log_on_stderr = args.json  # stdout is for the one JSON object
    config.watch = getattr(args, "watch", False)
    config.pin = session.checked_pin(args.pin, config.pin)
    config.bell = not getattr(args, "no_bell", False)
    asked = getattr(args, "if_stranded", None)
    config.if_stranded, config.wait_for_ever = asked or "wait", asked == "wait"
    return config


def run_host(args: argparse.Namespace) -> int:
    options: dict[str, Any] = parse_assignments(args.option)
    config = _session_config(args, args.as_bot)
    config.lang = your_language(args.lang, LANGUAGES, args.data_dir)
    config.name, config.table = your_names(args.name, args.table, args.data_dir, config.lang)
    config.advertise = not args.no_advertise
    config.deck = args.deck
    if args.bots < 0:
        raise UsageError(f"--bots {args.bots} is not a number of bots: give 0 or more")
    if args.bots >= args.players:
        raise UsageError(f"--bots must be 0 to {args.players - 1} (the other seats at this table)")
    Rules.for_table(args.variant).resolve(args.players, dict(options))  # one line before any screen
    if not args.headless:
        from kdm.tui.command import run_at_table

        return run_at_table(
            config,
            lambda ui: session.host(config, config.table, args.players, options, args.variant, args.bots, ui),
        )
    return _run(session.host(config, config.table, args.players, options, args.variant, args.bots), args)


def run_join(args: argparse.Namespace) -> int:
    config = _session_config(args, args.as_bot)
    config.lang = your_language(args.lang, LANGUAGES, args.data_dir)
    config.name, config.table = your_names(args.name, "", args.data_dir, config.lang)
    if not args.headless:
        from kdm.tui.command import run_at_table

        return run_at_table(config, lambda ui: session.join(config, args.target, ui))
    return _run(session.join(config, args.target), args)


def run_bot(args: argparse.Namespace) -> int:
    print_log, args.headless = args.headless, True  # a bot needs no screen: --headless prints the log
    config = _session_config(args, args.strategy)
    config.quiet = config.quiet or not print_log
    config.keep_identity = False  # a bot that fills a seat never comes back for it
    config.name = args.name or "bot"  # not the machine's: its owner sits there under that name
    # Started by a player's process (spawn_bot): the laptop's one vote is that player's.
    config.laptop = os.environ.get(session.LAPTOP_ENV, "")
    return _run(session.join(config, args.target or ""), args)


def run_tables(args: argparse.Namespace) -> int:
    from kdm.net.discovery import find_tables

    interface = args.interface or default_interface()
    tables = asyncio.run(find_tables(args.wait, interface))
    if args.json:
        print(json.dumps([ad.__dict__ | {"plugins": list(ad.plugins), "fingerprint": ad.fingerprint}
                          for ad in tables]))  # fmt: skip
        return 0
    if not tables:
        print("no tables found on the LAN")
    for ad in tables:
        print(
            f"{ad.name:20} {ad.host}:{ad.port:<6} {ad.mode:8} {ad.seats_taken}/{ad.seats_total} {ad.state:8}"
            f" key {ad.fingerprint}{'  PIN' if ad.pin else ''}"
        )
    return 0


def run_selfplay(args: argparse.Namespace) -> int:
    from kdm.faults import parse_kinds
    from kdm.selfplay import selfplay

    result = selfplay(
        args.peers,
        args.rounds,
        args.seed,
        timeout_s=args.timeout,
        variants=args.variant,
        options=parse_assignments(args.option),
        chaos_kinds=parse_kinds(args.chaos) if args.chaos else (),
        keep=args.keep,
        deck=args.deck,
    )
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key}: {value}")
    agreed = len(set(result["digests"])) == 1 and not result["lost_commits"] and not result["divergent_logs"]
    return 0 if agreed and not result.get("unfinished") else 1


def _run(coroutine: Any, args: argparse.Namespace) -> int:
    """Run a headless session; with ``--json``, print its summary (``TableSession.summary``)."""
    summary = asyncio.run(coroutine)
    if args.json:
        print(json.dumps(summary), flush=True)
    return 0


def run_sim(args: argparse.Namespace) -> int:
    from kdm.sim import Simulation  # here: a process at a table has no use for it

    options: dict[str, Any] = parse_assignments(args.option)
    if args.speed <= 0:
        raise UsageError("--speed must be a positive number")
    rules = Rules.for_table(args.variant)
    if rules.declares("rounds"):
        options.setdefault("rounds", args.rounds)  # a game of rounds (Kem's plays to a target instead)
    simulation = Simulation(args.players, args.seed, args.bots, options, args.variant, rules)
    if args.json:
        print(json.dumps(simulation.run().as_json()))
        return 0
    clock = {"last": 0.0}

    def show(now: float, _event: Event, effects: Sequence[Effect]) -> None:
        unnamed = [""] * args.players  # bots of a sim have seats, not names
        lines = [simulation.rules.describe(effect, args.lang, unnamed) for effect in effects]
        lines = [line for line in lines if line]
        if not lines:
            return
        if args.watch:
            time.sleep(min(now - clock["last"], 2500.0) / 1000.0 / args.speed)
            clock["last"] = now
        minutes, seconds = divmod(now / 1000.0, 60)
        for line in lines:
            print(f"{int(minutes):3d}:{seconds:06.3f}  {line}", flush=args.watch)

    result = simulation.run(show)
    print(f"digest {result.digest}")
    return 0


LOG_ENV = "KDM_LOG"


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:  # a bare `kdm`: what it can do, one line each
        parser.print_help(sys.stderr)
        return USAGE_ERROR
    level = os.environ.get(LOG_ENV, "warning").upper()
    logging.basicConfig(level=getattr(logging, level, logging.WARNING), format="%(name)s: %(message)s")
    try:
        checked_target(getattr(args, "target", None))
        code: int = args.run(args)
        return code
    except UsageError as error:
        print(f"kdm {args.command}: error: {error}", file=sys.stderr)
        return USAGE_ERROR
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        sys.stderr.close()  # the reader went away (``kdm sim | head``): not an error
        return 0


if __name__ == "__main__":
    sys.exit(main())
