"""The lifecycle most SQL tests attack: the repository's delivery spec, rendered for
PostgreSQL with a chosen binding, and the pairs the tests need (computed from the generated
Python module, never typed in)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from generator.model.document import Document
from generator.run.config import load_config
from generator.targets.sql import SqlTarget
from generator.targets.sql.settings import SqlBinding, SqlSettings

from ..test_generate_support import ROOT
from .cases import lint_document, python_module
from .verdicts import FORBIDDEN, OK, UNDECLARED, expected_update

SPEC = "specs/platform/queries/workspace-export-delivery.md"


@dataclass(frozen=True)
class Lifecycle:
    """The spec the tests attack, with the generated Python module as the oracle."""

    document: Document
    module: ModuleType

    @property
    def states(self) -> tuple[str, ...]:
        return tuple(s.value for s in self.module.State)

    @property
    def initial(self) -> tuple[str, ...]:
        return tuple(s.value for s in self.module.INITIAL)

    def pairs(self, outcome: str | None) -> list[tuple[str, str]]:
        """Every pair of distinct states whose UPDATE has ``outcome`` (a SQLSTATE or OK)."""
        return [
            (a, b)
            for a in self.states
            for b in self.states
            if a != b and expected_update(self.module, a, b) == outcome
        ]

    @property
    def declared(self) -> list[tuple[str, str]]:
        return self.pairs(OK)

    @property
    def forbidden(self) -> tuple[str, str]:
        return self.pairs(FORBIDDEN)[0]

    @property
    def undeclared(self) -> tuple[str, str]:
        return self.pairs(UNDECLARED)[0]

    @property
    def not_initial(self) -> str:
        return next(s for s in self.states if s not in self.initial)

    def not_a_state(self, hint: str = "archived") -> str:
        """A name that is no state of the spec (``hint``, suffixed until it is none)."""
        name = hint
        while name in self.states:
            name += "_x"
        return name

    def render(self, *, schema: str = "statedoc", binding: SqlBinding | None) -> str:
        """The ``.postgresql.sql`` text the SQL target generates for this binding."""
        base = load_config(ROOT)
        bindings = {} if binding is None else {self.document.spec.id: binding}
        files = SqlTarget(SqlSettings(schema=schema, bindings=bindings)).files(self.document, base)
        return next(v for k, v in files.items() if k.endswith(".postgresql.sql")).decode()


def load_lifecycle(folder: Path) -> Lifecycle:
    document = lint_document(ROOT / SPEC, SPEC)
    return Lifecycle(document, python_module(document, folder))
