"""The terminal client (DESIGN 6): the lobby, the waiting room and the table screen of ``kdm play``.

Like ptpython, each screen is a state object (``state``), a layout (``layout``) and key bindings
(``keys``), joined in ``app`` with injectable input and output; ``text`` holds every string in English
and French; ``command`` is the ``kdm play`` subcommand. The house rules' parts of the table screen are
``variants`` (their view parts and the events their keys send) and ``variant_panels`` (what they show).
Kem's, another game, has a screen of its own in the same three parts (``kems_state``, ``kems_layout``,
``kems_keys``, with ``kems_panels`` and ``kems_text``), shown while the seat's view has a Kem's part.
"""
