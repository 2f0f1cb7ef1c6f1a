# The base game's test kit: the ``kdm_table`` fixture, which checks at teardown that no card was lost
# or made.
pytest_plugins = ["kdm.plugins.kilo.testing"]
