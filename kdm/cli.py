"""The ``kdm`` command line: parses arguments, runs a command, turns user mistakes into one line.

A user mistake (a bad player count, an unknown option, a bad value) prints one line saying what is
wrong and what is allowed, and exits with status 2; it never shows a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from typing import Any, NoReturn

from kdm import __version__
from kdm.bots import STRATEGIES
from kdm.engine import Effect
from kdm.errors import UsageError
from kdm.events import Event
from kdm.options import parse_assignments
from kdm.sim import Simulation

USAGE_ERROR = 2


class _Parser(argparse.ArgumentParser):
    """argparse, but a mistake is one line and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(USAGE_ERROR, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="kdm", description="Kilo de merde: a serverless LAN card game.")
    parser.add_argument("--version", action="version", version=f"kdm {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

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
    return parser  # fmt: skip


def run_sim(args: argparse.Namespace) -> int:
    options: dict[str, Any] = parse_assignments(args.option)
    options.setdefault("rounds", args.rounds)
    if args.speed <= 0:
        raise UsageError("--speed must be a positive number")
    simulation = Simulation(args.players, args.seed, args.bots, options, args.variant)
    if args.json:
        print(json.dumps(simulation.run().as_json()))
        return 0
    clock = {"last": 0.0}

    def show(now: float, _event: Event, effects: list[Effect]) -> None:
        lines = [simulation.rules.describe(effect, args.lang) for effect in effects]
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


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
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
