"""The terminal client (DESIGN 6): the lobby, the waiting room and the table screen of ``kdm play``.

Like ptpython, each screen is a state object (``state``), a layout (``layout``) and key bindings
(``keys``), joined in ``app`` with injectable input and output; ``text`` holds every string in English
and French; ``command`` is the ``kdm play`` subcommand.

This package is the shell every game shares: the waiting room, the log, chat, help, scores and the
table's questions. The table screen of a game comes from the game's plugin (``ScreenPart.screen``, a
``GameScreen`` made through the ``kdm_tui`` hook), shown instead of the waiting room while the seat's
view has the game's part: the base game's (``kdm.plugins.kilo.screen``), Kem's
(``kdm.plugins.kems.screen``) and a third party's (``examples/snap``) are each made of the same three
parts. What a house rule adds to its game's screen (keys, panel lines, marks, hints, help, words) is
its ``ScreenPart`` (``extension``), woven in by ``plugin_panels`` and ``keys.plugin_bindings``: every
built-in variant gives its own from a ``*_screen`` module, as third parties' rules do
(``examples/aceback``).
"""
