"""Scenario tests for Kem's, one or more per rule and option of RULES §3.

Each test names the rule it checks. A table is the real engine with Kem's rules and an open deck
(``kdm.testing.ScriptedTable``); ``deal`` applies the real ``Deal`` and then gives the dealt cards the
faces a scenario writes down (``ScriptedTable.arrange``): ``hands[seat]`` for a seat, ``turned`` for the
four cards the dealer turns up, ``talon`` for the cards below them, top first. Every card left open is
chosen so that no hand and no turn holds three of a rank, so a scenario gets exactly what it wrote.
Unless a test checks the deal itself, every seat keeps the hand written for it, so that a scenario may
open the hunt with four of a kind in a hand (a real deal would redraw it; play reaches it by exchanges).
With 4 players, seats 0 and 2 are one team, 1 and 3 the other; the first dealer is seat 0, so seat 1
checks its hand first.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest

from kdm.cards import faces_of_ranks, full_deck, is_face, rank_of
from kdm.deck import PrivateNote
from kdm.engine import Duty, Effect, IllegalAction
from kdm.errors import OptionError, TableError
from kdm.events import Event, Shuffle, Withheld
from kdm.manager import Rules
from kdm.plugins.kems.events import (
    Call,
    Exchange,
    Gesture,
    KeepHand,
    Quiet,
    Redraw,
    Say,
    ShowTwo,
    Sweep,
    SweepAnswer,
    TeamReady,
    Turn,
)
from kdm.plugins.kems.rules import BIN, GESTURES, NOTES_CLOSED, TABLE, TALON, deck_faces, kems, note_digest
from kdm.plugins.kems.view import SALT_SIZE, KemsView, Signs
from kdm.plugins.kilo.events import Close, ShowHand
from kdm.testing import ScriptedTable, check_places, without_hints
from tests.helpers.kems import NEXT, TURNED, deal, keep_hands

SEVENS = ["7H", "7S", "7D", "7C"]
NINES = ["9H", "9S", "9D", "9C"]
RANKS_32 = ("7", "8", "9", "10", "J", "Q", "K", "A")

TableMaker = Callable[..., ScriptedTable]


# --- the table ------------------------------------------------------------------------------------


@pytest.fixture
def new_table() -> Iterator[TableMaker]:
    """A factory of Kem's tables; each one is checked when the test ends: every card of the deck lies
    in exactly one place, public faces are true, and every hand holds 4 cards."""
    made: list[ScriptedTable] = []

    def make(players: int = 4, **options: Any) -> ScriptedTable:
        made.append(ScriptedTable(players, options, variants=["kems"], seed=b"kems rules"))
        return made[-1]

    yield make
    for table in made:
        check_places(table)
        state = table.state
        live = [t for hand in state.hands for t in hand] + [t for zone in state.zones.values() for t in zone]
        if live:
            assert Counter(table.deck.faces[t] for t in live) == Counter(deck_faces(state.options))
            if kems(state).redraw is None:
                assert [len(hand) for hand in state.hands] == [4] * state.players


def tokens(table: ScriptedTable, seat: int, faces: Sequence[str]) -> tuple[int, ...]:
    """The tokens of ``seat``'s cards with these faces."""
    by_face = {table.deck.faces[t]: t for t in table.state.hands[seat]}
    return tuple(by_face[face] for face in faces)


def table_tokens(table: ScriptedTable, faces: Sequence[str]) -> tuple[int, ...]:
    by_face = {table.state.faces[t]: t for t in table.state.zones[TABLE]}
    return tuple(by_face[face] for face in faces)


def table_faces(table: ScriptedTable) -> list[str]:
    return [table.state.faces[t] for t in table.state.zones[TABLE]]


def exchange(table: ScriptedTable, seat: int, give: Sequence[str], take: Sequence[str]) -> list[Effect]:
    event = Exchange(
        seat=seat, give=tokens(table, seat, give), cards=tuple(give), take=table_tokens(table, take)
    )
    return table.act(event)


def call(
    table: ScriptedTable,
    seat: int,
    kind: str = "kems",
    target: int = -1,
    at: float = 1000.0,
    trigger: int | None = None,
    rt: float | None = None,
) -> list[Effect]:
    return table.act(Call(seat=seat, call=kind, target=target, t_sync=at, trigger=trigger, rt=rt))


def call_event(seat: int, kind: str = "kems", target: int = -1) -> Call:
    return Call(seat=seat, call=kind, target=target, t_sync=1000.0)


def judged(table: ScriptedTable, seat: int, kind: str = "kems", target: int = -1) -> list[Effect]:
    """``seat`` calls alone; the window closes and the table shows what the call asks for (the accused
    of a Contre answering as their laptop does when their time to choose runs out)."""
    call(table, seat, kind, target)
    effects = table.fire("close")
    if any(duty.kind == "answer_contre" for duty in table.engine.awaiting()):
        effects += table.fire("answer_contre")
    return effects


def refused(table: ScriptedTable, event: Event, match: str) -> None:
    """``event`` is illegal now and changes nothing at all."""
    before = table.engine.digest()
    with pytest.raises(IllegalAction, match=match):
        table.act(event)
    assert table.engine.digest() == before


def refused_by_the_rules(table: ScriptedTable, event: Event, match: str) -> None:
    """The rules themselves refuse ``event`` and it changes nothing, as at a fair table, where the deck
    cannot rebuild a reveal from faces it does not read (the open deck refuses it before them)."""
    before = table.engine.digest()
    with pytest.raises(IllegalAction, match=match):
        table.engine.apply(event)
    assert table.engine.digest() == before


def view(table: ScriptedTable, seat: int) -> KemsView:
    part = table.engine.view(seat, table.deck.knowledge(table.state, seat)).rules["kems"]
    assert isinstance(part, KemsView)
    return part


def kinds(effects: list[Effect]) -> list[str]:
    return [effect["kind"] for effect in effects]


def sweep_by_all(table: ScriptedTable, asker: int = 0) -> list[Effect]:
    """Nobody exchanges for ``sweep_after_ms``; ``asker`` asks « Balayage ? » and everyone accepts."""
    table.fire("quiet")
    effects = table.act(Sweep(seat=asker))
    for seat in range(table.state.players):
        if seat != asker:
            effects += table.act(SweepAnswer(seat=seat, accept=True))
    return effects


# --- 3.1 Players and teams ------------------------------------------------------------------------


@pytest.mark.parametrize("players", [4, 6, 8])
def test_rule_3_1_partners_sit_opposite_so_every_player_sits_between_opponents(
    new_table: TableMaker, players: int
) -> None:
    table = new_table(players)
    deal(table)
    half = players // 2
    for seat in range(players):
        mine = view(table, seat)
        assert mine.partner == (seat + half) % players
        assert view(table, mine.partner).team == mine.team
        for neighbour in ((seat + 1) % players, (seat - 1) % players):
            assert view(table, neighbour).team != mine.team
    assert sorted(view(table, seat).team for seat in range(players)) == sorted(list(range(half)) * 2)


def test_rule_3_1_both_partners_share_their_team_s_points(new_table: TableMaker) -> None:
    table = new_table()
    deal(table, hands=[SEVENS])
    judged(table, 2)
    assert kems(table.state).team_scores == [1, 0]
    assert table.state.scores == [1, 0, 1, 0]


@pytest.mark.parametrize("players", [2, 3, 5, 7, 9, 10])
def test_rule_3_1_kems_is_played_by_4_6_or_8_players_only(new_table: TableMaker, players: int) -> None:
    with pytest.raises(TableError, match="4, 6 or 8 players") as refusal:
        new_table(players)
    assert "\n" not in str(refusal.value)


@pytest.mark.parametrize("players", [4, 6])
def test_rule_3_1_deck_32_holds_7_8_9_10_J_Q_K_A(new_table: TableMaker, players: int) -> None:
    table = new_table(players, deck="32")
    deal(table)
    state = table.state
    live = [t for hand in state.hands for t in hand] + [t for zone in state.zones.values() for t in zone]
    assert sorted(table.deck.faces[t] for t in live) == sorted(faces_of_ranks(RANKS_32))
    assert len(state.zones[TALON]) == 32 - 4 * players - 4


def test_rule_3_1_the_default_deck_holds_52_cards(new_table: TableMaker) -> None:
    table = new_table(8)
    deal(table)
    state = table.state
    live = [t for hand in state.hands for t in hand] + [t for zone in state.zones.values() for t in zone]
    assert sorted(table.deck.faces[t] for t in live) == sorted(full_deck())


def test_rule_3_1_a_32_card_deck_is_refused_where_too_few_cards_stay_beside_the_hands(
    new_table: TableMaker,
) -> None:
    """Eight hands take all 32 cards: no table could be turned. Six hands leave the eight it needs."""
    with pytest.raises(TableError, match="deck=52") as refusal:
        new_table(8, deck="32")
    assert "\n" not in str(refusal.value)
    new_table(6, deck="32")


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("deck", "36"),
        ("target", 0),
        ("target", "ten"),
        ("signs", "two"),
        ("spoken", "maybe"),
        ("sweep_after_ms", -1),
        ("call_window_ms", "soon"),
        ("rounds", 3),  # a Kilo de merde option: this table has none such
    ],
)
def test_rule_3_options_bad_values_are_refused_in_one_line(
    new_table: TableMaker, name: str, value: object
) -> None:
    with pytest.raises(OptionError, match=name) as refusal:
        new_table(**{name: value})
    assert "\n" not in str(refusal.value)


def test_rule_3_options_defaults(new_table: TableMaker) -> None:
    options = new_table().state.options
    assert (options["deck"], options["target"], options["signs"], options["spoken"]) == (
        "52",
        10,
        "one",
        False,
    )
    assert options["sweep_after_ms"] == 3000


# --- 3.2 Signs ------------------------------------------------------------------------------------


def test_rule_3_2_the_gesture_catalogue() -> None:
    assert GESTURES == (
        "scratch_head", "touch_nose", "wink", "yawn", "cough", "sigh",
        "tap_table", "look_ceiling", "adjust_glasses", "shrug", "smile", "rub_eyes",
    )  # fmt: skip


def test_rule_3_2_anyone_makes_any_gesture_of_the_catalogue_and_every_player_sees_it(
    new_table: TableMaker,
) -> None:
    table = new_table()
    deal(table)
    for gesture in GESTURES:
        for seat in range(4):
            effects = table.act(Gesture(seat=seat, gesture=gesture, t_sync=1.0))
            assert effects[0] == {
                "kind": "gestured",
                "seat": seat,
                "gesture": gesture,
                "seq": effects[0]["seq"],
            }
            for watcher in range(4):
                assert view(table, watcher).gestures[-1] == (seat, gesture, effects[0]["seq"])
    assert table.state.phase == "hunt"  # a gesture changes nothing else


def test_rule_3_2_gestures_are_allowed_at_any_time_of_play(new_table: TableMaker) -> None:
    """Before the game (its signs), while hands are checked, cards turned, during a sweep, a refusal, a call
    window, while hands are shown or a Contre answered, and between deals."""
    table = new_table()
    seen: list[str] = []

    def gesture() -> None:
        seen.append(table.state.phase)
        table.act(Gesture(seat=len(seen) % 4, gesture=GESTURES[len(seen) % 12]), settle=False)

    gesture()  # signing, before the game
    deal(table, hands=[["KH", "KS", "QD", "JC"]], turned=TURNED, settle=False)
    gesture()  # checking
    keep_hands(table)
    gesture()  # turning
    table.settle()
    gesture()  # hunt
    table.fire("quiet")
    table.act(Sweep(seat=0))
    gesture()  # sweep
    table.act(SweepAnswer(seat=1, accept=False))
    gesture()  # refused
    exchange(table, 1, [table.hand(1)[0]], ["2C"])
    call(table, 3, "contre", target=0)
    gesture()  # calling
    table.act(Close(), settle=False)
    gesture()  # answering
    table.fire("answer_contre")
    call(table, 2)
    table.act(Close(), settle=False)
    gesture()  # showing
    table.settle()
    gesture()  # dealing again
    assert seen == [
        "signing", "checking", "turning", "hunt", "sweep", "refused",
        "calling", "answering", "showing", "dealing",
    ]  # fmt: skip
    assert len(kems(table.state).gestures) == len(seen)


def test_rule_3_2_an_unknown_gesture_or_seat_is_refused(new_table: TableMaker) -> None:
    table = new_table()
    deal(table)
    refused(table, Gesture(seat=0, gesture="thumbs_up"), "not a gesture; gestures: scratch_head")
    refused(table, Gesture(seat=4, gesture="wink"), "no seat 4")


def test_rule_3_2_spoken_off_allows_no_words(new_table: TableMaker) -> None:
    table = new_table()
    deal(table)
    refused(table, Say(seat=0, text="j'ai rien"), "spoken=off")


def test_rule_3_2_spoken_on_lines_are_seen_by_all(new_table: TableMaker) -> None:
    table = new_table(spoken="on")
    deal(table)
    assert table.act(Say(seat=1, text="  quelle main !  ")) == [
        {"kind": "said", "seat": 1, "text": "quelle main !"}
    ]
    assert all(view(table, seat).chat == ((1, "quelle main !"),) for seat in range(4))
    for bad in ("   ", "x" * 201, "two\nlines"):
        refused(table, Say(seat=1, text=bad), "printable")


def test_rule_3_2_the_teams_agree_their_signs_before_the_game_and_the_table_waits_for_them(
    new_table: TableMaker,
) -> None:
    """Each team's first seat says, in the log, that its team has agreed (never what the signs are);
    the first deal waits for every team, or for ``signs_ms``."""
    table = new_table(players=6)
    assert table.state.phase == "signing" and table.engine.awaiting() == [
        Duty("ready_time", after_ms=60000, ref=0)
    ]
    with pytest.raises(IllegalAction, match="first seat of team 1 says"):
        table.act(TeamReady(seat=4))  # seat 4 is seat 1's partner
    table.act(TeamReady(seat=1))
    with pytest.raises(IllegalAction, match="team 1 has agreed its signs already"):
        table.act(TeamReady(seat=1))
    table.act(TeamReady(seat=0))
    assert table.state.phase == "signing" and kems(table.state).agreed == [1, 0]
    table.act(TeamReady(seat=2))
    assert table.state.phase == "dealing" and table.last("signs_closed") == {
        "kind": "signs_closed",
        "missing": [],
    }
    with pytest.raises(IllegalAction, match="signs are agreed before the game"):
        table.act(TeamReady(seat=2))


def test_rule_3_2_time_for_signs_runs_out_and_no_private_note_is_taken_afterwards(
    new_table: TableMaker,
) -> None:
    table = new_table()
    driver = table.driver
    before = PrivateNote(sender=1, to=3, data=Signs(("wink",), None, 0, salt=b"1" * SALT_SIZE).note_data())
    assert driver.note_refused(before) is None and driver.noted(before) == [1, 3]
    table.act(TeamReady(seat=1, note=note_digest(before.data)))
    table.fire("ready_time")  # team 0 never said it agreed
    assert table.last("signs_closed")["missing"] == [0] and table.state.phase == "dealing"
    assert table.describe_last("signs_closed").endswith("(no signs for seat 0 and seat 2)")
    named = table.describe_last("signs_closed", "fr", names=["Ana", "Bea", "Chloé", "Dan"])
    assert named.endswith("(pas de signes pour Ana et Chloé)")
    late = PrivateNote(sender=0, to=2, data=Signs(("yawn",), None, 0).note_data())
    assert driver.note_refused(late) == NOTES_CLOSED
    assert driver.noted(late) == [] and table.deck.notes.get(0) is None  # dropped: nobody learns it
    # The note agreed in time is still taken when handed on again to a partner who came back: the log
    # holds its digest. Another, whatever it says of when it was written, is not.
    assert driver.note_refused(before) is None
    for backdated in (
        {**before.data, "salt": b"2" * SALT_SIZE},
        {**before.data, "signs": ["yawn"]},
        {**Signs(("yawn",), None, 0).note_data(), "written": 0},
    ):
        assert driver.note_refused(PrivateNote(sender=1, to=3, data=backdated)) == NOTES_CLOSED
    assert (
        driver.note_refused(PrivateNote(sender=0, to=2, data=before.data)) == NOTES_CLOSED
    )  # not its team's


def test_rule_3_2_a_team_that_chooses_again_before_play_commits_the_note_that_holds(
    new_table: TableMaker,
) -> None:
    """Partners may change their signs until the signs close: the team's first seat says so again, with
    the new note's digest, and only that note is taken afterwards; saying it again with the same note,
    or with none, is refused."""
    table = new_table()
    first = Signs(("wink",), None, 0, salt=b"1" * SALT_SIZE).note_data()
    second = Signs(("yawn",), None, 0, salt=b"2" * SALT_SIZE).note_data()
    table.act(TeamReady(seat=0, note=note_digest(first)))
    for again in (note_digest(first), b""):
        with pytest.raises(IllegalAction, match="team 0 has agreed its signs already"):
            table.act(TeamReady(seat=0, note=again))
    with pytest.raises(IllegalAction, match="a note's digest is 16 bytes"):
        table.act(TeamReady(seat=0, note=b"short"))
    table.act(TeamReady(seat=0, note=note_digest(second)))
    assert table.state.phase == "signing"  # team 1 has not agreed yet
    table.act(TeamReady(seat=1))
    assert table.state.phase == "dealing"
    assert table.driver.note_refused(PrivateNote(sender=0, to=2, data=first)) == NOTES_CLOSED
    assert table.driver.note_refused(PrivateNote(sender=0, to=2, data=second)) is None


@pytest.mark.parametrize(("signs", "agreed"), [("one", ("wink",)), ("multi", ("wink", "cough"))])
def test_rule_3_2_signs_one_or_multi_are_agreed_by_the_partners_only(
    new_table: TableMaker, signs: str, agreed: tuple[str, ...]
) -> None:
    """The agreement never enters the log (a ``PrivateNote`` between partners); only the two partners
    see it. Our choice: ``signs`` is how many signs partners agree (the bots pick one, or two with
    ``multi``); the table cannot see the agreement, so the view shows it as the partners made it."""
    table = new_table(signs=signs)
    assert table.state.options["signs"] == signs
    deal(table)
    before = table.engine.digest()
    table.deck.note(PrivateNote(sender=0, to=2, data=Signs(agreed, "yawn", 1).note_data()))
    assert table.engine.digest() == before
    assert [view(table, seat).signs for seat in range(4)] == [agreed, (), agreed, ()]
    assert [view(table, seat).presign for seat in range(4)] == ["yawn", None, "yawn", None]


# --- 3.3 The deal ---------------------------------------------------------------------------------


def test_rule_3_3_four_cards_each_one_at_a_time_from_the_dealer_s_left_the_rest_is_the_talon(
    new_table: TableMaker,
) -> None:
    table = new_table()
    effects = deal(table, settle=False)
    deck = effects[0]["tokens"]
    assert table.state.hands[1] == [deck[-1], deck[-5], deck[-9], deck[-13]]
    assert table.state.hands[0] == [deck[-4], deck[-8], deck[-12], deck[-16]]
    assert table.state.zones[TALON] == deck[:-16] and table.state.zones[TABLE] == []
    assert without_hints(effects)[1] == {"kind": "dealt", "round": 1, "dealer": 0}
    assert table.engine.awaiting() == [Duty("check_hand", seat=1, tokens=tuple(table.state.hands[1]))]
    refused(table, KeepHand(seat=0), "seat 1 checks its hand now")


@pytest.mark.parametrize("kings", [["KH", "KS", "KD"], ["KH", "KS", "KD", "KC"]])
def test_rule_3_3_three_or_four_of_a_rank_are_shown_put_back_reshuffled_and_redrawn(
    new_table: TableMaker, kings: list[str]
) -> None:
    table = new_table()
    deal(table, hands=[[], [*kings, "5C", "6D"][:4]], settle=False)
    kept = [face for face in table.hand(1) if face not in kings]
    shown = tokens(table, 1, kings)
    effects = table.act(Redraw(seat=1, tokens=shown, cards=tuple(kings)), settle=False)
    assert effects == [{"kind": "redrawn", "seat": 1, "cards": kings}]
    back = 36 + len(kings)
    assert all(token in table.state.zones[TALON] for token in shown) and len(table.state.zones[TALON]) == back
    assert table.engine.awaiting() == [Duty("shuffle")]
    effects = table.act(Shuffle(seed=b"redraw"), settle=False)
    assert effects[1] == {"kind": "talon_shuffled", "from": "talon", "cards": back}
    assert len(table.state.zones[TALON]) == 36
    assert not set(shown) & {t for zone in table.state.zones.values() for t in zone}  # new tokens
    assert not set(effects[0]["tokens"]) & set(table.state.faces)  # the Kings are face down again
    assert len(table.state.hands[1]) == 4 and table.hand(1)[: len(kept)] == kept
    assert table.engine.awaiting()[0] == Duty("check_hand", seat=1, tokens=tuple(table.state.hands[1]))


def test_rule_3_3_a_redrawn_hand_is_checked_again_until_nobody_holds_three_of_a_rank(
    new_table: TableMaker,
) -> None:
    table = new_table()
    deal(table, hands=[[], ["KH", "KS", "KD", "5C"]], settle=False)
    table.act(
        Redraw(seat=1, tokens=tokens(table, 1, ["KH", "KS", "KD"]), cards=("KH", "KS", "KD")), settle=False
    )
    table.act(Shuffle(seed=b"redraw"), settle=False)
    table.arrange(dict(zip(table.state.hands[1][1:], ["QH", "QS", "QD"], strict=True)))
    assert table.settle()[0] == {"kind": "redrawn", "seat": 1, "cards": ["QH", "QS", "QD"]}
    redraws = [e for e in table.effects if e["kind"] == "redrawn"]
    assert len(redraws) == 2 and table.state.phase == "hunt"
    checked = [e["seat"] for e in table.effects if e["kind"] in ("redrawn", "hand_kept")]
    assert checked == [1, 1, 1, 2, 3, 0]
    assert all(max(Counter(map(rank_of, table.hand(seat))).values()) < 3 for seat in range(4))


def test_rule_3_3_only_three_or_four_held_cards_of_one_rank_are_put_back(new_table: TableMaker) -> None:
    table = new_table()
    deal(table, hands=[["KC"], ["KH", "KS", "KD", "5C"]], settle=False)
    kings = tokens(table, 1, ["KH", "KS", "KD"])
    refused(table, Redraw(seat=1, tokens=kings[:2], cards=("KH", "KS")), "three or four cards of one rank")
    mixed = tokens(table, 1, ["KH", "KS", "5C"])
    refused(table, Redraw(seat=1, tokens=mixed, cards=("KH", "KS", "5C")), "three or four cards of one rank")
    foreign = (*kings[:2], *tokens(table, 0, ["KC"]))
    refused(table, Redraw(seat=1, tokens=foreign, cards=("KH", "KS", "KC")), "does not hold")
    refused(table, Redraw(seat=1, tokens=kings, cards=("KH", "KS", "KX")), "but card .* is K")
    refused_by_the_rules(
        table, Redraw(seat=1, tokens=kings, cards=("KH", "KS", "KX")), "not a card of this deck"
    )
    refused(table, Redraw(seat=2, tokens=kings, cards=("KH", "KS", "KD")), "seat 1 checks")


# --- 3.4 The hunt ---------------------------------------------------------------------------------


def test_rule_3_4_1_the_dealer_turns_four_cards_face_up_and_the_hunt_opens(new_table: TableMaker) -> None:
    table = new_table()
    deal(table, turned=TURNED, settle=False)
    keep_hands(table)
    top = tuple(reversed(table.state.zones[TALON][-4:]))
    assert table.engine.awaiting() == [Duty("turn", seat=0, tokens=top)]
    refused(table, Turn(seat=1, tokens=top, cards=tuple(TURNED)), "the dealer, seat 0, turns")
    refused(table, Turn(seat=0, tokens=top[:3], cards=tuple(TURNED[:3])), "not the ones dealt")
    refused_by_the_rules(
        table, Turn(seat=0, tokens=top[:3], cards=tuple(TURNED[:3])), "the next cards to turn"
    )
    effects = table.act(Turn(seat=0, tokens=top, cards=tuple(TURNED)), settle=False)
    assert effects == [{"kind": "turned", "cards": TURNED}, {"kind": "hunt_open", "table": TURNED}]
    assert table_faces(table) == TURNED and view(table, 3).table == tuple(zip(top, TURNED, strict=True))
    assert len(table.state.zones[TALON]) == 52 - 16 - 4 and table.state.phase == "hunt"


@pytest.mark.parametrize("first", [["9H", "9S", "9D", "2C"], NINES, ["3S", "9H", "9S", "9D"]])
def test_rule_3_4_1_three_of_a_rank_turned_go_to_the_bin_and_four_new_cards_are_turned(
    new_table: TableMaker, first: list[str]
) -> None:
    """Our reading of « they go to the bin and four new ones are turned »: all four turned cards go."""
    table = new_table()
    deal(table, turned=first, talon=NEXT)
    assert table_faces(table) == NEXT and table.state.phase == "hunt"
    assert [table.state.faces[t] for t in table.state.zones[BIN]] == first
    assert {"kind": "binned", "cards": first, "reason": "three"} in table.effects
    assert kinds(table.effects).count("hunt_open") == 1


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_rule_3_4_2_an_exchange_gives_k_cards_and_takes_k_table_cards(new_table: TableMaker, k: int) -> None:
    table = new_table()
    deal(table, hands=[["KH", "QS", "JD", "8C"]], turned=TURNED)
    give, take = ["KH", "QS", "JD", "8C"][:k], TURNED[:k]
    assert exchange(table, 0, give, take) == [{"kind": "exchanged", "seat": 0, "gave": give, "took": take}]
    assert sorted(table.hand(0)) == sorted(take + ["KH", "QS", "JD", "8C"][k:])
    assert sorted(table_faces(table)) == sorted(give + TURNED[k:])
    assert all(len(hand) == 4 for hand in table.state.hands)
    # the given cards lie face up; the taken ones are known to everyone, in the taker's hand
    assert view(table, 1).public_hands[0].count(None) == 4 - k


def test_rule_3_4_2_nobody_holds_more_than_four_cards_an_exchange_is_1_to_4_cards_each_way(
    new_table: TableMaker,
) -> None:
    table = new_table()
    deal(table, hands=[["KH", "QS", "JD", "8C"], ["KS"]], turned=TURNED)
    hand = tokens(table, 0, ["KH", "QS", "JD", "8C"])
    on_table = table_tokens(table, TURNED)
    same = "same number of cards, 1 to 4"
    refused(table, Exchange(seat=0, give=(), cards=(), take=()), same)
    refused(table, Exchange(seat=0, give=hand[:2], cards=("KH", "QS"), take=on_table[:1]), same)
    refused(table, Exchange(seat=0, give=hand[:1], cards=("KH",), take=on_table[:2]), same)
    five = (*hand, hand[0])
    refused(
        table,
        Exchange(seat=0, give=five, cards=("KH", "QS", "JD", "8C", "KH"), take=(*on_table, on_table[0])),
        same,
    )
    refused(
        table,
        Exchange(seat=0, give=hand[:2], cards=("KH", "QS"), take=(on_table[0], on_table[0])),
        "taken once",
    )
    refused(
        table,
        Exchange(seat=0, give=(hand[0], hand[0]), cards=("KH", "KH"), take=on_table[:2]),
        "does not hold",
    )
    theirs = tokens(table, 1, ["KS"])
    refused(table, Exchange(seat=0, give=theirs, cards=("KS",), take=on_table[:1]), "does not hold")
    refused(table, Exchange(seat=0, give=hand[:1], cards=("KH",), take=theirs), "no longer on the table")


def test_rule_3_4_2_two_players_take_the_same_table_card_the_first_logged_wins(new_table: TableMaker) -> None:
    """Both reach for the 2♣: seat 1's exchange is ordered first and happens; seat 3's, which also
    wanted the 3♦, does not happen at all: the 3♦ stays, seat 3 keeps its cards."""
    table = new_table()
    deal(table, hands=[[], ["KH"], [], ["QS", "QD"]], turned=TURNED)
    first = Exchange(seat=1, give=tokens(table, 1, ["KH"]), cards=("KH",), take=table_tokens(table, ["2C"]))
    second = Exchange(
        seat=3,
        give=tokens(table, 3, ["QS", "QD"]),
        cards=("QS", "QD"),
        take=table_tokens(table, ["3D", "2C"]),
    )
    table.act(first)
    hand_3 = list(table.state.hands[3])
    refused(table, second, "no longer on the table")
    assert table.state.hands[3] == hand_3 and "2C" in table.hand(1)
    assert table_faces(table) == ["KH", "3D", "4H", "5S"]
    assert not {t for t in second.give} & set(table.state.faces)  # seat 3's cards were not shown


def test_rule_3_4_2_exchanges_happen_during_the_hunt_only(new_table: TableMaker) -> None:
    table = new_table()
    deal(table, hands=[["KH"]], turned=TURNED, settle=False)
    keep_hands(table)
    top = tuple(reversed(table.state.zones[TALON][-4:]))
    refused(
        table, Exchange(seat=0, give=tokens(table, 0, ["KH"]), cards=("KH",), take=top[:1]), "no exchanging"
    )
    table.settle()
    call(table, 1)
    move = Exchange(seat=0, give=tokens(table, 0, ["KH"]), cards=("KH",), take=table_tokens(table, ["2C"]))
    refused(table, move, "no exchanging")


def test_rule_3_4_3_a_sweep_may_be_asked_only_after_sweep_after_ms_without_an_exchange(
    new_table: TableMaker,
) -> None:
    table = new_table(sweep_after_ms=1234)
    deal(table, hands=[["KH"]], turned=TURNED)
    opened = kems(table.state).quiet_since
    assert table.engine.awaiting() == [Duty("quiet", after_ms=1234, ref=opened)]
    refused(table, Sweep(seat=1), "after 1234 ms without an exchange")
    exchange(table, 0, ["KH"], ["2C"])
    restarted = kems(table.state).quiet_since
    assert restarted > opened and table.engine.awaiting() == [Duty("quiet", after_ms=1234, ref=restarted)]
    assert table.fire("quiet") == [{"kind": "quiet"}]
    assert table.engine.awaiting() == [] and view(table, 2).sweepable
    exchange(table, 0, ["2C"], ["KH"])  # an exchange after the quiet: the timer starts again
    refused(table, Sweep(seat=1), "after 1234 ms")
    table.fire("quiet")
    assert without_hints(table.act(Sweep(seat=1))) == [{"kind": "sweep_asked", "seat": 1}]


def test_rule_3_4_3_everyone_accepts_the_sweep_the_table_goes_to_the_bin_and_four_new_are_turned(
    new_table: TableMaker,
) -> None:
    table = new_table()
    deal(table, turned=TURNED, talon=NEXT)
    swept = list(table.state.zones[TABLE])
    table.fire("quiet")
    table.act(Sweep(seat=2))
    refused(table, SweepAnswer(seat=2, accept=True), "no sweep question to answer")
    table.act(SweepAnswer(seat=0, accept=True))
    refused(table, SweepAnswer(seat=0, accept=True), "no sweep question to answer")
    table.act(SweepAnswer(seat=1, accept=True))
    assert table_faces(table) == TURNED  # not before everyone answered
    effects = without_hints(table.act(SweepAnswer(seat=3, accept=True)))
    assert kinds(effects) == ["sweep_answered", "binned", "turned", "hunt_open"]
    assert effects[1] == {"kind": "binned", "cards": TURNED, "reason": "sweep"}
    assert table.state.zones[BIN] == swept and table_faces(table) == NEXT
    assert table.engine.awaiting()[0].kind == "quiet"


def test_rule_3_4_3_a_sweep_question_left_unanswered_is_accepted_by_the_silent(new_table: TableMaker) -> None:
    """``sweep_answer_ms`` after « Balayage ? » whoever has not answered accepts: a question cannot stall
    the table."""
    table = new_table(sweep_answer_ms=2500)
    deal(table, turned=TURNED, talon=NEXT)
    table.fire("quiet")
    table.act(Sweep(seat=2))
    table.act(SweepAnswer(seat=0, accept=True))
    timer = table.engine.awaiting()
    assert [(d.kind, d.after_ms) for d in timer] == [("sweep_time", 2500)]
    effects = without_hints(table.fire("sweep_time"))
    assert effects[:3] == [{"kind": "sweep_answered", "seat": seat, "accept": True} for seat in (1, 3)] + [
        {"kind": "binned", "cards": TURNED, "reason": "sweep"}
    ]
    assert table_faces(table) == NEXT and table.state.phase == "hunt"
    assert table.describe_last("sweep_answered") == "seat 3 agrees"


def test_rule_3_4_3_a_sweep_refused_then_accepted(new_table: TableMaker) -> None:
    """Seat 3 refuses: it must exchange right away (nobody else may, nor answer, nor call: from the
    question to the new « La chasse est ouverte ! » nobody calls). After its exchange the hunt goes on;
    a second sweep is accepted by all, and calls are refused until the new table is turned."""
    table = new_table()
    deal(table, hands=[SEVENS, [], ["8H"], ["KH"]], turned=TURNED, talon=NEXT)
    table.fire("quiet")
    table.act(Sweep(seat=1))
    refused(table, call_event(2), "during the hunt only")
    table.act(SweepAnswer(seat=0, accept=True))
    assert table.act(SweepAnswer(seat=3, accept=False)) == [
        {"kind": "sweep_answered", "seat": 3, "accept": False}
    ]
    assert table.state.phase == "refused" and view(table, 0).refuser == 3
    refused(table, SweepAnswer(seat=2, accept=True), "nobody asked for a sweep")
    move = Exchange(seat=2, give=tokens(table, 2, ["8H"]), cards=("8H",), take=table_tokens(table, ["2C"]))
    refused(table, move, "seat 3 refused the sweep and exchanges first")
    refused(table, call_event(2), "during the hunt only")
    refused(table, call_event(3), "during the hunt only")
    refused(table, Sweep(seat=0), "during the hunt")
    table.act(Gesture(seat=0, gesture="wink"))  # gestures are always allowed
    # The refuser's exchange is theirs to choose until sweep_answer_ms (a sweep cannot stall the table).
    asked_at, hand = kems(table.state).sweep_asked_at, tuple(table.state.hands[3])
    assert table.engine.awaiting() == [Duty("exchange", seat=3, tokens=hand, after_ms=5000, ref=asked_at)]
    exchange(table, 3, ["KH"], ["2C"])
    assert table.state.phase == "hunt" and table_faces(table) == ["KH", "3D", "4H", "5S"]
    assert not table.state.zones[BIN]
    table.fire("quiet")
    table.act(Sweep(seat=1))
    for seat in (0, 2):
        table.act(SweepAnswer(seat=seat, accept=True))
    table.act(SweepAnswer(seat=3, accept=True), settle=False)
    assert table.state.phase == "turning"
    refused(table, call_event(2), "during the hunt only")
    table.settle()
    assert table_faces(table) == NEXT
    assert sorted(table.state.faces[t] for t in table.state.zones[BIN]) == sorted(["KH", "3D", "4H", "5S"])
    call(table, 2)  # the hunt is open again
    assert table.state.phase == "calling"


def test_rule_3_4_4_when_the_talon_is_empty_the_bin_is_shuffled_and_becomes_the_talon(
    new_table: TableMaker,
) -> None:
    """Six players with 32 cards: 8 beside the hands, 4 turned, 4 in the talon. A first sweep empties
    the talon; at the second, the bin (8 cards) is shuffled into the talon before turning."""
    table = new_table(6, deck="32")
    deal(table, turned=["7H", "8H", "9H", "10H"], talon=["JH", "QH", "KH", "AH"])
    sweep_by_all(table)
    assert len(table.state.zones[TALON]) == 0 and len(table.state.zones[BIN]) == 4
    binned = table.state.zones[BIN] + table.state.zones[TABLE]
    effects = sweep_by_all(table, asker=3)
    assert kinds(effects)[-5:] == ["binned", "shuffled", "talon_shuffled", "turned", "hunt_open"]
    assert effects[-3] == {"kind": "talon_shuffled", "from": "bin", "cards": 8}
    shuffled_effect = next(e for e in effects if e["kind"] == "shuffled")
    assert sorted(shuffled_effect["from_tokens"]) == sorted(binned)
    assert not set(binned) & set(table.state.faces)  # the bin's cards are face down again, as new cards
    assert len(table.state.zones[TALON]) == 4 and table.state.zones[BIN] == []
    assert len(table.state.zones[TABLE]) == 4 and table.state.phase == "hunt"


def test_rule_3_4_4_the_talon_running_out_in_the_middle_of_a_turn(new_table: TableMaker) -> None:
    """Two cards are left in the talon when four are to be turned: they are turned, the bin becomes
    the talon, and two more are turned from it."""
    table = new_table()
    deal(table, turned=["2C", "3D"], settle=False)
    keep_hands(table)
    talon = table.state.zones[TALON]
    table.state.zones[BIN], table.state.zones[TALON] = talon[:-2], talon[-2:]  # as if binned before
    effects = table.settle()
    assert kinds(effects) == ["turned", "shuffled", "talon_shuffled", "turned", "hunt_open"]
    assert effects[0] == {"kind": "turned", "cards": ["2C", "3D"]}
    assert effects[2] == {"kind": "talon_shuffled", "from": "bin", "cards": 34}
    assert table_faces(table)[:2] == ["2C", "3D"] and len(table.state.zones[TABLE]) == 4
    assert table.state.zones[BIN] == [] and len(table.state.zones[TALON]) == 32
    assert table.state.phase == "hunt"


# --- 3.5 Calls and scoring ------------------------------------------------------------------------


def test_rule_3_5_kems_confirmed_the_team_scores_1(new_table: TableMaker) -> None:
    """Seat 0 holds four 7s; its partner, seat 2, calls « Kem's ! » naming no one; seat 0 shows."""
    table = new_table()
    deal(table, hands=[SEVENS], turned=TURNED)
    effects = without_hints(judged(table, 2))
    assert effects[0] == {"kind": "call_judged", "seat": 2, "call": "kems", "target": -1, "void": []}
    assert effects[1] == {"kind": "hand_shown", "seat": 0, "cards": SEVENS, "four": True}
    result = table.last("call_result")
    assert (result["result"], result["points"], result["team"], result["scores"]) == (
        "confirmed",
        1,
        0,
        [1, 0],
    )
    assert [table.state.faces.get(t) for t in table.state.hands[2]] == [None] * 4  # the caller shows nothing


def test_rule_3_5_kems_failed_the_team_loses_1(new_table: TableMaker) -> None:
    table = new_table()
    deal(table, hands=[["7H", "7S", "7D", "8C"]], turned=TURNED)
    judged(table, 2)
    result = table.last("call_result")
    assert (result["result"], result["points"], result["scores"]) == ("failed", -1, [-1, 0])
    assert table.state.scores == [-1, 0, -1, 0]


def test_rule_1_4_a_seat_that_withheld_its_keys_costs_its_team_1(new_table: TableMaker) -> None:
    """The record charges a seat it took over for withholding a fair deck's keys (``Withheld``): at
    Kem's its team loses 1, as for a call that failed."""
    table = new_table()
    deal(table, turned=TURNED)
    table.act(Withheld(seat=3))
    charged = table.last("team_charged")
    assert (charged["team"], charged["points"], charged["scores"]) == (1, -1, [0, -1])
    assert table.state.scores == [0, -1, 0, -1]
    assert table.describe_last("team_charged").startswith("seat 3 held the deal up: their team loses 1")
    assert table.describe_last("team_charged", "fr").startswith(
        "la place 3 a retenu la donne : son équipe perd 1"
    )


def test_rule_3_5_kems_and_double_kems_name_no_one(new_table: TableMaker) -> None:
    table = new_table()
    deal(table)
    refused(table, call_event(2, "kems", target=0), "name no one")
    refused(table, call_event(2, "double", target=1), "name no one")
    refused(table, call_event(2, "triple"), "not a call")


@pytest.mark.parametrize(
    ("caller", "partner", "result", "points"),
    [(SEVENS, NINES, "confirmed", 2), (["7H", "7S", "7D", "8C"], NINES, "failed", -2),
     (SEVENS, ["9H", "9S", "9D", "8C"], "failed", -2)],
)  # fmt: skip
def test_rule_3_5_double_kems_both_hands_shown_plus_2_or_minus_2(
    new_table: TableMaker, caller: list[str], partner: list[str], result: str, points: int
) -> None:
    table = new_table()
    deal(table, hands=[[], partner, [], caller], turned=TURNED)
    judged(table, 3, "double")
    shown = [e["seat"] for e in table.effects if e["kind"] == "hand_shown"]
    assert shown == [3, 1]
    outcome = table.last("call_result")
    assert (outcome["result"], outcome["points"], outcome["team"]) == (result, points, 1)
    assert kems(table.state).team_scores == [0, points]


def test_rule_3_5_contre_kems_confirmed_the_caller_s_team_scores_1(new_table: TableMaker) -> None:
    """Seat 1 names seat 0, who holds four 7s; seat 0's partner has no four: the Contre holds."""
    table = new_table()
    deal(table, hands=[SEVENS], turned=TURNED)
    judged(table, 1, "contre", target=0)
    shown = [(e["seat"], e["four"]) for e in table.effects if e["kind"] == "hand_shown"]
    assert shown == [(0, True), (2, False)]
    outcome = table.last("call_result")
    assert (outcome["result"], outcome["points"], outcome["scores"]) == ("confirmed", 1, [0, 1])


def test_rule_3_5_contre_kems_against_a_double_scores_nothing(new_table: TableMaker) -> None:
    table = new_table()
    deal(table, hands=[SEVENS, [], NINES], turned=TURNED)
    judged(table, 3, "contre", target=2)
    shown = [(e["seat"], e["four"]) for e in table.effects if e["kind"] == "hand_shown"]
    assert shown == [(2, True), (0, True)]
    outcome = table.last("call_result")
    assert (outcome["result"], outcome["points"], outcome["scores"]) == ("void", 0, [0, 0])
    assert kems(table.state).stats["contre"].void == 1
    assert table.state.phase == "dealing"  # whole hands were shown: the deal ends all the same


def test_rule_3_5_contre_kems_names_an_opponent(new_table: TableMaker) -> None:
    table = new_table()
    deal(table)
    refused(table, call_event(1, "contre", target=3), "names an opponent")
    refused(table, call_event(1, "contre", target=1), "names an opponent")
    refused(table, call_event(1, "contre", target=4), "names an opponent")
    refused(table, call_event(1, "contre"), "names an opponent")


def test_rule_3_5_a_failed_contre_two_cards_reach_the_caller_only_and_the_deal_goes_on(
    new_table: TableMaker,
) -> None:
    """Seat 1 names seat 0, who has no four: seat 0 shows two cards to seat 1 alone (the log names the
    tokens, never the faces), seat 1's team loses 1, seat 1 may not call Contre again this deal but may
    still call Kem's, and the hunt goes on."""
    table = new_table()
    deal(table, hands=[["KH", "KS", "QD", "JC"]], turned=TURNED)
    hands_before = [list(hand) for hand in table.state.hands]
    call(table, 1, "contre", target=0)
    table.act(Close(), settle=False)
    # RULES 3.5: the accused's to choose, for show_answer_ms; then the table chooses (as here).
    opened_by = kems(table.state).window_opened_by
    hand = tuple(table.state.hands[0])
    assert table.engine.awaiting() == [
        Duty("answer_contre", seat=0, tokens=hand, after_ms=5000, ref=opened_by)
    ]
    effects = table.fire("answer_contre")
    private = effects[0]
    assert private["kind"] == "shown_privately" and (private["to"], private["by"]) == (1, 0)
    two = private["tokens"]
    assert len(set(two)) == 2 and set(two) <= set(table.state.hands[0])
    assert not any(isinstance(value, str) and is_face(value) for e in effects for value in e.values())
    assert not set(two) & set(table.state.faces)  # not public
    faces = [table.deck.faces[t] for t in two]
    assert all(table.deck.knowledge(table.state, 1).faces.get(t) == table.deck.faces[t] for t in two)
    for seat in (2, 3):
        assert not set(two) & set(table.deck.knowledge(table.state, seat).faces)
    assert view(table, 1).shown_to_me == ((0, faces[0]), (0, faces[1]))
    assert [view(table, seat).shown_to_me for seat in (0, 2, 3)] == [(), (), ()]
    outcome = table.last("call_result")
    assert (outcome["result"], outcome["points"], outcome["scores"]) == ("failed", -1, [0, -1])
    # the deal goes on: nobody showed a whole hand, the same cards are held, the hunt resumes
    assert table.state.phase == "hunt" and kems(table.state).deals == 1
    assert "round_over" not in kinds(effects) and table.state.hands == hands_before
    assert view(table, 3).barred == (1,)
    refused(table, call_event(1, "contre", target=2), "may not call Contre Kem's again this deal")
    call(table, 3, "contre", target=0)  # the partner was not barred
    table.act(Close(), settle=False)
    table.fire("answer_contre")
    assert view(table, 3).barred == (1, 3)
    assert call(table, 1)[0]["opened"]  # a barred seat still calls Kem's


def test_rule_3_5_the_accused_chooses_two_cards_of_different_ranks(new_table: TableMaker) -> None:
    """RULES 3.5: the accused chooses the two cards, « of different ranks where they can », and a hand of
    four that is no four of a kind always can: two kings are refused, a king and the queen shown."""
    table = new_table()
    deal(table, hands=[["KH", "KS", "QD", "JC"]], turned=TURNED)
    call(table, 1, "contre", target=0)
    table.act(Close(), settle=False)
    kings = tokens(table, 0, ["KH", "KS"])
    for bad in [
        kings[:1],
        (kings[0], kings[0]),
        tokens(table, 0, ["KH", "KS", "QD"]),
        table.state.hands[1][:2],
    ]:
        refused(table, ShowTwo(seat=0, tokens=tuple(bad)), "two different cards of the accused's hand")
    refused(table, ShowTwo(seat=2, tokens=tokens(table, 2, table.hand(2)[:2])), "seat 0 answers the Contre")
    refused(table, ShowTwo(seat=0, tokens=kings), "of different ranks")
    king_and_queen = tokens(table, 0, ["KS", "QD"])
    table.act(ShowTwo(seat=0, tokens=king_and_queen))
    assert view(table, 1).shown_to_me == ((0, "KS"), (0, "QD"))


def test_rule_3_5_an_accused_holding_four_of_a_kind_may_not_answer_with_two_cards(
    new_table: TableMaker,
) -> None:
    """RULES 3.5: a Contre on a seat that holds four of a kind scores for the caller's team; answering
    with two cards (which would score the Contre as failed) is a false claim, refused with its reason."""
    table = new_table()
    deal(table, hands=[["9H", "9S", "9D", "9C"]], turned=TURNED)
    call(table, 1, "contre", target=0)
    table.act(Close(), settle=False)
    nines = tokens(table, 0, ["9H", "9S"])
    refused(
        table, ShowTwo(seat=0, tokens=nines), "seat 0 holds four of a kind: it answers the Contre by showing"
    )
    table.fire("answer_contre")  # the table answers for the seat: the whole hand, and the Contre holds
    results = [effect for effect in table.effects if effect["kind"] == "call_result"]
    assert [(r["seat"], r["call"], r["result"], r["points"]) for r in results] == [
        (1, "contre", "confirmed", 1)
    ]


def test_rule_3_5_an_accused_without_four_may_not_answer_by_showing_the_whole_hand(
    new_table: TableMaker,
) -> None:
    """RULES: without four of a kind, two cards go to the caller only and the deal goes on; showing
    the whole hand to everyone instead would end the deal and tell the caller's partner."""
    table = new_table()
    deal(table, hands=[["KH", "KS", "QD", "JC"]], turned=TURNED)
    call(table, 1, "contre", target=0)
    table.act(Close(), settle=False)
    hand = tuple(table.state.hands[0])
    refused(table, ShowHand(seat=0, tokens=hand, cards=("KH", "KS", "QD", "JC")), "two cards")


def test_rule_3_5_a_barred_caller_may_call_contre_again_next_deal(new_table: TableMaker) -> None:
    table = new_table()
    deal(table, hands=[["KH", "KS", "QD", "JC"]], turned=TURNED)
    judged(table, 1, "contre", target=0)
    judged(table, 2)  # seat 0 has no four: -1, the deal ends
    deal(table)
    assert view(table, 1).barred == ()
    assert call(table, 1, "contre", target=2)[0]["opened"]


def test_rule_3_5_calls_race_by_effective_time_the_later_one_logged_first_is_void(
    new_table: TableMaker,
) -> None:
    """Seat 2's Kem's is logged first but was made at 1000 ms; seat 1's Contre, logged after it, was
    made at 900 ms: the Contre counts, the Kem's is void."""
    table = new_table()
    deal(table, hands=[SEVENS], turned=TURNED)
    assert call(table, 2, at=1000.0)[0]["opened"]
    assert not call(table, 1, "contre", target=0, at=900.0)[0]["opened"]
    effects = without_hints(table.fire("close"))
    assert effects[0] == {"kind": "call_judged", "seat": 1, "call": "contre", "target": 0, "void": [2]}
    table.fire("answer_contre")  # seat 0 holds four: its hand is shown whole
    assert table.last("call_result")["scores"] == [0, 1]


def test_rule_3_5_calls_race_by_reaction_time_to_the_same_gesture(new_table: TableMaker) -> None:
    """Both react to seat 0's gesture (made at 500 ms): seat 2 after 300 ms, seat 3 after 150 ms. Seat
    3's Contre is logged second and its clock says 5000 ms, but its effective time is 650 ms: it counts."""
    table = new_table()
    deal(table, hands=[SEVENS], turned=TURNED)
    sign = table.act(Gesture(seat=0, gesture="wink", t_sync=500.0))[0]["seq"]
    assert call(table, 2, at=5000.0, trigger=sign, rt=300.0)[0]["effective"] == 800.0
    assert call(table, 3, "contre", target=0, at=5000.0, trigger=sign, rt=150.0)[0]["effective"] == 650.0
    assert table.fire("close")[0]["seat"] == 3


def test_a_call_quicker_than_a_person_is_refused(new_table: TableMaker) -> None:
    table = new_table()
    deal(table, hands=[SEVENS], turned=TURNED)
    sign = table.act(Gesture(seat=0, gesture="wink", t_sync=500.0))[0]["seq"]
    with pytest.raises(IllegalAction, match="a reaction in 40 ms is quicker than a person"):
        call(table, 2, at=5000.0, trigger=sign, rt=40.0)


def test_rule_3_5_a_seat_calls_once_per_window_and_the_window_lasts_call_window_ms(
    new_table: TableMaker,
) -> None:
    table = new_table(call_window_ms=250)
    deal(table, hands=[SEVENS], turned=TURNED)
    call(table, 2)
    opened = kems(table.state).window_opened_by
    assert table.engine.awaiting() == [Duty("close", after_ms=250, ref=opened)]
    refused(table, call_event(2, "double"), "already called")
    refused(table, Sweep(seat=1), "during the hunt")
    table.fire("close")
    assert table.last("call_result")["result"] == "confirmed"


def test_rule_3_5_calls_are_made_during_the_hunt_only(new_table: TableMaker) -> None:
    table = new_table()
    refused(table, call_event(2), "during the hunt only")  # before the first deal
    deal(table, hands=[SEVENS], turned=TURNED, settle=False)
    refused(table, call_event(2), "during the hunt only")  # checking
    keep_hands(table)
    refused(table, call_event(2), "during the hunt only")  # turning
    table.settle()
    call(table, 2)
    table.act(Close(), settle=False)
    refused(table, call_event(1, "contre", target=0), "during the hunt only")  # showing
    table.settle()
    refused(table, call_event(1, "contre", target=0), "during the hunt only")  # between deals


CALLS_THAT_SHOW_A_HAND = {
    "kems confirmed": ([SEVENS], 2, "kems", -1),
    "kems failed": ([], 2, "kems", -1),
    "double": ([SEVENS, [], NINES], 2, "double", -1),
    "contre confirmed": ([SEVENS], 1, "contre", 0),
    "contre against a double": ([SEVENS, [], NINES], 1, "contre", 0),
}


@pytest.mark.parametrize("case", CALLS_THAT_SHOW_A_HAND)
def test_rule_3_5_every_call_that_shows_a_whole_hand_ends_the_deal_and_the_next_dealer_deals(
    new_table: TableMaker, case: str
) -> None:
    hands, seat, kind, target = CALLS_THAT_SHOW_A_HAND[case]
    table = new_table()
    deal(table, hands=hands, turned=TURNED)
    effects = judged(table, seat, kind, target)
    assert kinds(effects)[-1] == "round_over" and table.state.phase == "dealing"
    assert table.engine.awaiting() == [Duty("deal")]
    refused(table, call_event(3, "contre", target=0), "during the hunt only")
    effects = without_hints(deal(table, settle=False))
    assert effects[1] == {"kind": "dealt", "round": 2, "dealer": 1}
    assert kems(table.state).to_check == [2, 3, 0, 1]
    table.settle()
    assert table.state.phase == "hunt" and len(table.state.zones[TABLE]) == 4


def test_rule_3_5_the_game_is_played_to_target_and_the_first_team_there_wins(new_table: TableMaker) -> None:
    table = new_table(target=2)
    deal(table, hands=[[], SEVENS], turned=TURNED)
    judged(table, 3)
    assert table.state.phase == "dealing" and table.rules.caller("kdm_winners")(state=table.state) == []
    deal(table, hands=[[], [], [], NINES], turned=TURNED)
    effects = judged(table, 1)
    assert effects[-1] == {"kind": "game_over", "winners": [1, 3], "team": 1}
    assert table.engine.over and kems(table.state).team_scores == [0, 2]
    assert table.rules.caller("kdm_winners")(state=table.state) == [1, 3]
    summary = table.rules.caller("kdm_summary")(state=table.state)
    assert summary["winner"] == 1 and summary["deals"] == 2
    refused(table, Gesture(seat=0, gesture="sigh"), "the game is over")


def test_rule_3_5_a_team_below_target_plays_on(new_table: TableMaker) -> None:
    table = new_table()  # target 10
    deal(table, hands=[SEVENS, [], NINES], turned=TURNED)
    judged(table, 0, "double")
    assert kems(table.state).team_scores == [2, 0] and not table.engine.over


def test_rule_3_5_the_quiet_timer_does_not_run_outside_the_hunt(new_table: TableMaker) -> None:
    table = new_table()
    deal(table, hands=[SEVENS], turned=TURNED)
    call(table, 2)
    refused(table, Quiet(), "the hunt is not on")


def test_the_kems_log_names_people_and_teams() -> None:
    """Issue 13: a team is its two players (RULES 3.1: partners sit opposite), not "team 0"."""
    rules = Rules.for_table(["kems"])
    names = ["Ana", "Bea", "Chloé", "Dan"]
    over = {"kind": "round_over", "round": 3, "scores": [2, -1]}
    assert rules.describe(over, "en", names) == "end of deal 3; totals: Ana and Chloé 2, Bea and Dan -1"
    assert rules.describe(over, "fr", names) == "fin de la donne 3 ; totaux : Ana et Chloé 2, Bea et Dan -1"
    won = {"kind": "game_over", "winners": [1, 3], "team": 1}
    assert rules.describe(won, "en", names) == "Bea and Dan win the game"
    contre = {"kind": "called", "seat": 0, "call": "contre", "target": 3}
    assert rules.describe(contre, "en", names) == "Ana: « Contre Kem's ! » (against Dan)"


def test_rule_3_4_3_a_refuser_who_lets_the_time_run_out_gives_the_first_card_for_the_first_table_card(
    new_table: TableMaker,
) -> None:
    """RULES 3.4.3: a refuser's exchange cannot stall the table: after ``sweep_answer_ms`` their first
    card goes for the first table card, and the hunt goes on."""
    table = new_table()
    deal(table, hands=[SEVENS, [], ["8H"], ["KH"]], turned=TURNED, talon=NEXT)
    table.fire("quiet")
    table.act(Sweep(seat=1))
    table.act(SweepAnswer(seat=3, accept=False))
    first, first_on_table = table.hand(3)[0], table_faces(table)[0]
    effects = without_hints(table.fire("exchange"))
    assert effects == [{"kind": "exchanged", "seat": 3, "gave": [first], "took": [first_on_table]}]
    assert table.state.phase == "hunt" and table_faces(table)[0] == first


def test_rule_3_5_an_accused_who_lets_the_time_run_out_shows_two_cards_the_table_chooses(
    new_table: TableMaker,
) -> None:
    """RULES 3.5: the accused chooses within ``show_answer_ms``; after it the table shows two of different
    ranks, to the caller only, and the deal goes on."""
    table = new_table(show_answer_ms=2000)
    deal(table, hands=[["KH", "KS", "QD", "JC"]], turned=TURNED)
    call(table, 1, "contre", target=0)
    table.act(Close(), settle=False)
    (duty,) = table.engine.awaiting()
    assert (duty.kind, duty.seat, duty.after_ms) == ("answer_contre", 0, 2000)
    shown = table.fire("answer_contre")[0]
    assert (shown["kind"], shown["by"], shown["to"]) == ("shown_privately", 0, 1)
    faces = [table.deck.faces[token] for token in shown["tokens"]]
    assert len({rank_of(face) for face in faces}) == 2 and table.state.phase == "hunt"
