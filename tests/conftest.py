"""What every test shares: outside the network namespaces a test builds, kdm uses loopback only.

With no ``KDM_INTERFACE``, kdm listens on every interface and multicasts mDNS on each (what a player
wants); the suite must never do that on the machine's own interfaces. Set here, before any test runs,
it reaches every process a test starts too. ``tests/helpers/netns.py`` takes it away inside the namespaces it
builds, where the no-flag behaviour is tested as a player would meet it. The same goes for the
user config directory (``XDG_CONFIG_HOME``): a temporary one for the run.

On several workers (``make test`` runs one per core), the tests of a module in ``ONE_WORKER_MODULES``
all run on one worker: a module fixture that plays whole games is played once, not once per worker.

Tests marked ``slow`` (the chaos soak) are long runs behind a flag: without ``KDM_SLOW=1`` they are
deselected, not skipped, so that a skip under ``CI=true`` still means something is missing.

The suite comes in layers (``make check`` runs the quick one, ``make test`` everything): a test that
starts a process is marked ``processes``, one that builds network namespaces ``netns``, one that drives
tmux ``tmux`` (pyproject's ``markers``). The marking cannot be forgotten: every process, however it is
started (``subprocess``, asyncio, a helper), goes through ``subprocess.Popen``, which fails a test that
starts one without its marker (``ip`` and ``unshare`` need ``netns``, ``tmux`` needs ``tmux``, anything
else any of the three), so a new test cannot slip into ``make check`` unmarked.
"""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import tempfile
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from kdm.net import wire
from kdm.session import INTERFACE_ENV

os.environ[INTERFACE_ENV] = "127.0.0.1"

# Every message the suite's peers encode is decoded again at once (``kdm.net.wire.CHECK_ENCODED``), in
# this process and in every process it starts: a sender's bug fails where it is made.
os.environ[wire.CHECK_ENCODED_ENV] = "1"
wire.CHECK_ENCODED = True

# The names a player gives are remembered in the user config directory (kdm.settings): the suite keeps
# its own, removed at the end, and never changes the ones of whoever runs it.
_config_home = tempfile.mkdtemp(prefix="kdm-tests-config-")
os.environ["XDG_CONFIG_HOME"] = _config_home
atexit.register(shutil.rmtree, _config_home, ignore_errors=True)


#: The modules whose tests one worker runs, all of them: each has a module fixture that plays whole
#: games between real processes.
ONE_WORKER_MODULES = frozenset({"tests/test_adversary.py"})


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """xdist's ``load`` (its default), but each module of ``ONE_WORKER_MODULES`` as one unit of work
    (its ``xdist_group`` mark does not reach the scheduler under pytest 9.2, whose node ids xdist 3.8
    can no longer tag)."""
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ModulesKeptTogether(LoadScopeScheduling):  # type: ignore[misc]
        # (The method xdist's own loadfile and loadgroup schedulers override: the unit a test is in.)
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            return module if module in ONE_WORKER_MODULES else nodeid

    return ModulesKeptTogether(config, log)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get("KDM_SLOW") == "1":
        return
    slow = [item for item in items if item.get_closest_marker("slow") is not None]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if item.get_closest_marker("slow") is None]


#: The markers under which a test may start processes, and the programs that need one in particular.
MAY_START = ("processes", "netns", "tmux")
NEEDS = {"ip": "netns", "unshare": "netns", "nsenter": "netns", "tmux": "tmux"}
#: The tests being run, innermost last (a pytester test runs tests inside a test).
_running: list[pytest.Item] = []
_unmarked = pytest.StashKey[str]()
_start_process = subprocess.Popen.__init__


def unmarked_start(item: pytest.Item, args: Any, shell: bool) -> str | None:
    """Why ``item`` may not start the program ``args``, or None if its markers allow it."""
    if isinstance(args, (str, bytes, os.PathLike)):
        args = os.fsdecode(args).split()[:1] if shell else [args]
    program = Path(os.fsdecode(next(iter(args), ""))).name
    marked = {marker.name for marker in item.iter_markers()}
    needed = NEEDS.get(program)
    if (needed is None and marked & set(MAY_START)) or needed in marked:
        return None
    marker = needed or "processes"
    return (
        f"{item.nodeid} starts {program!r} but is not marked {marker!r}: add @pytest.mark.{marker} "
        f"(or pytestmark = pytest.mark.{marker} for the module), so that `make check` leaves it out"
    )


def _guarded_start(self: subprocess.Popen[Any], args: Any, *rest: Any, **options: Any) -> None:
    if _running:
        problem = unmarked_start(_running[-1], args, bool(options.get("shell")))
        if problem is not None:
            _running[-1].stash[_unmarked] = problem  # failed after the call too, if caught on its way
            pytest.fail(problem, pytrace=False)
    _start_process(self, args, *rest, **options)


subprocess.Popen.__init__ = _guarded_start  # type: ignore[method-assign]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, None, None]:
    _running.append(item)
    try:
        yield
    finally:
        _running.pop()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, Any, None]:
    """Fails the test if it started a process unmarked, though the failure was caught on its way (in a
    thread, a task, an ``except BaseException``)."""
    outcome = yield
    problem = item.stash.get(_unmarked, None)
    if problem is not None and outcome.excinfo is None:
        outcome.force_exception(pytest.fail.Exception(problem, pytrace=False))
