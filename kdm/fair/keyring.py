"""What one player's process holds of a fair shuffle, and so which faces its seat may read.

After the two passes (``kdm.fair.shuffle``) the card at deck position ``j`` is locked by one key of
every seat. A ``KeyRing`` is one seat's: its own secrets, the final deck and everyone's commitments (all
public), and the other seats' keys it was handed, position by position. It reads a position once it
holds every seat's key for it, and it checks each key it is handed against its owner's commitment
before keeping it, naming whoever handed a false one. What it hands on:

- ``own_key(j)``: its own key for ``j``, to the seat a card is dealt to, or to everyone for a card
  shown to the table;
- ``handoff(j)``: every key it holds for ``j``, to the seat it passes that card to (a private pass
  A→B needs no one else).

Pure: no I/O; the deck service sends what it returns and feeds it what arrives.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from kdm.fair.shuffle import Cheat, Secrets, check_key, face_of, reveal

__all__ = ["KeyRing"]


@dataclass
class KeyRing:
    """Seat ``seat``'s keys for one shuffle of ``faces`` at ``table``."""

    seat: int
    faces: Sequence[str]
    table: str
    secrets: Secrets
    #: The deck after pass two, as the log holds it.
    deck: Sequence[bytes]
    #: Every seat's commitments to its position keys, by seat.
    committed: Sequence[Sequence[bytes]]
    #: position → owner seat → that seat's key, as handed to this seat (its own are in ``secrets``).
    held: dict[int, dict[int, bytes]] = field(default_factory=dict)
    #: position → the face read there, once every key was held.
    read: dict[int, str] = field(default_factory=dict)

    @property
    def seats(self) -> int:
        return len(self.committed)

    def own_key(self, position: int) -> bytes:
        """This seat's key for ``position``: to hand to the seat a card is dealt to, or to publish."""
        return self.secrets.position_keys[position]

    def receive(self, position: int, keys: Mapping[int, bytes], sender: int) -> Cheat | None:
        """Keys for ``position`` handed by seat ``sender`` (owner seat → key): each is checked against
        its owner's commitment; a false one names ``sender`` and none of them is kept."""
        if not 0 <= position < len(self.deck):
            return Cheat(sender, f"handed keys for position {position}, which the deck does not have")
        for owner, key in sorted(keys.items()):
            if not 0 <= owner < self.seats:
                return Cheat(sender, f"handed a key of seat {owner}, which the table does not have")
            cheat = check_key(self.committed[owner][position], key, sender, position)
            if cheat is not None:
                return cheat
        kept = self.held.setdefault(position, {})
        kept.update((owner, key) for owner, key in keys.items() if owner != self.seat)
        self._read(position)
        return None

    def face(self, position: int) -> str | None:
        """The face at ``position``, if this seat holds every key for it."""
        return self.read.get(position)

    def handoff(self, position: int) -> dict[int, bytes]:
        """Every key this seat holds for ``position`` (its own included): what it hands the seat it
        passes that card to."""
        return {**self.held.get(position, {}), self.seat: self.own_key(position)}

    def _read(self, position: int) -> None:
        keys = self.handoff(position)
        if position in self.read or len(keys) < self.seats:
            return
        face = face_of(
            reveal(self.deck[position], [keys[owner] for owner in range(self.seats)]), self.faces, self.table
        )
        if face is not None:
            self.read[position] = face
