"""Opening a fair deck's shuffles and auditing them, and what the audits find (``Audits``).

A shuffle none of whose cards is hidden any more (a round's deal once the next round is dealt; every
shuffle when the game is over): every seat sends every other process its secrets (never through the
log) and each audits it (``kdm.fair.shuffle.audit``), naming a seat that cheated (a duplicated card, a
key that is not the one committed, a face claimed falsely, a reveal taken on its word that was false).

A voided round: which cards lying on the table can no longer be read (``lost``), and the faces behind
them (``faces_behind``), which the table deals again.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from kdm.deck import Reveal
from kdm.engine import Duty, Owed
from kdm.events import Event
from kdm.fair.group import invert, lock, product
from kdm.fair.messages import Finding, ToTable
from kdm.fair.shuffle import Cheat, Secrets, audit, face_of, reveal
from kdm.fair.state import Private, Shared
from kdm.fair.turns import POINT, Shuffle, join_ints, split_ints, split_points
from kdm.state import TableState

if TYPE_CHECKING:
    from kdm.manager import FalseClaimHook

__all__ = ["Audits", "Trusted"]

#: What the table took on one seat's word: (seat, the duty it answered, the state then, the event): a
#: reveal, or a decision that says something of a hidden hand (``kdm_false_claim``).
Trusted = tuple[int, Duty, TableState, Event]


class Audits:
    """The audits of the shuffles at the table ``shared`` tells of, and the reveals they are to check."""

    def __init__(self, shared: Shared, private: Private) -> None:
        self.shared, self.private = shared, private
        #: Reveals the table took on one seat's word, to check at the audit.
        self.on_trust: list[Trusted] = []
        #: The reveal last checked on trust, until the rules take it (``applied``).
        self.trusting: Trusted | None = None
        #: The rules' reveal (``kdm.deck.Reveal``), which says what a reveal should have been.
        self.reveal: Reveal | None = None
        #: The rules' ``kdm_false_claim``, which says what a decision must not have said of a hand.
        self.false_claim: FalseClaimHook | None = None

    def open(self, state: TableState) -> list[ToTable]:
        """Secrets for the audit of every shuffle none of whose cards is hidden any more."""
        live = {token for hand in state.hands for token in hand}
        live.update(token for zone in state.zones.values() for token in zone)
        out: list[ToTable] = []
        for shuffle in self.shared.shuffles:
            if all(("open", shuffle.index, seat) in self.private.owed for seat in self.private.here):
                continue  # opened already by every seat here (most shuffles, most of the time)
            if shuffle.turn(self.shared.players) is not None or not self._may_open(shuffle, live):
                continue
            for seat in sorted(self.private.here):
                key = ("open", shuffle.index, seat)
                secrets = self.private.secrets.get((shuffle.index, seat))
                if key in self.private.owed or secrets is None:
                    continue
                self.private.owed.add(key)
                blind = self.private.blinds.get((shuffle.index, seat), b"")
                keys = secrets.deck_key + blind + b"".join(secrets.position_keys)
                opened = ToTable(seat, shuffle.index, keys, join_ints(secrets.permutation))
                self.opened(opened)
                out.append(opened)
        return out

    def _may_open(self, shuffle: Shuffle, live: set[int]) -> bool:
        if self.shared.over:
            return True
        if any(token in live and token not in self.shared.public for token in shuffle.tokens):
            return False
        # A reshuffle's audit needs the keys its seats stripped: their shuffles are opened too.
        sources = {self.shared.where[token][0] for token in shuffle.sources}
        return all(self._may_open(self.shared.shuffles[index], live) for index in sources)

    def opened(self, secrets: ToTable) -> str | None:
        """A seat's secrets for an audit (its own, or sent by its process): kept, and the shuffle
        audited once every seat's are in; why not, for secrets that cannot be a seat's."""
        if (
            not 0 <= secrets.shuffle < len(self.shared.shuffles)
            or not 0 <= secrets.sender < self.shared.players
        ):
            return f"there is no shuffle {secrets.shuffle} or no seat {secrets.sender}"
        shuffle = self.shared.shuffles[secrets.shuffle]
        if shuffle.turn(self.shared.players) is not None or secrets.sender in shuffle.opened:
            return f"shuffle {secrets.shuffle} is not open to seat {secrets.sender}'s secrets"
        try:
            return self._opened(shuffle, secrets.sender, secrets.keys, secrets.order)
        except ValueError as error:
            return str(error)

    def _opened(self, shuffle: Shuffle, seat: int, keys: bytes, order: bytes) -> str | None:
        size = len(shuffle.tokens)
        blind = POINT if shuffle.sources else 0
        scalars = split_points(keys, 1 + size + (1 if blind else 0), "the secrets")
        secrets = Secrets(scalars[0], tuple(split_ints(order)), tuple(scalars[1 + (1 if blind else 0) :]))
        shuffle.opened[seat] = (secrets, scalars[1] if blind else b"")
        for each in self.shared.shuffles:  # a reshuffle is audited once the shuffles it took cards from are
            sources = {self.shared.where[token][0] for token in each.sources}
            ready = [each, *(self.shared.shuffles[index] for index in sources)]
            if not each.audited and all(len(s.opened) == self.shared.players for s in ready):
                self._audit(each)
        return None

    def _audit(self, shuffle: Shuffle) -> None:
        self.private.timings.start(("audit", shuffle.index))
        try:
            self._audit_shuffle(shuffle)
        finally:
            self.private.timings.stop(("audit", shuffle.index), "audit_ms")

    def _audit_shuffle(self, shuffle: Shuffle) -> None:
        shuffle.audited = True
        published = [shuffle.opened[seat][0] for seat in range(self.shared.players)]
        start = shuffle.start
        blinds: list[bytes] | None = None
        if shuffle.sources:
            blinds = [shuffle.opened[seat][1] for seat in range(self.shared.players)]
            cheat = self._audit_strips(shuffle, blinds)
            if cheat is not None:
                self.private.find(Finding(cheat.seat, f"in shuffle {shuffle.index}: {cheat.reason}"))
                return
            start = shuffle.decks["strip"][-1]
        # A token a voided round dealt again by a fresh shuffle belongs to that one now: its face there
        # is no claim on this shuffle's card (``_still_here``).
        claimed = {
            position: (-1, self.shared.public[token])
            for position, token in enumerate(shuffle.tokens)
            if token in self.shared.public and self._still_here(shuffle, position, token)
        }
        cheats = audit(self.shared.all_faces if shuffle.sources else shuffle.faces, self.shared.table,
                       shuffle.decks["lock"], shuffle.decks["key"], published, shuffle.committed, claimed,
                       start=start if shuffle.sources else None, blinds=blinds)  # fmt: skip
        for cheat in cheats:
            self.private.find(Finding(cheat.seat, f"in shuffle {shuffle.index}: {cheat.reason}"))
        if cheats:
            return
        for position, token in enumerate(shuffle.tokens):
            if not self._still_here(shuffle, position, token):
                continue
            keys = [published[seat].position_keys[position] for seat in range(self.shared.players)]
            face = face_of(
                reveal(shuffle.decks["key"][-1][position], keys), self.shared.all_faces, self.shared.table
            )
            if face is not None:
                self.shared.audited_faces[token] = face
        self.check_trusted()

    def _still_here(self, shuffle: Shuffle, position: int, token: int) -> bool:
        """Whether ``token`` is still the card at ``position`` of ``shuffle`` (not dealt again since)."""
        return self.shared.where.get(token) == (shuffle.index, position)

    def _audit_strips(self, shuffle: Shuffle, blinds: Sequence[bytes]) -> Cheat | None:
        deck = shuffle.start
        for seat in range(self.shared.players):
            expected = []
            for point, token in zip(deck, shuffle.sources, strict=True):
                source, position = self.shared.where[token]
                opened = self.shared.shuffles[source].opened.get(seat)
                if opened is None:
                    return None  # its source is not opened yet: nothing to hold against anyone
                old = opened[0].position_keys[position]
                expected.append(lock(point, product(invert(old), blinds[seat])))
            if shuffle.decks["strip"][seat] != expected:
                return Cheat(seat, "its strip is not what its keys make")
            deck = expected
        return None

    def check_trusted(self) -> None:
        """The reveals and decisions taken on a seat's word, now that the faces they spoke of are known."""
        faces = {**self.shared.audited_faces, **self.shared.public}
        waiting = []
        for seat, duty, state, event in self.on_trust:
            tokens = {token for hand in state.hands for token in hand} | set(duty.tokens)
            if not all(token in faces for token in tokens):
                waiting.append((seat, duty, state, event))
                continue
            if duty.owed_as is not Owed.REVEAL:  # a decision: its seat's to choose, if it says no lie
                false = self.false_claim(event=event, state=state, faces=faces) if self.false_claim else None
                if false:
                    self.private.find(Finding(seat, f"its {event.kind} was false: {false}"))
                continue
            expected = self.reveal(duty=duty, state=state, faces=faces) if self.reveal else event
            if expected != event:
                self.private.find(Finding(seat, f"its {event.kind} did not say what its cards were"))
        self.on_trust = waiting

    def applied(self, event: Event, seq: int) -> None:
        """The rules took ``event`` as event ``seq``: a reveal taken on its seat's word is kept for the
        audit."""
        trusting, self.trusting = self.trusting, None
        if trusting is not None and trusting[3] == event and trusting[2].seq == seq:
            self.on_trust.append(trusting)

    def void(self) -> None:
        """The round went back to its deal: its reveals are not checked."""
        self.on_trust, self.trusting = [], None

    def lost(self, state: TableState) -> dict[int, list[int]]:
        """The cards lying on the table (not in a hand: hands are dealt again) whose face can no longer
        be read, by shuffle."""
        held = {token for hand in state.hands for token in hand}
        lying = [token for zone in state.zones.values() for token in zone if token not in held]
        lost: dict[int, list[int]] = {}
        for token in lying:
            where = self.shared.where.get(token)
            if where is not None and token not in state.faces and not self.shared.shuffles[where[0]].audited:
                lost.setdefault(where[0], []).append(token)
        return lost

    def faces_behind(self, shuffle: Shuffle, tokens: set[int]) -> list[str] | None:
        """The faces behind ``tokens`` of ``shuffle``: the cards it took less those of its other
        tokens, when every one of those is known; None when one is not."""
        cards = self._cards_of(shuffle)
        if cards is None:
            return None
        left = Counter(cards)
        for token in shuffle.tokens:
            if token in tokens:
                continue
            face = self.shared.public.get(token) or self.shared.audited_faces.get(token)
            if face is None or not left[face]:
                return None
            left[face] -= 1
        return sorted(left.elements())

    def _cards_of(self, shuffle: Shuffle) -> list[str] | None:
        """The faces a shuffle took: a fresh one's pool; a reshuffle's, those of its sources."""
        if not shuffle.sources:
            return list(shuffle.faces)
        cards: list[str] = []
        hidden: dict[int, set[int]] = {}
        for token in shuffle.sources:
            face = self.shared.public.get(token) or self.shared.audited_faces.get(token)
            if face is not None:
                cards.append(face)
            else:
                hidden.setdefault(self.shared.where[token][0], set()).add(token)
        for index, tokens in hidden.items():
            behind = self.faces_behind(self.shared.shuffles[index], tokens)
            if behind is None:
                return None
            cards += behind
        return cards
