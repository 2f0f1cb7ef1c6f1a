"""What kdm remembers of the person using it from one run to the next: their name at a table, the
name they give a table they create, the language they chose, and how many finished games they keep to
watch again.

A small JSON file, ``settings.json``, in the user config directory (platformdirs; the data directory
instead when one is given, as tests do). A name given on the command line or in the lobby's form, and
a ``--lang`` given, are kept there and are the default next time; with nothing kept, your name is this
machine's, your table is "NAME's table" (« la table de NAME » in French), and your language is your
locale's (``LC_ALL``, ``LC_MESSAGES``, ``LANG``, read as POSIX does) when kdm speaks it, else English.
A file that cannot be read is ignored, with a warning: a player's settings never stop a game.
"""

from __future__ import annotations

import json
import logging
import os
import socket
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import platformdirs

__all__ = [
    "DEFAULT_KEEP_GAMES",
    "NO_BELL_HELP",
    "TABLE_NAME_HELP",
    "YOUR_NAME_HELP",
    "Settings",
    "default_table_name",
    "keep_games",
    "locale_language",
    "settings_path",
    "your_language",
    "your_names",
]

log = logging.getLogger("kdm.settings")

SETTINGS_FILE = "settings.json"
YOUR_NAME_HELP = "your name at the table (default: the one you gave last time, else this machine's)"
NO_BELL_HELP = "no terminal bell when someone slaps or a call is made"
DECK_HELP = (
    "the deck of a table you host: fair (no process, not even the shuffler's, reads a card it was not"
    " shown; the default with people) or open (faces from agreed seeds; the default for bots)"
)
TABLE_NAME_HELP = (
    'the name of a table you create, on the LAN (default: the one you gave last time, else "NAME\'s table")'
)


def settings_path(folder: Path | None = None) -> Path:
    """The settings file: in ``folder`` when given, else in the user config directory."""
    return (folder or Path(platformdirs.user_config_dir("kdm"))) / SETTINGS_FILE


#: How many finished games a player keeps unless they say otherwise (``kdm replay --keep``).
DEFAULT_KEEP_GAMES = 20


@dataclass
class Settings:
    """The names last given: yours, and your table's (empty: never given); how many games to keep;
    the language last chosen (empty: never chosen)."""

    name: str = ""
    table: str = ""
    keep_games: int = DEFAULT_KEEP_GAMES
    lang: str = ""

    @classmethod
    def load(cls, folder: Path | None = None) -> Settings:
        path = settings_path(folder)
        try:
            kept = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return cls()
        except (OSError, ValueError) as error:
            log.warning("ignored %s: %s", path, error)
            return cls()
        if not isinstance(kept, dict):
            log.warning("ignored %s: not a JSON object", path)
            return cls()
        name, table, keep = kept.get("name"), kept.get("table"), kept.get("keep_games")
        lang = kept.get("lang")
        return cls(
            name if isinstance(name, str) else "",
            table if isinstance(table, str) else "",
            keep
            if isinstance(keep, int) and not isinstance(keep, bool) and keep >= 0
            else DEFAULT_KEEP_GAMES,
            lang if isinstance(lang, str) else "",
        )

    def save(self, folder: Path | None = None) -> None:
        """Keep these names; a settings file that cannot be written is worth a warning, not a game."""
        path = settings_path(folder)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            written = path.with_name(path.name + ".new")
            written.write_text(json.dumps(asdict(self), ensure_ascii=False) + "\n", encoding="utf-8")
            os.replace(written, path)
        except OSError as error:
            log.warning("could not keep your names in %s: %s", path, error)


def your_names(name: str, table: str, folder: Path | None = None, lang: str = "en") -> tuple[str, str]:
    """Your name and the name of a table you create: as given (and then remembered), else as given
    last time, else this machine's name and "NAME's table" in ``lang``."""
    kept = Settings.load(folder)
    given = Settings(name or kept.name, table or kept.table, kept.keep_games, kept.lang)
    if given != kept:
        given.save(folder)
    yours = given.name or socket.gethostname()
    return yours, given.table or default_table_name(yours, lang)


#: French elides « de » before a vowel: « la table d'Ana ».
_FRENCH_VOWELS = "aeiouyàâäéèêëîïôöùûüÿœæ"


def default_table_name(name: str, lang: str) -> str:
    """The name of ``name``'s table when they give none: "Zoé's table", « la table de Zoé »."""
    if lang == "fr":
        return f"la table d'{name}" if name[:1].lower() in _FRENCH_VOWELS else f"la table de {name}"
    return f"{name}'s table"


def locale_language(languages: Sequence[str], environ: Mapping[str, str] | None = None) -> str | None:
    """The language of the locale (``fr`` for ``LANG=fr_FR.UTF-8``) if it is one of ``languages``:
    the first of ``LC_ALL``, ``LC_MESSAGES`` and ``LANG`` that is set decides, as POSIX says."""
    environ = os.environ if environ is None else environ
    for variable in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(variable, "")
        if value:
            code = value.split(".", 1)[0].split("@", 1)[0].split("_", 1)[0].lower()
            return code if code in languages else None
    return None


def your_language(
    given: str | None,
    languages: Sequence[str],
    folder: Path | None = None,
    environ: Mapping[str, str] | None = None,
) -> str:
    """The language to speak: ``given`` (``--lang``, and then remembered), else the one chosen last
    time, else the locale's when it is one of ``languages``, else the first of them (English)."""
    kept = Settings.load(folder)
    if given:
        if given != kept.lang:
            kept.lang = given
            kept.save(folder)
        return given
    if kept.lang in languages:
        return kept.lang
    return locale_language(languages, environ) or languages[0]


def keep_games(count: int | None = None, folder: Path | None = None) -> int:
    """How many finished games to keep: ``count`` when given (and then remembered), else as set last."""
    kept = Settings.load(folder)
    if count is not None and count != kept.keep_games:
        kept.keep_games = count
        kept.save(folder)
    return kept.keep_games
