"""The terminal client (DESIGN 6): the lobby, the waiting room and the table screen of ``kdm play``.

Like ptpython, each screen is a state object (``state``), a layout (``layout``) and key bindings
(``keys``), joined in ``app`` with injectable input and output; ``text`` holds every string in English
and French; ``command`` is the ``kdm play`` subcommand.
"""
