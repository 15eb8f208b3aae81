"""Generation targets: each turns one loaded document into the files it owns.

The seam has two halves. :class:`TargetSpec` is the record statedoc registers a target by:
its name, where its class lives and how its ``[tool.statedoc.<name>]`` table is parsed, all
readable without importing the target. :class:`Target` is the base class every target
subclasses: ``files`` and ``owns`` are its own, every other capability has an explicit
default here (``root``, ``create_only``, ``package_files``, ``findings``, ``tests_target``,
``context``), and the pipeline uses nothing a target does not declare this way.

Every target's table may also say where its files go (``out``) and where its generated tests
go (``tests``): :data:`FOLDER_KEYS`, read here for all of them (:func:`folder_value`) and never
passed to the target's own parser; :mod:`generator.run.folders` resolves and checks them.

Built-in targets are the lines of :data:`REGISTRY`; another distribution adds one with an
entry point in the ``statedoc.targets`` group that names its :class:`TargetSpec`
(:mod:`generator.targets.registry` finds both). Adding a built-in target is its own package
plus one line in :data:`REGISTRY`.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Collection, Mapping, Sequence
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal, NamedTuple

if TYPE_CHECKING:
    from generator.core.findings import Finding
    from generator.load.config import Config
    from generator.load.source import SourceText
    from generator.model.document import Document

#: The folder a target's paths are relative to: the output folder, or ``--tests DIR``.
Root = Literal["out", "tests"]
#: Parses a target's ``[tool.statedoc.<name>]`` table; ``where`` names it in errors, which are
#: :class:`~generator.core.errors.ConfigError`.
SettingsParser = Callable[[Mapping[str, Any], str], object]
#: Keys every ``[tool.statedoc.<name>]`` accepts, whatever the target: its own output folder
#: and the folder of its generated tests (relative to the project root).
FOLDER_KEYS: tuple[str, ...] = ("out", "tests")


def own_table(table: Mapping[str, Any]) -> dict[str, Any]:
    """``table`` without :data:`FOLDER_KEYS`: what the target's own parser reads."""
    return {key: value for key, value in table.items() if key not in FOLDER_KEYS}


def folder_value(config: Config | None, name: str, key: str) -> object:
    """``out`` or ``tests`` of ``[tool.statedoc.<name>]`` as written (None when absent);
    checked, with findings, by :mod:`generator.run.folders`."""
    if config is None:
        return None
    table = config.target_tables.get(name)
    return table.get(key) if isinstance(table, Mapping) else None


def out_of(settings: Config, name: str) -> Path:
    """The folder the target ``name`` writes to in this run (``settings.outs``, as the run
    placed it; outside a run: its configured ``out``, else ``settings.out``)."""
    placed = settings.outs.get(name)
    if placed is not None:
        return placed
    configured = folder_value(settings, name, "out")
    if isinstance(configured, str) and configured:
        return settings.root / configured
    return settings.out


class Target(abc.ABC):
    """One kind of generated output: subclass it, set :attr:`name`, write :meth:`files` and
    :meth:`owns`, and override a default below only where the target differs."""

    #: What ``targets`` and ``--target`` select it by; outputs are cached under it.
    name: ClassVar[str]
    #: The folder its paths are relative to (``"tests"``: it needs ``--tests DIR``).
    root: ClassVar[Root] = "out"
    #: Files written once when missing, then the user's: never compared, replaced or deleted.
    create_only: ClassVar[bool] = False
    #: A target of generated tests names the target whose files its files import: it renders
    #: with ``settings.out`` set to that target's folder (which may be its own ``out``).
    tests_of: ClassVar[str | None] = None

    @abc.abstractmethod
    def files(self, document: Document, settings: Config) -> dict[str, bytes]:
        """The files this document yields: POSIX path relative to the target's root ->
        content.

        Raises ``ValueError`` (a target's own subclass, with a message that says why) when
        the document cannot be generated; the pipeline reports it as a refusal (SD409)."""

    @abc.abstractmethod
    def owns(self, path: str, first_line: str) -> bool:
        """Whether an existing file (its relative path and first line) was written by this
        target, so it may be replaced or deleted as stale."""

    def package_files(self, paths: Collection[str], out_name: str) -> dict[str, bytes]:
        """Files that follow from the set of all generated ``paths`` of its root (Python's
        ``__init__.py``) in an output folder named ``out_name``: none by default."""
        return {}

    def findings(self, documents: Sequence[Document], settings: Config) -> list[Finding]:
        """What the target finds about the whole set of generated documents (SQL's SD121,
        SD122), silenced as lint findings are: none by default. ``documents`` are parsed on
        first access, so a target that does not look costs no parse."""
        return []

    def tests_target(self, folder: Path) -> Target | None:
        """With ``generate --tests DIR``: a companion target writing this target's tests
        into ``folder`` (TypeScript's fast-check tests); None by default."""
        return None

    def context(self) -> str:
        """What besides the document, its ``[tool.statedoc.<name>]`` table and the output
        folder decides the bytes (a folder it was built for): part of the render cache key."""
        return ""

    def schema(self) -> str | None:
        """The JSON Schema of the files it writes, when other programs read them as data
        (``statedoc schema --target NAME``); None by default."""
        return None


def table_of(config: Config | None, name: str) -> tuple[Mapping[str, Any], str]:
    """The ``[tool.statedoc.<name>]`` table of ``config`` (``{}`` without one) without the
    folder keys, and where it is, as its parser's errors name it."""
    if config is None:
        return {}, f"[tool.statedoc.{name}]"
    source = "" if config.source is None else f"{config.source} "
    return own_table(config.target_tables.get(name, {})), f"{source}[tool.statedoc.{name}]"


def _resolve(reference: object) -> Any:
    """``"module:attribute"`` imported, anything else as it is."""
    if not isinstance(reference, str):
        return reference
    module, _, attribute = reference.partition(":")
    return getattr(import_module(module), attribute)


class TargetSpec(NamedTuple):
    """How a target is registered: what statedoc knows before it imports the target (a
    NamedTuple: the configuration reads the registry on every start of ``statedoc lint``).

    ``target`` is the :class:`Target` subclass or ``"module:attribute"`` of it (imported only
    when the target runs); ``settings`` parses ``[tool.statedoc.<name>]`` (the table without
    :data:`FOLDER_KEYS`, where it is) into what the class is built with, or is
    ``"module:attribute"`` of that function; None: the target takes no settings of its own,
    and its table may hold only :data:`FOLDER_KEYS`.
    ``commands`` are the sub-commands the target adds to ``statedoc`` (``db`` for ``sql``):
    ``(name, module)`` pairs, each module with ``register(sub, common)`` as the CLI's own."""

    name: str
    target: type[Target] | str
    settings: SettingsParser | str | None = None
    commands: tuple[tuple[str, str], ...] = ()

    def parse(self, table: Mapping[str, Any], where: str) -> object:
        """The target's settings from its table (``{}`` when the project has none); the
        folder keys are the seam's, not the parser's."""
        own = own_table(table)
        if self.settings is None:
            if own:
                from generator.load.config import known_keys

                known_keys(own, FOLDER_KEYS, where)
            return None
        parser: SettingsParser = _resolve(self.settings)
        return parser(own, where)

    def build(self, config: Config | None = None) -> Target:
        """The target, built with its settings from ``config`` (defaults without one)."""
        from generator.core.errors import ConfigError

        cls = _resolve(self.target)
        if not (isinstance(cls, type) and issubclass(cls, Target)):
            raise ConfigError(f"the {self.name} target is {cls!r}, not a Target subclass")
        factory: Callable[..., Target] = cls
        if self.settings is None:
            target = factory()
        else:
            target = factory(self.parse(*table_of(config, self.name)))
        if target.name != self.name:
            raise ConfigError(
                f"the {self.name} target is registered as {self.name!r} but names itself "
                f"{target.name!r}"
            )
        return target


#: Built-in target name -> its record. Adding a target adds one line here.
REGISTRY: dict[str, TargetSpec] = {
    spec.name: spec
    for spec in (
        TargetSpec("python", "generator.targets.python.target:PythonTarget"),
        TargetSpec("mermaid", "generator.targets.mermaid:MermaidTarget"),
        TargetSpec("tests", "generator.targets.tests:TestsTarget"),
        TargetSpec(
            "sql",
            "generator.targets.sql.target:SqlTarget",
            "generator.targets.sql.settings:parse",
            commands=(("db", "generator.targets.sql.command"),),
        ),
        TargetSpec("typescript", "generator.targets.typescript:TypeScriptTarget"),
        TargetSpec("conformance", "generator.targets.conformance:ConformanceTarget"),
        TargetSpec("vectors", "generator.targets.vectors:VectorsTarget"),
    )
}
#: What ``generate`` writes when neither ``[tool.statedoc] targets`` nor ``--target`` says.
DEFAULT_TARGETS: tuple[str, ...] = ("python", "mermaid")


def module_parts(document: Document) -> tuple[str, str, str]:
    """``(area, module, name)``: identifiers, so never ``..``, ``/`` or empty."""
    from generator.model.names import snake_name

    spec = document.spec
    return snake_name(spec.product_area), snake_name(spec.module), snake_name(spec.title)


def base_path(document: Document) -> str:
    """``<area>/<module>/<name>``: every target's files for a document live under it."""
    return "/".join(module_parts(document))


def document_sha256(source: SourceText) -> str:
    """SHA-256 of the document's bytes, rebuilt exactly from the strictly decoded text (every
    target's header and the SQL comments carry it); computed once per document."""
    from generator.model.document import source_sha256

    return source_sha256(source)


def import_path(document: Document, settings: Config) -> str:
    """The dotted import path of the document's generated Python module: the output folder's
    path below the project root (its name when it lies outside), then area, module, name."""
    try:
        package = settings.out.resolve().relative_to(settings.root.resolve()).parts
    except ValueError:
        package = (settings.out.name,)
    return ".".join((*package, *module_parts(document)))


def source_path(document: Document, settings: Config) -> str:
    """The document's path relative to the project root, as discovery computes it (headers
    name the spec by it); its absolute path when it lies outside the root."""
    path = Path(document.path).absolute()
    try:
        return path.relative_to(settings.root).as_posix()
    except ValueError:
        return path.as_posix()
