"""Match two sets of specs (a git ref and the working tree) and diff each pair.

Specs are matched by ``id``, so a moved file is still the same spec; a spec whose ``id``
changed at the same path is reported as ``id-changed``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from generator.diffing.changes import Change, ChangeClass, change, ordered
from generator.diffing.classify import diff_specs
from generator.model.spec import Spec


@dataclass(frozen=True)
class Version:
    """One side of a comparison: a document at a path, read far enough to have a ``spec``.

    ``spec`` is None when the document does not lint past the schema stage; ``problem`` then
    says why. ``in_scope`` is False for old documents read only to recognise moved specs.
    """

    path: str
    spec: Spec | None
    problem: str | None = None
    extras: Mapping[str, object] = field(default_factory=dict)
    key: str | None = None  # where the document lives, comparable across sides (default: path)
    in_scope: bool = True

    @property
    def location(self) -> str:
        return self.path if self.key is None else self.key


@dataclass(frozen=True)
class SpecDiff:
    """One spec's changes; ``old`` or ``new`` is None for an added or deleted spec."""

    old: Version | None
    new: Version | None
    changes: tuple[Change, ...] = ()

    @property
    def spec(self) -> Spec | None:
        for version in (self.new, self.old):
            if version is not None and version.spec is not None:
                return version.spec
        return None

    @property
    def id(self) -> str | None:
        spec = self.spec
        return spec.id if spec is not None else None

    @property
    def path(self) -> str:
        version = self.new or self.old
        assert version is not None
        return version.path

    @property
    def old_path(self) -> str | None:
        return self.old.path if self.old is not None else None

    @property
    def status(self) -> str:
        """added, deleted, modified, unchanged, old-unreadable or new-unreadable."""
        if self.new is not None and self.new.spec is None:
            return "new-unreadable"
        if self.old is not None and self.old.spec is None:
            return "old-unreadable"
        if self.old is None:
            return "added"
        if self.new is None:
            return "deleted"
        return "modified" if self.changes else "unchanged"

    @property
    def moved(self) -> bool:
        return (
            self.old is not None and self.new is not None and self.old.location != self.new.location
        )

    @property
    def breaking(self) -> bool:
        return any(c.change_class is ChangeClass.BREAKING for c in self.changes)

    @property
    def reportable(self) -> bool:
        """Worth showing: something changed, or one side could not be read."""
        return bool(self.changes) or self.status.endswith("unreadable")


def compare_versions(old: Version, new: Version) -> SpecDiff:
    """Two given versions of one spec (``statedoc diff OLD NEW``), whatever their ids."""
    if old.spec is None or new.spec is None:
        return SpecDiff(old, new)
    return SpecDiff(old, new, diff_specs(old.spec, new.spec, old.extras, new.extras))


def match_by_id(
    old: Sequence[Version], new: Sequence[Version]
) -> list[tuple[Version | None, Version | None]]:
    """Pair versions of the same spec: by ``id`` (a moved file is the same spec), then by path.

    A path whose ``id`` changed pairs its old and new versions (an ``id-changed`` change), and an
    unreadable document pairs with the other side's version at its path, so a broken new
    version is not also reported as a deleted spec. Unpaired versions are added or deleted.
    """
    old_left, new_left = dict(enumerate(old)), dict(enumerate(new))
    pairs: list[tuple[Version | None, Version | None]] = []

    def pair_up(key: Callable[[Version], object]) -> None:
        waiting: dict[object, list[int]] = {}
        for i, o in old_left.items():
            k = key(o)
            if k is not None:
                waiting.setdefault(k, []).append(i)
        for j, n in list(new_left.items()):
            k = key(n)
            if k is not None and waiting.get(k):
                i = waiting[k].pop(0)
                pairs.append((old_left.pop(i), new_left.pop(j)))

    def spec_id(v: Version) -> str | None:
        return v.spec.id if v.spec is not None else None

    # Same id at the same path first, so duplicate ids (SD204) pair up as well as they can.
    pair_up(lambda v: None if v.spec is None else (v.spec.id, v.location))
    pair_up(spec_id)
    pair_up(lambda v: v.location)
    pairs += [(None, n) for n in new_left.values()]
    pairs += [(o, None) for o in old_left.values()]
    return pairs


def compare_sets(old: Sequence[Version], new: Sequence[Version]) -> list[SpecDiff]:
    """Every spec in either set with its changes, sorted by path; out-of-scope old-only
    versions (read only to recognise moves) are left out."""
    found: list[SpecDiff] = []
    for o, n in match_by_id(old, new):
        if o is not None and n is not None:
            diff = compare_versions(o, n)
            if o.spec is not None and n.spec is not None and o.location != n.location:
                moved = change("spec-moved", f"moved from {o.path} to {n.path}", o.path)
                diff = SpecDiff(o, n, ordered((*diff.changes, moved)))
            found.append(diff)
            continue
        one = o or n
        assert one is not None
        if not one.in_scope and n is None:
            continue
        if one.spec is None:
            found.append(SpecDiff(o, n))
            continue
        kind, verb = ("spec-deleted", "deleted") if n is None else ("spec-added", "added")
        message = f"spec {one.spec.id} ({one.spec.title}) {verb}"
        found.append(SpecDiff(o, n, (change(kind, message, one.spec.id),)))
    return sorted(found, key=lambda d: (d.path, d.old_path or ""))
