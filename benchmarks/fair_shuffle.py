"""The arithmetic of a fair shuffle and deal (``kdm.fair``), on one core: what the players' laptops
compute, one after the other, before the first card can be read, with no network in between.

Both passes go around the table in seat order, so a table waits for the sum of every player's work:
``shuffle_ms`` is that sum for passes one and two over the whole deck (the Kilo de merde deck of 52
cards, whatever the number of players: the pile is shuffled with the dealt cards). ``deal_ms`` is what
every player then computes to read their own four cards: checking the other players' keys for each
against their commitments and taking the keys off. ``audit_ms`` is one peer replaying the whole round at
its end (``kdm.fair.shuffle.audit``). ``prove_ms`` is what every player adds to its two turns to prove
them (``kdm.fair.proofs``: one proof for its lock, one per card for its keys), summed over the table like
``shuffle_ms``; ``check_ms`` is what one peer computes to check every turn's proofs as the log brings
them, before the first card is dealt. Also the unit costs: one scalar multiplication, one commitment.

Prints one JSON object per table size, with the median and the spread over ``--runs`` runs.

    python benchmarks/fair_shuffle.py [--players 4 10] [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable

from kdm.cards import full_deck
from kdm.fair.group import BASE, card_point, commitment, invert, lock, product, random_key, sum_of
from kdm.fair.proofs import prove, proves
from kdm.fair.shuffle import audit, check_key, deal_secrets, face_of, open_deck, reveal, shuffle_round

TABLE = "bench~table"
HAND = 4


def timed(work: Callable[[], object]) -> float:
    started = time.perf_counter()
    work()
    return (time.perf_counter() - started) * 1000.0


def one_table(players: int) -> dict[str, float]:
    faces = full_deck()
    table_secrets = [deal_secrets(len(faces)) for _ in range(players)]
    committed = [secrets.commitments() for secrets in table_secrets]
    decks: list[tuple[list[list[bytes]], list[list[bytes]]]] = []
    shuffle_ms = timed(lambda: decks.append(shuffle_round(faces, TABLE, table_secrets)))
    first, second = decks[0]
    deck = second[-1]

    def deal_one_hand() -> None:  # seat 0 reads positions 0-3: the others' keys checked, all taken off
        for position in range(HAND):
            keys = [secrets.position_keys[position] for secrets in table_secrets]
            for seat in range(1, players):
                assert check_key(committed[seat][position], keys[seat], seat, position) is None
            assert face_of(reveal(deck[position], keys), faces, TABLE) is not None

    deal_ms = timed(deal_one_hand)
    audit_ms = timed(lambda: audit(faces, TABLE, first, second, table_secrets, committed))
    # Each turn's proofs, as kdm.fair.turns makes and checks them: the deck each seat was handed, what
    # it made, and the key that took one to the other.
    handed = [open_deck(faces, TABLE), *first[:-1]], [first[-1], *second[:-1]]
    keys = [commitment(secrets.deck_key) for secrets in table_secrets]
    proofs: list[tuple[bytes, list[bytes]]] = []

    def prove_all() -> None:
        for seat, secrets in enumerate(table_secrets):
            locked = prove(secrets.deck_key, sum_of(handed[0][seat]), sum_of(first[seat]), BASE, keys[seat])
            off = invert(secrets.deck_key)
            positions = [
                prove(product(off, key), point, new, keys[seat], committed[seat][position])
                for position, (point, new, key) in enumerate(
                    zip(handed[1][seat], second[seat], secrets.position_keys, strict=True)
                )
            ]
            proofs.append((locked, positions))

    def check_all() -> None:
        for seat, (locked, positions) in enumerate(proofs):
            assert proves(locked, sum_of(handed[0][seat]), sum_of(first[seat]), BASE, keys[seat])
            for position, (point, new) in enumerate(zip(handed[1][seat], second[seat], strict=True)):
                assert proves(positions[position], point, new, keys[seat], committed[seat][position])

    prove_ms = timed(prove_all)
    check_ms = timed(check_all)
    return {
        "shuffle_ms": shuffle_ms, "deal_ms": deal_ms, "audit_ms": audit_ms, "prove_ms": prove_ms,
        "check_ms": check_ms,
    }  # fmt: skip


def spread(values: list[float]) -> dict[str, float]:
    return {
        "median": round(statistics.median(values), 2),
        "min": round(min(values), 2),
        "max": round(max(values), 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="+", default=[4, 10])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    point, key = card_point("QH", TABLE), random_key()
    unit_runs = 200
    lock_ms = timed(lambda: [lock(point, key) for _ in range(unit_runs)]) / unit_runs
    commit_ms = timed(lambda: [commitment(key) for _ in range(unit_runs)]) / unit_runs
    for players in args.players:
        runs = [one_table(players) for _ in range(args.runs)]
        figure: dict[str, object] = {"figure": "fair_shuffle", "players": players, "cards": len(full_deck())}
        for name in ("shuffle_ms", "prove_ms", "check_ms", "deal_ms", "audit_ms"):
            figure[name] = spread([run[name] for run in runs])
        figure.update(runs=args.runs, lock_ms=round(lock_ms, 4), commitment_ms=round(commit_ms, 4))
        print(json.dumps(figure), flush=True)


if __name__ == "__main__":
    main()
