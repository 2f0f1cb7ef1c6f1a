# kdm's plugin kit: the ``kdm_table`` fixture, which checks at teardown that no card was lost or made.
pytest_plugins = ["kdm.testing"]
