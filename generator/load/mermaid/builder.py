"""The graph both readings of a diagram fill: the fast path of :mod:`.parse` and the grammar
of :mod:`.grammar`. Apart from the grammar so that the fast path, which answers for most
diagrams, never imports the lexer."""

from __future__ import annotations

from .model import START_END
from .preprocess import _js_trim


class _StateInfo:
    __slots__ = ("alias", "alias_offset", "descriptions", "id", "offset")

    def __init__(self, id: str, offset: int) -> None:
        self.id = id
        self.offset = offset
        self.alias: str | None = None
        self.alias_offset = -1
        self.descriptions: list[str] = []


class _Builder:
    __slots__ = ("edges", "problems", "states")

    def __init__(self) -> None:
        self.states: dict[str, _StateInfo] = {}
        self.edges: list[tuple[str, str, str | None, int]] = []
        self.problems: list[tuple[str, int]] = []

    def touch(self, raw_id: str, offset: int) -> str | None:
        state_id = _js_trim(raw_id)
        if not state_id or state_id == START_END:
            return None  # Mermaid drops nodes without an id; "[*]" is the marker
        if state_id not in self.states:
            self.states[state_id] = _StateInfo(state_id, offset)
            if state_id.lower() in ("root_start", "root_end"):
                self.problems.append(
                    (
                        f"the id {state_id!r} is Mermaid's own name for the start/end marker; "
                        "use another id",
                        offset,
                    )
                )
            elif state_id == "root":
                self.problems.append(
                    (
                        "the id 'root' is Mermaid's own name for the whole diagram (Mermaid drops "
                        "or fails to draw such a state); use another id",
                        offset,
                    )
                )
        return state_id
