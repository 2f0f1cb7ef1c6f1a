"""The kdm processes this one starts (bots, selfplay peers) import the installed kdm, whatever folder
they are started in, and a bot that cannot sit is told to the player instead of a table that waits.

The bug (issue "A first evening that works"): ``cd ~ && kdm/.venv/bin/kdm play --bots 3``, where ``~/kdm``
is the clone, started its bots as ``python -m kdm``, which imports the ``kdm`` folder of the current
directory first: they died on an ImportError, and the table waited for them for ever, saying nothing.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input

from kdm import __version__, session
from kdm.launcher import kdm_command
from kdm.session import SessionConfig
from kdm.tui.app import TableUI
from tests.helpers.tui import DEADLINE_S, Screen80x24

pytestmark = pytest.mark.processes

KDM = Path(sys.executable).with_name("kdm")  # the console script, as a player runs it
DECOY = "raise ImportError('this is not the kdm package: a folder of the current directory')\n"


@pytest.fixture
def shadowing_folder(tmp_path: Path) -> Path:
    """A current directory holding a folder ``kdm`` that is not the package (and breaks if imported)."""
    (tmp_path / "kdm").mkdir()
    (tmp_path / "kdm" / "__init__.py").write_text(DECOY)
    return tmp_path


def test_a_kdm_child_runs_the_installed_kdm_from_a_folder_that_holds_a_kdm_folder(
    shadowing_folder: Path,
) -> None:
    done = subprocess.run(
        kdm_command(["--version"]), cwd=shadowing_folder, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"kdm {__version__}"


def test_a_kdm_child_runs_from_the_parent_of_the_clone(tmp_path: Path) -> None:
    """``cd ..`` from the clone, which is named ``kdm``: its folder shadows the package too."""
    (tmp_path / "kdm").symlink_to(Path(__file__).resolve().parent.parent)
    done = subprocess.run(
        kdm_command(["--version"]), cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr


def test_the_bots_a_host_starts_sit_and_play_from_a_folder_that_holds_a_kdm_folder(
    shadowing_folder: Path,
) -> None:
    assert KDM.exists(), f"no kdm program beside {sys.executable}"
    host = [str(KDM), "host", "--headless", "--json", "--as-bot", "greedy", "--players", "3", "--bots",
            "2", "--no-advertise", "--interface", "127.0.0.1", "--option", "rounds=1",
            "--data-dir", str(shadowing_folder / "data")]  # fmt: skip
    try:
        done = subprocess.run(
            host, cwd=shadowing_folder, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL
        )
    except subprocess.TimeoutExpired as timeout:
        raise AssertionError(f"the bots never sat; the host said:\n{timeout.stdout!r}") from None
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["seat"] == 0 and summary["rounds"] == 1 and summary["digest"]


def test_selfplay_peers_start_from_a_folder_that_holds_a_kdm_folder(shadowing_folder: Path) -> None:
    done = subprocess.run(
        [str(KDM), "selfplay", "--peers", "3", "--rounds", "1", "--json"],
        cwd=shadowing_folder, capture_output=True, text=True, timeout=240, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert len(set(json.loads(done.stdout)["digests"])) == 1


def the_old_way(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """Start bots as kdm did before (``python -m kdm``) from ``folder``: they die before they sit."""
    monkeypatch.chdir(folder)
    monkeypatch.setattr(session, "kdm_command", lambda arguments: [sys.executable, "-m", "kdm", *arguments])


def test_the_screen_says_why_a_bot_of_bots_n_could_not_sit(
    shadowing_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    the_old_way(monkeypatch, shadowing_folder)
    config = SessionConfig(interface="127.0.0.1", name="ana", advertise=False, data_dir=shadowing_folder)

    async def scene() -> str:
        with create_pipe_input() as keys:
            ui = TableUI(input=keys, output=Screen80x24())
            hosting = asyncio.ensure_future(session.host(config, "t", 2 + 1, {}, [], bots=2, ui=ui))
            loop = asyncio.get_running_loop()
            deadline = loop.time() + DEADLINE_S * 3
            while ui.screen is None or "could not sit" not in ui.screen.message:
                assert loop.time() < deadline, "the screen never said that a bot could not sit"
                assert not hosting.done(), hosting
                await asyncio.sleep(0.02)
            message = ui.screen.message
            keys.send_text("qy")  # leave (after the question)
            await asyncio.wait_for(hosting, DEADLINE_S)
            await ui.stop_bots()
            return message

    message = asyncio.run(scene())
    assert message == (
        "your bot could not sit: ImportError: this is not the kdm package: a folder of the current directory"
    )


def test_a_headless_host_says_why_a_bot_could_not_sit(
    shadowing_folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    the_old_way(monkeypatch, shadowing_folder)
    config = SessionConfig(interface="127.0.0.1", bot="greedy", advertise=False, data_dir=shadowing_folder)

    async def scene() -> str:
        hosting = asyncio.ensure_future(session.host(config, "t", 3, {}, [], bots=2))
        said = ""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + DEADLINE_S * 3
        try:
            while said.count("could not sit") < 2:
                assert loop.time() < deadline, f"the host never said that its bots could not sit:\n{said}"
                await asyncio.sleep(0.02)
                said += capsys.readouterr().out
        finally:
            hosting.cancel()
            await asyncio.gather(hosting, return_exceptions=True)
        return said

    said = asyncio.run(scene())
    because = "could not sit: ImportError: this is not the kdm package: a folder of the current directory"
    assert f"bot 1 {because}\n" in said and f"bot 2 {because}\n" in said


def child_waiting_for_stdin() -> subprocess.Popen[bytes]:
    """A child that ends (status 3) when its standard input is closed."""
    code = "import sys; sys.stdin.read(); sys.exit(3)"
    return subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE)


@pytest.mark.parametrize("pidfd", [True, False], ids=["told by the system", "looking"])
def test_a_bot_process_is_waited_for_until_it_ends(pidfd: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """``process_ended``: on Linux the loop is told (a pidfd), so a look every hour would still end at
    once; where there is no pidfd, it looks every ``BOT_LIVENESS_S``."""
    if pidfd:
        if not hasattr(os, "pidfd_open"):
            pytest.skip("this system has no pidfd (Linux 5.3 or later, Python 3.9 or later)")
        monkeypatch.setattr(session, "BOT_LIVENESS_S", 3600.0)
    else:
        monkeypatch.delattr(os, "pidfd_open", raising=False)
        monkeypatch.setattr(session, "BOT_LIVENESS_S", 0.01)

    async def scene() -> None:
        child = child_waiting_for_stdin()
        waiting = asyncio.ensure_future(session.process_ended(child))
        for _ in range(10):
            await asyncio.sleep(0)
        assert not waiting.done() and child.returncode is None  # it cannot end before its input does
        assert child.stdin is not None
        child.stdin.close()
        await asyncio.wait_for(waiting, DEADLINE_S)
        assert child.returncode == 3
        await asyncio.wait_for(session.process_ended(child), DEADLINE_S)  # once reaped: at once

    asyncio.run(scene())
