"""The conformance skeleton ``statedoc generate --tests`` can write: a test module with an
adapter to fill in and the one-line :func:`~generator.testing.conformance.conformance_tests`.

Unlike generated code, the skeleton becomes the user's file once written: a writer must create
it only when it does not exist, and never overwrite it. Until the adapter is filled in, every
test fails with ``NotImplementedError`` (nothing is skipped: missing work stays visible).
"""

from __future__ import annotations

import ast
import keyword

from generator.model.names import pascal_name
from generator.render.environment import comment_text
from generator.targets.python.filters import pyrepr

_TEMPLATE = '''\
# Conformance tests of your service against {header}.
# Written by statedoc as a starting point; this file is yours: fill in the adapter.
"""Does the service behind ``{adapter}`` honour its spec document?

statedoc creates objects through the adapter, reads their stored state and attempts
moves; the expected behaviour comes from the spec document alone (see
``generator.testing.conformance``).
"""

from __future__ import annotations

from typing import Any

from generator.testing.conformance import conformance_tests
from {module} import INITIAL, State


class {adapter}:
    """Drives your system; an object is any handle it uses (a row id, an entity)."""

    #: True if ``create`` can store an object in any state (e.g. a fixture INSERT).
    seeds_any_state = False

    def create(self, state: str) -> Any:
        """A new object stored in ``state`` (in ``INITIAL``: your creation path)."""
        assert State(state) in INITIAL or self.seeds_any_state
        raise NotImplementedError("create an object; return its handle")

    def read(self, obj: Any) -> State | str:
        """The state your system has stored for ``obj``, read back from storage."""
        raise NotImplementedError("read the stored state of obj")

    def attempt(self, obj: Any, to_state: str) -> bool:
        """Move ``obj`` to ``to_state``: True if your system did, False if not."""
        raise NotImplementedError("call your service; return False when it refuses")


{test_class} = conformance_tests(
    spec={spec},
    adapter={adapter},
)
'''


def render_conformance_skeleton(module_import: str, spec_path: str) -> str:
    """The text of a conformance test module for the spec at ``spec_path`` (best relative to
    the project root) whose generated module imports as ``module_import``."""
    parts = module_import.split(".")
    if not all(p.isidentifier() and not keyword.iskeyword(p) for p in parts):
        raise ValueError(f"not a dotted import path: {module_import!r}")
    base = pascal_name(parts[-1], fallback="Spec")
    text = _TEMPLATE.format(
        header=comment_text(spec_path),
        module=module_import,
        adapter=f"{base}Adapter",
        test_class=f"Test{base}Conformance",
        spec=pyrepr(spec_path),
    )
    ast.parse(text)  # a bug here must never write a file that does not parse
    return text
