"""``dataclass`` and ``field`` for statedoc's records: the stdlib's to the type checker, a
lighter runtime (:mod:`generator._records`) to the interpreter, because :mod:`dataclasses`
alone cost a cold one-document lint more than parsing it did. Same behaviour: frozen records
stay frozen, equal and hashable as before, and ``dataclasses.fields``/``replace``/``asdict``
still accept them (``replace`` and ``asdict`` here too, without importing them up front)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dataclasses import asdict, dataclass, field, replace
else:
    from generator._records import asdict, dataclass, field, replace

__all__ = ["asdict", "dataclass", "field", "replace"]
