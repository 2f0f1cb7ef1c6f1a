"""The command line in process: ``kdm sim --json`` read back as a dict (tests/test_cli.py and Kem's)."""

from __future__ import annotations

import json

import pytest

from kdm.cli import main


def sim_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, object]:
    assert main(["sim", *args, "--json"]) == 0
    output: dict[str, object] = json.loads(capsys.readouterr().out)
    return output
