"""What every test shares: outside the network namespaces a test builds, kdm uses loopback only.

With no ``KDM_INTERFACE``, kdm listens on every interface and multicasts mDNS on each (what a player
wants); the suite must never do that on the machine's own interfaces. Set here, before any test runs,
it reaches every process a test starts too. ``tests/helpers/netns.py`` takes it away inside the namespaces it
builds, where the no-flag behaviour is tested as a player would meet it. The same goes for the
user config directory (``XDG_CONFIG_HOME``): a temporary one for the run.

Tests marked ``slow`` (the chaos soak) are long runs behind a flag: without ``KDM_SLOW=1`` they are
deselected, not skipped, so that a skip under ``CI=true`` still means something is missing.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

import pytest

from kdm.session import INTERFACE_ENV

os.environ[INTERFACE_ENV] = "127.0.0.1"

# The names a player gives are remembered in the user config directory (kdm.settings): the suite keeps
# its own, removed at the end, and never changes the ones of whoever runs it.
_config_home = tempfile.mkdtemp(prefix="kdm-tests-config-")
os.environ["XDG_CONFIG_HOME"] = _config_home
atexit.register(shutil.rmtree, _config_home, ignore_errors=True)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get("KDM_SLOW") == "1":
        return
    slow = [item for item in items if item.get_closest_marker("slow") is not None]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if item.get_closest_marker("slow") is None]
