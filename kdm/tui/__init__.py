"""The terminal client (DESIGN 6): the lobby, the waiting room and the table screen of ``kdm play``.

Like ptpython, each screen is a state object (``state``), a layout (``layout``) and key bindings
(``keys``), joined in ``app`` with injectable input and output; ``text`` holds every string in English
and French; ``command`` is the ``kdm play`` subcommand.

What a plugin adds to the table screen (keys, panel lines, marks, hints, help, words) is its
``ScreenPart`` (``extension``, the ``kdm_tui`` hook), woven in by ``plugin_panels``: every built-in
variant gives its own from a ``*_screen`` module, as third parties' rules do (``examples/aceback``).
A game mode may bring a whole screen of its own (``ScreenPart.screen``, a ``GameScreen``), shown
instead of the base game's while the seat's view has the game's part: Kem's does, from its package
(``kdm.plugins.kems.screen``), in the same three parts.
"""
