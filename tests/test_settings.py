"""Your name and your table's name: as given, remembered, and the defaults (``kdm.settings``)."""

from __future__ import annotations

import logging
import socket
from pathlib import Path
from typing import Any

import pytest

from kdm import session
from kdm.cli import main
from kdm.settings import Settings, remember_table, settings_path, your_names


def test_with_nothing_given_you_are_the_machine_and_your_table_is_yours(tmp_path: Path) -> None:
    machine = socket.gethostname()
    assert your_names("", "", tmp_path) == (machine, f"{machine}'s table")
    assert not settings_path(tmp_path).exists()  # nothing given, nothing to keep


def test_names_given_are_remembered_and_are_the_next_defaults(tmp_path: Path) -> None:
    assert your_names("Ana", "", tmp_path) == ("Ana", "Ana's table")
    assert your_names("", "", tmp_path) == ("Ana", "Ana's table")
    assert your_names("", "kitchen", tmp_path) == ("Ana", "kitchen")
    assert your_names("Bea", "", tmp_path) == ("Bea", "kitchen")
    assert Settings.load(tmp_path) == Settings("Bea", "kitchen")
    remember_table("attic", tmp_path)  # the lobby's form
    assert your_names("", "", tmp_path) == ("Bea", "attic")


@pytest.mark.parametrize("text", ["{not json", "[1, 2]", '{"name": 7, "table": "kitchen"}'])
def test_a_settings_file_that_cannot_be_read_is_ignored_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, text: str
) -> None:
    settings_path(tmp_path).write_text(text)
    with caplog.at_level(logging.WARNING, "kdm.settings"):
        kept = Settings.load(tmp_path)
    if text.startswith('{"name"'):  # a field of the wrong type is dropped, the rest kept
        assert kept == Settings("", "kitchen")
    else:
        assert kept == Settings() and "ignored" in caplog.text


def test_host_sits_under_your_name_at_the_table_named_by_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: dict[str, Any] = {}

    async def host(config: session.SessionConfig, table: str, *args: Any, **kwargs: Any) -> dict[str, Any]:
        seen.update(name=config.name, table=table)
        return {}

    monkeypatch.setattr(session, "host", host)
    argv = ["host", "--headless", "--no-advertise", "--data-dir", str(tmp_path)]
    assert main([*argv, "--name", "Ana", "--table", "kitchen"]) == 0
    assert seen == {"name": "Ana", "table": "kitchen"}
    assert main(argv) == 0  # next time, the same names without the flags
    assert seen == {"name": "Ana", "table": "kitchen"}


def test_table_is_for_a_table_you_host(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--table", "kitchen", "10.0.0.1:4000"]) == 2
    assert "--table are for a table you host, not one you join" in capsys.readouterr().err
