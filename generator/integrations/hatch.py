"""A hatchling build hook: generate state machines while a downstream package is built.

In the downstream ``pyproject.toml``::

    [build-system]
    requires = ["hatchling", "statedoc"]
    build-backend = "hatchling.build"

    [tool.hatch.build.hooks.statedoc]
    specs = "specs"              # folder of state documents (default "specs")
    out = "src/mypkg/states"     # inside the package; may be git-ignored or committed

The wheel then holds the generated modules (``mypkg/states/...``) exactly once, whether or not
``out`` is ignored by git: the hook asks hatch which files the wheel already takes and
force-includes only the generated files it would leave out (force-including a file hatch
already takes adds it twice, which hatchling refuses: "A second file is being added to the
wheel archive"). A spec with lint errors fails the build with the findings, as a compiler
would. Only wheels run it: an sdist ships the specs.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface
from hatchling.plugin import hookimpl


class StatedocBuildError(RuntimeError):
    """Generation failed; the message holds the findings."""


def generate_into(root: Path, specs: str, out: str) -> list[str]:
    """Lint and generate ``root/specs`` into ``root/out``; return the generated documents."""
    from generator.core.errors import ConfigError
    from generator.load.config import Config
    from generator.report import Run, render
    from generator.run import pipeline
    from generator.run.workspace import Options, Workspace

    config = Config(root=root, specs=(root / specs,), out=root / out)
    try:
        workspace = Workspace.open(Options(jobs=1, use_cache=False), config, cwd=root)
    except ConfigError:
        raise StatedocBuildError(f"statedoc: no spec documents found in {root / specs}") from None
    run = pipeline.lint(workspace)
    if run.has_errors:  # like a compiler: nothing is written for a broken input
        report = render("text", Run(run.findings, workspace.displays, ""))
        raise StatedocBuildError(f"statedoc: the specs have lint errors:\n{report}")
    try:
        outcome = pipeline.generate(workspace, run)
    except ConfigError as exc:  # overlapping output roots: a usage error, shown as the build's
        raise StatedocBuildError(f"statedoc: {exc}") from None
    if not outcome.ok:
        problems = "".join(f"{p}\n" for p in outcome.problems)
        raise StatedocBuildError(f"statedoc: generation failed:\n{problems}")
    return outcome.generated


def wheel_path(out: str) -> str:
    """Where ``out`` lands in the wheel: its path below the project, without a ``src/``."""
    parts = Path(out).as_posix().strip("/").split("/")
    return "/".join(parts[1:] if parts and parts[0] == "src" else parts)


def missing_files(folder: Path, included: set[str]) -> list[Path]:
    """The files under ``folder`` that are not in ``included`` (normalised absolute paths)."""
    return sorted(
        path
        for path in folder.rglob("*")
        if path.is_file()
        and "__pycache__" not in path.parts
        and os.path.normpath(path) not in included
    )


class StatedocBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "statedoc"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        specs = str(self.config.get("specs", "specs"))
        out = self.config.get("out")
        if not isinstance(out, str) or not out:
            raise StatedocBuildError(
                "[tool.hatch.build.hooks.statedoc] needs `out`, a folder inside the package"
            )
        root = Path(self.root)
        generate_into(root, specs, out)
        forced: dict[str, str] = build_data.setdefault("force_include", {})
        # What the wheel takes without us: committed files are in it, git-ignored ones are not.
        included = {
            os.path.normpath(f.path) for f in self.build_config.builder.recurse_included_files()
        }
        included.update(os.path.normpath(source) for source in forced)
        for path in missing_files(root / out, included):
            relative = path.relative_to(root).as_posix()
            mapped = self.build_config.get_distribution_path(relative) != relative
            # hatch maps a target under `packages = ["src/pkg"]` itself; else drop a `src/`
            forced[str(path)] = relative if mapped else wheel_path(relative)


@hookimpl
def hatch_register_build_hook() -> type[StatedocBuildHook]:
    return StatedocBuildHook
