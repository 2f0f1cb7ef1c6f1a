"""Which keys of a fair deck go to whom and when, and taking them in (``Handing``). A seat reads a card
once it holds every seat's key for it (``kdm.fair.keyring.KeyRing``), the table once every seat showed
its key in the log; every key taken in is checked against its owner's commitment. The keys go for:

- a token in a seat's hand: every other process hands that seat its keys for it (the one who passed it
  there hands all it holds: a pass needs no one else);
- a token a duty awaits that lies in no hand (a card drawn from the pile, the talon's cards turned up):
  every process hands its key to the seat the duty names, whose event carries them all (a duty of
  nobody's in particular: every seat shows its key in the log);
- a face an action names (a hand shown, cards laid on the table: ``kdm_claimed_faces``): the acting
  process attaches every key for it to the action, checked before the rules see it;
- a card shown to one seat (``shown_privately``): the seat that shows it hands over its keys;
- a key that does not come within ``ASK_AFTER_MS``: asked for in the log, and owed there, sealed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kdm.engine import Duty
from kdm.fair.group import GroupError, commitment
from kdm.fair.messages import Finding, Reseal, ToLog, ToSeat, pack_keys, unpack_keys
from kdm.fair.shuffle import face_of, reveal
from kdm.fair.state import Private, Shared
from kdm.fair.turns import POINT, Shuffle, join_ints, split_ints
from kdm.state import TableState

__all__ = ["ASK_AFTER_MS", "SEALED_KEY", "Handing"]

#: How long a seat waits for a key of a card in its hand before it asks for it in the log (ms): keys
#: come in milliseconds; this is a process that does not send them.
ASK_AFTER_MS = 3000.0
#: A key sealed for one seat, as the log holds it (PyNaCl ``Box``: nonce, key, tag).
SEALED_KEY = 24 + POINT + 16


class Handing:
    """The keys the seats played here hand, and those handed to them, at the table ``shared`` tells of."""

    def __init__(self, shared: Shared, private: Private) -> None:
        self.shared, self.private = shared, private
        #: (token, seat) whose keys were handed to that seat already.
        self.served: set[tuple[int, int]] = set()
        #: Since when a seat played here has missed the key of a card in its hand (on the process's clock).
        self.missing_since: dict[tuple[int, int], float] = {}
        #: When the next of those keys is to be asked for, as the last ``ask`` found (inf: none).
        self.next_ask_at = math.inf
        #: Keys that came before their card's shuffle was complete, taken in once it is (``dealt``).
        self.early: list[ToSeat] = []

    def serve(self, state: TableState) -> list[ToSeat]:
        """Keys for every card in a hand that its seat does not hold yet, and for cards shown to one
        seat alone by a seat played here."""
        sending: dict[tuple[int, int], dict[int, dict[int, bytes]]] = {}
        for seat, hand in enumerate(state.hands):
            for token in hand:
                if (token, seat) in self.served or not self.shared.dealt(token):
                    continue
                self.served.add((token, seat))
                for giver in self.private.here:
                    if giver != seat:
                        sending.setdefault((giver, seat), {})[token] = self.keys_of(giver, token)
        for by, to, tokens in self.shared.private_shows:
            if by not in self.private.here:
                continue
            for token in tokens:
                if (token, to) not in self.served and self.shared.dealt(token):
                    self.served.add((token, to))
                    sending.setdefault((by, to), {})[token] = self.keys_of(by, token)
        return self._hand_over(sending)

    def _hand_over(self, sending: Mapping[tuple[int, int], dict[int, dict[int, bytes]]]) -> list[ToSeat]:
        """The keys to hand, by (giver, receiver): to send, or kept here when both seats are played here."""
        out: list[ToSeat] = []
        for (giver, to), keys in sorted(sending.items()):
            message = ToSeat(giver, to, keys)
            if to in self.private.here:
                self.received(message)  # no need to send anything
            else:
                out.append(message)
        return out

    def keys_of(self, seat: int, token: int) -> dict[int, bytes]:
        """What seat ``seat`` hands over for ``token``: every key it holds when it reads the card (it
        passes it on), else its own."""
        shuffle, position = self.shared.where[token]
        ring = self.private.ring(shuffle, seat)
        if ring is None:
            return {}
        return ring.handoff(position) if ring.face(position) is not None else {seat: ring.own_key(position)}

    def show(self, state: TableState, duties: Sequence[Duty]) -> list[ToLog | ToSeat]:
        """Keys for the cards the table awaits to see that are in nobody's hand (a draw, a turn): to
        the seat whose event shows them, which reads them first and carries every key in that event
        (one commit); for a duty of nobody's in particular, in the log."""
        held = {token for hand in state.hands for token in hand}
        wanted: list[int] = []
        handing: dict[tuple[int, int], dict[int, dict[int, bytes]]] = {}
        for duty in duties:
            for token in duty.tokens:
                if token in held or token in self.shared.public or not self.shared.dealt(token):
                    continue
                self.private.timings.start(("public", token))
                if duty.seat is None:
                    wanted.append(token)
                    continue
                if (token, duty.seat) in self.served:
                    continue
                self.served.add((token, duty.seat))
                for giver in self.private.here - {duty.seat}:
                    handing.setdefault((giver, duty.seat), {})[token] = self.keys_of(giver, token)
        out: list[ToLog | ToSeat] = [*self._hand_over(handing)]
        for seat in sorted(self.private.here):
            tokens = [t for t in dict.fromkeys(wanted) if ("show", t, seat) not in self.private.owed]
            keys = []
            for token in tokens:
                self.private.owed.add(("show", token, seat))
                ring = self.private.ring(self.shared.where[token][0], seat)
                if ring is not None:
                    keys.append(ring.own_key(self.shared.where[token][1]))
            if keys:
                out.append(ToLog(seat, {"step": "show", "tokens": join_ints(tokens), "keys": b"".join(keys)}))
        return out

    def received(self, message: ToSeat) -> list[int]:
        """Keys handed to seat ``message.to`` (played here): kept if they are the committed ones, the
        sender named if not. Returns the seats that learnt a face."""
        learnt: set[int] = set()
        for token, keys in message.keys.items():
            where = self.shared.where.get(token)
            if where is None or not self.shared.dealt(token):
                self.early.append(ToSeat(message.sender, message.to, {token: keys}))
                del self.early[:-256]
                continue
            ring = self.private.ring(where[0], message.to)
            if ring is None:
                continue
            cheat = ring.receive(where[1], keys, message.sender)
            if cheat is not None:
                self.private.find(Finding(cheat.seat, cheat.reason))
                continue
            face = ring.face(where[1])
            if face is not None:
                self.private.known.setdefault(message.to, {})[token] = face
                learnt.add(message.to)
                self.private.timings.stop(("private_pass", token), "private_pass_ms")
        return sorted(learnt)

    def keys_for(self, seat: int, claimed: Mapping[int, str] | None) -> bytes:
        """The keys an action of ``seat`` carries so the table sees the faces it names."""
        keys = {}
        for token in claimed or {}:
            where = self.shared.where.get(token)
            if token in self.shared.public or where is None:
                continue
            ring = self.private.ring(where[0], seat)
            if ring is not None and ring.face(where[1]) is not None:
                keys[token] = ring.handoff(where[1])
        return pack_keys(keys)

    def ask(self, state: TableState, duties: Sequence[Duty], now_ms: float) -> list[ToLog]:
        """Ask in the log for the keys of cards in a hand played here, or that a seat played here is to
        show, that have not come in ``ASK_AFTER_MS``: the seats asked must give them there
        (``sealed``), or be taken as withholding."""
        out: list[ToLog] = []
        upcoming = math.inf
        for seat in sorted(self.private.here):
            wanted: list[int] = []
            showing = [token for duty in duties if duty.seat == seat for token in duty.tokens]
            for token in dict.fromkeys([*state.hands[seat], *showing]):
                where = self.shared.where.get(token)
                if where is None or not self.shared.dealt(token) or token in self.shared.public:
                    continue
                ring = self.private.ring(where[0], seat)
                if ring is None or ring.face(where[1]) is not None:
                    self.missing_since.pop((token, seat), None)
                    continue
                since = self.missing_since.setdefault((token, seat), now_ms)
                if now_ms - since < ASK_AFTER_MS:
                    upcoming = min(upcoming, since + ASK_AFTER_MS)
                    continue
                held = ring.handoff(where[1])
                for owner in range(self.shared.players):
                    if owner not in held and ("ask", token, owner, seat) not in self.private.owed:
                        self.private.owed.add(("ask", token, owner, seat))
                        wanted += [token, owner]
            if wanted:
                out.append(ToLog(seat, {"step": "missing", "tokens": join_ints(wanted)}))
        self.next_ask_at = upcoming
        return out

    def next_ask_ms(self) -> float:
        """When ``ask`` next asks for a key at a quiet table, as the last ``ask`` found (inf: no key is
        missing, or every one missing long enough was asked for already: the answer comes in the log)."""
        return self.next_ask_at

    def answer(self) -> list[Reseal]:
        """The keys the log asks seats played here for, to seal to the seat that asked."""
        answers: dict[tuple[int, int], dict[int, bytes]] = {}
        for (token, owner), asker in sorted(self.shared.asked.items()):
            if owner not in self.private.here or ("sealed", token, owner, asker) in self.private.owed:
                continue
            ring = self.private.ring(self.shared.where[token][0], owner)
            if ring is None:
                continue
            self.private.owed.add(("sealed", token, owner, asker))
            answers.setdefault((owner, asker), {})[token] = ring.own_key(self.shared.where[token][1])
        return [Reseal(owner, asker, keys) for (owner, asker), keys in sorted(answers.items())]

    def sealed_part(self, reseal: Reseal, seal: Callable[[bytes], bytes]) -> dict[str, Any]:
        """The fields of the ``sealed`` part that gives what ``reseal`` asks, each key sealed by ``seal``
        (to the asker): what ``sealed_for`` reads."""
        tokens = sorted(reseal.keys)
        return {
            "step": "sealed",
            "tokens": join_ints(number for token in tokens for number in (token, reseal.to)),
            "keys": b"".join(seal(reseal.keys[token]) for token in tokens),
        }

    def sealed_for(self, seat: int, tokens: bytes, sealed: bytes) -> list[tuple[int, int, bytes]]:
        """The keys a ``sealed`` part of ``seat`` carries, as (token, the seat they are for, sealed
        key), once checked to be answers to what the log asked it."""
        pairs = split_ints(tokens)
        if len(pairs) % 2 or len(sealed) != SEALED_KEY * (len(pairs) // 2):
            raise ValueError("sealed keys come as (token, seat) pairs with a sealed key each")
        found = []
        for index in range(0, len(pairs), 2):
            token, asker = pairs[index], pairs[index + 1]
            if self.shared.asked.get((token, seat)) != asker:
                raise ValueError(f"nobody asked seat {seat} for its key of card {token}")
            start = SEALED_KEY * (index // 2)
            found.append((token, asker, sealed[start : start + SEALED_KEY]))
        return found

    def asked_for(self, seat: int, pairs: list[int]) -> str | None:
        """Seat ``seat`` says the keys of these (token, owner) pairs never came: each owner now owes its
        key in the log, sealed to it (``sealed``); the table waits on it (``waiting_on``)."""
        if len(pairs) % 2:
            return "asked keys come as (token, seat) pairs"
        for index in range(0, len(pairs), 2):
            token, owner = pairs[index], pairs[index + 1]
            if not self.shared.dealt(token) or not 0 <= owner < self.shared.players or owner == seat:
                return f"seat {seat} asks for a key of card {token} that seat {owner} does not owe it"
            self.shared.asked.setdefault((token, owner), seat)
        return None

    def shown(self, seat: int, keys: Mapping[int, bytes]) -> str | None:
        """Seat ``seat``'s keys for cards shown to the table, each checked against its commitment."""
        for token, key in keys.items():
            where = self.shared.where.get(token)
            if where is None or not self.shared.dealt(token):
                return f"card {token} is not dealt"
            committed = self.shared.shuffles[where[0]].committed[seat][where[1]]
            try:
                if commitment(key) != committed:
                    raise GroupError("not the key committed")
            except GroupError:
                self.private.find(
                    Finding(seat, f"showed a key for card {token} that is not the one it committed")
                )
                return f"seat {seat}'s key for card {token} is not the one it committed"
            self.shared.shown_keys.setdefault(token, {})[seat] = key
            self._maybe_public(token)
        return None

    def show_keys(self, seat: int, data: bytes) -> str | None:
        """The keys an action of ``seat`` carries for the faces it names (``kdm.entries.Act.keys``),
        checked before the action is: why they do not show what they should, or None."""
        try:
            keys = unpack_keys(data)
        except ValueError as error:
            return str(error)
        for token, owners in keys.items():
            for owner, key in owners.items():
                if not 0 <= owner < self.shared.players:
                    return f"a key of seat {owner}, which the table does not have"
                problem = self.shown(owner, {token: key})
                if problem:
                    return problem
        return None

    def _maybe_public(self, token: int) -> None:
        keys = self.shared.shown_keys.get(token, {})
        if token in self.shared.public or len(keys) < self.shared.players:
            return
        point = self.shared.point(token)
        assert point is not None
        face = face_of(
            reveal(point, [keys[s] for s in range(self.shared.players)]),
            self.shared.all_faces,
            self.shared.table,
        )
        if face is None:
            self.private.find(Finding(-1, f"card {token} is no card of the deck: a shuffle was false"))
            return
        self.shared.public[token] = face
        del self.shared.shown_keys[token]
        self.private.timings.stop(("public", token), "public_draw_ms")

    def dealt(self, shuffle: Shuffle) -> None:
        """A shuffle's last turn is in: the key rings of the seats played here, and the keys that came
        early for its cards."""
        for mine in self.private.here:
            self.private.ring(shuffle.index, mine)
        early, self.early = self.early, []
        for message in early:
            self.received(message)

    def forget(self, token: int) -> None:
        """Card ``token`` is dealt again: what was shown of it, and read, and handed, is no longer."""
        self.shared.public.pop(token, None)
        self.shared.shown_keys.pop(token, None)
        for known in self.private.known.values():
            known.pop(token, None)
        self.served = {(t, seat) for t, seat in self.served if t != token}

    def void(self) -> None:
        """The round went back to its deal, or a seat's keys left with its process: no key is owed."""
        self.shared.asked.clear()  # keys of the round played again, or lost with a process: nobody owes them
        self.missing_since.clear()
        self.next_ask_at = math.inf
