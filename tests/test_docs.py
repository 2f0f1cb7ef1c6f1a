"""docs/plugins.md stays true: its hook reference is what ``kdm.hookdoc`` makes of the hookspecs now,
and its walk-through is code that runs.

The walk-through marks each code block that belongs to a file with ``<!-- file: PATH -->`` on the line
before it; blocks for one path are joined in page order. The last test lays those files out in a fresh
folder, installs the page's plugin there the way pip would (a ``.dist-info`` with the entry point from
the page's ``pyproject.toml``), runs the page's tests and the ``kdm`` commands of its ``try.sh``.
"""

from __future__ import annotations

import difflib
import importlib.util
import json
import re
import shlex
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from kdm import hookdoc, hookspecs
from kdm.plugins.kilo import hookspecs as kilo_hookspecs

if sys.version_info >= (3, 11):
    import tomllib
else:  # pytest itself depends on tomli before Python 3.11
    import tomli as tomllib

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "plugins.md"
EXAMPLE = ROOT / "examples" / "lightaces"
REGENERATE = f"docs/plugins.md's hook reference is out of date: run `{hookdoc.WRITE_COMMAND}`"


@dataclass(frozen=True)
class CodeBlock:
    language: str
    file: str | None
    text: str


def code_blocks(page: str) -> list[CodeBlock]:
    """Every fenced code block of a markdown page, with the file a ``<!-- file: PATH -->`` line names."""
    blocks: list[CodeBlock] = []
    fence = re.compile(r"^```(?P<language>[\w-]*)\s*\n(?P<text>.*?)^```\s*$", re.MULTILINE | re.DOTALL)
    for match in fence.finditer(page):
        before = page[: match.start()].rstrip().rsplit("\n", 1)[-1]
        marker = re.fullmatch(r"<!-- file: (?P<file>\S+) -->", before.strip())
        blocks.append(CodeBlock(match["language"], marker["file"] if marker else None, match["text"]))
    return blocks


def page_files(page: str) -> dict[str, str]:
    """The files the walk-through writes: path → the text of its blocks, joined in page order."""
    files: dict[str, list[str]] = {}
    for block in code_blocks(page):
        if block.file is not None:
            files.setdefault(block.file, []).append(block.text)
    return {path: "\n\n".join(parts) for path, parts in files.items()}


@pytest.fixture(scope="module")
def page() -> str:
    return PAGE.read_text(encoding="utf-8")


# --- the generated hook reference ------------------------------------------------------------------


def test_the_hook_reference_is_generated_from_the_hookspecs(page: str) -> None:
    written, fresh = hookdoc.generated_section(page), hookdoc.render_reference()
    if written != fresh:
        diff = difflib.unified_diff(
            written.splitlines(), fresh.splitlines(), "page", "hookspecs", lineterm=""
        )
        pytest.fail(REGENERATE + "\n" + "\n".join(list(diff)[:40]), pytrace=False)


def test_every_hookspec_is_in_the_reference(page: str) -> None:
    # Listed by name here, not by the generator, so a generator that drops hooks fails too.
    modules = (hookspecs, kilo_hookspecs)  # the core's, and those the base game adds
    names = [
        name
        for m in modules
        for name, value in vars(m).items()
        if name.startswith("kdm_") and callable(value)
    ]
    reference = hookdoc.generated_section(page)
    missing = [name for name in names if f"#### `{name}`" not in reference]
    assert len(names) >= 20 and not missing, f"{REGENERATE} (missing: {', '.join(missing)})"


FUTURE_HOOKSPECS = '''
"""Hooks added later."""

from __future__ import annotations

import pluggy

PROJECT = "kdm"
hookspec = pluggy.HookspecMarker(PROJECT)


# --- the new part -----------------------------------------------------------------------------------


@hookspec(firstresult=True)
def kdm_new_answer(state: TableState, seat: int) -> list[int] | None:
    """Which seats the new rule picks.

    Called when it matters.
    """


@hookspec
def kdm_new_notice(state: TableState) -> None:
    """Notification: something new happened."""


def helper() -> None:
    """Not a hook: no hookspec marker."""
'''


def test_a_hook_added_to_the_specs_appears_in_the_reference(tmp_path: Path) -> None:
    source = tmp_path / "future_hookspecs.py"
    source.write_text(FUTURE_HOOKSPECS, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("future_hookspecs", source)
    assert spec is not None and spec.loader is not None
    future_hookspecs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(future_hookspecs)

    reference = hookdoc.render_reference(future_hookspecs)
    expected = """\
        ### The new part

        #### `kdm_new_answer`

        ```python
        def kdm_new_answer(state: TableState, seat: int) -> list[int] | None: ...
        ```

        **firstresult**: the first answer that is not None.

        Which seats the new rule picks.

        Called when it matters.

        #### `kdm_new_notice`

        ```python
        def kdm_new_notice(state: TableState) -> None: ...
        ```

        **every plugin**: the list of the answers that are not None.

        Notification: something new happened.
    """
    assert textwrap.dedent(expected) in reference
    assert "| [`kdm_new_answer`](#kdm_new_answer) | firstresult |" in reference
    assert "helper" not in reference


def test_hookdoc_check_and_write_a_stale_page(tmp_path: Path, page: str, capsys: Any) -> None:
    stale = tmp_path / "plugins.md"
    stale.write_text(
        page.replace(hookdoc.generated_section(page), "<!-- hooks:start -->\n<!-- hooks:end -->")
    )
    assert hookdoc.main(["--check", str(stale)]) == 1
    assert hookdoc.WRITE_COMMAND in capsys.readouterr().out
    assert hookdoc.main(["--write", str(stale)]) == 0
    assert hookdoc.main(["--check", str(stale)]) == 0
    assert stale.read_text() == hookdoc.with_reference(page, hookdoc.render_reference())


def test_hookdoc_says_when_a_page_has_no_reference_section(tmp_path: Path, capsys: Any) -> None:
    bare = tmp_path / "bare.md"
    bare.write_text("# no markers here\n")
    assert hookdoc.main(["--write", str(bare)]) == 2
    assert "hooks:start" in capsys.readouterr().err
    assert bare.read_text() == "# no markers here\n"


# --- the walk-through ------------------------------------------------------------------------------


def test_every_python_block_compiles(page: str) -> None:
    loose = [block.text for block in code_blocks(page) if block.language == "python" and block.file is None]
    whole = [text for path, text in page_files(page).items() if path.endswith(".py")]
    assert len(whole) >= 4
    for number, text in enumerate(loose + whole):
        compile(text, f"<docs/plugins.md python block {number}>", "exec")


def test_the_walkthrough_shows_the_example_package_as_it_is(page: str) -> None:
    files = page_files(page)
    example_module = (EXAMPLE / "src" / "kdm_lightaces.py").read_text(encoding="utf-8")
    assert files["src/kdm_lightaces.py"] == example_module, (
        "docs/plugins.md shows examples/lightaces/src/kdm_lightaces.py line for line: copy it into the page"
    )
    shown = tomllib.loads(files["pyproject.toml"])["project"]
    packaged = tomllib.loads((EXAMPLE / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    for key in ("name", "version", "dependencies", "entry-points"):
        assert shown[key] == packaged[key], f"docs/plugins.md's pyproject.toml differs in {key!r}"


def test_the_action_walkthrough_shows_the_second_example_package_as_it_is(page: str) -> None:
    files = page_files(page)
    example_module = (ROOT / "examples" / "aceback" / "src" / "kdm_aceback.py").read_text(encoding="utf-8")
    assert files["src/kdm_aceback.py"] == example_module, (
        "docs/plugins.md shows examples/aceback/src/kdm_aceback.py part by part: copy it into the page"
    )
    assert "#### `kdm_tui`" in hookdoc.generated_section(page)


def install_like_pip(site: Path, pyproject: str) -> str:
    """Make ``site`` look like a folder pip installed the page's project into; returns the plugin name."""
    project = tomllib.loads(pyproject)["project"]
    (plugin, module), *_others = project["entry-points"]["kdm"].items()
    # Same distribution name as an installed example, so this one (first on sys.path) shadows it.
    info = site / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n"
    )
    (info / "entry_points.txt").write_text(f"[kdm]\n{plugin} = {module}\n")
    return str(plugin)


@pytest.mark.processes
def test_the_walkthrough_runs(page: str, pytester: pytest.Pytester, monkeypatch: Any) -> None:
    files = page_files(page)
    for path, text in files.items():
        if path.endswith(".py"):
            target = pytester.path / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
    site = pytester.path / "src"
    plugin = install_like_pip(site, files["pyproject.toml"])
    monkeypatch.setenv("PYTHONPATH", str(site))
    monkeypatch.delenv("KDM_DISABLE_PLUGIN_AUTOLOAD", raising=False)

    tests = sum(text.count("\ndef test_") + text.startswith("def test_") for text in files.values())
    result = pytester.runpytest_subprocess("tests", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=tests)

    commands = [shlex.split(line, comments=True) for line in files["try.sh"].splitlines()]
    commands = [words for words in commands if words and words[0] == "kdm"]
    assert len(commands) >= 3
    for words in commands:
        ran = pytester.run(sys.executable, "-m", "kdm", *words[1:])
        assert ran.ret == 0, f"{shlex.join(words)} failed:\n{ran.stderr.str()}"
        if "--json" in words:
            assert json.loads(ran.stdout.str())["rounds"] >= 1
        if words[1] == "plugins":
            assert plugin in ran.stdout.str() and "ace_kilos" in ran.stdout.str()


def test_every_pip_install_the_docs_show_is_the_venvs() -> None:
    """Another pip (the system's) installs elsewhere and looks for ``kdm>=0.1`` on the package index."""
    pages = [
        ROOT / "README.md",
        ROOT / "CONTRIBUTING.md",
        *ROOT.glob("docs/*.md"),
        *ROOT.glob("examples/*/README.md"),
    ]
    installs = [
        (page.relative_to(ROOT), line.strip())
        for page in pages
        for line in page.read_text(encoding="utf-8").splitlines()
        if re.search(r"\bpip install\b", line)
    ]
    assert installs, "no page shows how to install a plugin"
    assert [(page, line) for page, line in installs if not line.startswith(".venv/bin/pip install")] == []


def test_the_pages_of_a_clone_link_nothing_outside_it() -> None:
    """The README linked ``../shared/RULES.md``, which a clone does not have."""
    pages = [
        ROOT / "README.md",
        ROOT / "CONTRIBUTING.md",
        *ROOT.glob("docs/*.md"),
        *ROOT.glob("examples/*/README.md"),
    ]
    broken = []
    for page in pages:
        for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue  # a web address, or a place on the same page
            path = (page.parent / target.split("#")[0]).resolve()
            if not path.is_relative_to(ROOT) or not path.exists():
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert broken == []


def test_the_readme_is_a_guide_and_the_dated_figures_are_in_docs_benchmarks() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    figures = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    assert "](docs/benchmarks.md)" in readme and "](docs/RULES.md)" in readme
    # What left the README is linked from it: the screens, and what a table promises between laptops.
    assert "](docs/screens.md)" in readme and "](docs/network.md)" in readme
    # A guide for players and rule writers (issue 26: at most 250 lines), not 50 KB of dated notes.
    assert "Measured" not in readme and len(readme) < 36_000
    assert len(readme.splitlines()) <= 250
    for heading in ["## Speed", "### Kem's bot league", "### Network figures", "### Fair dealing",
                    "### Between laptops", "## Reliability"]:  # fmt: skip
        assert f"\n{heading}\n" in figures and f"\n{heading}\n" not in readme


def anchor(heading: str) -> str:
    """The anchor a heading gets on GitHub: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def sections(page: str) -> dict[str, str]:
    """Each heading's anchor → its text, up to the next heading of the same level or above."""
    headings = list(re.finditer(r"^(#+) (.+)$", page, re.MULTILINE))
    found: dict[str, str] = {}
    for i, heading in enumerate(headings):
        level = len(heading[1])
        end = next((h.start() for h in headings[i + 1 :] if len(h[1]) <= level), len(page))
        found[anchor(heading[2])] = page[heading.end() : end]
    return found


def test_every_key_figure_of_the_readme_is_in_the_section_it_links() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    measured = sections((ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8"))
    table = readme.split("\n## Key figures\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in table.splitlines() if line.startswith("| ") and "](docs/benchmarks.md#" in line]
    assert len(rows) >= 8, "the README's key figures: one row per figure, linking where it was measured"
    for row in rows:
        _what, value, where = (cell.strip() for cell in row.strip("|").split(" | "))
        section = re.fullmatch(r"\[[^]]+\]\(docs/benchmarks\.md#([\w-]+)\)", where)
        assert section and section[1] in measured, f"{where}: no such section in docs/benchmarks.md"
        numbers = re.findall(r"(?<![\w.,])\d+(?:[.,]\d+)*", value)
        # A number counts only whole: 1.6 is not found in 11.6, nor 26 in 2,600.
        text = measured[section[1]]
        missing = [n for n in numbers if not re.search(rf"(?<![\d.,]){re.escape(n)}(?![.,]?\d)", text)]
        assert numbers and not missing, f"{value!r}: {missing} not in docs/benchmarks.md#{section[1]}"


def test_the_architecture_page_names_files_that_exist_and_walks_one_slap() -> None:
    """Issue 26: ``docs/architecture.md`` says where each part lives and the path of one slap, file by
    file; a file it names that moves or goes makes this fail, so the page cannot drift."""
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`((?:kdm|net|plugins|tests)/[\w/]*?(?:\.py|/))`", page))
    assert {"kdm/peer.py", "net/raft.py", "plugins/kilo/screen/", "kdm/window.py"} <= named
    assert [path for path in sorted(named) if not (ROOT / path).exists()] == []
    path = page.split("## The path of one slap", 1)[1]
    steps = re.findall(r"^\d+\. `([\w/]+\.py)`", path, re.MULTILINE)
    assert len(steps) == len(re.findall(r"^\d+\. ", path, re.MULTILINE)) >= 10  # each step names its file
    assert f"{len(steps)} steps in {len(set(steps))} files" in path  # the counts it gives are true
