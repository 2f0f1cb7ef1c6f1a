"""What every test shares: outside the network namespaces a test builds, kdm uses loopback only.

With no ``KDM_INTERFACE``, kdm listens on every interface and multicasts mDNS on each (what a player
wants); the suite must never do that on the machine's own interfaces. Set here, before any test runs,
it reaches every process a test starts too. ``tests/netns.py`` takes it away inside the namespaces it
builds, where the no-flag behaviour is tested as a player would meet it.
"""

from __future__ import annotations

import os

from kdm.session import INTERFACE_ENV

os.environ[INTERFACE_ENV] = "127.0.0.1"
