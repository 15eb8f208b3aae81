"""``statedoc new PATH``: scaffold a lint-clean spec at ``specs/<product_area>/<module>/<name>.md``.

The path decides ``product_area``, ``module`` and the title; the specs already in the project
decide the id and object codes (a sibling's area and module segments are reused, so the new
id reads like its neighbours) and the next free number. The diagram is drawn by the same code
as ``diagram --write``, and the result is linted before it is written: ``new`` never writes a
document that ``lint`` would report. An existing file is never overwritten (exit 2).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import sys
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator.core.errors import ConfigError
from generator.core.exitcodes import EXIT_OK, EXIT_USAGE
from generator.load.config import Config
from generator.run.config import load_config

SLUG = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")
CODE = re.compile(r"[A-Z0-9]+")
VOWELS = set("AEIOU")
#: ``id:`` / ``object:`` lines of a document too broken to load.
RAW_ID = re.compile(r"^(id|object):[ \t]*['\"]?((?:STATE|DOM)(?:-[A-Z0-9]+)+)", re.M)


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    parser = sub.add_parser(
        "new",
        help="scaffold a lint-clean spec from its path",
        description=(
            "Write a new spec document whose id, object, product_area and module follow from "
            "PATH and the existing specs, with its diagram already drawn. Never overwrites."
        ),
    )
    parser.add_argument("path", metavar="PATH", help="specs/<product_area>/<module>/<name>.md")
    parser.add_argument("--title", help="the document's title (default: from <name>)")
    parser.set_defaults(run=run)


@dataclass(frozen=True)
class Neighbour:
    """What an existing spec tells ``new``: where it lives and the codes it uses."""

    id: str
    object: str
    product_area: str
    module: str


def derive_code(slug: str) -> str:
    """A short upper-case code for a slug: initials of a multi-word slug, else the first letter
    and the next consonants (platform -> PLT, queries -> QRS)."""
    words = [w.upper() for w in slug.split("-") if w]
    if len(words) > 1:
        return "".join(w[0] for w in words)[:4]
    word = words[0]
    consonants = [c for c in word[1:] if c not in VOWELS]
    code = (word[0] + "".join(consonants))[:3]
    return code if len(code) >= 2 else word[:3]


def unused_code(code: str, taken: set[str]) -> str:
    """``code``, or ``code`` with the first free digit suffix when another name uses it."""
    if code not in taken:
        return code
    n = 2
    while f"{code}{n}" in taken:
        n += 1
    return f"{code}{n}"


def segments(identifier: str) -> tuple[str, str] | None:
    """The area and module codes of ``STATE-A-M-N`` / ``DOM-A-M-N``, if it has that shape."""
    parts = identifier.split("-")
    if len(parts) >= 4 and all(CODE.fullmatch(p) for p in parts[1:3]):
        return parts[1], parts[2]
    return None


def most_common(values: Iterable[str]) -> str | None:
    counted = Counter(values).most_common(1)
    return counted[0][0] if counted else None


def codes_for(area: str, module: str, neighbours: list[Neighbour]) -> tuple[str, str]:
    """The area and module codes: the neighbours' where they have them, else derived ones that
    no other area (module) uses."""
    by_area = [(n, segments(n.id)) for n in neighbours]
    area_code = most_common(s[0] for n, s in by_area if s and n.product_area == area)
    if area_code is None:
        other_areas = {s[0] for n, s in by_area if s and n.product_area != area}
        area_code = unused_code(derive_code(area), other_areas)
    module_code = most_common(
        s[1] for n, s in by_area if s and n.product_area == area and n.module == module
    )
    if module_code is None:
        other_modules = {s[1] for n, s in by_area if s and s[0] == area_code and n.module != module}
        module_code = unused_code(derive_code(module), other_modules)
    return area_code, module_code


def next_free(prefix: str, taken: Iterable[str]) -> str:
    """``prefix-NNN`` with the number after the highest one already used under ``prefix``."""
    used = [
        int(rest)
        for t in taken
        if t.startswith(f"{prefix}-") and (rest := t[len(prefix) + 1 :]).isdigit()
    ]
    return f"{prefix}-{max(used, default=0) + 1:03d}"


def title_of(name: str) -> str:
    words = re.sub(r"[-_\s]+", " ", name).strip()
    return words[:1].upper() + words[1:]


def scaffold(
    title: str, area: str, module: str, neighbours: list[Neighbour]
) -> tuple[str, str, str]:
    """The document text (without its diagram), its id and its object."""
    area_code, module_code = codes_for(area, module, neighbours)
    spec_id = next_free(f"STATE-{area_code}-{module_code}", (n.id for n in neighbours))
    spec_object = next_free(f"DOM-{area_code}-{module_code}", (n.object for n in neighbours))
    plain = re.fullmatch(r"[A-Za-z][A-Za-z0-9 .,()/]*[A-Za-z0-9.)]", title) is not None
    written = title if plain else "'" + title.replace("'", "''") + "'"
    text = f"""\
---
id: {spec_id}
title: {written}
object: {spec_object}
product_area: {area}
module: {module}
revision: 1
status: draft
initial: pending
states:
  - name: pending
    meaning: Replace with what this state means (it exists, nothing has happened yet).
  - name: done
    meaning: Replace with what this state means (the work finished).
  - name: cancelled
    meaning: Replace with what this state means (stopped before it finished).
transitions:
  - from: pending
    to: done
    trigger: Replace with the event that moves it on.
    who: Replace with the actor or job.
  - from: pending
    to: cancelled
    trigger: Replace with the event that stops it.
    who: Replace with the actor or job.
invalid:
  - from: done
    to: pending
    why: Replace with why a finished one never goes back.
---

# {title}

## The Lifecycle

"""
    return text, spec_id, spec_object


def render(path: Path, display: str, title: str, neighbours: list[Neighbour]) -> bytes:
    """The finished document: scaffold, diagram drawn, linted clean (else ConfigError)."""
    from generator.diagram.sync import plan
    from generator.lint.document import lint_bytes

    area, module = path.parent.parent.name, path.parent.name
    text, spec_id, _ = scaffold(title, area, module, neighbours)
    result = lint_bytes(text.encode("utf-8"), display)
    if result.document is None:
        raise ConfigError(f"{display}: cannot scaffold: {result.findings}")
    edit = plan(result.document)
    data = edit.new if edit.new is not None else text.encode("utf-8")
    findings = lint_bytes(data, display).findings
    if findings:  # never write what lint would report (a title statedoc cannot draw, ...)
        shown = "; ".join(f"{f.code} {f.message}" for f in findings)
        raise ConfigError(f"{display}: the scaffold would not lint clean: {shown}")
    if any(n.id == spec_id for n in neighbours):  # next_free guarantees this; say so if not
        raise ConfigError(f"{display}: {spec_id} is taken")
    return data


def neighbours_of(config: Config) -> list[Neighbour]:
    """Every existing spec that parses far enough to have its identity fields."""
    from generator.lint.document import lint_bytes
    from generator.load.discover import discover

    folders = [str(s) for s in config.specs if s.is_dir()]
    if not folders:
        return []
    found: list[Neighbour] = []
    for spec in discover(folders, config, cwd=config.root):
        try:
            data = spec.path.read_bytes()
        except OSError:
            continue
        document = lint_bytes(data, spec.display, max_file_size=config.max_file_size).document
        if document is not None:
            s = document.spec
            found.append(Neighbour(s.id, s.object, s.product_area, s.module))
        else:  # a broken spec still holds its id: never hand it out again
            text = data.decode("utf-8", "replace")
            ids = [m.group(2) for m in RAW_ID.finditer(text)]
            found.extend(
                Neighbour(i, i, spec.path.parent.parent.name, spec.path.parent.name) for i in ids
            )
    return found


def create_exclusive(path: Path, data: bytes) -> None:
    """Write a new file atomically; FileExistsError if ``path`` exists (even a broken link).

    Temp file beside it, fsync, then a hard link to the final name: unlike a rename, a link
    never replaces an existing file, so a file created meanwhile by someone else survives.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    import tempfile  # here: every command's start-up imports this module

    fd, tmp = tempfile.mkstemp(prefix=".statedoc-new.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        os.link(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def _config_for(path: Path) -> Config:
    """The configuration that applies to ``path`` (from its nearest existing folder)."""
    folder = path.parent
    while not folder.is_dir() and folder != folder.parent:
        folder = folder.parent
    config = load_config(folder)
    return config if config.source is not None else load_config()


def _usage(message: str) -> int:
    print(f"statedoc: error: {message}", file=sys.stderr)
    return EXIT_USAGE


def run(args: argparse.Namespace) -> int:
    shown = args.path
    path = Path(os.path.abspath(args.path))
    if os.path.lexists(path):  # False for a name too long, which the write then reports
        return _usage(f"{shown} already exists; `new` never overwrites a file")
    if path.suffix != ".md":
        return _usage(f"{shown}: a spec is a Markdown file; name it <name>.md")
    config = _config_for(path)
    roots = [s.resolve() for s in config.specs]
    parent = path.parent.parent.parent
    if not any(parent.resolve() == root or root in parent.resolve().parents for root in roots):
        where = ", ".join(os.path.relpath(r) for r in roots)
        return _usage(
            f"{shown} is not at <specs folder>/<product_area>/<module>/<name>.md "
            f"(specs folders: {where}); `statedoc build` would not see it"
        )
    from generator.load.discover import excluded

    relative = os.path.relpath(path, config.root).replace(os.sep, "/")
    if excluded(relative, config.exclude):
        return _usage(f"{shown} matches `exclude` in {config.source}; `statedoc build` skips it")
    area, module = path.parent.parent.name, path.parent.name
    for what, value in (("product_area", area), ("module", module)):
        if not SLUG.fullmatch(value):
            return _usage(
                f"{shown}: the folder {value!r} is the spec's {what} and must be a lower-case "
                "slug such as tenant-lifecycle (specs/<product_area>/<module>/<name>.md)"
            )
    title = args.title or title_of(path.stem)
    if not title.strip():
        return _usage(f"{shown}: give the spec a name or a --title")
    data = render(path, shown, title.strip(), neighbours_of(config))
    try:
        create_exclusive(path, data)
    except FileExistsError:
        return _usage(f"{shown} already exists; `new` never overwrites a file")
    except OSError as exc:  # a name or path too long, a read-only folder, a full disk
        return _usage(f"{shown}: cannot create it: {exc.strerror or exc}")
    print(f"created {shown}; fill in the states and transitions, then run `statedoc build`")
    return EXIT_OK
