"""What statedoc reads out of a Mermaid ``stateDiagram-v2`` block.

The drift rules (SD302-SD305) compare a diagram with the front matter by state
*name*, so edges carry display names (``state "x" as s0`` already resolved to
``x``), and the start/end pseudo-state keeps Mermaid's own spelling ``[*]``.
Everything is immutable so a parsed diagram can be cached and shared.
Lines and columns are 1-based and relative to the text that was parsed; the
caller shifts them to the position of the block in the document.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from types import MappingProxyType
from typing import NamedTuple

#: Mermaid's marker for the initial / final pseudo-state in a transition.
START_END = "[*]"

#: Rule code for everything that makes the block unusable or unsupported.
SYNTAX_CODE = "SD302"


class Edge(NamedTuple):
    """One ``a --> b [: label]`` line; ``src``/``dst`` are display names or ``[*]``."""

    src: str
    dst: str
    label: str | None
    line: int
    column: int


class DiagramState(NamedTuple):
    """A state node as Mermaid draws it.

    ``name`` is what identifies the state against the front matter: the quoted
    text of ``state "name" as id`` if there is one, else the bare id.
    ``descriptions`` holds ``id : text`` lines (Mermaid shows the first of them
    in the box of a bare id instead of the id; statedoc still names it by id).
    """

    name: str
    id: str
    line: int
    column: int
    descriptions: tuple[str, ...] = ()


class Problem(NamedTuple):
    """A reason the block cannot be trusted as a picture of the front matter."""

    message: str
    line: int
    column: int
    code: str = SYNTAX_CODE


class _DiagramFields(NamedTuple):
    kind: str
    states: tuple[DiagramState, ...]
    edges: tuple[Edge, ...]
    problems: tuple[Problem, ...] = ()
    rejected: bool = False


class Diagram(_DiagramFields):
    """The parsed block (its fields a NamedTuple's; the subclass's ``__dict__`` holds
    :attr:`labels` once asked).

    ``rejected`` is True when Mermaid itself refuses the block (a syntax
    error, or not a state diagram); ``states``/``edges`` then hold only what
    came before the error, so drift rules should not be run on them. Other
    problems are constructs Mermaid draws but statedoc cannot check
    (composite states, forks); see :attr:`ok`.
    """

    @property
    def ok(self) -> bool:
        """True when Mermaid accepts the block and it uses only supported constructs."""
        return not self.problems

    @property
    def state_names(self) -> tuple[str, ...]:
        """Display names of all states, in order of first appearance."""
        return tuple(state.name for state in self.states)

    @property
    def transitions(self) -> tuple[tuple[str, str], ...]:
        """``(src, dst)`` of every edge between two real states, in diagram order."""
        return tuple((e.src, e.dst) for e in self.edges if START_END not in (e.src, e.dst))

    @property
    def starts(self) -> frozenset[str]:
        """States that ``[*] --> x`` marks as initial."""
        return frozenset(e.dst for e in self.edges if e.src == START_END and e.dst != START_END)

    @property
    def ends(self) -> frozenset[str]:
        """States that ``x --> [*]`` marks as final."""
        return frozenset(e.src for e in self.edges if e.dst == START_END and e.src != START_END)

    @cached_property
    def labels(self) -> Mapping[tuple[str, str], str]:
        """``(src, dst) -> label`` for every labelled edge, ``[*]`` edges included.

        Keys use ``[*]`` for the pseudo-state; an empty label counts as none;
        if a pair is drawn twice, the first label wins.
        """
        labels: dict[tuple[str, str], str] = {}
        for edge in self.edges:
            if edge.label is not None:
                labels.setdefault((edge.src, edge.dst), edge.label)
        return MappingProxyType(labels)
