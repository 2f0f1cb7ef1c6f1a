"""The ``kdm sim`` contract: its JSON shape, determinism, and one-line errors with exit status 2."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from kdm.cards import is_face, pretty
from kdm.cli import main
from kdm.manager import Rules


def sim_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, object]:
    assert main(["sim", *args, "--json"]) == 0
    output: dict[str, object] = json.loads(capsys.readouterr().out)
    return output


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


def test_console_script_runs_as_a_process() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "kdm", "sim", "--players", "2"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert done.stderr.strip() == "kdm sim: error: players must be 3 to 10"


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
