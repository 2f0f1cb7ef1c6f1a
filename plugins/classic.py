"""RULES 2.6 the ``classic`` preset (seed 001): ``marathon`` + ``direction=left`` + ``flush_to=shuffle``.

Owns nothing but a choice of options: it brings ``marathon`` to the table (``KDM_REQUIRES``) and sets
the two options' values unless the table is given others.
"""

from __future__ import annotations

from typing import Any

from kdm.hookspecs import hookimpl

NAME = "classic"
KDM_REQUIRES = ("kilo", "marathon")


@hookimpl
def kdm_option_defaults(players: int) -> dict[str, Any]:
    return {"direction": "left", "flush_to": "shuffle"}
