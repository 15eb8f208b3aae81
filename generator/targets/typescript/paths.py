"""Where a spec's TypeScript files go and how their headers name the spec."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from generator.model.names import snake_name

if TYPE_CHECKING:
    from generator.model.document import Document


def spec_source(document: Document, root: Path) -> str:
    """The document's path relative to the project root when inside it (for headers)."""
    path = Path(os.path.abspath(document.path))
    try:
        return path.relative_to(root.resolve()).as_posix()
    except ValueError:
        return Path(document.path).as_posix()


def base_path(document: Document) -> str:
    """``<area>/<module>/<name>``, the same layout as the Python module."""
    spec = document.spec
    return "/".join(snake_name(p) for p in (spec.product_area, spec.module, spec.title))
