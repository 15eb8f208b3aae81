"""Exit codes of every command, in a leaf module so nothing imports the CLI for them.

0 clean or done, 1 findings of error severity / stale output / a breaking change (0 with
``--exit-zero``), 2 usage, configuration or internal error.
"""

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
