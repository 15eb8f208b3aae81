"""The TypeScript conformance kit, shipped as TypeScript source: ``statedoc-conformance.ts``
(the plan runner, the fast-check walk and ``conformanceTests``),
``statedoc-conformance-tracker.ts`` (the adapter interface, the options and the tracker of one
object under test) and ``statedoc-conformance-plan.ts`` (the plans, computed from a generated
module alone or from the spec's vectors file).

``statedoc generate --tests DIR --target typescript`` writes both into ``DIR`` next to the
generated property tests (:class:`~generator.targets.typescript.tests.TypeScriptTestsTarget`),
with the generated-file header so ``statedoc check`` keeps them current. They need nothing but
``fast-check`` and use no Node API.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files

from generator.render.environment import header_line

#: The kit's files, by the name they are written under (one folder: they import each other).
KIT_FILES = (
    "statedoc-conformance.ts",
    "statedoc-conformance-tracker.ts",
    "statedoc-conformance-plan.ts",
)


@cache
def kit_files() -> dict[str, str]:
    """File name -> its text, each starting with the generated-file header."""
    folder = files(__name__)
    return {
        name: f"{header_line('//')}\n" + folder.joinpath(name).read_text(encoding="utf-8")
        for name in KIT_FILES
    }
