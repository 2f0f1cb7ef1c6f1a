"""The terminal client (DESIGN 6): the lobby, the waiting room and the table screen of ``kdm play``.

Like ptpython, each screen is a state object (``state``), a layout (``layout``) and key bindings
(``keys``), joined in ``app`` with injectable input and output; ``text`` holds every string in English
and French; ``command`` is the ``kdm play`` subcommand.

What a plugin adds to the table screen (keys, panel lines, marks, hints, help, words) is its
``ScreenPart`` (``extension``, the ``kdm_tui`` hook): the piles variant and third parties' rules
(``examples/aceback``) use it; the other built-in variants' parts are still ``variants`` (their view
parts and the events their keys send) and ``variant_panels`` (what they show).
Kem's, another game, has a screen of its own in the same three parts (``kems_state``, ``kems_layout``,
``kems_keys``, with ``kems_panels`` and ``kems_text``), shown while the seat's view has a Kem's part.
"""
