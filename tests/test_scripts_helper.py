"""``tests.helpers.scripts.run_script``: a benchmark run past its time is stopped with every process it
started, so that none loads the tests after it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.scripts import run_script

pytestmark = pytest.mark.processes

#: A script that starts a child which would sleep for ten minutes, says its pid, and waits on it.
PARENT = """
import subprocess, sys
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
print(child.pid, flush=True)
child.wait()
"""


def test_a_script_past_its_time_is_stopped_with_the_processes_it_started() -> None:
    with pytest.raises(subprocess.TimeoutExpired) as stopped:
        run_script([sys.executable, "-c", PARENT], timeout=2.0)
    output = stopped.value.output
    child = int(output if isinstance(output, str) else output.decode())
    assert not running(child)  # killed with its parent's group


def running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a killed one may linger as a zombie until someone reaps it)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_a_script_that_ends_gives_its_status_and_output() -> None:
    done = run_script([sys.executable, "-c", "import sys; print('out'); print('err', file=sys.stderr)"], 60)
    assert (done.returncode, done.stdout, done.stderr) == (0, "out\n", "err\n")
