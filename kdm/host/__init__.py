"""A table's host without I/O (``TableHost``): what every process at a table runs, behind one
``step(input) → outputs`` whose inputs and outputs are typed (``kdm.host.io``). The peer
(``kdm.peer``) carries its outputs to the network; a replay (``kdm.replay``) hands it a kept log."""

from kdm.host.io import (
    Committed,
    CreateTable,
    Input,
    JoinTable,
    LeaderChanged,
    MembershipChanged,
    NodeView,
    Output,
    Play,
    Propose,
    Received,
    Say,
    Send,
    SendNote,
    StartGame,
    TableFinished,
    TakeOver,
    TakeOverWithWord,
    Tell,
    Tick,
)
from kdm.host.table import Agent, TableHost

__all__ = [
    "Agent",
    "Committed",
    "CreateTable",
    "Input",
    "JoinTable",
    "LeaderChanged",
    "MembershipChanged",
    "NodeView",
    "Output",
    "Play",
    "Propose",
    "Received",
    "Say",
    "Send",
    "SendNote",
    "StartGame",
    "TableFinished",
    "TableHost",
    "TakeOver",
    "TakeOverWithWord",
    "Tell",
    "Tick",
]
