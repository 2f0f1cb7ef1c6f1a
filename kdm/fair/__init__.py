"""Fair dealing (DESIGN §7, issue 14): a deck no peer can read, not even the one that shuffles.

``group`` is the arithmetic (edwards25519 through PyNaCl); ``shuffle`` the two-pass shuffle with a key
per deck position, the reveals and the audit, as pure functions of the messages the players exchange;
``keyring`` what one seat holds of a shuffle (its keys, the keys it was handed, checked) and so reads;
``table`` the deck service of a fair table (``--deck fair``), over the log and direct messages, which
composes ``state`` (what the log says, and what this process holds), ``turns`` (the shuffles' turns),
``handing`` (which keys go to whom), ``audits`` (opening shuffles and auditing them) and ``timings``.
"""
