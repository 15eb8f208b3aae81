"""``statedoc server``: the language server (LSP over stdio) for editors.

pygls comes with the optional ``server`` extra; without it the command says how to install it
and exits 2. Nothing here imports pygls before the command runs, so the parser of every other
command never pays for it.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from generator.core.exitcodes import EXIT_USAGE

MISSING = (
    "statedoc: error: the language server needs pygls, which comes with the 'server' extra: "
    "pip install 'statedoc[server]'"
)


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    parser = sub.add_parser(
        "server",
        help="run the language server (LSP over stdin/stdout) for editors",
        description=(
            "Serve the Language Server Protocol on stdin/stdout: diagnostics as `statedoc lint` "
            "reports them, quick fixes, navigation, rename, completion and symbols for state "
            "documents. Needs the 'server' extra: pip install 'statedoc[server]'."
        ),
    )
    parser.add_argument(
        "--stdio",
        action="store_true",
        help="accepted for editors that pass it; stdio is the only transport",
    )
    parser.set_defaults(run=run)


#: The distributions the extra brings (pygls and what it depends on).
_EXTRA = frozenset(("pygls", "lsprotocol", "cattrs", "attrs"))


def run(args: argparse.Namespace) -> int:
    try:
        from generator.server.protocol import serve
    except ImportError as exc:
        if (exc.name or "").partition(".")[0] not in _EXTRA:
            raise  # statedoc's own import failed: a bug, reported as one
        print(MISSING, file=sys.stderr)
        return EXIT_USAGE
    return serve()
