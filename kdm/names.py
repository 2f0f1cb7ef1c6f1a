"""What the table calls each seat in the lines it says to people: the player's name, else "seat N".

The core hands a ``SeatNames`` to ``kdm_describe`` so that every game's log speaks of people, not
numbers ("Alice passes to Bob"), and says a list of them as a sentence does ("Alice, Bob and Carol").
Two players with one name are told apart by their seat, so a line never means two people at once,
and a bot standing in for a player is never called by a seated player's name (``stand_in_name``).
``counted`` says a number of things with the noun in the right number ("1 round", « 1 manche »).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

#: A seat nobody has named yet (a table read from old records, a scripted test, a sim without names).
UNNAMED = {"en": "seat {seat}", "fr": "la place {seat}"}
AND = {"en": " and ", "fr": " et "}
#: The bot that stands in for a player who is away; with ``player``, when a player is called the first.
STAND_IN = {"en": "bot {seat}", "fr": "robot {seat}"}
STAND_IN_FOR = {"en": "the bot for {player}", "fr": "le robot de {player}"}


def stand_in_name(seat: int, names: Sequence[str], lang: str = "en") -> str:
    """What the table calls the bot that stands in at ``seat`` while its player is away: "bot 1",
    unless a player at the table (``names``, by seat) is called that already (``kdm play --bots 3``
    seats bots named "bot 1" to "bot 3"): then "the bot for Ana", Ana being the player it plays for."""
    plain = STAND_IN.get(lang, STAND_IN["en"]).format(seat=seat)
    taken = {name.strip().casefold() for name in names}
    if plain.casefold() not in taken:
        return plain
    player = SeatNames.of(names, lang)[seat]
    return STAND_IN_FOR.get(lang, STAND_IN_FOR["en"]).format(player=player)


def counted(count: int, lang: str, one: str, many: str) -> str:
    """``count`` and its noun: singular for 1 in English, for 0 and 1 in French (« 0 manche »)."""
    singular = abs(count) < 2 if lang == "fr" else abs(count) == 1
    return f"{count} {one if singular else many}"


@dataclass(frozen=True)
class SeatNames:
    """The names of a table's seats, by seat number, in the language ``lang`` (``en`` or ``fr``)."""

    names: tuple[str, ...] = ()
    lang: str = "en"

    @classmethod
    def of(cls, names: Sequence[str], lang: str = "en") -> SeatNames:
        """The seats' ``names`` as given, a repeated or empty one told apart by its seat number."""
        counted = [name.strip() for name in names]
        unnamed = UNNAMED.get(lang, UNNAMED["en"])
        told_apart = tuple(
            unnamed.format(seat=seat) if not name else f"{name} ({seat})" if counted.count(name) > 1 else name
            for seat, name in enumerate(counted)
        )
        return cls(told_apart, lang)

    def __len__(self) -> int:
        """How many seats are named (every seat of a table once all are taken)."""
        return len(self.names)

    def __getitem__(self, seat: int) -> str:
        if 0 <= seat < len(self.names):
            return self.names[seat]
        return UNNAMED.get(self.lang, UNNAMED["en"]).format(seat=seat)

    def listed(self, seats: Iterable[int]) -> str:
        """``seats`` named as a sentence lists people: "Alice", "Alice and Bob", "Alice, Bob and Carol"."""
        named = [self[seat] for seat in seats]
        if len(named) <= 1:
            return "".join(named)
        return ", ".join(named[:-1]) + AND.get(self.lang, AND["en"]) + named[-1]
