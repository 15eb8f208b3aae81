"""Broken documents: a valid draft broken in one known way, and the code lint must report.

- :func:`broken_documents`: ``(text, code)`` pairs; lint must report ``code`` for ``text``.
- :func:`undecodable_documents` does the same with bytes for SD006.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from hypothesis import strategies as st

from generator.load.schema import schema
from generator.model.names import member_name
from generator.testing.strategies.documents import (
    REPO_NAMES,
    Draft,
    diagram_for,
    heading,
    initial_and_terminal,
    spec_code,
    spec_documents,
    spec_drafts,
    state_names,
    texts,
)
from generator.testing.strategies.yaml_writer import dump_yaml

Breaker = Callable[[st.DrawFn, Draft], "str | Draft | None"]
_BREAKERS: dict[str, Breaker] = {}

#: The keys a document must have (the schema's list): each one's absence is SD010.
_REQUIRED: tuple[str, ...] = tuple(schema()["required"])


def _breaks(code: str) -> Callable[[Breaker], Breaker]:
    def register(func: Breaker) -> Breaker:
        _BREAKERS[code] = func
        return func

    return register


def _fresh_name(draft: Draft, base: str = "extra") -> str:
    taken = {member_name(n) for n in draft.state_names}
    index = 0
    while member_name(f"{base}-{index}") in taken:
        index += 1
    return f"{base}-{index}"


def _with(draft: Draft, **changes: Any) -> Draft:
    front = copy.deepcopy(draft.front)
    front.update(changes)
    return replace(draft, front=front)


def _plain_body(draft: Draft) -> Draft:
    """Drop the diagram: a broken graph would also make it drift (more codes than planted)."""
    return replace(draft, body=f"\n# {heading(draft.front['title'])}\n")


@_breaks("SD001")
def _no_front_matter(draw: st.DrawFn, draft: Draft) -> str:
    lead = draw(st.sampled_from(("\n", " ", "# Title\n", "--\n", "----\n", "\ufeff\n", "x")))
    return lead + draft.text


@_breaks("SD002")
def _unterminated(draw: st.DrawFn, draft: Draft) -> str:
    return f"---\n{dump_yaml(draft.front, draft.style, draft.width)}"


@_breaks("SD003")
def _bad_yaml(draw: st.DrawFn, draft: Draft) -> str:
    bad = draw(
        st.sampled_from(
            (
                "x-bad: [1, 2\n",
                "x-bad: {a: 1\n",
                'x-bad: "unterminated\n',
                "x-bad: 'unterminated\n",
                "x-bad: a: b: c\n",
                "@x-bad: 1\n",
                "`x-bad: 1\n",
                "x-bad: " + "[" * 100 + "]" * 100 + "\n",  # nesting over the cap
                "x-bad: !!python/object:os.system x\n",  # a foreign tag
            )
        )
    )
    return f"---\n{dump_yaml(draft.front, draft.style, draft.width)}{bad}---\n{draft.body}"


@_breaks("SD004")
def _duplicate_key(draw: st.DrawFn, draft: Draft) -> str:
    key = draw(st.sampled_from(list(draft.front)))
    style = "block" if draft.style == "flow" else draft.style  # flow would write `{key: ...}`
    again = dump_yaml({key: draft.front[key]}, style, draft.width)
    return f"---\n{dump_yaml(draft.front, draft.style, draft.width)}{again}---\n{draft.body}"


@_breaks("SD005")
def _alias(draw: st.DrawFn, draft: Draft) -> str:
    extra = draw(
        st.sampled_from(
            ('x-anchor: &a "v"\nx-alias: *a\n', "x-anchored: &b [1, 2]\n", "x-ref: *nowhere\n")
        )
    )
    return f"---\n{dump_yaml(draft.front, draft.style, draft.width)}{extra}---\n{draft.body}"


@_breaks("SD010")
def _schema(draw: st.DrawFn, draft: Draft) -> Draft:
    how = draw(
        st.sampled_from(
            (
                "missing",
                "revision",
                "status",
                "id",
                "slug",
                "states",
                "state-name",
                "trigger",
                "provenance",
                "sha",
                "source",
                "why",
                "initial",
            )
        )
    )
    front = copy.deepcopy(draft.front)
    if how == "missing":
        del front[draw(st.sampled_from(_REQUIRED))]
    elif how == "revision":
        front["revision"] = draw(st.sampled_from((0, -1, "1", 1.5, None, True)))
    elif how == "status":
        front["status"] = draw(st.sampled_from(("Draft", "", "two words", 1, "draft\n")))
    elif how == "id":
        front["id"] = draw(
            st.sampled_from(("state-x-1", "STATE", "STATE-", "DOM-X-1", "STATE-X-1\n"))
        )
    elif how == "slug":
        front[draw(st.sampled_from(("product_area", "module")))] = draw(
            st.sampled_from(("Tenant", "a_b", "-a", ""))
        )
    elif how == "states":
        front["states"] = draw(st.sampled_from(([], None, "open", {"name": "open"})))
    elif how == "state-name":
        front["states"][0]["name"] = draw(st.sampled_from(("", None, 1, ["a"])))
    elif how == "trigger":
        front["transitions"] = [{"from": draft.state_names[0], "to": draft.state_names[0]}]
    elif how == "provenance":
        front["transitions"] = [
            {
                "from": draft.state_names[0],
                "to": draft.state_names[0],
                "trigger": "t",
                "provenance": "guessed",
            }
        ]
    elif how == "sha":
        front["source_sha"] = {"repo": draw(st.sampled_from(("ABC", "ad3f6a6", "g" * 40, 1)))}
    elif how == "source":
        front["transitions"] = [
            {
                "from": draft.state_names[0],
                "to": draft.state_names[0],
                "trigger": "t",
                "source": "no-colon",
            }
        ]
    elif how == "why":
        front["invalid"] = [{"from": draft.state_names[0], "to": draft.state_names[0]}]
    else:
        front["initial"] = draw(st.sampled_from(([], 1, "", [""])))
    return replace(draft, front=front)


@_breaks("SD101")
def _duplicate_state(draw: st.DrawFn, draft: Draft) -> Draft:
    name = draw(st.sampled_from(draft.state_names))
    return _with(draft, states=[*draft.front["states"], {"name": name}])


@_breaks("SD102")
def _unknown_transition_state(draw: st.DrawFn, draft: Draft) -> Draft:
    known = draw(st.sampled_from(draft.state_names))
    unknown = draw(state_names().filter(lambda n: n not in draft.state_names))
    pair = (known, unknown) if draw(st.booleans()) else (unknown, known)
    added = {"from": pair[0], "to": pair[1], "trigger": "t"}
    return _plain_body(_with(draft, transitions=[*draft.front["transitions"], added]))


@_breaks("SD103")
def _unknown_invalid_state(draw: st.DrawFn, draft: Draft) -> Draft:
    known = draw(st.sampled_from(draft.state_names))
    unknown = draw(state_names().filter(lambda n: n not in draft.state_names))
    pair = (known, unknown) if draw(st.booleans()) else (unknown, known)
    added = {"from": pair[0], "to": pair[1], "why": "w"}
    return _with(draft, invalid=[*draft.front.get("invalid", []), added])


def _some_transition(draw: st.DrawFn, draft: Draft) -> tuple[Draft, dict[str, Any]]:
    """A declared transition of the draft (a self-loop is added when there is none)."""
    if draft.front["transitions"]:
        return draft, draw(st.sampled_from(draft.front["transitions"]))
    name = draft.state_names[0]
    loop = {"from": name, "to": name, "trigger": "stay"}
    return _plain_body(_with(draft, transitions=[loop])), loop


@_breaks("SD104")
def _invalid_contradicts(draw: st.DrawFn, draft: Draft) -> Draft:
    draft, t = _some_transition(draw, draft)
    added = {"from": t["from"], "to": t["to"], "why": draw(texts())}
    return _with(draft, invalid=[*draft.front.get("invalid", []), added])


@_breaks("SD105")
def _duplicate_transition(draw: st.DrawFn, draft: Draft) -> Draft:
    draft, t = _some_transition(draw, draft)
    again = {"from": t["from"], "to": t["to"], "trigger": draw(texts())}
    return _with(draft, transitions=[*draft.front["transitions"], again])


@_breaks("SD106")
def _duplicate_invalid(draw: st.DrawFn, draft: Draft) -> Draft | None:
    listed = draft.front.get("invalid") or []
    if listed:
        item = draw(st.sampled_from(listed))
        return _with(
            draft, invalid=[*listed, {"from": item["from"], "to": item["to"], "why": "again"}]
        )
    declared = {(t["from"], t["to"]) for t in draft.front["transitions"]}
    free = [(a, b) for a in draft.state_names for b in draft.state_names if (a, b) not in declared]
    if not free:
        return None
    a, b = draw(st.sampled_from(free))
    return _with(
        draft, invalid=[{"from": a, "to": b, "why": "one"}, {"from": a, "to": b, "why": "two"}]
    )


def _initial_list(draft: Draft) -> list[str]:
    first, _ = initial_and_terminal(draft.front)
    return list(first)


@_breaks("SD107")
def _unreachable(draw: st.DrawFn, draft: Draft) -> Draft:
    lost = _fresh_name(draft, "lost")
    target = draw(st.sampled_from(draft.state_names))
    return _plain_body(
        _with(
            draft,
            initial=_initial_list(draft),
            states=[*draft.front["states"], {"name": lost}],
            transitions=[*draft.front["transitions"], {"from": lost, "to": target, "trigger": "t"}],
        )
    )


@_breaks("SD108")
def _no_initial(draw: st.DrawFn, draft: Draft) -> Draft:
    names = draft.state_names
    states = list(draft.front["states"])
    if len(names) == 1:
        other = _fresh_name(draft, "other")
        states.append({"name": other})
        names = [*names, other]
    declared = {(t["from"], t["to"]) for t in draft.front["transitions"]}
    transitions = list(draft.front["transitions"])
    for index, name in enumerate(names):  # a cycle through all states: everything is entered
        pair = (names[index - 1], name)
        if pair not in declared:
            transitions.append({"from": pair[0], "to": pair[1], "trigger": "t"})
    front = {k: v for k, v in copy.deepcopy(draft.front).items() if k not in ("initial", "invalid")}
    front.update(states=states, transitions=transitions)
    return _plain_body(replace(draft, front=front))


@_breaks("SD109")
def _isolated(draw: st.DrawFn, draft: Draft) -> Draft:
    alone = _fresh_name(draft, "alone")
    return _plain_body(_with(draft, states=[*draft.front["states"], {"name": alone}]))


@_breaks("SD110")
def _collision(draw: st.DrawFn, draft: Draft) -> Draft | None:
    for name in draft.state_names:
        for twin in (name + "-", "-" + name, name + " ", name.swapcase(), name + "_", name.lower()):
            if (
                twin != name
                and twin not in draft.state_names
                and member_name(twin) == member_name(name)
            ):
                return _plain_body(
                    _with(
                        draft,
                        states=[*draft.front["states"], {"name": twin}],
                        transitions=[
                            *draft.front["transitions"],
                            {"from": name, "to": twin, "trigger": "t"},
                        ],
                    )
                )
    return None


@_breaks("SD112")
def _unknown_initial(draw: st.DrawFn, draft: Draft) -> Draft:
    unknown = draw(state_names().filter(lambda n: n not in draft.state_names))
    return _with(draft, initial=[*_initial_list(draft), unknown])


@_breaks("SD201")
def _unknown_repo(draw: st.DrawFn, draft: Draft) -> Draft:
    repos = draft.front.get("source_sha", {})
    repo = draw(REPO_NAMES.filter(lambda r: r not in repos))
    draft, t = _some_transition(draw, draft)
    transitions = [
        dict(x, source=f"{repo}:path") if x is t else x for x in draft.front["transitions"]
    ]
    return _with(draft, transitions=transitions)


@_breaks("SD202")
def _evidence_mismatch(draw: st.DrawFn, draft: Draft) -> Draft:
    repos = dict(draft.front.get("source_sha") or {"repo": "a" * 40})
    repo = draw(st.sampled_from(sorted(repos)))
    wrong = draw(
        st.from_regex(r"[0-9a-f]{7,12}", fullmatch=True).filter(
            lambda h: not repos[repo].startswith(h)
        )
    )
    evidence = [*draft.front.get("evidence", []), f"{repo} at {wrong}: somewhere"]
    return _with(draft, source_sha=repos, evidence=evidence)


@_breaks("SD203")
def _foreign_invariant(draw: st.DrawFn, draft: Draft) -> Draft:
    other = draw(spec_code("DOM").filter(lambda o: o != draft.front["object"]))
    return _with(draft, invariants=[*draft.front.get("invariants", []), f"INV-{other}-01"])


def _drifted(draw: st.DrawFn, draft: Draft, **drift: Any) -> Draft | None:
    from generator.load.mermaid.display import display_name

    if any(display_name(name) != name for name in draft.state_names):
        # A name the diagram can only show with a stand-in (a control character, say) is
        # already drift of another kind today (see tests/test_properties_random.py): it
        # would hide the planted code.
        return None
    title = f"\n# {heading(draft.front['title'])}\n"
    return replace(draft, body=title + diagram_for(draft.front, **drift))


@_breaks("SD303")
def _edge_drift(draw: st.DrawFn, draft: Draft) -> Draft | None:
    declared = {(t["from"], t["to"]) for t in draft.front["transitions"]}
    free = [(a, b) for a in draft.state_names for b in draft.state_names if (a, b) not in declared]
    if not free:
        return None
    return _drifted(draw, draft, extra_edges=[draw(st.sampled_from(free))])


@_breaks("SD304")
def _unknown_diagram_state(draw: st.DrawFn, draft: Draft) -> Draft | None:
    return _drifted(draw, draft, extra_states=[_fresh_name(draft, "ghost")])


@_breaks("SD305")
def _start_drift(draw: st.DrawFn, draft: Draft) -> Draft | None:
    first = set(_initial_list(draft))
    others = [n for n in draft.state_names if n not in first]
    if not others:
        return None
    return _drifted(draw, draft, initial=[*first, draw(st.sampled_from(others))])


#: Every code :func:`broken_documents` can plant.
BROKEN_CODES: tuple[str, ...] = tuple(sorted(_BREAKERS))


@st.composite
def _broken(draw: st.DrawFn, codes: Sequence[str]) -> tuple[str, str] | None:
    code = draw(st.sampled_from(list(codes)))
    draft = draw(spec_drafts(max_states=5))
    broken = _BREAKERS[code](draw, draft)
    if broken is None:
        return None
    return (broken if isinstance(broken, str) else broken.text), code


def broken_documents(codes: Sequence[str] = BROKEN_CODES) -> st.SearchStrategy[tuple[str, str]]:
    """``(text, code)``: a valid document broken in one known way; lint must report ``code``.

    Other findings may accompany it (a duplicated state is also isolated, say), but ``code``
    is always among them. See :data:`BROKEN_CODES`.
    """
    unknown = sorted(set(codes) - set(_BREAKERS))
    if unknown:
        raise ValueError(f"no breaker for {unknown}; known: {', '.join(BROKEN_CODES)}")
    return _broken(tuple(codes)).filter(lambda pair: pair is not None)  # type: ignore[return-value]


@st.composite
def undecodable_documents(draw: st.DrawFn) -> tuple[bytes, str]:
    """``(data, "SD006")``: a valid document with bytes that are not UTF-8 somewhere."""
    data = draw(spec_documents(max_states=3)).encode("utf-8")
    bad = draw(
        st.sampled_from((b"\xff", b"\xc3", b"\xe2\x82", b"\xed\xa0\x80", b"\xc0\xaf", b"\x80"))
    )
    at = draw(st.integers(0, len(data)))
    return data[:at] + bad + data[at:], "SD006"
