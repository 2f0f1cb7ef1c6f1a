"""The table record: what the replicated log means, replayed the same way on every peer.

Consensus orders opaque entries; this module gives them their meaning. Each committed entry is one of
the typed records of ``kdm.entries`` (which owns their shape and their codec), with an ``id`` (node and
counter: a retried proposal committed twice is judged once, applied or refused):

- ``create``: the host's table: name, players, options as given, plugins with versions, and whether
  it is listed on the LAN;
- ``join``: a node takes the next free seat, committing ``H(nonce)`` for the first shuffle; with a
  ``player`` key and its signed claim (``kdm.identity``), the seat is bound to that key, and the same
  key joining again (a restarted process, or one back from a lost network) takes the seat back, at the
  first moment the rules allow (``kdm_player_may_return``);
- ``start``: the host starts the game once every seat is taken;
- ``reveal``: a seated node reveals its nonce for shuffle ``k`` and commits ``H`` of the next one;
  once every seat has revealed, the seed is ``H(nonces in seat order)`` and the record applies the
  seeded event the engine awaits (DESIGN 5.5: no single peer chooses a shuffle);
- ``event``: a player's action (an engine event), accepted only from the node seated where it acts;
- ``takeover``: a seated node's process plays a gone player's seat with a bot until the player is back
  (at a fair table a seat that changes hands voids the round in play: its keys left with its process);
  at a signed table, only with the signed word of a quorum of the other voters that the seat's process
  is silent (or withheld its keys), given a few entries before (``silence_problem``): no one, the
  leader included, takes a live seat alone;
- ``deck``: a seat's part in a fair deck (``kdm.fair.table``): a turn in a shuffle, keys shown, keys
  asked for or given, which the deck takes or refuses the same way on every peer;
- ``done``: a node saw the game end;
- ``chat``: a line a seat's player says; no node's lines make more than ``CHAT_LOG_BURST`` of the
  last ``CHAT_LOG_WINDOW`` entries (counted by log position, so every peer agrees);
- ``vouch``: a voter's stamps on another seat's press (``kdm.vouching``): at a table created with
  ``vouch`` on, a press is applied once enough of them are committed, bounded by what they say, and
  what is committed after it waits behind it in log order.

At a table whose id carries a key, every entry must be signed by the node it says wrote it
(``kdm.entries.signed_by_author``), and only the table's founder may create it. A node that holds no
seat writes nothing but its own join (the founder's ``create`` aside). What a leader screens at its door
(``kdm.peer``) is checked here again wherever it can be decided from the log alone: a leader's own
entries pass no door.

Everything here is pure: the peer (``kdm.peer``) does the I/O and reacts to the ``Notice``s.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from kdm.deck import DECK_TERMS, DeckTerms
from kdm.engine import Effect, Engine, IllegalAction, Owed
from kdm.entries import (
    ENTRY_TYPES,
    SILENT,
    WITHHELD,
    Act,
    Chat,
    Create,
    DeckPart,
    Done,
    Entry,
    Join,
    Reveal,
    Start,
    Takeover,
    Vouch,
    author_node,
    chat_problem,
    from_wire,
    signed_by_author,
    silence_signed_by,
)  # fmt: skip
from kdm.errors import KdmError, PluginError, UsageError
from kdm.events import SEEDED_BY_KIND, Deal, Event, Shuffle, StartGame, TimedEvent, Withheld
from kdm.identity import claim_is_valid
from kdm.manager import PluginInfo, Rules, table_plugins
from kdm.membership import voting_homes
from kdm.net.keys import verify_key_of
from kdm.notices import (
    Applied,
    Created,
    DeckPartTaken,
    Finished,
    Notice,
    Rejected,
    Returned,
    Returning,
    Said,
    Seated,
    Started,
    TookOver,
    Voided,
)
from kdm.state import TableState
from kdm.vouching import Held, bound, press_digest, stamps_needed


def commitment(nonce: bytes) -> bytes:
    """What a node publishes before revealing ``nonce``."""
    return hashlib.sha256(b"kdm nonce\x00" + nonce).digest()


def shuffle_seed(nonces: list[bytes]) -> bytes:
    """The agreed seed from every seat's nonce, in seat order."""
    digest = hashlib.sha256(b"kdm seed")
    for nonce in nonces:
        digest.update(len(nonce).to_bytes(2, "big") + nonce)
    return digest.digest()


#: The deck services a table may use (``kdm.deck.OpenDeck``, ``kdm.fair.table.FairDeck``).
DECKS = tuple(DECK_TERMS)

#: Why a join was refused (``Notice.code``): the joiner may watch instead (``PLAYING``, ``FULL``), or
#: ask again once the table's ``create`` is applied (``NO_TABLE_YET``: a join can reach the log first).
PLAYING, FULL, NO_TABLE_YET = "playing", "full", "no table yet"
#: A ``voided`` notice's code when the round in play is played again from its deal.
REPLAYED = "replayed"
#: A voter's word that a seat is silent counts for a takeover this many entries after the one it was
#: given at, at most: the honest path takes a round trip and a commit (a few entries at a busy table),
#: and a word kept for later (to take the seat again once its player is back) is stale by then.
SILENCE_FRESH_ENTRIES = 100
#: One node's chat lines may be at most this many of the last ``CHAT_LOG_WINDOW`` entries, refused ones
#: included: a leader's door lets five in ten seconds in, so a person talking alone to a quiet table
#: meets this after forty seconds at the soonest, and a leader flooding the table after twenty lines.
CHAT_LOG_BURST, CHAT_LOG_WINDOW = 20, 40


class DeckService(Protocol):
    """What the record asks of its table's deck when it applies an entry: the same answers on every
    peer, since every peer's deck saw the same log (its host implements it: ``kdm.host.TableHost``)."""

    def claim_problem(self, event: Event) -> str | None:
        """Why ``event`` claims faces the deck did not deal, or None (also when it cannot tell)."""
        ...

    def part_problem(self, part: DeckPart, seat: int) -> str | None:
        """Why a fair deck refuses seat ``seat``'s part ``part``, or None when it takes it."""
        ...

    def keys_problem(self, seat: int, keys: bytes) -> str | None:
        """Why the keys an action of ``seat`` carries for the faces it names are refused, or None."""
        ...


@dataclass
class Seat:
    """One seat: who acts for it now (``node``), and whose it is (``player``'s key, ``home`` node)."""

    node: str
    name: str
    bot: bool
    commitment: bytes
    #: The public key for private notes to whoever acts for the seat (Curve25519), b"" when none.
    box_key: bytes = b""
    #: The key the seat is bound to (``kdm.identity``), b"" when it was taken without one.
    player: bytes = b""
    #: The node of the player's own process: ``node`` unless a bot stands in for them.
    home: str = ""
    #: For a bot a player started on their laptop (``Join.laptop``), that player's node: the laptop's
    #: one vote is theirs (``kdm.membership``); "" for a seat that is a laptop of its own.
    laptop: str = ""

    def __post_init__(self) -> None:
        self.home = self.home or self.node

    @property
    def process(self) -> str:
        """The node of the process that acts for the seat (a stand-in's ``node#seat`` names it)."""
        return self.node.split("#", 1)[0]

    @property
    def away(self) -> bool:
        """Whether a bot stands in for the player, whose process is gone or lost."""
        return self.node != self.home


@dataclass(frozen=True)
class Return:
    """A player back for their seat, waiting for a moment the rules allow."""

    node: str
    name: str
    commitment: bytes
    box_key: bytes


@dataclass
class TableRecord:
    """Replays committed entries into a table: seats, agreed seeds, and the engine."""

    installed: dict[str, PluginInfo]
    #: The table's id (its founder's node id), when known from the start: when it carries a key, only
    #: the founder may create the table and every entry must be signed by its author.
    table: str = ""
    name: str = ""
    host: str = ""
    players: int = 0
    plugins: dict[str, str] = field(default_factory=dict)
    seats: list[Seat] = field(default_factory=list)
    started: bool = False
    shuffles: int = 0
    reveals: dict[str, bytes] = field(default_factory=dict)
    done: set[str] = field(default_factory=set)
    joined: set[str] = field(default_factory=set)
    engine: Engine | None = None
    applied_ids: set[tuple[str, int]] = field(default_factory=set)
    #: Entries refused that their author did write: a copy of one committed again is not judged again.
    refused_ids: set[tuple[str, int]] = field(default_factory=set)
    #: Whether the table is found on the LAN (its leader advertises it), or only by address.
    listed: bool = True
    #: Players back for their seats (by seat), until the rules let them take them.
    returning: dict[int, Return] = field(default_factory=dict)
    #: What was said at the table, oldest first: (seat, line).
    chat: list[tuple[int, str]] = field(default_factory=list)
    #: The table's deck as its host holds it (``kdm.host.TableHost``, alike on every peer): what the
    #: record asks of it on apply (``DeckService``). None: nothing is checked against a deck.
    deck_service: DeckService | None = None
    #: The table's deck service: ``open`` or ``fair`` (DESIGN 7), as its ``create`` says.
    deck: str = "open"
    #: Seats taken from a player who withheld their keys from a fair deck: a bot plays them to the end.
    barred: set[int] = field(default_factory=set)
    #: At a fair table, the state just before the last round was dealt: a seat that changes hands while
    #: that round is in play takes its keys away with its process, and the round is played from there.
    round_start: TableState | None = None
    #: How many committed entries this record was handed (malformed and refused ones too): an entry's
    #: position in the log, the same on every peer, which a voter's word on a silent seat names.
    position: int = 0
    #: The positions of each node's recent chat lines (``CHAT_LOG_WINDOW``).
    chat_positions: dict[str, list[int]] = field(default_factory=dict)
    #: After a forced reconfiguration (the survivors of a table that lost its quorum went on without
    #: the others, ``membership_changed``): the nodes that vote, kept up to date by the membership
    #: changes committed since. None while no configuration was forced: the voting homes vote.
    forced_voters: set[str] | None = None
    #: Whether the table's voters vouch for each other's presses (its ``create`` says), and the
    #: presses waiting for their stamps with what was committed behind them (``kdm.vouching``).
    vouching: bool = False
    held: Held = field(default_factory=Held)
    #: What the voters vouch for of the press being applied now (``_event`` bounds it by that).
    _vouched_now: Any = None

    @property
    def rules(self) -> Rules:
        assert self.engine is not None
        return self.engine.rules

    @property
    def terms(self) -> DeckTerms:
        """What the table's deck means for this record (``kdm.deck.DECK_TERMS``)."""
        return DECK_TERMS[self.deck]

    def describe(self, effect: Effect, lang: str = "en") -> str | None:
        """What the table says of ``effect`` (``kdm_describe``), calling each seat by its player's name."""
        return self.rules.describe(effect, lang, [seat.name for seat in self.seats])

    @property
    def signed(self) -> bool:
        """Whether every entry must be signed by its author (the table's id carries a key)."""
        return verify_key_of(self.table) is not None

    def seat_of(self, node: str) -> int | None:
        return next((i for i, seat in enumerate(self.seats) if seat.node == node), None)

    def sits(self, node: str) -> bool:
        """Whether ``node`` is at the table: it acts for a seat (its player's, a stand-in's), or is the
        home of one (its player's seat, held by a bot while its link was down)."""
        return any(seat.process == node or seat.home == node for seat in self.seats)

    def silence_voters(self, seat: int) -> list[str]:
        """The voters whose word on ``seat`` counts: every voting home (``kdm.membership``) but the
        seat's own process and home, which would speak of themselves. A bot a player started on their
        laptop runs in a process of its own, which that player's process hears or does not."""
        owner = self.seats[seat]
        mine = {owner.process, owner.home}
        return [home for home in self.voters() if home not in mine]

    def voters(self) -> list[str]:
        """The voting homes (``kdm.membership``), as the last forced configuration left them."""
        homes = dict.fromkeys(voting_homes(self.seats))
        if self.forced_voters is not None:
            # The voters dropped when the survivors went on are gone for good: their word cannot come,
            # and asking for it would leave the dead seats to no one.
            homes = dict.fromkeys(home for home in homes if home in self.forced_voters)
        return list(homes)

    def membership_changed(self, kind: str, node: str, voters: tuple[str, ...] = ()) -> list[Notice]:
        """A membership change of the table's consensus was committed, in log order among the entries
        (``ConfChange``: ``force`` names the survivors, ``add_voter``/``remove`` one node). Only a forced
        configuration changes what the record asks for: whose word on a silent seat counts, and whose
        stamps a held press waits for. What it applies then (a press whose vouchers are gone for good,
        and what waited behind it), it says."""
        if kind == "force":
            self.forced_voters = set(voters)
        elif self.forced_voters is not None and kind == "add_voter":
            self.forced_voters.add(node)
        elif self.forced_voters is not None and kind == "remove":
            self.forced_voters.discard(node)
        return self._release()

    def silence_problem(self, seat: int, why: str, silence: dict[str, Any]) -> str | None:
        """Why the word ``silence`` (signer → [position, signature]) does not let a takeover of ``seat``
        into the log as the next entry, or None: it needs a quorum of ``silence_voters``, each signed
        (``kdm.entries.silence_statement``) on this seat, its process and its commitment as they stand
        (a player back commits anew), and given at most
        ``SILENCE_FRESH_ENTRIES`` entries before. Pure, so every peer refuses alike, with one reason."""
        node, hand, kind = self.seats[seat].process, self.seats[seat].commitment, WITHHELD if why else SILENT
        voters = self.silence_voters(seat)
        needed = len(voters) // 2 + 1
        given, problems = 0, []
        for signer in sorted(silence, key=str):
            word = silence[signer]
            if signer not in voters:
                problems.append(f"{signer} is not one of them")
            elif not (
                isinstance(word, list)
                and len(word) == 2
                and isinstance(word[0], int)
                and not isinstance(word[0], bool)
                and isinstance(word[1], bytes)
            ):
                problems.append(f"{signer}'s word is not [position, signature]")
            elif not 0 <= self.position - word[0] <= SILENCE_FRESH_ENTRIES:
                problems.append(
                    f"{signer}'s word was given at entry {word[0]}, not in the {SILENCE_FRESH_ENTRIES} before"
                )
            elif not silence_signed_by(signer, word[1], self.table, seat, node, hand, word[0], kind):
                problems.append(f"{signer}'s word is not signed by its key for the seat as it stands")
            else:
                given += 1
        if given >= needed:
            return None
        said = (
            f"{needed} of the {len(voters)} other voters must say its process {node} is {kind}, {given} did"
        )
        return said + "".join(f"; {problem}" for problem in problems)

    def seat_held_by(self, player: bytes) -> int | None:
        """The seat bound to ``player``'s key, if any."""
        if not player:
            return None
        return next((i for i, seat in enumerate(self.seats) if seat.player == player), None)

    def apply(self, entry: Entry | Any) -> list[Notice]:
        """Apply one committed entry (typed, or the map the log holds); a malformed or refused one
        changes nothing and says why."""
        self.position += 1
        signature = entry.get("sig") if isinstance(entry, dict) else None
        if not isinstance(entry, Entry):
            try:
                entry = from_wire(entry)
            except ValueError as error:
                kind, node = _type_and_author(entry)
                said = f"malformed {kind} entry" if kind else "malformed entry"
                return [Rejected(node=node, reason=f"{said}: {error}", entry=kind)]
        kind, node = entry.TYPE, entry.id.node
        key = (node, entry.id.counter)
        if key in self.applied_ids or key in self.refused_ids or key in self.held.ids():
            return []  # a copy of an entry already judged (a retried proposal committed twice)
        if self.signed and not signed_by_author(entry, signature, self.table):
            # Not remembered: a forger must not use up the ids of the node it writes in the name of.
            return [Rejected(node=node, reason=f"not signed by {node}'s key", entry=kind)]
        if isinstance(entry, Vouch):
            self.applied_ids.add(key)
            return self._release() if self.held.stamp(author_node(entry), entry) else []
        press = self.press_of(entry)
        if press is None and not self.held.queue:
            return self._judge(entry)
        self.held.hold(self.position, entry, press)
        return self._release()

    def press_of(self, entry: Entry) -> tuple[int, bytes] | None:
        """A press the other voters must stamp before it is applied: its seat and digest. Only what the
        record would apply as a press is held (a timed event, for the seat its author plays), the same
        on every peer, so that every honest voter stamps exactly what its record holds (and takes a
        press's word for no other: ``kdm.host.stamps``)."""
        if not (self.vouching and self.started and isinstance(entry, Act)) or self.engine is None:
            return None
        try:
            event = self.rules.codec.decode(entry.event)
        except Exception:  # refused on apply, with its reason
            return None
        if not isinstance(event, TimedEvent) or not (0 <= event.seat < len(self.seats)):
            return None
        seat = event.seat
        if self.seats[seat].node != entry.id.node or not self.silence_voters(seat):
            return None
        return seat, press_digest(entry.event)

    def _release(self) -> list[Notice]:
        """Apply what was held, in log order, up to the first press still short of its stamps."""
        notices: list[Notice] = []
        held, handed = self.held, self.position
        while held.queue:
            position, entry = held.queue[0]
            key = (entry.id.node, entry.id.counter)
            if key in held.presses:
                seat, digest = held.presses[key]
                vouchers = self.silence_voters(seat)
                stamps = [stamp for voter, stamp in held.stamps[key].items()
                          if voter in vouchers and stamp.digest == digest]  # fmt: skip
                if len(stamps) < stamps_needed(len(self.voters()), len(vouchers)):
                    break
                held.release(key)
                # No voucher left (the survivors went on without them): nobody can say what it was.
                self._vouched_now = bound(stamps) if stamps else None
            held.queue.popleft()
            self.position = position  # a takeover's word names the log position it was given at
            try:
                notices += self._judge(entry)
            finally:
                self.position, self._vouched_now = handed, None
        return notices

    def _judge(self, entry: Entry) -> list[Notice]:
        """Apply ``entry`` (signed by its author), or refuse it, once and for all."""
        kind, node = entry.TYPE, entry.id.node
        key = (node, entry.id.counter)
        try:
            if not isinstance(entry, Create | Join) and not self.sits(author_node(entry)):
                seatless = author_node(entry)
                raise UsageError(
                    f"{seatless} holds no seat: a node without one proposes nothing but its own join"
                )
            notices = _APPLY[type(entry)](self, entry)
        except (KeyError, TypeError, ValueError) as error:
            refused = Rejected(node=node, reason=f"malformed {kind} entry: {error}", entry=kind)
        except _Refused as refusal:
            refused = Rejected(node=node, reason=str(refusal), entry=kind, code=refusal.code)
        except (IllegalAction, KdmError) as error:
            refused = Rejected(node=node, reason=str(error), entry=kind)
        else:
            self.applied_ids.add(key)
            return notices + self._seat_returns()
        # Its author wrote it, and it is judged once. A copy committed later (a proposal retried while
        # the first was on its way, or one a player replays: entries are public) might pass then, and
        # act for its author at a moment they did not choose (a slap refused while a window was being
        # judged, replayed into the next round's passing).
        self.refused_ids.add(key)
        return [refused]

    # --- entries ----------------------------------------------------------------------------------

    def _create(self, entry: Create) -> list[Notice]:
        node = entry.id.node
        if self.engine is not None:
            raise UsageError("the table already exists")
        if self.signed and node != self.table:  # a real table's id is its founder's node id
            raise UsageError(f"only the table's founder creates it, not {node}")
        plugins = dict(entry.plugins)
        missing = check_plugins(plugins, self.installed)
        if missing:
            raise PluginError(missing)
        rules = Rules(table_plugins(list(plugins), self.installed))
        if entry.deck not in DECKS:
            raise UsageError(f"deck {entry.deck!r}: a table's deck is one of {', '.join(DECKS)}")
        self.engine = Engine(rules, entry.players, dict(entry.options))
        self.listed, self.deck, self.vouching = entry.listed, entry.deck, entry.vouch
        self.name, self.host, self.players, self.plugins = entry.name, node, entry.players, plugins
        return [Created(node=node)]

    def _join(self, entry: Join) -> list[Notice]:
        node = entry.id.node
        if self.engine is None:
            raise _Refused("there is no table to join yet", NO_TABLE_YET)
        commit, box_key, player = entry.commit, entry.box_key, entry.player
        if player and not claim_is_valid(player, entry.claim, self.table or self.host, node):
            raise UsageError(f"{node} does not hold the key it claims a seat for")
        name, bot = entry.name or node, entry.bot
        held = self.seat_held_by(player)
        if held is not None and held in self.barred:
            raise UsageError(f"seat {held} withheld its keys from the deck: a bot plays it to the end")
        if held is not None:
            return self._come_back(held, Return(node, name, commit, box_key))
        if self.seat_of(node) is not None:
            raise UsageError(f"{node} is already seated")
        if self.started:
            raise _Refused(f"table '{self.name}': the game has already started", PLAYING)
        if len(self.seats) >= self.players:
            raise _Refused(f"table '{self.name}' is full ({self.players} players)", FULL)
        laptop = entry.laptop if entry.laptop != node else ""
        self.seats.append(Seat(node, name, bot, commit, box_key, player, laptop=laptop))
        self.joined.add(node)
        return [Seated(node=node, seat=len(self.seats) - 1)]

    def _come_back(self, seat: int, back: Return) -> list[Notice]:
        """The player of ``seat`` is back from ``back.node``; the seat is theirs at the next moment the
        rules allow (``_seat_returns``). From the node that holds the seat, this is a process started
        again after a crash as the same node: with the key for notes it had, it kept its secrets and is
        back at once; with a new one, its secret nonce and its keys are new, so it comes back as a
        player would (with the same commitment, it is only asking again)."""
        current = self.seats[seat]
        if current.node == back.node and current.box_key == back.box_key != b"":
            # The same node started again with the secrets its player keeps (``kdm.kept``): its keys,
            # its key for notes and its nonces are the ones it had, so nothing changed hands; the seat
            # goes on in the same round, from its commitment in the record.
            self.joined.add(back.node)
            return [Returned(node=back.node, seat=seat, previous=back.node)]
        if current.node == back.node and current.commitment == back.commitment:
            raise UsageError(f"{back.node} is already seated")
        self.returning[seat] = back
        self.joined.add(back.node)
        return [Returning(node=back.node, seat=seat)]

    def _seat_returns(self) -> list[Notice]:
        """Give back every seat whose player is back, if the rules allow it now."""
        notices: list[Notice] = []
        engine = self.engine
        for seat, back in sorted(self.returning.items()):
            if engine is not None and self.started and not engine.over and not engine.player_may_return(seat):
                continue
            del self.returning[seat]
            previous = self.seats[seat]
            self.seats[seat] = Seat(
                back.node, back.name, previous.bot, back.commitment, back.box_key, previous.player,
                laptop=previous.laptop,
            )  # fmt: skip
            self._restart_reveals()
            notices.append(Returned(node=back.node, seat=seat, previous=previous.node))
            notices += self._void(seat, "its player is back, and the keys of its stand-in left with it")
        return notices

    def round_in_play(self) -> bool:
        """Whether a seat that changed hands now would void a round in play: at a table whose secrets
        leave with a seat (the fair deck), once a round is dealt, until the table awaits its next deal
        or rests with the cards gathered."""
        engine = self.engine
        if not self.terms.secrets_leave_with_seat or not self.started or engine is None or engine.over:
            return False
        return self.round_start is not None and not self._between_rounds(engine)

    @staticmethod
    def _between_rounds(engine: Engine) -> bool:
        # A round is in play unless the table awaits its next deal, or rests before it with the cards
        # gathered (a table of people pauses on a round's result): the last round's start is stale then.
        return any(d.kind == Deal.kind for d in engine.awaiting()) or not any(engine.state.hands)

    def _void(self, seat: int, why: str) -> list[Notice]:
        """Seat ``seat`` changed hands at a fair table: the keys it held for the shuffles so far left with
        the process that played it, so a round in play is voided and played again from its deal
        (DESIGN 7); the deck deals again every card it can no longer read (``voided`` notice)."""
        engine = self.engine
        if not self.terms.secrets_leave_with_seat or not self.started or engine is None or engine.over:
            return []
        start, self.round_start = self.round_start, None
        replayed = start is not None and not self._between_rounds(engine)
        if start is not None and replayed:
            engine.restore(start)
        said = f"seat {seat} changed hands ({why})" + (": the round is played again" if replayed else "")
        return [Voided(seat=seat, reason=said, code=REPLAYED if replayed else "")]

    def _restart_reveals(self) -> None:
        if self.reveals:
            # Some nonces of this shuffle are public already and a new commitment came after them:
            # start the shuffle's reveals again, so nobody chooses a nonce knowing the others.
            self.reveals = {}
            self.shuffles += 1

    def starts_the_game(self, node: str) -> bool:
        """Whether ``node`` is the one to start the game: the founder's process, or the one the
        founder's player came back with (the founder takes the first seat)."""
        return node == self.host or (bool(self.seats) and node == self.seats[0].home)

    def _start(self, entry: Start) -> list[Notice]:
        node = entry.id.node
        if not self.starts_the_game(node):
            raise UsageError("only the host starts the game")
        if self.started:
            raise UsageError("the game has already started")
        if len(self.seats) != self.players:
            raise UsageError(f"{len(self.seats)} of {self.players} seats are taken")
        self.started = True
        assert self.engine is not None
        # Whether people sit is the log's to say, so every peer paces the game alike (kdm.state).
        self.engine.state.people = tuple(seat for seat, taken in enumerate(self.seats) if not taken.bot)
        return [Started(node=node)]

    def _reveal(self, entry: Reveal) -> list[Notice]:
        node = entry.id.node
        seat = self.seat_of(node)
        if seat is None:
            raise UsageError(f"{node} has no seat")
        if entry.shuffle != self.shuffles or node in self.reveals:
            raise UsageError(f"{node}: not the reveal for shuffle {self.shuffles}")
        nonce, following = entry.nonce, entry.next_commit
        if commitment(nonce) != self.seats[seat].commitment:
            raise UsageError(f"seat {seat} ({node}) revealed a nonce that does not match its commitment")
        self.reveals[node] = nonce
        self.seats[seat].commitment = following
        return self._maybe_shuffle()

    def _maybe_shuffle(self) -> list[Notice]:
        """Apply the seeded event the engine awaits once every seat has revealed."""
        if not self.started or len(self.reveals) < self.players:
            return []
        engine = self.engine
        assert engine is not None
        duty = next((d for d in engine.awaiting() if d.owed_as is Owed.SEED), None)
        if duty is None:
            return []
        seed = shuffle_seed([self.reveals[seat.node] for seat in self.seats])
        self.reveals = {}
        self.shuffles += 1
        return self._apply_event(SEEDED_BY_KIND[duty.kind](seed=seed), node="")

    def _takeover(self, entry: Takeover) -> list[Notice]:
        """A seated node's process plays a gone player's seat from now on, under identity ``node``."""
        node, seat, commit, box_key = entry.id.node, entry.seat, entry.commit, entry.box_key
        process = node.split("#", 1)[0]
        if not self.started or self.engine is None:
            raise UsageError("seats are taken over only once the game has started")
        if not 0 <= seat < len(self.seats) or self.seats[seat].process == process:
            raise UsageError(f"{node} cannot take over seat {seat}")
        if self.engine.over and self.seats[seat].node in self.done:
            # Over, a seat is taken only to say its done for a player gone before they could.
            raise UsageError(f"seat {seat} is done: the game is over")
        if process not in self.joined:
            # Any process that sat down may lead and so take seats over, even one whose own seat was
            # taken over while its link was down.
            raise UsageError(f"{node} is not at this table")
        problem = self.silence_problem(seat, entry.why, entry.silence) if self.signed else None
        if problem is not None:
            raise UsageError(f"{node} cannot take over seat {seat} alone: {problem}")
        # The seat stays its player's (name, key, home): the bot only stands in until they are back.
        self.seats[seat] = dataclasses.replace(
            self.seats[seat], node=node, commitment=commit, box_key=box_key
        )
        self._restart_reveals()
        if entry.why:
            self.barred.add(seat)
        took = TookOver(node=node, seat=seat, reason=entry.why)
        notices = [took, *self._void(seat, entry.why or "its player's process is gone")]
        if entry.why and self.terms.secrets_leave_with_seat:
            notices += self._charge_withholder(seat)
        return notices

    def _charge_withholder(self, seat: int) -> list[Notice]:
        """``seat`` held the round up (its keys withheld): the game charges it what its rules say
        (``kdm.events.Withheld``), on the round as it stands after the void; nothing if they say nothing."""
        engine = self.engine
        assert engine is not None
        if engine.over:
            return []
        seq, event = engine.state.seq, Withheld(seat=seat)
        try:
            effects = engine.apply(event)
        except IllegalAction:  # no rule of this game charges for it, or not now
            return []
        return [Applied(node="", event=event, effects=tuple(effects), seq=seq)]

    def _event(self, entry: Act) -> list[Notice]:
        node = entry.id.node
        if not self.started:
            raise UsageError("the game has not started")
        event = self.rules.codec.decode(entry.event)
        acting = getattr(event, "seat", None)
        if acting is not None and not (0 <= acting < len(self.seats) and self.seats[acting].node == node):
            raise UsageError(f"{node} cannot act for seat {acting}")
        if isinstance(event, StartGame | Deal | Shuffle):
            raise UsageError("seeds come from reveals, not from one player")
        if isinstance(event, Withheld):
            raise UsageError("the table charges a seat that withheld its keys, not a player")
        if entry.keys:
            service = self.deck_service
            if not self.terms.takes_parts or service is None or acting is None:
                raise UsageError(f"{node}'s {event.kind} carries keys, which only a fair deck's seat shows")
            problem = service.keys_problem(acting, entry.keys)
            if problem is not None:
                raise UsageError(f"{node}'s {event.kind}: {problem}")
        refusal = self.deck_service.claim_problem(event) if self.deck_service is not None else None
        if refusal is not None:
            raise UsageError(f"{node}'s {event.kind}: {refusal}")
        if isinstance(event, TimedEvent) and self._vouched_now is not None:
            event = dataclasses.replace(event, vouched=self._vouched_now)
        return self._apply_event(event, node)

    def _apply_event(self, event: Event, node: str) -> list[Notice]:
        engine = self.engine
        assert engine is not None
        seq = engine.state.seq
        # A seeded event (a deal?) at a table whose seats hold the deck's secrets: its start is kept.
        before = engine.snapshot() if self.terms.secrets_leave_with_seat and not node else None
        effects = engine.apply(event)
        if before is not None and any(effect["kind"] == "dealt" for effect in effects):
            self.round_start = before
        notices = [Applied(node=node, event=event, effects=tuple(effects), seq=seq)]
        return notices + self._maybe_shuffle()

    def _deck_part(self, entry: DeckPart) -> list[Notice]:
        """A seat's part in the fair deck: its turn in a shuffle, keys it shows, secrets it opens."""
        node, seat = entry.id.node, entry.seat
        if not self.started or not self.terms.takes_parts:
            raise UsageError("deck parts belong to a fair deck's game")
        if not (0 <= seat < len(self.seats) and self.seats[seat].node == node):
            raise UsageError(f"{node} cannot act for seat {seat}")
        problem = self.deck_service.part_problem(entry, seat) if self.deck_service is not None else None
        if problem is not None:
            raise UsageError(f"seat {seat}'s {entry.step}: {problem}")
        return [DeckPartTaken(node=node, seat=seat, step=entry.step)]

    def _done(self, entry: Done) -> list[Notice]:
        self.done.add(entry.id.node)
        return [Finished(node=entry.id.node)]

    def _chat(self, entry: Chat) -> list[Notice]:
        node, seat = entry.id.node, entry.seat
        recent = [at for at in self.chat_positions.get(node, []) if self.position - at < CHAT_LOG_WINDOW]
        self.chat_positions[node] = [*recent, self.position]  # a refused line grows the log all the same
        if len(recent) >= CHAT_LOG_BURST:
            said = f"more than {CHAT_LOG_BURST} of the last {CHAT_LOG_WINDOW} entries"
            raise UsageError(f"{node}'s chat lines would be {said}")
        if self.engine is None:
            raise UsageError("there is no table to talk at yet")
        if not (0 <= seat < len(self.seats) and self.seats[seat].node == node):
            raise UsageError(f"{node} cannot speak for seat {seat}")
        problem = chat_problem(entry.text)
        if problem:
            raise UsageError(problem)
        refusal = self.rules.hooks.chat_refused(state=self.engine.state, seat=seat, text=entry.text)
        if refusal:
            raise UsageError(refusal)
        self.chat.append((seat, entry.text))
        return [Said(node=node, seat=seat, text=entry.text)]


class _Refused(UsageError):
    """A join refused in a way the joiner may answer (``code``): by watching, or by asking again."""

    def __init__(self, reason: str, code: str) -> None:
        super().__init__(reason)
        self.code = code


def check_plugins(needed: dict[str, str], installed: dict[str, PluginInfo]) -> str:
    """Empty if every plugin a table needs is installed at its version; else one line saying which."""
    for name, version in sorted(needed.items()):
        info = installed.get(name)
        if info is None:
            return f"this table uses plugin {name} {version}, which is not installed here"
        if info.version != version:
            return f"this table uses plugin {name} {version}; this machine has {name} {info.version}"
    return ""


def _type_and_author(entry: Any) -> tuple[str, str]:
    """What a malformed entry says it is and who sent it, as far as it can be read."""
    if not isinstance(entry, dict):
        return "", ""
    kind, ident = entry.get("t"), entry.get("id")
    author = ident[0] if isinstance(ident, list) and ident and isinstance(ident[0], str) else ""
    if isinstance(kind, str) and kind in ENTRY_TYPES and author:
        return kind, author
    return "", ""


_APPLY: dict[type[Entry], Callable[[TableRecord, Any], list[Notice]]] = {
    Create: TableRecord._create,
    Join: TableRecord._join,
    Start: TableRecord._start,
    Reveal: TableRecord._reveal,
    Act: TableRecord._event,
    Done: TableRecord._done,
    Takeover: TableRecord._takeover,
    Chat: TableRecord._chat,
    DeckPart: TableRecord._deck_part,
}
