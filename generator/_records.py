"""The runtime half of :mod:`generator.records`: ``@dataclass`` semantics at a fraction of the
import-time cost.

:mod:`dataclasses` costs a cold ``statedoc lint`` twice: importing it pulls in ``inspect``
(``ast``, ``dis``, ``tokenize``, ``copy``), and every decorated class compiles five or six
generated methods. Here ``__init__``, ``__eq__`` and ``__hash__`` are compiled as the stdlib
writes them (they run per document, so they must be as fast) but each on its first call, so
a class a run never instantiates or compares costs no compiling; ``__repr__``, ordering and
the frozen guards are shared functions over the class's field names. Equality, hashing (the
hash of the tuple of compared fields), ``repr``, immutability (``FrozenInstanceError``),
``__slots__``, ``__match_args__`` and pickling behave as the stdlib's; ``dataclasses.fields``,
``replace``, ``asdict`` and ``is_dataclass`` work too: ``__dataclass_fields__`` is built by
:mod:`dataclasses` itself on first use, from the same declarations.

Supported: what statedoc uses (``init``, ``repr``, ``eq``, ``order``, ``frozen``, ``slots``;
fields with ``default``, ``default_factory``, ``init``, ``repr``, ``hash``, ``compare``;
``__post_init__``); no inheritance between records, no ``ClassVar``/``InitVar``/``KW_ONLY``.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any, TypeVar

T = TypeVar("T", bound=type)


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class Field:
    """What ``field(...)`` declares: read once by the decorator."""

    __slots__ = ("compare", "default", "default_factory", "hash", "init", "repr")

    def __init__(
        self,
        default: Any,
        default_factory: Any,
        init: bool,
        repr: bool,
        hash: bool | None,
        compare: bool,
    ) -> None:
        self.default = default
        self.default_factory = default_factory
        self.init = init
        self.repr = repr
        self.hash = hash
        self.compare = compare


def field(
    *,
    default: Any = MISSING,
    default_factory: Any = MISSING,
    init: bool = True,
    repr: bool = True,
    hash: bool | None = None,
    compare: bool = True,
) -> Any:
    if default is not MISSING and default_factory is not MISSING:
        raise ValueError("cannot specify both default and default_factory")
    return Field(default, default_factory, init, repr, hash, compare)


def dataclass(
    cls: T | None = None,
    /,
    *,
    init: bool = True,
    repr: bool = True,
    eq: bool = True,
    order: bool = False,
    frozen: bool = False,
    slots: bool = False,
) -> Any:
    """``@dataclass`` or ``@dataclass(...)``, as the stdlib spells it."""

    def wrap(cls: T) -> T:
        return _process(cls, init=init, repr=repr, eq=eq, order=order, frozen=frozen, slots=slots)

    return wrap if cls is None else wrap(cls)


def _fields(cls: type) -> list[tuple[str, Field]]:
    if any("__record_fields__" in vars(base) for base in cls.__mro__[1:]):
        raise TypeError(f"{cls.__qualname__}: records do not inherit from records")
    declared: dict[str, Any] = vars(cls).get("__annotations__", {})
    found: list[tuple[str, Field]] = []
    for name, annotation in declared.items():
        if "ClassVar" in str(annotation) or "InitVar" in str(annotation):
            raise TypeError(f"{cls.__qualname__}.{name}: ClassVar/InitVar are not supported")
        value = vars(cls).get(name, MISSING)
        spec = value if isinstance(value, Field) else Field(value, MISSING, True, True, None, True)
        if isinstance(spec.default, list | dict | set):
            raise ValueError(f"mutable default for field {name}: use default_factory")
        found.append((name, spec))
    return found


def _process(
    cls: T, *, init: bool, repr: bool, eq: bool, order: bool, frozen: bool, slots: bool
) -> T:
    specs = _fields(cls)
    names = tuple(name for name, _ in specs)
    own = vars(cls)
    class_hash = own.get("__hash__", MISSING)
    explicit_hash = not (class_hash is MISSING or (class_hash is None and "__eq__" in own))
    if slots:
        namespace = dict(own)
        for name in (*names, "__dict__", "__weakref__"):
            namespace.pop(name, None)
        namespace["__slots__"] = names
        qualname = cls.__qualname__
        cls = type(cls)(cls.__name__, cls.__bases__, namespace)
        cls.__qualname__ = qualname
    else:
        for name, spec in specs:
            if isinstance(own.get(name), Field):
                if spec.default is MISSING:
                    delattr(cls, name)
                else:
                    setattr(cls, name, spec.default)
    setattr(cls, "__record_fields__", tuple(specs))  # noqa: B010 - cls is a TypeVar
    compared = tuple(name for name, spec in specs if spec.compare)
    hashed = tuple(
        name for name, spec in specs if (spec.compare if spec.hash is None else spec.hash)
    )
    if init:
        _set(cls, "__init__", _later(cls, "__init__", lambda: _make_init(cls, specs, frozen)))
    if repr:
        _set(cls, "__repr__", _make_repr(tuple(name for name, spec in specs if spec.repr)))
    if eq:
        source = _eq_source(compared)
        _set(cls, "__eq__", _later(cls, "__eq__", lambda: _compile(cls, "__eq__", source, {})))
    if order:
        for method in _make_order(_key(compared)):
            if method.__name__ in vars(cls):
                raise TypeError(f"{cls.__qualname__} defines {method.__name__}; order=True")
            setattr(cls, method.__name__, method)
    if eq and not explicit_hash:
        hash_source = _hash_source(hashed)
        hasher = _later(cls, "__hash__", lambda: _compile(cls, "__hash__", hash_source, {}))
        setattr(cls, "__hash__", hasher if frozen else None)  # noqa: B010
    if frozen:
        _set(cls, "__setattr__", _make_frozen_setattr(cls, names))
        _set(cls, "__delattr__", _make_frozen_delattr(cls, names))
        if slots:  # the default slot pickling restores with setattr, which frozen refuses
            _set(cls, "__getstate__", _make_getstate(names))
            _set(cls, "__setstate__", _setstate)
    _set(cls, "__match_args__", tuple(name for name, spec in specs if spec.init))
    lazy = _LazyDataclassFields(eq=eq, order=order, frozen=frozen)
    setattr(cls, "__dataclass_fields__", lazy)  # noqa: B010
    return cls


def _set(cls: type, name: str, value: object) -> None:
    """As :mod:`dataclasses`: what the class body defines itself wins."""
    if name not in vars(cls):
        setattr(cls, name, value)


def _later(cls: type, name: str, build: Callable[[], Callable[..., Any]]) -> Callable[..., Any]:
    """A stand-in that compiles the real method on its first call and puts it in its place:
    a class whose instances a run never makes (or compares, or hashes) never pays for the
    compiler, and later calls run the compiled method directly."""

    def stand_in(self: object, *args: Any, **kwargs: Any) -> Any:
        real = build()
        setattr(cls, name, real)
        return real(self, *args, **kwargs)

    stand_in.__name__ = name
    stand_in.__qualname__ = f"{cls.__qualname__}.{name}"
    return stand_in


def _compile(cls: type, name: str, source: str, scope: dict[str, Any]) -> Callable[..., Any]:
    """``def name(...)`` from ``source``, as :mod:`dataclasses` writes its methods."""
    namespace: dict[str, Any] = {}
    exec(source, scope, namespace)  # our own field names, as dataclasses does
    function: Callable[..., Any] = namespace[name]
    function.__qualname__ = f"{cls.__qualname__}.{name}"
    return function


def _eq_source(names: tuple[str, ...]) -> str:
    mine = "".join(f"self.{name}," for name in names)
    theirs = "".join(f"other.{name}," for name in names)
    return (
        "def __eq__(self, other):\n"
        "  if other.__class__ is self.__class__:\n"
        f"    return ({mine}) == ({theirs})\n"
        "  return NotImplemented"
    )


def _hash_source(names: tuple[str, ...]) -> str:
    return f"def __hash__(self):\n  return hash(({''.join(f'self.{name},' for name in names)}))"


def _make_init(cls: type, specs: list[tuple[str, Field]], frozen: bool) -> Callable[..., Any]:
    """``__init__`` as :mod:`dataclasses` would write it."""
    scope: dict[str, Any] = {"__setattr": object.__setattr__, "__FACTORY": _HAS_FACTORY}
    params: list[str] = []
    body: list[str] = []
    for name, spec in specs:
        factory = spec.default_factory is not MISSING
        if factory:
            scope[f"__factory_{name}"] = spec.default_factory
        if spec.default is not MISSING:
            scope[f"__default_{name}"] = spec.default
        if spec.init:
            if factory:
                params.append(f"{name}=__FACTORY")
                value = f"__factory_{name}() if {name} is __FACTORY else {name}"
            elif spec.default is not MISSING:
                params.append(f"{name}=__default_{name}")
                value = name
            else:
                params.append(name)
                value = name
        elif factory:
            value = f"__factory_{name}()"
        elif spec.default is not MISSING:
            value = f"__default_{name}"
        else:
            continue
        body.append(
            f"  __setattr(self, {name!r}, {value})" if frozen else f"  self.{name} = {value}"
        )
    if hasattr(cls, "__post_init__"):
        body.append("  self.__post_init__()")
    source = f"def __init__(self, {', '.join(params)}):\n" + "\n".join(body or ["  pass"])
    return _compile(cls, "__init__", source, scope)


class _HasFactory:
    __slots__ = ()

    def __repr__(self) -> str:
        return "<factory>"


_HAS_FACTORY = _HasFactory()


def _key(names: tuple[str, ...]) -> Callable[[object], tuple[Any, ...]]:
    """The tuple of ``names``' values, as the generated dataclass methods build it."""
    if len(names) >= 2:
        getter: Callable[[object], tuple[Any, ...]] = attrgetter(*names)
        return getter
    if len(names) == 1:
        single = attrgetter(names[0])
        return lambda obj: (single(obj),)
    return lambda obj: ()


def _make_repr(names: tuple[str, ...]) -> Callable[[object], str]:
    def __repr__(self: object) -> str:  # noqa: N807
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
        return f"{type(self).__qualname__}({inner})"

    return __repr__


def _make_order(
    key: Callable[[object], tuple[Any, ...]],
) -> tuple[Callable[[object, object], Any], ...]:
    def __lt__(self: object, other: object) -> Any:  # noqa: N807
        return key(self) < key(other) if other.__class__ is self.__class__ else NotImplemented

    def __le__(self: object, other: object) -> Any:  # noqa: N807
        return key(self) <= key(other) if other.__class__ is self.__class__ else NotImplemented

    def __gt__(self: object, other: object) -> Any:  # noqa: N807
        return key(self) > key(other) if other.__class__ is self.__class__ else NotImplemented

    def __ge__(self: object, other: object) -> Any:  # noqa: N807
        return key(self) >= key(other) if other.__class__ is self.__class__ else NotImplemented

    return (__lt__, __le__, __gt__, __ge__)


def _frozen(name: str) -> Exception:
    from dataclasses import FrozenInstanceError  # only when someone tries: not at start-up

    return FrozenInstanceError(f"cannot assign to field {name!r}")


def _make_frozen_setattr(cls: Any, names: tuple[str, ...]) -> Callable[[Any, str, Any], None]:
    def __setattr__(self: Any, name: str, value: Any) -> None:  # noqa: N807
        if type(self) is cls or name in names:
            raise _frozen(name)
        super(cls, self).__setattr__(name, value)

    return __setattr__


def _make_frozen_delattr(cls: Any, names: tuple[str, ...]) -> Callable[[Any, str], None]:
    def __delattr__(self: Any, name: str) -> None:  # noqa: N807
        if type(self) is cls or name in names:
            from dataclasses import FrozenInstanceError

            raise FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    return __delattr__


def _make_getstate(names: tuple[str, ...]) -> Callable[[object], list[Any]]:
    def __getstate__(self: object) -> list[Any]:  # noqa: N807
        return [getattr(self, name) for name in names]

    return __getstate__


def _setstate(self: object, state: list[Any]) -> None:
    for name, value in zip(type(self).__dict__["__record_fields__"], state, strict=True):
        object.__setattr__(self, name[0], value)


class _LazyDataclassFields:
    """``__dataclass_fields__``, made by :mod:`dataclasses` from the same declarations the
    first time ``fields``/``replace``/``asdict``/``is_dataclass`` ask, then cached on the
    class in place of this descriptor."""

    def __init__(self, *, eq: bool, order: bool, frozen: bool) -> None:
        self.params = {"eq": eq, "order": order, "frozen": frozen}

    def __get__(self, instance: object, owner: type) -> dict[str, Any]:
        import dataclasses

        specs: tuple[tuple[str, Field], ...] = owner.__dict__["__record_fields__"]
        namespace: dict[str, Any] = {
            "__annotations__": {name: owner.__annotations__[name] for name, _ in specs},
            "__module__": owner.__module__,
            "__qualname__": owner.__qualname__,
        }
        for name, spec in specs:
            namespace[name] = dataclasses.field(
                default=dataclasses.MISSING if spec.default is MISSING else spec.default,
                default_factory=(
                    dataclasses.MISSING if spec.default_factory is MISSING else spec.default_factory
                ),
                init=spec.init,
                repr=spec.repr,
                hash=spec.hash,
                compare=spec.compare,
            )
        shadow: Any = dataclasses.dataclass(type(owner.__name__, (), namespace), **self.params)
        fields: dict[str, Any] = shadow.__dataclass_fields__
        setattr(owner, "__dataclass_fields__", fields)  # noqa: B010 - replaces this descriptor
        return fields


def replace(obj: Any, /, **changes: Any) -> Any:
    """``dataclasses.replace``, imported when first used (never on a clean lint)."""
    from dataclasses import replace as stdlib_replace

    return stdlib_replace(obj, **changes)


def asdict(obj: Any) -> Any:
    """``dataclasses.asdict`` for records, without importing :mod:`dataclasses` (the lint
    cache writes one per document): the same recursion, leaves deep-copied."""
    specs = type(obj).__dict__.get("__record_fields__")
    if specs is None:
        from dataclasses import asdict as stdlib_asdict

        return stdlib_asdict(obj)
    return {name: _inner(getattr(obj, name)) for name, _ in specs}


def _inner(value: Any) -> Any:
    if "__record_fields__" in type(value).__dict__ or hasattr(type(value), "__dataclass_fields__"):
        return asdict(value)
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*[_inner(v) for v in value])
    if isinstance(value, list | tuple):
        return type(value)(_inner(v) for v in value)
    if isinstance(value, dict):
        return type(value)((_inner(k), _inner(v)) for k, v in value.items())
    if isinstance(value, str | int | float | bool | type(None)):
        return value  # what deepcopy returns for them
    import copy

    return copy.deepcopy(value)
