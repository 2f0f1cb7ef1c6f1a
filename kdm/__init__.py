"""kdm: Kilo de merde and Kem's, a serverless LAN card game."""

__version__ = "0.1.0"
