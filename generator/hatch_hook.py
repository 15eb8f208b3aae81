"""Alias kept for build configurations that name ``generator.hatch_hook``: the hook lives in
:mod:`generator.integrations.hatch`."""

from generator.integrations.hatch import (
    StatedocBuildError,
    StatedocBuildHook,
    generate_into,
    hatch_register_build_hook,
)

__all__ = ["StatedocBuildError", "StatedocBuildHook", "generate_into", "hatch_register_build_hook"]
