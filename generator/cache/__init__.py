"""The two on-disk caches (lint results, rendered files) and the stat signatures of no-op runs.
Trusted as the working tree is: each entry carries a SHA-256 of its key and content as an
integrity check, and `--no-cache` is the gate for a cache you do not trust."""
