"""The harness of the tables of real processes (``tests/helpers/processes.py``): waiting for a game to
end fails on a table that stops, not on a game that a long deal made long."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers.processes import Table, start

pytestmark = pytest.mark.processes

#: A process that says back each line it is told, and ends when its input does.
ECHO = [sys.executable, "-c", "import sys\nfor line in sys.stdin: print(line, end='', flush=True)"]
#: A process that says nothing and never ends by itself.
MUTE = [sys.executable, "-c", "import time\ntime.sleep(3600)"]

#: Long enough for an interpreter to start and echo with another job on both cores.
SILENT_S = 1.5


def test_a_table_that_talks_is_waited_for_past_the_silence_it_may_keep(tmp_path: Path) -> None:
    scene = Table(tmp_path)
    process, output = start(program=ECHO, stdin=subprocess.PIPE)
    scene.processes.append(process)
    scene.outputs.append(output)
    assert process.stdin is not None
    started = time.monotonic()

    def talk() -> None:  # a line each look, for twice the silence allowed, then the end
        if process.stdin is None or process.stdin.closed:
            return
        if time.monotonic() - started < 2 * SILENT_S:
            process.stdin.write("a move\n")
            process.stdin.flush()
        else:
            process.stdin.close()

    try:
        scene.wait_all(look=talk, silent_s=SILENT_S)
    finally:
        scene.stop()
    assert time.monotonic() - started >= 2 * SILENT_S
    assert process.returncode == 0 and len(output.lines) > 1


def test_a_table_that_says_nothing_fails_once_its_silence_is_too_long(tmp_path: Path) -> None:
    scene = Table(tmp_path)
    for program in (ECHO, MUTE):
        process, output = start(program=program, stdin=subprocess.PIPE)
        scene.processes.append(process)
        scene.outputs.append(output)
    try:
        with pytest.raises(AssertionError, match=r"processes \[0, 1\] run, and none said a word in \d+ s"):
            scene.wait_all(silent_s=SILENT_S)
    finally:
        scene.stop()
    assert all(process.returncode is not None for process in scene.processes)
