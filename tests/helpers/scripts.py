"""A benchmark script run as its test runs it: in a session of its own, so that a run past its time is
stopped with every process it started (a table's node processes outlived their script, killed alone at
its timeout, and loaded the tests after it for as long as the suite ran)."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Mapping, Sequence


def run_script(
    argv: Sequence[str], timeout: float, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` to its end (in ``env``, else ours), its output read as text, like ``subprocess.run``;
    past ``timeout`` seconds, kill its whole process group, then raise ``subprocess.TimeoutExpired``."""
    with subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True, env=env
    ) as process:
        try:
            out, err = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            out, err = process.communicate()
            raise subprocess.TimeoutExpired(process.args, timeout, out, err) from None
        return subprocess.CompletedProcess(process.args, process.returncode, out, err)
