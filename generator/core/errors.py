"""Errors every layer may raise, in a leaf module (nothing imports the config for them)."""


class ConfigError(Exception):
    """The configuration or a command-line selection is wrong (exit 2)."""
