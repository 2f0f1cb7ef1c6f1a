"""Built-in rule variants, one plugin module each."""
