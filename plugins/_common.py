"""What the built-in Kilo de merde variants share: the check that the table plays Kilo de merde."""

from __future__ import annotations

BASE_GAME = "kilo"


def needs_base_game(variant: str, plugins: list[str]) -> str | None:
    """Refuse a Kilo de merde variant at a table that plays another game (a mode such as Kem's)."""
    if BASE_GAME in plugins:
        return None
    return f"{variant} is a Kilo de merde variant; this table plays another game ({', '.join(plugins)})"
