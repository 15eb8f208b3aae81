"""The Python target's module template: one entry template made of partials, every one of
them rendered under the kit's strict rules."""

from __future__ import annotations

import jinja2
import jinja2.meta
import pytest

from generator.render.environment import RenderError
from generator.targets.python.filters import environment

ENTRY = "module.py.j2"


def _includes(env: jinja2.Environment, name: str) -> set[str]:
    assert env.loader is not None
    source = env.loader.get_source(env, name)[0]
    found = jinja2.meta.find_referenced_templates(env.parse(source))
    names = set(found)
    assert None not in names, f"{name} includes a template by a computed name"
    return {n for n in names if n is not None}


def test_every_template_is_reached_from_the_module_template() -> None:
    """A partial no include reaches would be dead text that reviewers still read."""
    env = environment()
    reached: set[str] = set()
    todo = [ENTRY]
    while todo:
        name = todo.pop()
        if name not in reached:
            reached.add(name)
            todo.extend(_includes(env, name))
    assert reached == set(env.list_templates(extensions=["j2"]))
    assert len(reached) > 1


def test_a_partial_refuses_undefined_names() -> None:
    """An include shares the strict environment: a name the renderer does not pass fails
    inside a partial as it does in the entry template."""
    env = environment()
    with pytest.raises(jinja2.UndefinedError, match="'events' is undefined"):
        env.get_template("module/errors.py.j2").render()
    text = env.get_template("module/errors.py.j2").render(events=False)
    assert "class TransitionError(Exception):" in text
    assert "EventNotAllowed" not in text


def test_a_partial_refuses_unescaped_values() -> None:
    """The ``finalize`` hook applies to what an included partial prints."""
    env = environment()
    loader = jinja2.DictLoader(
        {"raw.py.j2": "{{ text }}", "outer.py.j2": '{% include "raw.py.j2" %}'}
    )
    strict = env.overlay(loader=loader)
    with pytest.raises(RenderError, match="without an escaping filter"):
        strict.get_template("outer.py.j2").render(text="'''; import os")
