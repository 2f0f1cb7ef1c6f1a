"""What every test shares: outside the network namespaces a test builds, kdm uses loopback only.

With no ``KDM_INTERFACE``, kdm listens on every interface and multicasts mDNS on each (what a player
wants); the suite must never do that on the machine's own interfaces. Set here, before any test runs,
it reaches every process a test starts too. ``tests/netns.py`` takes it away inside the namespaces it
builds, where the no-flag behaviour is tested as a player would meet it.

Tests marked ``slow`` (the chaos soak) are long runs behind a flag: without ``KDM_SLOW=1`` they are
deselected, not skipped, so that a skip under ``CI=true`` still means something is missing.
"""

from __future__ import annotations

import os

import pytest

from kdm.session import INTERFACE_ENV

os.environ[INTERFACE_ENV] = "127.0.0.1"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get("KDM_SLOW") == "1":
        return
    slow = [item for item in items if item.get_closest_marker("slow") is not None]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if item.get_closest_marker("slow") is None]
