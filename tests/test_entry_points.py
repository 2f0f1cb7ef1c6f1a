"""kdm's reader of entry points gives what importlib.metadata gives, and loads neither it nor email."""

from __future__ import annotations

import sys
import textwrap
import zipfile
from importlib import metadata
from pathlib import Path

import pytest

from kdm import entry_points as reader
from kdm.entry_points import EntryPoint, entry_points
from tests.helpers.plugins import modules_of_a_table_process


def _as_importlib_sees(group: str) -> list[EntryPoint]:
    return sorted(reader._from_importlib_metadata(group), key=repr)


def _distribution(folder: Path, directory: str, headers: str, declared: str, file: str = "METADATA") -> None:
    info = folder / directory
    info.mkdir(parents=True)
    (info / file).write_text(textwrap.dedent(headers).lstrip())
    (info / "entry_points.txt").write_text(textwrap.dedent(declared).lstrip())


def test_every_group_installed_here_reads_as_importlib_metadata_reads_it() -> None:
    groups = {entry.group for dist in metadata.distributions() for entry in dist.entry_points}
    assert "kdm" in groups and "console_scripts" in groups
    assert reader._readable_here()  # else the comparison below would compare importlib with itself
    for group in groups:
        assert sorted(entry_points(group), key=repr) == _as_importlib_sees(group), group


def test_layouts_duplicates_comments_and_extras(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    _distribution(
        first,
        "My_Rule-1.0.dist-info",
        """
        Metadata-Version: 2.1
        Name: My_Rule
        Version: 1.0
        Summary: a line that says Version: 9

        Version: 8 (the body, not a header)
        """,
        """
        # a comment
        [console_scripts]
        my-rule = my_rule:main

        [kdm]
        # another comment
        my_rule = my_rule_pkg.rules:Plugin.hooks [extra1, extra2]
        """,
    )
    _distribution(second, "my_rule-2.0.dist-info", "Name: my-rule\nVersion: 2.0\n", "[kdm]\nold = old_rule\n")
    _distribution(
        second, "legacy.egg-info", "Name: legacy\nVersion: 0.3\n", "[kdm]\nlegacy=legacy_rule\n", "PKG-INFO"
    )
    (second / "nothing-1.0.dist-info").mkdir()  # declares no entry point: skipped
    monkeypatch.syspath_prepend(str(second))
    monkeypatch.syspath_prepend(str(first))
    mine = [entry for entry in entry_points("kdm") if entry.distribution in ("My_Rule", "my-rule", "legacy")]
    assert mine == [
        EntryPoint("my_rule", "my_rule_pkg.rules:Plugin.hooks [extra1, extra2]", "kdm", "My_Rule", "1.0"),
        EntryPoint("legacy", "legacy_rule", "kdm", "legacy", "0.3"),
    ]
    assert sorted(entry_points("kdm"), key=repr) == _as_importlib_sees("kdm")


def test_odd_installs_read_as_importlib_metadata_reads_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a review found read differently at first: an egg-info written as one file (distutils) hides
    a later distribution of its name; a section "[ kdm ]" is not "[kdm]"; an empty METADATA gives way
    to PKG-INFO."""
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    (first / "hidden-0.1.egg-info").write_text("Metadata-Version: 1.0\nName: hidden\nVersion: 0.1\n")
    _distribution(
        second, "hidden-1.0.dist-info", "Name: hidden\nVersion: 1.0\n", "[kdm]\nhidden = hidden_rule\n"
    )
    _distribution(
        second, "spaced-1.0.dist-info", "Name: spaced\nVersion: 1.0\n", "[ kdm ]\nspaced = spaced_rule\n"
    )
    _distribution(second, "empty-1.0.dist-info", "", "[kdm]\nempty = empty_rule\n")
    (second / "empty-1.0.dist-info" / "PKG-INFO").write_text("Name: empty\nVersion: 1.0\n")
    monkeypatch.syspath_prepend(str(second))
    monkeypatch.syspath_prepend(str(first))
    mine = [entry for entry in entry_points("kdm") if entry.name in ("hidden", "spaced", "empty")]
    assert mine == [EntryPoint("empty", "empty_rule", "kdm", "empty", "1.0")]
    assert sorted(entry_points("kdm"), key=repr) == _as_importlib_sees("kdm")


def test_an_unzipped_egg_on_the_path_leaves_the_answer_to_importlib_metadata(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    egg = tmp_path / "eggy-1.0-py3.11.egg"
    _distribution(egg, "EGG-INFO", "Name: eggy\nVersion: 1.0\n", "[kdm]\neggy = eggy_rule\n", "PKG-INFO")
    monkeypatch.syspath_prepend(str(egg))
    assert not reader._readable_here()
    assert EntryPoint("eggy", "eggy_rule", "kdm", "eggy", "1.0") in entry_points("kdm")


def test_load_follows_the_attributes_and_ignores_the_extras(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "my_rule_pkg").mkdir()
    (tmp_path / "my_rule_pkg" / "__init__.py").write_text("")
    (tmp_path / "my_rule_pkg" / "rules.py").write_text("class Plugin:\n    hooks = 'the hooks'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    entry = EntryPoint("my_rule", "my_rule_pkg.rules:Plugin.hooks [extra]", "kdm", "my-rule", "1.0")
    assert entry.load() == "the hooks"
    assert (
        EntryPoint("my_rule", "my_rule_pkg.rules", "kdm", "my-rule", "1.0").load()
        is sys.modules["my_rule_pkg.rules"]
    )
    with pytest.raises(ValueError, match="names no module"):
        EntryPoint("bad", "not a module!", "kdm", "bad", "1").load()


def test_a_zip_on_the_path_leaves_the_answer_to_importlib_metadata(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    archive = tmp_path / "zipped.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("zipped-1.0.dist-info/METADATA", "Name: zipped\nVersion: 1.0\n")
        zipped.writestr("zipped-1.0.dist-info/entry_points.txt", "[kdm]\nzipped = zipped_rule\n")
    monkeypatch.syspath_prepend(str(archive))
    assert not reader._readable_here()
    assert reader._in_archive(str(archive / "lib")) and not reader._in_archive(str(tmp_path / "nowhere"))
    assert EntryPoint("zipped", "zipped_rule", "kdm", "zipped", "1.0") in entry_points("kdm")


def test_a_finder_with_distributions_of_its_own_leaves_the_answer_to_importlib_metadata(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Finder:
        @staticmethod
        def find_distributions(context: object = None) -> list[object]:
            return []

    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, Finder()])
    assert not reader._readable_here()


@pytest.mark.processes
def test_kdm_finds_its_plugins_without_importlib_metadata() -> None:
    """Plugin discovery loads neither importlib.metadata nor what it brings (email, zipfile, csv): 1.8
    MiB of an idle ``kdm host``'s memory (issue 'Light on the CPU'). In an interpreter of its own."""
    brought = ("email", "zipfile", "csv")
    loaded = modules_of_a_table_process()
    assert [
        name for name in loaded if name.split(".")[0] in brought or name.startswith("importlib.metadata")
    ] == []
