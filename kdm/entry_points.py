"""The entry points of one group that the distributions on ``sys.path`` declare, read from their files.

What ``importlib.metadata.entry_points(group=...)`` answers, for the layouts pip and setuptools install
(``*.dist-info`` and ``*.egg-info`` directories in the folders of ``sys.path``), without importing
``importlib.metadata``: that brings ``email``, ``zipfile``, ``csv`` and ``importlib.resources`` to parse
a few lines, 1.8 MiB of every ``kdm`` process's 36 (issue 'Light on the CPU': an idle peer in 35).
Where the path holds anything else (a zip archive or an egg file on ``sys.path``, or a folder in
one; a finder on ``sys.meta_path`` that offers distributions of its own), the answer is
``importlib.metadata``'s, so no plugin is ever missed. ``tests/test_entry_points.py`` compares both on
this machine's installs.

Like ``importlib.metadata``: the first distribution of a name on ``sys.path`` hides any later one of
the same name (``My_Plugin`` and ``my-plugin`` are one name), and a value is ``module:attribute``,
possibly followed by extras in brackets, which loading ignores. Unlike it, a line of entry_points.txt
with no ``=`` is skipped (``importlib.metadata`` raises, for every group).
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass

#: A value as entry_points.txt gives it: ``package.module:object.attribute [extra1, extra2]``.
VALUE = re.compile(r"(?P<module>[\w.]+)\s*(:\s*(?P<attribute>[\w.]+)\s*)?((?P<extras>\[.*\])\s*)?$")
_INFO_SUFFIXES = (".dist-info", ".egg-info")


@dataclass(frozen=True)
class EntryPoint:
    """One entry point: its name and value, and the distribution that declares it (name, version)."""

    name: str
    value: str
    group: str
    distribution: str
    version: str

    def load(self) -> object:
        """The object the value names, its module imported."""
        match = VALUE.match(self.value)
        if match is None:
            raise ValueError(f"entry point {self.name!r} has a value that names no module: {self.value!r}")
        found: object = importlib.import_module(match["module"])
        for attribute in (match["attribute"] or "").split("."):
            if attribute:
                found = getattr(found, attribute)
        return found


def entry_points(group: str) -> list[EntryPoint]:
    """Every entry point of ``group``, in the order of ``sys.path`` (then of each folder's listing)."""
    if not _readable_here():
        return _from_importlib_metadata(group)
    found: list[EntryPoint] = []
    seen: set[str] = set()
    for folder in sys.path:
        for info in _infos(folder or "."):
            name = _normalized(os.path.splitext(os.path.basename(info))[0].partition("-")[0])
            if name in seen:
                continue
            seen.add(name)
            found.extend(_declared(info, group))
    return found


def _readable_here() -> bool:
    """Whether every distribution importlib.metadata would find is in a folder this module reads."""
    from importlib.machinery import PathFinder

    for finder in sys.meta_path:
        if getattr(finder, "find_distributions", None) is not None and finder is not PathFinder:
            return False
    # An unzipped egg on the path keeps its metadata in EGG-INFO, which importlib.metadata reads.
    return not any(_in_archive(folder) or folder.lower().endswith(".egg") for folder in sys.path if folder)


def _in_archive(folder: str) -> bool:
    """Whether ``folder`` is a file on the path (a zip, an egg) or a folder inside one (``a.zip/lib``)."""
    while folder and not os.path.isdir(folder):
        if os.path.isfile(folder):
            return True
        parent = os.path.dirname(folder)
        if parent == folder:
            return False
        folder = parent
    return False


def _infos(folder: str) -> list[str]:
    try:
        names = os.listdir(folder)
    except OSError:  # a folder on sys.path that does not exist (yet): importlib.metadata skips it too
        return []
    # Files too (distutils wrote an egg-info as one file): like importlib.metadata, such a one hides
    # any later distribution of its name, and declares nothing.
    return [os.path.join(folder, name) for name in names if name.lower().endswith(_INFO_SUFFIXES)]


def _normalized(name: str) -> str:
    """A distribution's name as PEP 503 compares them: case, and runs of ``-_.``, do not matter."""
    return re.sub(r"[-_.]+", "_", name).lower()


def _declared(info: str, group: str) -> list[EntryPoint]:
    """The entry points of ``group`` that the distribution described in folder ``info`` declares."""
    try:
        with open(os.path.join(info, "entry_points.txt"), encoding="utf-8") as lines:
            declared = _section(lines, group)
    except OSError:  # declares none (or is a file, not a folder)
        return []
    if not declared:
        return []
    headers = _headers(info)
    return [
        EntryPoint(name, value, group, headers.get("name", ""), headers.get("version", ""))
        for name, value in declared
    ]


def _section(lines: Iterable[str], group: str) -> list[tuple[str, str]]:
    """The ``name = value`` lines of section ``[group]`` of an entry_points.txt (comments skipped)."""
    pairs: list[tuple[str, str]] = []
    section = None
    for raw in lines:
        line = raw.strip()
        if not line or line.startswith("#"):  # importlib.metadata's comments (";" starts a name)
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line.strip("[]")  # as importlib.metadata reads it: "[ kdm ]" is not "kdm"
        elif section == group and "=" in line:
            name, _, value = line.partition("=")
            pairs.append((name.strip(), value.strip()))
    return pairs


def _headers(info: str) -> dict[str, str]:
    """The Name and Version headers of a distribution's METADATA (PKG-INFO for an egg-info)."""
    for file in ("METADATA", "PKG-INFO"):  # an empty METADATA counts as none, as importlib.metadata has it
        headers: dict[str, str] = {}
        try:
            with open(os.path.join(info, file), encoding="utf-8") as lines:
                for line in lines:
                    if not line.strip():  # the headers end at the first blank line
                        break
                    key, colon, value = line.partition(":")
                    if colon and key.lower() in ("name", "version") and key.lower() not in headers:
                        headers[key.lower()] = value.strip()
        except OSError:
            continue
        if headers:
            return headers
    return {}


def _from_importlib_metadata(group: str) -> list[EntryPoint]:
    from importlib import metadata

    return [
        EntryPoint(
            entry.name,
            entry.value,
            group,
            (entry.dist.name or "") if entry.dist is not None else "",  # (None without a Name header)
            (entry.dist.version or "") if entry.dist is not None else "",
        )
        for entry in metadata.entry_points(group=group)
    ]
