"""Kem's seat views, privately agreed signs, winners and the game summary (RULES 3).

A seat's view holds the public table plus what that seat alone may know: its team's signs (from the
``PrivateNote`` its partner sent or it sent) and the faces shown to it after a failed Contre.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, NamedTuple

from kdm.deck import Knowledge
from kdm.hookspecs import hookimpl
from kdm.plugins.kems.rules import (
    BIN,
    GESTURES,
    NAME,
    TABLE,
    TALON,
    KemsTable,
    kems,
    note_digest,
    partner_of,
    team_of,
    team_seats,
)
from kdm.state import TableState


class KemsView(NamedTuple):
    """Kem's part of a seat view: public data plus the seat's private knowledge (its team's signs,
    cards shown to it alone). A named tuple: one is made for every seat a bot plays at most events,
    from the seat's own fields and the shared ones in one go (``kdm_view``)."""

    team: int
    partner: int
    #: Faces shown to this seat alone: (from seat, face).
    shown_to_me: tuple[tuple[int, str], ...]
    #: This team's signs (as they hold this deal) and pre-sign, as agreed privately (empty until then).
    signs: tuple[str, ...]
    presign: str | None
    #: The digest of the note they come from (``note_digest``), which the team's ``TeamReady`` commits.
    note: bytes
    # --- what every seat sees alike (built once per event by ``_public_part``, in this order)
    team_scores: tuple[int, ...]
    target: int
    deal: int
    dealer: int
    table: tuple[tuple[int, str], ...]
    talon: int
    bin: int
    #: Each seat's cards whose faces are public (taken from the table or shown), None where unknown.
    public_hands: tuple[tuple[str | None, ...], ...]
    sweepable: bool
    sweep_asker: int | None
    sweep_accepted: tuple[int, ...]
    refuser: int | None
    calls: tuple[tuple[int, str, int], ...]
    judged: tuple[int, str, int] | None
    to_show: tuple[int, ...]
    barred: tuple[int, ...]
    gestures: tuple[tuple[int, str, int], ...]
    chat: tuple[tuple[int, str], ...]
    stats: dict[str, tuple[int, int, int]]
    results: tuple[tuple[int, str, int, str, int], ...]
    deal_started: int
    #: The teams that have agreed their signs, and whether the signs are closed (RULES 3.2).
    agreed: tuple[int, ...]
    signs_closed: bool


@hookimpl
def kdm_view(state: TableState, seat: int, knowledge: Knowledge) -> tuple[str, Any]:
    data: KemsTable = state.rules[NAME]
    public: Any = state.memo.get(NAME)
    if public is None:  # the same for every seat: built once per event
        public = state.memo[NAME] = _public_part(state, data)
    own: tuple[Any, ...] | None
    if data.private_shows:  # only after a failed Contre: the seat's own part shows the cards
        own = _own_part(state, data, seat, knowledge)
    else:  # derived from the seat's notes and the deal alone: kept with the notes (``notes_memo``)
        key = ("kems own", seat, state.players, data.deals)
        own = knowledge.notes_memo.get(key)
        if own is None:
            own = knowledge.notes_memo[key] = _own_part(state, data, seat, knowledge)
    # In field order, the seat's own then the shared ones (``_make`` without its length check, as both
    # parts are made here): this runs for every bot at most events.
    return NAME, tuple.__new__(KemsView, own + public)


def _own_part(state: TableState, data: KemsTable, seat: int, knowledge: Knowledge) -> tuple[Any, ...]:
    """The fields of a ``KemsView`` that are the seat's own, in field order (``team`` to ``note``)."""
    players = state.players
    agreed = team_signs(knowledge, seat, players, data.deals)
    shown_to_me = tuple(
        (by, knowledge.faces[t])
        for to, by, tokens in data.private_shows
        if to == seat
        for t in tokens
        if t in knowledge.faces
    )
    return (team_of(seat, players), partner_of(seat, players), shown_to_me, agreed.signs, agreed.presign,
            agreed.note)  # fmt: skip


def _public_part(state: TableState, data: KemsTable) -> tuple[Any, ...]:
    """The fields of a ``KemsView`` that every seat sees alike, in field order (``team_scores`` to
    ``deal_started``, after the seat's own fields). Made at most events: loops where comprehensions
    cost more, and nothing made for what is empty."""
    faces = state.faces
    get = faces.get
    hands = []
    for hand in state.hands:
        hands.append(tuple(map(get, hand)))
    stats = {}
    for call, counted in data.stats.items():
        stats[call] = (counted.confirmed, counted.failed, counted.void)
    zones = state.zones
    return (
        tuple(data.team_scores),
        state.options["target"],
        data.deals,
        data.dealer,
        tuple([(t, faces[t]) for t in zones[TABLE]]),
        len(zones[TALON]),
        len(zones[BIN]),
        tuple(hands),
        data.sweepable,
        data.sweep_asker,
        tuple(data.sweep_accepted),
        data.refuser,
        tuple([(s, c, t) for s, c, t, _eff, _seq in data.calls]) if data.calls else (),
        data.judged,
        tuple(data.to_show),
        tuple(data.barred),
        tuple(data.gestures),
        tuple(data.chat),
        stats,
        tuple(data.results),
        data.deal_started,
        tuple(data.agreed),
        data.signs_closed_at is not None,
    )


#: The bytes of a note's salt (``Signs.salt``): too many to try.
SALT_SIZE = 16


@dataclass(frozen=True)
class Signs:
    """What two partners agreed privately before play: their signs, a pre-sign, the deal they agreed
    at, and optionally a ``rotation`` (one set of signs per deal, in turn), so that partners who vary
    their sign need no private word once play has begun (RULES 3.2). ``salt``, a secret of the two
    (random from a person's screen, from a bot's own draws), keeps the note's digest in the log from
    telling the signs; ``note`` is that digest, for signs read from a note."""

    signs: tuple[str, ...] = ()
    presign: str | None = None
    deal: int = 0
    rotation: tuple[tuple[str, ...], ...] = ()
    salt: bytes = b""
    note: bytes = b""

    def note_data(self) -> dict[str, Any]:
        """As the plain data of a ``PrivateNote`` (whose digest the team's ``TeamReady`` carries)."""
        data: dict[str, Any] = {
            "signs": list(self.signs), "presign": self.presign, "deal": self.deal, "salt": self.salt
        }  # fmt: skip
        if self.rotation:
            data["rotation"] = [list(signs) for signs in self.rotation]
        return data

    def for_deal(self, deal: int) -> Signs:
        """The signs that hold at ``deal`` (the rotation's turn, when there is one)."""
        if not self.rotation or deal < 1:
            return self
        signs = self.rotation[(deal - 1) % len(self.rotation)]
        return dataclasses.replace(self, signs=signs)


def team_signs(knowledge: Knowledge, seat: int, players: int, deal: int = 0) -> Signs:
    """The signs this seat's team agreed last (the latest note between the partners), as they hold
    at ``deal``."""
    memo = knowledge.notes_memo
    key = ("kems signs", seat, players, deal)
    known = memo.get(key)
    if known is None:
        # The note is read once (its digest is costly), then turned to each deal's signs.
        latest = memo.get(key[:3])
        if latest is None:
            latest = memo[key[:3]] = _latest_signs(knowledge, seat, players)
        known = memo[key] = latest.for_deal(deal)
    signs: Signs = known
    return signs


def _latest_signs(knowledge: Knowledge, seat: int, players: int) -> Signs:
    partner = partner_of(seat, players)
    for note in reversed(knowledge.notes):
        if {note.sender, note.to} != {seat, partner}:
            continue
        signs, presign, agreed = note.data.get("signs"), note.data.get("presign"), note.data.get("deal", 0)
        rotation, salt = note.data.get("rotation", []), note.data.get("salt", b"")
        if (
            isinstance(signs, list | tuple)
            and isinstance(agreed, int)
            and isinstance(rotation, list | tuple)
            and isinstance(salt, bytes)
        ):
            turns = tuple(
                tuple(sign for sign in turn if sign in GESTURES)
                for turn in rotation
                if isinstance(turn, list | tuple)
            )
            return Signs(
                tuple(sign for sign in signs if sign in GESTURES),
                presign if presign in GESTURES else None,
                agreed,
                tuple(turn for turn in turns if turn),
                salt,
                note_digest(note.data),
            )
    return Signs()


@hookimpl
def kdm_winners(state: TableState) -> list[int]:
    data = kems(state)
    if data.winner is None:
        return []
    return list(team_seats(data.winner, state.players))


@hookimpl
def kdm_summary(state: TableState) -> dict[str, Any]:
    data = kems(state)
    return {
        "deals": data.deals,
        "teams": [
            {"seats": list(team_seats(t, state.players)), "score": data.team_scores[t]}
            for t in range(data.teams)
        ],
        "winner": data.winner,
        "calls": {
            "kems": {"confirmed": data.stats["kems"].confirmed, "failed": data.stats["kems"].failed},
            "double": {"confirmed": data.stats["double"].confirmed, "failed": data.stats["double"].failed},
            "contre": {
                "confirmed": data.stats["contre"].confirmed,
                "failed": data.stats["contre"].failed,
                "void": data.stats["contre"].void,
            },
        },
    }
