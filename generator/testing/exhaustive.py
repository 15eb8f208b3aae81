"""Alias kept for imports written before the split: the model of expected behaviour lives in
:mod:`generator.testing.expected`, the all-pairs check in :mod:`generator.testing.checks`."""

from generator.testing.checks import check_against, check_module, pairs
from generator.testing.expected import (
    FORBIDDEN,
    OK,
    UNDECLARED,
    Expected,
    ExpectedTransition,
    SpecError,
    SpecLike,
    load_spec,
    resolve_spec_path,
)

__all__ = [
    "FORBIDDEN",
    "OK",
    "UNDECLARED",
    "Expected",
    "ExpectedTransition",
    "SpecError",
    "SpecLike",
    "check_against",
    "check_module",
    "load_spec",
    "pairs",
    "resolve_spec_path",
]
