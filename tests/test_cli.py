"""The ``kdm sim`` contract: its JSON shape, determinism, and one-line errors with exit status 2."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from kdm.cards import is_face, pretty
from kdm.cli import main
from kdm.manager import Rules
from tests.helpers.cli import sim_json
from tests.helpers.plugins import modules_of_a_table_process


def test_sim_json_has_the_contract_fields(capsys: pytest.CaptureFixture[str]) -> None:
    result = sim_json(capsys, "--players", "5", "--rounds", "4", "--seed", "11", "--bots", "random")
    assert list(result) == [
        "players",
        "seed",
        "events",
        "seconds",
        "rounds",
        "kilos",
        "winners",
        "draws",
        "digest",
    ]
    assert (result["players"], result["rounds"], result["seed"]) == (5, 4, 11)
    kilos = result["kilos"]
    assert isinstance(kilos, list) and len(kilos) == 5
    assert result["winners"] == [seat for seat, k in enumerate(kilos) if k == min(kilos)]
    draws = result["draws"]
    assert isinstance(draws, list) and len(draws) >= 4  # at least one draw per round, pile allowing
    for draw in draws:
        assert set(draw) == {"round", "seat", "card", "flush"}
        assert is_face(draw["card"]) and isinstance(draw["flush"], bool)
    assert isinstance(result["digest"], str) and len(result["digest"]) == 64


def test_sim_same_arguments_same_output_but_seconds(capsys: pytest.CaptureFixture[str]) -> None:
    args = ("--players", "4", "--rounds", "3", "--seed", "5", "--option", "flush_to=shuffle")
    first, second = sim_json(capsys, *args), sim_json(capsys, *args)
    first.pop("seconds"), second.pop("seconds")
    assert first == second
    other = sim_json(capsys, "--players", "4", "--rounds", "3", "--seed", "6")
    assert other["digest"] != first["digest"]


def test_sim_rounds_pile(capsys: pytest.CaptureFixture[str]) -> None:
    result = sim_json(
        capsys, "--players", "10", "--rounds", "pile", "--option", "max_rounds=60", "--seed", "2"
    )
    assert result["rounds"] <= 60  # type: ignore[operator]


def test_sim_transcript_in_french(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", "--rounds", "1", "--seed", "3", "--lang", "fr"]) == 0
    out = capsys.readouterr().out
    assert (
        "Dame de cœur" in out
        and "fin de la partie" in out
        and out.strip().splitlines()[-1].startswith("digest")
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--players", "2"], "players must be 3 to 10"),
        (["--players", "11"], "players must be 3 to 10"),
        (["--option", "colour=red"], "unknown option 'colour'; options of this table:"),
        (["--option", "flush_to=top"], "option flush_to: 'top' is not allowed; use one of bottom, shuffle"),
        (["--option", "suit_combos=maybe"], "use on or off"),
        (["--rounds", "0"], "option rounds: '0' is not allowed"),
        (["--option", "rounds"], "must be written NAME=VALUE"),
        (["--variant", "nope"], "unknown variant 'nope'"),
        (["--bots", "clever"], "invalid choice"),
        (["--players", "x"], "invalid int value"),
    ],
)
def test_bad_input_is_one_line_and_status_2(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        code = main(["sim", *args, "--json"])
        raise SystemExit(code)
    assert exit_info.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], captured.err
    assert "Traceback" not in captured.err


@pytest.mark.processes
def test_console_script_runs_as_a_process() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "kdm", "sim", "--players", "2"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert done.stderr.strip() == "kdm sim: error: players must be 3 to 10"


@pytest.mark.processes
def test_a_headless_kdm_loads_no_screen() -> None:
    """A headless process (``kdm host --headless``, a bot's) shows no screen, so it loads none: the CLI
    and every installed plugin, the screens they name included, without prompt_toolkit (7 MiB of a
    process's memory, issue 'Light on the CPU'). Run in an interpreter of its own: this one has loaded it."""
    assert [name for name in modules_of_a_table_process() if name.split(".")[0] == "prompt_toolkit"] == []


@pytest.mark.parametrize(
    ("bots", "message"),
    [("-1", "--bots -1 is not a number of bots: give 0 or more"),
     ("4", "--bots must be 0 to 3 (the other seats at this table)")],
)  # fmt: skip
def test_host_names_the_bots_allowed(capsys: pytest.CaptureFixture[str], bots: str, message: str) -> None:
    assert main(["host", "--headless", "--no-advertise", "--players", "4", "--bots", bots]) == 2
    captured = capsys.readouterr()
    assert captured.err.strip().splitlines() == [f"kdm host: error: {message}"], captured.err


def test_french_names_the_court_cards_roi_dame_valet() -> None:
    assert [pretty(face, "fr") for face in ("KH", "QS", "JD", "AC", "10H")] == ["R♥", "D♠", "V♦", "A♣", "10♥"]
    assert [pretty(face) for face in ("KH", "QS", "JD")] == ["K♥", "Q♠", "J♦"]
    rules = Rules.for_table()
    drew = {"kind": "drew", "round": 1, "seat": 2, "card": "QH", "flush": False}
    assert rules.describe(drew, "fr").endswith("pioche D♥")
    assert rules.describe(drew, "en").endswith("draws Q♥")


# --- what a newcomer types first (issue "A first evening that works") ---------------------------------

COMMANDS = ["sim", "host", "join", "bot", "tables", "selfplay", "replay", "play", "plugins"]


def test_a_bare_kdm_lists_the_commands_one_line_each_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "required" not in captured.err
    assert captured.err.startswith("usage: kdm [-h] [--version] COMMAND ...")
    for command in COMMANDS:
        assert re.search(rf"^    {command} +\w", captured.err, re.MULTILINE), captured.err


@pytest.mark.parametrize("command", COMMANDS)
def test_an_unknown_option_is_refused_by_the_subcommand_it_was_given_to(
    capsys: pytest.CaptureFixture[str], command: str
) -> None:
    target = ["kitchen"] if command == "join" else []
    with pytest.raises(SystemExit) as exit_info:
        main([command, *target, "--nope"])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err == (
        f"kdm {command}: error: unrecognized arguments: --nope "
        f"(kdm {command} --help lists the ones it takes)\n"
    )


def one_error_line(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 2
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert captured.out == "" and len(lines) == 1, captured.err
    return lines[0]


def test_play_without_a_terminal_names_what_plays_without_one(capsys: pytest.CaptureFixture[str]) -> None:
    """``kdm play`` takes no --headless: it used to suggest it."""
    assert one_error_line(capsys, "play", "--bots", "3") == (
        "kdm play: error: the table needs a terminal; without one, kdm host --headless or kdm join "
        "--headless prints the game log (add --as-bot greedy for a bot to play your seat)"
    )
    assert one_error_line(capsys, "host") == (
        "kdm host: error: the table needs a terminal; without one, add --headless to print the game log"
    )


def test_spoons_with_piles_is_refused_for_what_it_is_not_for_the_size_bots_made(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert one_error_line(capsys, "play", "--bots", "3", "--variant", "spoons", "--variant", "piles") == (
        "kdm play: error: spoons and piles both say what a slap is (grab an object, cover a pile): choose one"
    )
    assert one_error_line(capsys, "play", "--bots", "99") == (
        "kdm play: error: --bots 99 makes a table of 100: players must be 3 to 10"
    )


@pytest.mark.parametrize("command", ["join", "play", "bot"])
def test_an_address_whose_port_is_not_a_number_is_one_line_not_a_search_for_a_name(
    capsys: pytest.CaptureFixture[str], command: str
) -> None:
    assert one_error_line(
        capsys, command, "10.1.2.3:notaport", *(["--headless"] if command != "play" else [])
    ) == (
        f"kdm {command}: error: 'notaport' in '10.1.2.3:notaport' is not a port number from 1 to 65535 "
        "(e.g. 192.168.1.20:47000 or [fe80::1]:47000)"
    )


def test_join_says_what_its_table_argument_may_be(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["join", "--help"])
    assert exit_info.value.code == 0
    shown = " ".join(capsys.readouterr().out.split())
    usage = shown.split("positional arguments:")[0]
    # The usage names it TABLE (after the options), with no key that would look required.
    assert re.search(r"\] TABLE ", usage) and "~KEY" not in usage, usage
    assert "TABLE the table: its name on the LAN, or its address HOST:PORT[~KEY] as its screen shows" in shown
