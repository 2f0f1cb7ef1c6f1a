"""Your name, your table's name and your language: as given, remembered, and the defaults
(``kdm.settings``)."""

from __future__ import annotations

import logging
import socket
from pathlib import Path
from typing import Any

import pytest

from kdm import session
from kdm.cli import main
from kdm.settings import (
    Settings,
    default_table_name,
    locale_language,
    settings_path,
    your_language,
    your_names,
)
from kdm.tui import command


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
    assert your_names("Cy", "attic", tmp_path) == ("Cy", "attic")  # the lobby's form gives both
    assert your_names("", "", tmp_path) == ("Cy", "attic")


def test_the_default_table_name_is_said_in_the_players_language(tmp_path: Path) -> None:
    assert your_names("Zoé", "", tmp_path, "fr") == ("Zoé", "la table de Zoé")
    assert your_names("", "", tmp_path, "en") == ("Zoé", "Zoé's table")
    assert default_table_name("Ana", "fr") == "la table d'Ana"  # « de » elided before a vowel
    assert (
        default_table_name("Éloi", "fr") == "la table d'Éloi"
        and default_table_name("vm", "fr") == "la table de vm"
    )


@pytest.mark.parametrize(
    ("environ", "lang"),
    [
        ({"LANG": "fr_FR.UTF-8"}, "fr"),
        ({"LANG": "en_GB.UTF-8", "LC_MESSAGES": "fr_CA.UTF-8"}, "fr"),
        ({"LANG": "fr_FR.UTF-8", "LC_ALL": "C"}, "en"),  # LC_ALL decides when it is set
        ({"LC_ALL": "fr_BE@euro"}, "fr"),
        ({"LANG": "de_DE.UTF-8"}, "en"),  # a language kdm does not speak: English
        ({}, "en"),
    ],
)
def test_with_no_lang_given_or_kept_the_locale_decides(
    tmp_path: Path, environ: dict[str, str], lang: str
) -> None:
    assert your_language(None, ("en", "fr"), tmp_path, environ) == lang
    assert locale_language(("en", "fr"), environ) == (None if lang == "en" else lang)


def test_the_last_lang_given_is_remembered_over_the_locale(tmp_path: Path) -> None:
    french = {"LANG": "fr_FR.UTF-8"}
    assert your_language("en", ("en", "fr"), tmp_path, french) == "en"
    assert your_language(None, ("en", "fr"), tmp_path, french) == "en"  # chosen once, kept
    assert Settings.load(tmp_path).lang == "en"
    assert your_language("fr", ("en", "fr"), tmp_path, {}) == "fr"
    assert your_language(None, ("en", "fr"), tmp_path, {}) == "fr"


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


def test_host_speaks_the_locales_language_until_lang_is_given_and_then_keeps_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: dict[str, Any] = {}

    async def host(config: session.SessionConfig, table: str, *args: Any, **kwargs: Any) -> dict[str, Any]:
        seen.update(lang=config.lang, table=table)
        return {}

    monkeypatch.setattr(session, "host", host)
    for variable in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("LANG", "fr_FR.UTF-8")
    argv = ["host", "--headless", "--no-advertise", "--data-dir", str(tmp_path), "--name", "Zoé"]
    assert main(argv) == 0
    assert seen == {"lang": "fr", "table": "la table de Zoé"}
    assert main([*argv, "--lang", "en"]) == 0
    assert seen == {"lang": "en", "table": "Zoé's table"}
    assert main(argv) == 0  # the choice is kept over the locale
    assert seen["lang"] == "en"


def test_play_speaks_the_locales_language_and_keeps_a_lang_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[tuple[str, str]] = []

    def at_table(config: session.SessionConfig, _start: Any) -> int:
        seen.append((config.lang, config.table))
        return 0

    monkeypatch.setattr(command, "require_terminal", lambda: None)
    monkeypatch.setattr(command, "run_at_table", at_table)
    for variable in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("LANG", "fr_FR.UTF-8")
    argv = ["play", "--bots", "3", "--name", "Ana", "--data-dir", str(tmp_path)]
    assert main(argv) == 0 and seen[-1] == ("fr", "la table d'Ana")
    monkeypatch.setenv("LANG", "C.UTF-8")
    assert main([*argv, "--lang", "fr"]) == 0 and main(argv) == 0
    assert seen[-2:] == [("fr", "la table d'Ana"), ("fr", "la table d'Ana")]  # kept over the locale
