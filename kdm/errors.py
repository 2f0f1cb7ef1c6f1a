"""The exceptions kdm raises, in one place.

KdmError
├── UsageError        a person asked for something not allowed: one line, exit status 2
│   ├── OptionError   a table option's name or value
│   ├── TableError    a table that cannot be made (player count, incompatible plugins)
│   ├── PluginError   a plugin that is missing, unknown or broken
│   └── PinRefused    a table wants a PIN, or another one than given
└── IllegalAction     (kdm.engine) an event the rules do not allow now; the table goes on
"""

from __future__ import annotations


class KdmError(Exception):
    """Base of kdm's own exceptions."""


class UsageError(KdmError):
    """A person asked for something not allowed. The message says what is wrong and what is allowed."""


class OptionError(UsageError):
    """A table option's name or value is not allowed."""


class TableError(UsageError):
    """A table cannot be made as asked."""


class PluginError(UsageError):
    """A plugin is missing, unknown, or does not fit its hooks."""


class PinRefused(UsageError):
    """A table has a PIN and this process gave none, or a wrong one (the lobby then asks for it)."""
