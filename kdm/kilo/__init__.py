"""Kilo de merde, the base game, as a plugin like any other (RULES 1 and 2).

``rules`` holds the game's public data and every hook that plays it; ``bots`` its greedy and random
bots; ``calls`` what the table says, in English and French. The core (``kdm.engine``, ``kdm.record``,
``kdm.peer`` ...) reaches the game only through the hooks these modules implement.
"""
