"""``statedoc rules``, ``statedoc explain CODE`` and ``statedoc schema``: the catalogue."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from generator.core.exitcodes import EXIT_OK, EXIT_USAGE


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    rules = sub.add_parser("rules", help="list the rules")
    rules.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    rules.set_defaults(run=run_rules)
    explain = sub.add_parser("explain", help="explain one rule, with a failing and a fixed example")
    explain.add_argument("code")
    explain.set_defaults(run=run_explain)
    schema = sub.add_parser("schema", help="print the JSON Schema of the front matter")
    schema.add_argument(
        "--target",
        metavar="NAME",
        help="print the JSON Schema of a target's files instead (vectors: <name>.vectors.json)",
    )
    schema.set_defaults(run=run_schema)


def rules_table() -> str:
    """The Markdown rule table (also embedded in README.md; a test keeps it fresh)."""
    from generator.rules import all_rules

    lines = ["| code | name | severity | finding |", "| --- | --- | --- | --- |"]
    for r in all_rules():
        summary = r.summary.replace("|", "\\|")
        lines.append(f"| {r.code} | {r.name} | {r.severity.value} | {summary} |")
    return "\n".join(lines) + "\n"


def run_rules(args: argparse.Namespace) -> int:
    from generator.rules import all_rules

    items = all_rules()
    if args.format == "json":
        data = [
            {"code": r.code, "name": r.name, "severity": r.severity.value, "summary": r.summary}
            for r in items
        ]
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
    elif args.format == "markdown":
        sys.stdout.write(rules_table())
    else:
        width = max(len(r.name) for r in items)
        for r in items:
            flag = " (w)" if r.severity.value == "warning" else ""
            sys.stdout.write(f"{r.code}  {r.name:<{width}}  {r.summary}{flag}\n")
    return EXIT_OK


def _indent(text: str) -> str:
    return "".join(f"    {line}\n" for line in text.removeprefix("RAW:").splitlines())


def run_explain(args: argparse.Namespace) -> int:
    from generator.rules import all_rules

    code = args.code.strip().upper()
    found = [r for r in all_rules() if r.code == code or r.name == args.code.strip().lower()]
    if not found:
        print(
            f"statedoc: error: unknown rule {args.code!r} (see `statedoc rules`)", file=sys.stderr
        )
        return EXIT_USAGE
    r = found[0]
    context = (
        ""
        if r.bad.startswith(("---", "RAW:"))
        else "(front matter, after the usual id/title/object/... keys)\n"
    )
    sys.stdout.write(
        f"{r.code} {r.name} ({r.severity.value})\n\n{r.summary}\n\nWhy: {r.why}\n\n"
        f"Fails:\n{context}{_indent(r.bad)}\nPasses:\n{context}{_indent(r.good)}"
        f"\nSuppress one occurrence with `# statedoc: ignore[{r.code}]` on the reported line.\n"
    )
    return EXIT_OK


def run_schema(args: argparse.Namespace) -> int:
    if args.target is not None:
        from generator.core.errors import ConfigError
        from generator.targets.registry import get_target, known

        try:
            text = get_target(args.target).schema()
        except (KeyError, ConfigError) as exc:
            detail = exc if isinstance(exc, ConfigError) else f"known: {', '.join(known())}"
            print(f"statedoc: error: unknown target {args.target!r} ({detail})", file=sys.stderr)
            return EXIT_USAGE
        if text is None:
            print(f"statedoc: error: the {args.target} target publishes no schema", file=sys.stderr)
            return EXIT_USAGE
        sys.stdout.write(text)
        return EXIT_OK
    from generator.load.schema import schema_text

    sys.stdout.write(schema_text())
    return EXIT_OK
