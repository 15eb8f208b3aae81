"""A target from another distribution: built and installed offline (hatchling, then
``pip install --no-build-isolation --no-deps --no-index --target``), found through its
``statedoc.targets`` entry point, and run by ``statedoc`` in a fresh process through the same
plan as the built-in targets: its table, ownership, ``--check`` diffs, stale cleanup and
findings. Nothing in ``generator/`` knows the plugin."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from targets.test_generate_support import PYPROJECT, SEED_MODULES, make_project

#: The plugin's module: a ``csv`` target, one row per declared transition.
CSV_TARGET = '''\
"""statedoc's ``csv`` target: ``<area>/<module>/<name>.csv``, one row per transition."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from generator.load.config import Config, known_keys
from generator.core.errors import ConfigError
from generator.core.findings import Finding, Severity
from generator.model.document import Document
from generator.targets import Target, TargetSpec, base_path, source_path
from generator.render.environment import has_header, header_line


class Settings:
    def __init__(self, delimiter: str, max_rows: int) -> None:
        self.delimiter = delimiter
        self.max_rows = max_rows


def parse(table: Mapping[str, Any], where: str) -> Settings:
    known_keys(table, {"delimiter", "max-rows"}, where)
    delimiter = table.get("delimiter", ",")
    if not isinstance(delimiter, str) or len(delimiter) != 1:
        raise ConfigError(f"{where}: delimiter must be one character, not {delimiter!r}")
    return Settings(delimiter, int(table.get("max-rows", 100)))


class CsvTarget(Target):
    name = "csv"

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def files(self, document: Document, config: Config) -> dict[str, bytes]:
        if document.spec.title == "Refused":
            raise ValueError("the csv target refuses this title")
        rows = [header_line("#", source_path(document, config)), f"from{self.settings.delimiter}to"]
        rows += [self.settings.delimiter.join(t.pair) for t in document.spec.transitions]
        return {f"{base_path(document)}.csv": ("\\n".join(rows) + "\\n").encode()}

    def owns(self, path: str, first_line: str) -> bool:
        return path.endswith(".csv") and first_line.startswith("# ") and has_header(first_line)

    def findings(self, documents: Sequence[Document], config: Config) -> list[Finding]:
        return [
            Finding(
                d.path, 1, 1, 1, 1, "CSV001", "long-table", Severity.WARNING,
                f"{len(d.spec.transitions)} rows, more than max-rows",
            )
            for d in documents
            if len(d.spec.transitions) > self.settings.max_rows
        ]


SPEC = TargetSpec("csv", CsvTarget, parse)
'''

PLUGIN_PYPROJECT = """\
[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[project]
name = "{dist}"
version = "1.0"

[project.entry-points."statedoc.targets"]
{name} = "{module}:SPEC"

[tool.hatch.build.targets.wheel]
only-include = ["{module}.py"]
"""


def install(folder: Path, dist: str, name: str, source: str) -> Path:
    """Build the distribution ``dist`` (one module adding the target ``name``) and install it
    into a folder of its own, offline; returns that folder (a ``sys.path`` entry)."""
    module = dist.replace("-", "_")
    project = folder / dist
    project.mkdir(parents=True)
    (project / "pyproject.toml").write_text(
        PLUGIN_PYPROJECT.format(dist=dist, name=name, module=module), encoding="utf-8"
    )
    (project / f"{module}.py").write_text(source, encoding="utf-8")
    site = folder / f"{dist}-site"
    offline = ["--no-build-isolation", "--no-deps", "--no-index", "--no-cache-dir"]
    quiet = ["--quiet", "--disable-pip-version-check"]
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            *offline,
            *quiet,
            "--target",
            str(site),
            str(project),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    (info,) = site.glob("*.dist-info")
    assert (info / "entry_points.txt").read_text().split() == [
        "[statedoc.targets]",
        f"{name}",
        "=",
        f"{module}:SPEC",
    ]
    return site


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("plugins")
    twin = CSV_TARGET + "# the same name, from another distribution\n"
    clash = CSV_TARGET.replace('name = "csv"', 'name = "sql"').replace('("csv"', '("sql"')
    return {
        "csv": install(folder, "statedoc-csv", "csv", CSV_TARGET),
        "twin": install(folder, "statedoc-csv-twin", "csv", twin),
        "sql": install(folder, "statedoc-sql-clash", "sql", clash),
    }


def statedoc(project: Path, *args: str, sites: list[Path]) -> subprocess.CompletedProcess[str]:
    """``python -m generator ARGS`` in ``project``, with the plugins of ``sites`` installed."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, sites))}
    env.pop("STATEDOC_FORMAT", None)
    return subprocess.run(
        [sys.executable, "-m", "generator", *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def configure(project: Path, extra: str = "") -> None:
    (project / "pyproject.toml").write_text(
        f'{PYPROJECT}targets = ["python", "csv"]\n{extra}', encoding="utf-8"
    )


QUERIES_CSV = f"generated/{SEED_MODULES['queries']}.csv"
TENANT_CSV = f"generated/{SEED_MODULES['tenant']}.csv"


def test_a_plugin_target_goes_through_the_whole_plan(
    tmp_path: Path, sites: dict[str, Path]
) -> None:
    project = make_project(tmp_path / "project")
    configure(project, '[tool.statedoc.csv]\ndelimiter = ";"\nmax-rows = 6\n')
    plugin = [sites["csv"]]
    done = statedoc(project, "generate", sites=plugin)
    assert done.returncode == 0, done.stderr
    lines = (project / QUERIES_CSV).read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("# Code generated by statedoc from specs/") and lines[1] == "from;to"
    assert "pending;delivering" in lines
    assert (project / f"generated/{SEED_MODULES['queries']}.py").is_file()
    # findings: the queries seed has more rows than max-rows, the tenant seed not
    assert "CSV001" in done.stdout and "more than max-rows" in done.stdout
    assert statedoc(project, "check", "-q", sites=plugin).returncode == 0

    (project / QUERIES_CSV).write_text("\n".join([*lines, "x;y"]) + "\n", encoding="utf-8")
    checked = statedoc(project, "check", "--format", "json", sites=plugin)
    assert checked.returncode == 1
    stale = [f for f in json.loads(checked.stdout) if f["code"] == "SD401"]
    assert [f["message"].split()[0] for f in stale] == [QUERIES_CSV]
    diff = statedoc(project, "generate", "--check", sites=plugin)
    assert diff.returncode == 1 and "\n-x;y\n" in diff.stdout
    assert statedoc(project, "generate", "-q", sites=plugin).returncode == 0
    assert (project / QUERIES_CSV).read_text(encoding="utf-8").splitlines() == lines

    mine = project / "generated/platform/queries/mine.csv"
    mine.write_text("from,to\na,b\n", encoding="utf-8")
    (project / "specs/platform/tenant-lifecycle/provisioning-attempt.md").unlink()
    assert statedoc(project, "generate", "-q", sites=plugin).returncode == 0
    assert not (project / TENANT_CSV).exists()  # its document is gone: stale
    assert mine.read_text(encoding="utf-8") == "from,to\na,b\n"  # no header: never ours


def test_a_plugin_target_is_chosen_by_name_and_refuses_as_built_in_ones_do(
    tmp_path: Path, sites: dict[str, Path]
) -> None:
    refused = "specs/testing/refused.md"
    project = make_project(tmp_path / "project")
    (project / refused).parent.mkdir(parents=True)
    (project / refused).write_text(
        (project / "specs/platform/tenant-lifecycle/provisioning-attempt.md")
        .read_text(encoding="utf-8")
        .replace("title: Provisioning attempt", "title: Refused")
        .replace("STATE-PFM-TNL-002", "STATE-PFM-TNL-099"),
        encoding="utf-8",
    )
    done = statedoc(project, "generate", "--target", "csv", sites=[sites["csv"]])
    assert done.returncode == 1
    assert f"{refused}:1:1: SD409 refused: the csv target refuses this title" in done.stdout
    assert (project / QUERIES_CSV).is_file()
    assert not list((project / "generated").rglob("*.py"))  # only the target asked for


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ('[tool.statedoc.csv]\ndelimiter = ";;"\n', "delimiter must be one character, not ';;'"),
        ("[tool.statedoc.csv]\nsep = 1\n", "unknown key(s) sep"),
        ("[tool.statedoc.csvv]\n", "unknown key(s) csvv (did you mean 'csv'?)"),
    ],
)
def test_a_plugin_table_is_checked_by_its_target_on_every_command(
    tmp_path: Path, sites: dict[str, Path], table: str, message: str
) -> None:
    project = make_project(tmp_path / "project")
    configure(project, table)
    done = statedoc(project, "lint", sites=[sites["csv"]])
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert "tool.statedoc" in done.stderr


def test_without_the_plugin_its_name_is_unknown(tmp_path: Path) -> None:
    project = make_project(tmp_path / "project")
    configure(project)
    done = statedoc(project, "generate", sites=[])
    assert done.returncode == 2
    assert "targets must list known targets" in done.stderr and "'csv'" in done.stderr


@pytest.mark.parametrize(
    ("names", "message"),
    [
        (["csv", "twin"], "statedoc-csv and the distribution statedoc-csv-twin both add"),
        (["csv", "sql"], "statedoc-sql-clash adds a target named 'sql', the name of a built-in"),
    ],
)
def test_a_name_clash_is_a_configuration_error(
    tmp_path: Path, sites: dict[str, Path], names: list[str], message: str
) -> None:
    project = make_project(tmp_path / "project")
    configure(project)
    done = statedoc(project, "generate", sites=[sites[name] for name in names])
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert not (project / "generated").exists()


def test_built_in_targets_alone_never_look_for_plugins(tmp_path: Path) -> None:
    """Entry points are read only for a name that is not built in: a run of built-in targets
    does not import importlib.metadata at all."""
    project = make_project(tmp_path / "project")
    (project / "pyproject.toml").write_text(
        f'{PYPROJECT}targets = ["python", "sql"]\n[tool.statedoc.sql]\nschema = "app"\n'
    )
    probe = (
        "import sys\n"
        "from generator.cli import main\n"
        "code = main(['generate', '-q'])\n"
        "print(code, 'importlib.metadata' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=project, capture_output=True, text=True, check=False
    )
    assert done.stdout.splitlines()[-1] == "0 False", done.stderr  # after SD122 warnings
