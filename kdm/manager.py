"""Which rule plugins exist, and one table's plugin manager behind a typed facade.

Every plugin comes from the entry-point group ``kdm``: the games and variants kdm ships are entry points
of kdm's own distribution (``pyproject.toml``), exactly as a third party's house rule is of its own.
Registration order (pluggy calls the plugin registered *last* first, so later ones override):

1. the table's game mode (a plugin whose module says ``KDM_MODE = True``): the one the table picks, or
   the mode kdm's own distribution marks ``KDM_DEFAULT = True`` when it picks none;
2. the table's other plugins from kdm's distribution, by name;
3. the table's third-party plugins, by name.

A plugin that requires others (``KDM_REQUIRES`` in its module: a variant requires its game, the
``classic`` preset requires ``marathon`` too) brings them to the table; a preset's option values
(``kdm_option_defaults``) apply unless the table is given other values. ``KDM_MODULES`` names further
modules of one plugin (a game's bots, its words), registered after its first and loaded with its table
(``PluginInfo.modules``), not when the plugin is found. ``KDM_TITLE`` is a
plugin's name as people say it (« Kilo de merde », « Kem's »), where screens name its game.

``KDM_DISABLE_PLUGIN_AUTOLOAD=1`` turns loading third-party entry points off. Every manager runs
``check_pending()``, so a misspelled hook is an error at start-up, not a silent no-op.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol, cast

import pluggy

from kdm import hookspecs
from kdm.effects import Effect
from kdm.entry_points import EntryPoint, entry_points
from kdm.errors import PluginError, TableError
from kdm.events import SEEDED_EVENTS, EventCodec
from kdm.names import SeatNames
from kdm.options import TableOption, resolve_options

if TYPE_CHECKING:
    from kdm.agents import Bot, Decision
    from kdm.deck import Knowledge, PrivateNote
    from kdm.engine import Duty, Engine
    from kdm.events import Event
    from kdm.state import TableState
    from kdm.tui.extension import ScreenPart


class ApplyHook(Protocol):
    """``kdm_apply``: what ``event`` does to ``engine``'s state, or None if no plugin handles it."""

    def __call__(self, *, engine: Engine, event: Event) -> Sequence[Effect] | None: ...


class AwaitingHook(Protocol):
    """``kdm_awaiting``: what the table waits for from outside the players."""

    def __call__(self, *, state: TableState) -> list[Duty] | None: ...


class ViewHook(Protocol):
    """``kdm_view``: every plugin's part of a seat's view, ``(name, data)``."""

    def __call__(self, *, state: TableState, seat: int, knowledge: Knowledge) -> list[tuple[str, Any]]: ...


class BotDecideHook(Protocol):
    """``kdm_bot_decide``: what ``bot`` does next from its seat's view, or None to wait."""

    def __call__(self, *, view: Any, bot: Bot) -> Decision | None: ...


class RevealHook(Protocol):
    """``kdm_reveal``: the event that fulfils ``duty`` from the faces known here, or None."""

    def __call__(self, *, duty: Duty, state: TableState, faces: Mapping[int, str]) -> Event | None: ...


class RefusedHook(Protocol):
    """``kdm_chat_refused``: why the table refuses a chat line now, or None."""

    def __call__(self, *, state: TableState, seat: int, text: str) -> str | None: ...


class NoteRefusedHook(Protocol):
    """``kdm_note_refused``: why the table takes no private note now, or None."""

    def __call__(self, *, state: TableState, note: PrivateNote) -> str | None: ...


class ClaimedFacesHook(Protocol):
    """``kdm_claimed_faces``: the faces an event shows the table, token → face, or None."""

    def __call__(self, *, event: Event) -> Mapping[int, str] | None: ...


class FalseClaimHook(Protocol):
    """``kdm_false_claim``: why what an event says of hidden cards is false, from ``faces``, or None."""

    def __call__(self, *, event: Event, state: TableState, faces: Mapping[int, str]) -> str | None: ...


@dataclass(frozen=True)
class CoreHooks:
    """The hooks the core calls at every event, typed: each field is the table's caller for its hook
    (``Rules.caller``), so a misspelt hook or argument is a type error, not a silent None."""

    apply: ApplyHook
    awaiting: AwaitingHook
    view: ViewHook
    bot_decide: BotDecideHook
    reveal: RevealHook
    chat_refused: RefusedHook
    note_refused: NoteRefusedHook
    claimed_faces: ClaimedFacesHook
    false_claim: FalseClaimHook


ENTRY_POINT_GROUP = "kdm"
AUTOLOAD_ENV = "KDM_DISABLE_PLUGIN_AUTOLOAD"
#: The distribution whose plugins are built in: always loaded, even with autoload off.
OWN_DISTRIBUTION = "kdm"


@dataclass(frozen=True)
class PluginInfo:
    """An installed plugin: its name, first module, version, and whether kdm itself ships it.

    Its further modules (``KDM_MODULES``: a game's rules, bots, words, screen) load when first asked
    for (``modules``: a table registers them, a listing reads them), not with the first: a process at
    a table of one game does not hold every other game's rules in memory (about 1 MiB for kdm's own)."""

    name: str
    module: ModuleType | object
    version: str
    builtin: bool
    #: The names of its further modules (``KDM_MODULES``), and where its entry point said it was.
    parts: tuple[str, ...] = field(default=(), kw_only=True)
    source: str = field(default="", kw_only=True)

    def __post_init__(self) -> None:
        if isinstance(self.module, (tuple, list)):  # (its modules were once given as one tuple)
            raise TypeError("PluginInfo takes the plugin's first module; its further ones are `parts`")

    @cached_property
    def modules(self) -> tuple[ModuleType | object, ...]:
        """Its first module and its further ones, loaded now if they were not (a broken one is a
        ``PluginError`` naming the plugin, as a broken first module is at ``installed_plugins``)."""
        try:
            parts = tuple(importlib.import_module(name) for name in self.parts)
        except Exception as error:  # a broken third-party plugin must not crash with a traceback
            raise PluginError(f"plugin {self.name!r} ({self.source}) failed to load: {error}") from error
        return (self.module, *parts)

    @property
    def mode(self) -> bool:
        """Whether a table plays this game (its module says ``KDM_MODE = True``)."""
        return bool(getattr(self.module, "KDM_MODE", False))

    @property
    def default(self) -> bool:
        """Whether this is the game a table plays when it picks none (only kdm's own may say so)."""
        return self.builtin and self.mode and bool(getattr(self.module, "KDM_DEFAULT", False))

    @property
    def requires(self) -> tuple[str, ...]:
        """The plugins that come with this one (``KDM_REQUIRES`` in its module)."""
        return tuple(getattr(self.module, "KDM_REQUIRES", ()))

    @property
    def title(self) -> str:
        """The name people say (``KDM_TITLE`` in its module: "Kilo de merde"), else the plugin's."""
        return str(getattr(self.module, "KDM_TITLE", "") or self.name)


def installed_plugins() -> dict[str, PluginInfo]:
    """Every plugin this machine has: kdm's own, then third parties', each by name."""
    entries = sorted(entry_points(ENTRY_POINT_GROUP), key=lambda entry: entry.name)
    own = [entry for entry in entries if entry.distribution == OWN_DISTRIBUTION]
    if not own:
        raise PluginError("kdm's own plugins are not installed: run `pip install -e .` in kdm's checkout")
    found = {entry.name: _load(entry, builtin=True) for entry in own}
    if os.environ.get(AUTOLOAD_ENV, "") not in ("", "0"):
        return found
    for entry in (entry for entry in entries if entry not in own):
        if entry.name in found:
            raise PluginError(f"plugin {entry.name!r} from {entry.value} clashes with a built-in")
        found[entry.name] = _load(entry, builtin=False)
    return found


def _load(entry: EntryPoint, builtin: bool) -> PluginInfo:
    try:
        module = entry.load()
        parts = tuple(str(name) for name in getattr(module, "KDM_MODULES", ()))
    except Exception as error:  # a broken third-party plugin must not crash with a traceback
        raise PluginError(f"plugin {entry.name!r} ({entry.value}) failed to load: {error}") from error
    return PluginInfo(entry.name, module, entry.version or "0", builtin, parts=parts, source=entry.value)


def plugin_from(plugin: ModuleType | object, version: str = "0") -> PluginInfo:
    """A plugin made of one object with ``@hookimpl`` functions (a module, a class, an instance), named
    by its ``NAME`` attribute, else by the last part of its module name or its class name. This is how
    a test registers a house rule that no distribution installs."""
    name = getattr(plugin, "NAME", None) or getattr(plugin, "__name__", type(plugin).__name__)
    return PluginInfo(str(name).rsplit(".", 1)[-1], plugin, version, False)


def _own_impls(info: PluginInfo, hook: str) -> list[Callable[..., Any]]:
    """``info``'s own implementations of ``hook``, module by module (what one plugin declares or says,
    told apart from the others', as pluggy's merged calls cannot)."""
    return [impl for module in info.modules if (impl := getattr(module, hook, None)) is not None]


def table_plugins(variants: Sequence[str], installed: Mapping[str, PluginInfo]) -> list[PluginInfo]:
    """The plugins of a table with these variants, in registration order."""
    wanted = _with_requirements(variants, installed)
    chosen = [installed[name] for name in wanted]
    modes = [info for info in chosen if info.mode]
    if len(modes) > 1:
        raise TableError(f"a table plays one game: {_one_of(modes, chosen)}")
    mode = modes[0] if modes else installed[default_mode(installed)]
    rest = sorted(
        (info for info in chosen if info is not mode), key=lambda info: (not info.builtin, info.name)
    )
    return [mode, *rest]


def _one_of(modes: Sequence[PluginInfo], chosen: Sequence[PluginInfo]) -> str:
    """``kems, or kilo (which jokers plays)``: each game, with the plugins that brought it."""
    said = []
    for mode in modes:
        brought_by = [info.name for info in chosen if mode.name in info.requires]
        said.append(f"{mode.name} (which {', '.join(brought_by)} plays)" if brought_by else mode.name)
    return "choose " + ", or ".join(said)


def game_of(name: str, installed: Mapping[str, PluginInfo]) -> str | None:
    """The game plugin ``name`` plays: itself if it is one, else the one it requires (a variant of the
    base game says ``KDM_REQUIRES = ("kilo",)``); None when it names none and may go with any game."""
    games = [wanted for wanted in _with_requirements([name], installed) if installed[wanted].mode]
    return games[0] if games else None


def added_hookspecs(plugins: Iterable[PluginInfo]) -> list[ModuleType]:
    """The hook spec modules these plugins add (``kdm_addhooks``), in order, without making a table."""
    added: list[ModuleType] = []

    class Recorder:
        def add_hookspecs(self, module: ModuleType) -> None:
            added.append(module)

    for info in plugins:
        for module in info.modules:
            add = getattr(module, "kdm_addhooks", None)
            if add is not None:
                add(pluginmanager=Recorder())
    return added


def default_mode(installed: Mapping[str, PluginInfo]) -> str:
    """The name of the game a table plays when it picks none (kdm's own says which)."""
    mode = next((name for name, info in installed.items() if info.default), None)
    if mode is None:
        raise PluginError("no game is installed: kdm's own distribution names none as the default")
    return mode


def _with_requirements(variants: Sequence[str], installed: Mapping[str, PluginInfo]) -> list[str]:
    """``variants`` and every plugin they require, each once, or a ``PluginError`` naming the missing."""
    wanted: dict[str, None] = {}
    pending = list(variants)
    while pending:
        name = pending.pop(0)
        if name in wanted:
            continue
        if name not in installed:
            # Registration order: the base game first, as the table would register them.
            raise PluginError(f"unknown variant {name!r}; installed plugins: {', '.join(installed)}")
        wanted[name] = None
        pending.extend(installed[name].requires)
    return list(wanted)


class Rules:
    """One table's rules: a pluggy manager with its plugins, and typed calls into it."""

    def __init__(self, plugins: Iterable[PluginInfo]) -> None:
        self.plugins = list(plugins)
        self.manager = pluggy.PluginManager(hookspecs.PROJECT)
        self.manager.add_hookspecs(hookspecs)
        # Each game adds the hooks its own rules call, as it is registered (before its variants are).
        self.manager.hook.kdm_addhooks.call_historic(kwargs={"pluginmanager": self.manager})
        for info in self.plugins:
            for index, module in enumerate(info.modules):
                self.manager.register(module, name=info.name if index == 0 else f"{info.name}.{index}")
        try:
            self.manager.check_pending()
        except pluggy.PluginValidationError as error:
            raise PluginError(
                f"plugin {error.plugin!r} implements a hook no plugin of this table declares ({error}): "
                "is it a house rule of another game?"
            ) from None
        self._hook: Any = self.manager.hook
        self._callers: dict[str, Callable[..., Any]] = {}
        self._hooks: CoreHooks | None = None
        self.codec = EventCodec(SEEDED_EVENTS)
        for event_types in self._hook.kdm_event_types():
            for event_type in event_types:
                self.codec.register(event_type)

    @classmethod
    def for_table(cls, variants: Sequence[str] = (), extra: Sequence[PluginInfo] = ()) -> Rules:
        """The rules of a table that plays the base game with ``variants`` (plugin names), plus
        ``extra`` plugins that need not be installed (see ``plugin_from``)."""
        installed = {**installed_plugins(), **{info.name: info for info in extra}}
        return cls(table_plugins([*variants, *(info.name for info in extra)], installed))

    @property
    def names(self) -> list[str]:
        return [info.name for info in self.plugins]

    @property
    def versions(self) -> dict[str, str]:
        """Plugin name → version, as a table records them."""
        return {info.name: info.version for info in self.plugins}

    def options(self) -> list[TableOption]:
        """Every table option the plugins declare, each tagged with its plugin."""
        declared: list[TableOption] = []
        seen: dict[str, str] = {}
        for info in self.plugins:
            for option in [option for impl in _own_impls(info, "kdm_table_options") for option in impl()]:
                if option.name in seen:
                    raise PluginError(
                        f"option {option.name!r} is declared by both {seen[option.name]} and {info.name}"
                    )
                seen[option.name] = info.name
                declared.append(_tagged(option, info.name))
        return declared

    def rules_texts(self, lang: str = "en") -> list[str]:
        """Each plugin's rules for people (``kdm_rules_text``), in ``lang``, in the table's order: the game
        first, then its house rules. A plugin that says nothing is left out."""
        texts: list[str] = []
        for info in self.plugins:
            texts += [
                text.strip() for impl in _own_impls(info, "kdm_rules_text") if (text := impl(lang=lang))
            ]
        return texts

    def declares(self, option: str) -> bool:
        """Whether one of the table's plugins declares the table option named ``option``."""
        return any(declared.name == option for declared in self.options())

    def preset(self, players: int, given: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The option values the table's plugins choose (``kdm_option_defaults``) for the options
        not in ``given``."""
        chosen: dict[str, Any] = {}
        by: dict[str, str] = {}
        for info in self.plugins:
            for impl in _own_impls(info, "kdm_option_defaults"):
                for name, value in (impl(players=players) or {}).items():
                    if given is not None and name in given:
                        continue
                    if name in chosen and chosen[name] != value:
                        raise PluginError(
                            f"{by[name]} sets {name}={chosen[name]} and {info.name} sets {name}={value}: "
                            f"give {name} explicitly"
                        )
                    chosen[name], by[name] = value, info.name
        return chosen

    def resolve(self, players: int, given: dict[str, Any]) -> dict[str, Any]:
        """Typed options for a table of ``players``, or a ``UsageError`` saying what is allowed."""
        declared = self.options()
        names = {option.name for option in declared}
        # A preset only sets options this table has: at a table it does not fit, the table refuses it.
        preset = {name: value for name, value in self.preset(players, given).items() if name in names}
        options = resolve_options(declared, {**preset, **given})
        for refusal in self._hook.kdm_check_table(players=players, options=options, plugins=self.names):
            if refusal:
                raise TableError(refusal)
        return options

    @property
    def hooks(self) -> CoreHooks:
        """The hooks the core calls, typed (``CoreHooks``), made once per table."""
        if self._hooks is None:
            caller = self.caller
            self._hooks = CoreHooks(
                apply=caller("kdm_apply"),
                awaiting=caller("kdm_awaiting"),
                view=caller("kdm_view"),
                bot_decide=caller("kdm_bot_decide"),
                reveal=caller("kdm_reveal"),
                chat_refused=caller("kdm_chat_refused"),
                note_refused=caller("kdm_note_refused"),
                claimed_faces=caller("kdm_claimed_faces"),
                false_claim=caller("kdm_false_claim"),
            )
        return self._hooks

    def caller(self, name: str) -> Callable[..., Any]:
        """A caller for hook ``name``, with pluggy's semantics minus its per-call machinery: how the
        engine and the driver call the hooks they call at every event, and how a game calls the hooks
        it added (``kdm_addhooks``), with keyword arguments.

        When no plugin wraps the hook, the implementations are called directly in pluggy's order (last
        registered first, honouring tryfirst/trylast), each with the arguments it names (an
        implementation may name fewer than the spec): the first non-None result for a
        ``firstresult`` hook, else the list of non-None results. A table's plugins are fixed when it is
        made, so the order cannot change afterwards, and each caller is made once.
        """
        made = self._callers.get(name)
        if made is None:
            made = self._callers[name] = self._make_caller(name)
        return made

    def implementations(self, name: str) -> list[Callable[..., Any]] | None:
        """The implementations of hook ``name`` in the order pluggy calls them, each taking the keyword
        arguments it names, for a core caller that gathers their results itself (the engine's views,
        at every look of every bot); None when a plugin wraps the hook: then only ``caller`` honours it."""
        caller = getattr(self._hook, name)
        impls = caller.get_hookimpls()
        if any(impl.hookwrapper or impl.wrapper for impl in impls):
            return None
        spec_args = set(caller.spec.argnames) if caller.spec is not None else None
        return [_taking_its_arguments(impl, spec_args) for impl in reversed(impls)]

    def _make_caller(self, name: str) -> Callable[..., Any]:
        caller = getattr(self._hook, name)
        impls = caller.get_hookimpls()
        if any(impl.hookwrapper or impl.wrapper for impl in impls):
            return cast(Callable[..., Any], caller)
        spec_args = set(caller.spec.argnames) if caller.spec is not None else None
        functions = [_taking_its_arguments(impl, spec_args) for impl in reversed(impls)]
        if caller.spec is not None and caller.spec.opts.get("firstresult"):
            if len(functions) == 1:
                return functions[0]

            def first_result(**kwargs: Any) -> Any:
                for function in functions:
                    result = function(**kwargs)
                    if result is not None:
                        return result
                return None

            return first_result

        if len(functions) == 1:
            (only,) = functions

            def single_result(**kwargs: Any) -> list[Any]:
                result = only(**kwargs)
                return [] if result is None else [result]

            return single_result

        def all_results(**kwargs: Any) -> list[Any]:
            results = (function(**kwargs) for function in functions)
            return [result for result in results if result is not None]

        return all_results

    # --- the hooks the core calls, typed (a game calls the hooks it added through ``caller``) ---------

    def describe(self, effect: Effect, lang: str = "en", names: Sequence[str] = ()) -> str | None:
        """One line for people about ``effect`` (``kdm_describe``), or None, calling the seats by
        ``names`` (seat by seat; a seat without one is "seat N")."""
        named = SeatNames.of(names, lang)
        text: str | None = self._hook.kdm_describe(effect=effect, lang=lang, names=named)
        return text

    def setup_table(self, state: TableState) -> None:
        """Every plugin adds its public data to a new table (``kdm_setup_table``)."""
        self._hook.kdm_setup_table(state=state)

    def player_may_return(self, state: TableState, seat: int) -> bool:
        """Whether ``seat``'s player may take it back now (``kdm_player_may_return``; yes by default)."""
        answer: bool | None = self._hook.kdm_player_may_return(state=state, seat=seat)
        return answer is not False

    def winners(self, state: TableState) -> list[int]:
        """The winning seats of a finished game (``kdm_winners``)."""
        return list(self._hook.kdm_winners(state=state) or [])

    def summary(self, state: TableState) -> dict[str, Any]:
        """The game mode's summary of a finished game (``kdm_summary``), or an empty one."""
        return dict(self._hook.kdm_summary(state=state) or {})

    def screen_parts(self) -> list[ScreenPart]:
        """What the table's plugins add to the terminal table (``kdm_tui``), in registration order."""
        return list(self._hook.kdm_tui())


def _taking_its_arguments(impl: Any, spec_args: set[str] | None) -> Callable[..., Any]:
    """``impl``'s function, called with the arguments it names (pluggy lets it name fewer than its
    hook's spec gives): the function itself when it names them all."""
    function: Callable[..., Any] = impl.function
    names = tuple(impl.argnames)
    if spec_args is None or set(names) >= spec_args:
        return function

    def with_its_arguments(**kwargs: Any) -> Any:
        return function(**{name: kwargs[name] for name in names})

    return with_its_arguments


def _tagged(option: TableOption, plugin: str) -> TableOption:
    if option.plugin:
        return option
    return TableOption(**{**option.__dict__, "plugin": plugin})
