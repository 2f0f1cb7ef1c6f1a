"""What test modules share: scenes, tables, LANs and processes that more than one test module sets up.

A test module imports from here (and from ``kdm.testing``, the kit kdm ships), never from another test
module, so that each ``test_*.py`` can be read, run and moved alone (``tests/test_suite_layers.py``
checks it). ``tests/modified_clients.py`` stays beside the tests: the project's standards name its path.
"""
