"""Random specs with named events, list sources and URL sources (``spec_drafts(events=True)``):
they lint clean, load back as their expansion, and generate modules whose ``fire`` API passes
the exhaustive (state, event) check and the random state machine that fires random events."""

from __future__ import annotations

from hypothesis import given, note, settings

from generator.core.findings import Severity
from generator.lint.document import lint_bytes
from generator.testing import check_module, find_generated_modules, import_generated
from generator.testing.proofs.state_machine import run_machine, state_machine_for
from generator.testing.strategies import Draft, spec_drafts
from generator.testing.strategies.event_documents import expand
from testing.test_properties_random import INNER, PIPELINE, cli, project


@given(spec_drafts(events=True))
def test_documents_with_events_lint_clean_and_load_as_their_expansion(draft: Draft) -> None:
    result = lint_bytes(draft.text.encode("utf-8"), "spec.md")
    errors = [f for f in result.findings if f.severity == Severity.ERROR]
    assert not errors, errors
    assert result.document is not None
    assert result.document.loaded.value == draft.front
    spec = result.document.spec
    assert [(t.from_state, t.to_state, t.event) for t in spec.transitions] == [
        (source, t["to"], t.get("event"))
        for t in draft.front["transitions"]
        for source in expand(t)
    ]


def _new_keys(draft: Draft) -> set[str]:
    """Which of the new constructs a draft uses: a named event, a list of sources, a URL
    source, two transitions over one (source, target) pair once expanded."""
    items = draft.front["transitions"]
    pairs = [(s, t["to"]) for t in items for s in expand(t)]
    found = {
        "event": any("event" in t for t in items),
        "list": any(isinstance(t["from"], list) for t in items),
        "url": any(str(t.get("source", "")).startswith("http") for t in items),
        "shared": len(set(pairs)) < len(pairs),
    }
    return {key for key, used in found.items() if used}


def test_the_strategy_draws_every_new_key() -> None:
    """Not an assertion per example: the union over one run of 200 drafts must hold each."""
    seen: set[str] = set()

    @settings(max_examples=200, deadline=None)
    @given(spec_drafts(events=True))
    def draw(draft: Draft) -> None:
        seen.update(_new_keys(draft))

    draw()
    assert seen == {"event", "list", "url", "shared"}


@PIPELINE
@given(spec_drafts(max_states=6, citations=False, events=True))
def test_random_specs_with_events_through_the_pipeline(draft: Draft) -> None:
    text = draft.text
    note(text)
    with project(text.encode("utf-8")) as root:
        lint = cli("lint")
        assert lint.code == 0, lint.out + lint.err
        generate = cli("generate")
        assert generate.code == 0, generate.out + generate.err
        assert cli("generate", "--check").code == 0, "generate is not deterministic"
        modules = find_generated_modules(root / "generated")
        module = import_generated(modules["specs/area/spec.md"])
        spec = root / "specs" / "area" / "spec.md"
        check_module(module, spec)
        run_machine(state_machine_for(module, spec), INNER)
