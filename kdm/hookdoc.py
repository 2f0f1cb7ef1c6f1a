"""The hook reference of ``docs/plugins.md``, generated from the hook specs so that it never drifts: the
core's (``kdm.hookspecs``), then those kdm's own games add (``kdm_addhooks``: ``kdm.plugins.kilo.hookspecs``).

Owns the rendering of that reference (for every hook spec, in source order under the module's
``# --- section ---`` comments: its name, its signature, whether it is ``firstresult``, its docstring)
and the command that prints it or rewrites the part of the page between ``HOOKS_START`` and
``HOOKS_END``::

    python -m kdm.hookdoc                 # print the reference
    python -m kdm.hookdoc --write [FILE]  # rewrite the reference in docs/plugins.md (or FILE)
    python -m kdm.hookdoc --check [FILE]  # exit 1 if that reference is out of date

The hookspecs are the source of truth: to change what the reference says, change them, then ``--write``.
"""

from __future__ import annotations

import argparse
import inspect
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pluggy

from kdm import hookspecs
from kdm.manager import added_hookspecs, installed_plugins

HOOKS_START = "<!-- hooks:start -->"
HOOKS_END = "<!-- hooks:end -->"
#: The page in a source checkout (``kdm/`` sits beside ``docs/``); an installed kdm has no docs.
DEFAULT_PAGE = Path(__file__).resolve().parent.parent / "docs" / "plugins.md"
WRITE_COMMAND = "python -m kdm.hookdoc --write"

_SECTION = re.compile(r"^# -+ (?P<title>.+?) -*$")
#: How pluggy combines the answers, per hook; the section's introduction says it once in full.
_RESULT = {
    True: "**firstresult**: the first answer that is not None.",
    False: "**every plugin**: the list of the answers that are not None.",
}
_INTRODUCTION = (
    "pluggy calls the implementations of a hook last registered first. A **firstresult** hook stops at "
    "the first answer that is not None and returns it (None if every plugin passed); any other hook "
    "calls every implementation and returns the list of the answers that are not None."
)


@dataclass(frozen=True)
class HookSpec:
    """One hook as the reference shows it."""

    name: str
    section: str
    signature: str
    firstresult: bool
    historic: bool
    doc: str


def hook_specs(module: ModuleType = hookspecs) -> list[HookSpec]:
    """Every hook spec of ``module``, in definition order, as pluggy itself recognises specs."""
    # Ask pluggy rather than guess from names: a spec is what PluginManager.add_hookspecs would take.
    manager = pluggy.PluginManager(getattr(module, "PROJECT", hookspecs.PROJECT))
    sections = _sections(module)
    found: list[HookSpec] = []
    for name, function in vars(module).items():
        opts = manager.parse_hookspec_opts(module, name) if callable(function) else None
        if opts is None:
            continue
        line = function.__code__.co_firstlineno
        section = next((title for start, title in reversed(sections) if start < line), "")
        found.append(
            HookSpec(
                name=name,
                section=section,
                signature=_signature(name, function),
                firstresult=bool(opts.get("firstresult")),
                historic=bool(opts.get("historic")),
                doc=inspect.getdoc(function) or "(no docstring: say what it is for in kdm/hookspecs.py)",
            )
        )
    return found


def _sections(module: ModuleType) -> list[tuple[int, str]]:
    """``(line, title)`` of every ``# --- title ---`` comment in the module's source."""
    try:
        lines = inspect.getsource(module).splitlines()
    except (OSError, TypeError):  # a module made in memory (a test's) has no source: no sections
        return []
    found = [(number, _SECTION.match(text)) for number, text in enumerate(lines, start=1)]
    return [(number, match["title"]) for number, match in found if match]


def _signature(name: str, function: Callable[..., Any]) -> str:
    """``def name(arg: type, ...) -> type: ...``, with annotations as written in the source."""
    signature = inspect.signature(function)
    parameters = ", ".join(
        _annotated(parameter.name, parameter.annotation) for parameter in signature.parameters.values()
    )
    returns = signature.return_annotation
    arrow = "" if returns is inspect.Signature.empty else f" -> {_annotation(returns)}"
    # A body of ``...`` keeps the line valid Python, so the docs' code-block check compiles it too.
    return f"def {name}({parameters}){arrow}: ..."


def _annotated(name: str, annotation: Any) -> str:
    return name if annotation is inspect.Parameter.empty else f"{name}: {_annotation(annotation)}"


def _annotation(annotation: Any) -> str:
    # With ``from __future__ import annotations`` (as in kdm.hookspecs) annotations are their source text.
    return annotation if isinstance(annotation, str) else inspect.formatannotation(annotation)


def reference_modules() -> list[ModuleType]:
    """The core's hook specs, then every hook spec module kdm's own plugins add."""
    builtins = [info for info in installed_plugins().values() if info.builtin]
    return [hookspecs, *added_hookspecs(builtins)]


def render_reference(*modules: ModuleType) -> str:
    """The markdown reference of every hook in ``modules`` (default: ``reference_modules()``), markers
    included."""
    modules = modules or tuple(reference_modules())
    specs = [spec for module in modules for spec in hook_specs(module)]
    names = ", ".join(module.__name__ for module in modules)
    out = [
        HOOKS_START,
        f"<!-- Generated from {names} by `{WRITE_COMMAND}`: edit the hookspecs, not this. -->",
        "",
        _INTRODUCTION,
        "",
        "| hook | result |",
        "|---|---|",
        *(
            f"| [`{s.name}`](#{s.name}) | {'firstresult' if s.firstresult else 'every plugin'} |"
            for s in specs
        ),
    ]
    section = ""
    for spec in specs:
        if spec.section and spec.section != section:
            section = spec.section
            out += ["", f"### {section[0].upper()}{section[1:]}"]
        result = _RESULT[spec.firstresult] + (
            " **historic**: a late plugin gets past calls." if spec.historic else ""
        )
        out += ["", f"#### `{spec.name}`", "", "```python", spec.signature, "```", "", result, "", spec.doc]
    out += ["", HOOKS_END]
    return "\n".join(out)


def generated_section(page: str) -> str:
    """The part of ``page`` from ``HOOKS_START`` to ``HOOKS_END``, markers included."""
    start, end = page.find(HOOKS_START), page.find(HOOKS_END)
    if start < 0 or end < start:
        raise ValueError(f"the page has no {HOOKS_START} … {HOOKS_END} section for the hook reference")
    return page[start : end + len(HOOKS_END)]


def with_reference(page: str, reference: str) -> str:
    """``page`` with its generated section replaced by ``reference``."""
    old = generated_section(page)
    return page.replace(old, reference, 1)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m kdm.hookdoc", description="Print the hook reference of docs/plugins.md, or update it."
    )
    action = parser.add_mutually_exclusive_group()
    action.add_argument(
        "--write",
        nargs="?",
        const=DEFAULT_PAGE,
        type=Path,
        metavar="FILE",
        help=f"rewrite the reference in FILE (default {DEFAULT_PAGE})",
    )
    action.add_argument(
        "--check",
        nargs="?",
        const=DEFAULT_PAGE,
        type=Path,
        metavar="FILE",
        help="exit 1 if the reference in FILE is out of date",
    )
    args = parser.parse_args(argv)
    reference = render_reference()
    page_path: Path | None = args.write or args.check
    if page_path is None:
        print(reference)
        return 0
    try:
        page = page_path.read_text(encoding="utf-8")
        updated = with_reference(page, reference)
    except (OSError, ValueError) as error:
        print(f"kdm.hookdoc: {page_path}: {error}", file=sys.stderr)
        return 2
    if args.check:
        if updated != page:
            print(f"kdm.hookdoc: the hook reference in {page_path} is out of date: run {WRITE_COMMAND}")
            return 1
        return 0
    if updated != page:
        page_path.write_text(updated, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
