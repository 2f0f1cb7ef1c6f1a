"""``kdm plugins``: every rule plugin this machine has, what it is and what it brings.

Owns the subcommand (``add_plugins_parser``) and the description of one plugin (``describe``): name,
version, built-in or not, game mode or not, the plugins it requires, the hooks it implements (over all
its modules, as a table registers them) and the table options it declares. Finding the plugins is
``kdm.manager.installed_plugins``; a plugin that fails to load, or breaks when asked what it brings, is
a ``PluginError``, which the CLI prints as one line with exit status 2.
"""

from __future__ import annotations

import argparse
import json
import textwrap
from collections.abc import Mapping
from typing import Any

from kdm import hookspecs
from kdm.errors import PluginError
from kdm.manager import PluginInfo, Rules, added_hookspecs, installed_plugins, table_plugins
from kdm.options import TableOption


def hook_order(plugins: Mapping[str, PluginInfo]) -> tuple[str, ...]:
    """Hook names in the order their specs declare them: the core's (from the table's making to its
    bots), then those the games add."""
    modules = [hookspecs, *added_hookspecs(plugins.values())]
    return tuple(name for module in modules for name in vars(module) if name.startswith("kdm_"))


WIDTH = 100


def add_plugins_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``kdm plugins`` to a CLI's subcommands; it runs ``run_plugins``."""
    plugins = commands.add_parser(
        "plugins",
        help="list the rule plugins installed here, with their hooks and table options",
        description="List every rule plugin: the built-ins, then those installed from the 'kdm' "
        "entry-point group (none when KDM_DISABLE_PLUGIN_AUTOLOAD=1).",
    )
    plugins.add_argument("--json", action="store_true", help='print one JSON object {"plugins": [...]}')
    plugins.set_defaults(run=run_plugins)


def run_plugins(args: argparse.Namespace) -> int:
    installed = installed_plugins()
    order = hook_order(installed)
    described = [describe(info, installed, order) for info in installed.values()]
    if args.json:
        print(json.dumps({"plugins": described}))
    else:
        print("\n\n".join(as_text(plugin) for plugin in described))
    return 0


def describe(info: PluginInfo, installed: Mapping[str, PluginInfo], order: tuple[str, ...]) -> dict[str, Any]:
    """One plugin as ``kdm plugins --json`` prints it."""
    try:
        # Registered with what it requires, as a table would register it: check_pending refuses a
        # misspelled hook here too, and a variant finds the hooks its game adds.
        rules = Rules(table_plugins([info.name], installed))
        callers = [rules.manager.get_hookcallers(module) or [] for module in info.modules]
        hooks = {caller.name for module_callers in callers for caller in module_callers}
        options = [option for option in rules.options() if option.plugin == info.name]
    except PluginError:
        raise
    except Exception as error:  # a third-party hook that raises must not end in a traceback either
        raise PluginError(f"plugin {info.name!r} failed when asked what it brings: {error!r}") from error
    return {
        "name": info.name,
        "version": info.version,
        "builtin": info.builtin,
        "mode": info.mode,
        "requires": list(info.requires),
        "hooks": sorted(hooks, key=lambda name: _hook_rank(name, order)),
        "options": [_option(option) for option in options],
    }


def as_text(plugin: dict[str, Any]) -> str:
    """One plugin as ``kdm plugins`` prints it: a title line, its hooks, one line per option."""
    kind = ["built-in" if plugin["builtin"] else "third-party"]
    if plugin["mode"]:
        kind.append("game mode")
    if plugin["requires"]:
        kind.append("requires " + ", ".join(plugin["requires"]))
    lines = [f"{plugin['name']} {plugin['version']} ({', '.join(kind)})"]
    lines += textwrap.wrap(
        ", ".join(plugin["hooks"]) or "none",
        WIDTH,
        initial_indent="  hooks: ",
        subsequent_indent=" " * len("  hooks: "),
        break_on_hyphens=False,
    )
    options = plugin["options"]
    if not options:
        lines.append("  options: none")
        return "\n".join(lines)
    lines.append("  options:")
    rows = [(o["name"], o["type"], _shown(o["default"]), o["help"]) for o in options]
    widths = [max(len(row[column]) for row in rows) for column in range(3)]
    for name, kind_of, default, help_text in rows:
        lines.append(f"    {name:{widths[0]}}  {kind_of:{widths[1]}}  {default:{widths[2]}}  {help_text}")
    return "\n".join(lines)


def _option(option: TableOption) -> dict[str, Any]:
    return {"name": option.name, "type": option.type.__name__, "default": option.default, "help": option.help}


def _shown(default: Any) -> str:
    """A default as it would be written on the command line (``--option suit_combos=on``)."""
    if isinstance(default, bool):
        return "on" if default else "off"
    return str(default)


def _hook_rank(name: str, order: tuple[str, ...]) -> tuple[int, str]:
    # An ``optionalhook`` implementation may name a hook kdm does not declare: it sorts last.
    return (order.index(name) if name in order else len(order), name)
