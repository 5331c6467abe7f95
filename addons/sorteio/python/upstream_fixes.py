"""Quiets the defects of the Python GDExtension (godot-python-extension d01a302) that printed an
``ERROR:`` Python traceback on every run of a game with the addon, exported games included, and
in the editor, Python tracebacks at each editor start (fixes 3-4), ``ERROR:`` lines at each
headless export (fix 5) and at the first open of a project (fix 6), and keeps an exported game
with an autoload from crashing at exit. Nothing of sorteio's rules is here; fixes 1-4 and 6 are
the behaviour upstream meant, fix 5 leaves the export of the runtime to the addon's export
plugin when it is enabled.

1. ``PythonLanguage._add_global_constant`` / ``_add_named_global_constant`` /
   ``_remove_named_global_constant`` raise ``NotImplementedError``
   (``lib/godot/_python_extension/python_language.py:181-188``). Godot calls them on every
   script language for each autoload (the game: by value; the editor: by name), so the addon's
   ``Sorteio`` autoload printed a traceback each run. Upstream keeps no global constants for
   Python code; ignoring them is what it does after printing the error.
2. ``PythonLanguage._handles_global_class_type`` answers ``type_ in ('PythonScript')``
   (``python_language.py:262``): a string, not a tuple, so it claims any type named by a part of
   ``"PythonScript"``, the empty type too, and the editor then asked it for the global class of
   files that are not Python scripts (the addon's icons, JSON files): ``_get_global_class_name``
   failed on them with a traceback and a "Failed loading resource" error. The fix compares the
   whole name.
3. Upstream cannot bind a method whose default value is a typed array, which Godot 4.3+ writes
   in its API as ``Array[StringName]([])`` (4.6 API drift: upstream's
   ``lib/godot/_internal/utils/variant_utils.py`` ``parse_value_str_to_str`` qualifies a value's
   names by replacing its type's ``__name__``, ``Array[godot.StringName]``, which that text does
   not contain, so the generated ``def`` names an undefined ``Array``). One such method fails its
   whole class: in the editor ``EditorInterface`` (``popup_node_selector``), whose failed binding
   also leaves ``godot.EditorInterface`` the class instead of the singleton, so the extension's
   editor integration printed two Python tracebacks in yellow at every editor start (its icon
   and its command palette entries, ``get_command_palette() missing ... 'self'``). The fix
   writes exactly that empty typed-array form with qualified names; every other value is
   upstream's.
4. With EditorInterface bound, the editor integration's command palette entries
   (``lib/godot/_python_extension/editor/__init__.py`` ``_install_commands``) bind
   ``EditorCommandPalette`` and its bases down to ``Window``, then ``Viewport``, whose
   ``get_embedded_subwindows`` returns ``Array[Window]`` while ``Window`` waits for its base:
   upstream's ``bind_class`` prints ``TypeBindInProgressError: binding of class 'Window'
   already in progress`` (its own TODO: cyclic dependencies). ``Viewport`` bound first has no
   cycle (``Window`` then finds its base bound), so the fix binds it at the start of
   ``_install_commands``: not earlier, as Godot's singletons that ``Window`` needs
   (``DisplayServer``) exist only once the editor runs that deferred call.
5. Exporting headless printed three ``ERROR:`` lines at exit (``Parameter
   "RenderingServer::get_singleton()" is null`` in ``~ImageTexture``, twice, and ``2 RID
   allocations of type ...DummyTexture... were leaked at exit``): the Linux export platform's
   logo and run icon, freed after the RenderingServer. Upstream's export plugin
   (``lib/godot/_python_extension/editor/export_plugin.py``, a module global registered by the
   editor integration's ``_register_export_plugin``) keeps the last export preset (Godot's
   ``EditorExportPlugin::set_export_preset``, which accepts no null) and so its platform, and
   lives until the interpreter is finalized, after the RenderingServer (measured: removed from
   the editor and its module's global deleted, its Python object is still referred to by
   itself and the errors stayed). When the addon's editor plugin is enabled in the project,
   its own export plugin (``editor/export_plugin.gd``) exports everything upstream's does for
   the one platform built here (the Python home, ``libpython``, the API cache), and refuses the
   others, so upstream's is not registered then: no preset is kept (and no second Godot process
   dumps the API during the export). Without the addon's editor plugin upstream's is registered
   as before.
6. The editor integration's ``_install_icons`` (``lib/godot/_python_extension/editor/__init__.py``
   lines 66-80) sets the ``PythonScript`` icon on the editor theme, whose ``changed`` signal
   makes every editor control refresh its theme items. On the first open of a project (no
   ``.godot/extension_list.cfg`` yet: the extension is loaded during the first scan, and its
   deferred ``_init`` runs once the editor layout is loaded) that refresh reached an editor
   popup menu not yet filled, and Godot 4.6.3 printed ``ERROR: Index p_idx = 1 is out of bounds
   (items.size() = 1)`` at ``set_item_icon`` (``popup_menu.cpp:2028``) 1-3 times; later opens
   printed none. The fix sets the icon with the theme's signals blocked: the icon is in the
   theme for every later lookup (measured: ``has_icon("PythonScript", "EditorIcons")`` is true
   in the editor), with no refresh storm; no sorteio code is involved.

When it applies. The addon's Python side imports this module: in the editor and in a project run
that is before Godot registers autoloads. An exported game imports the addon's Python side only
when its bridge starts, after the autoloads, so the export plugin (``editor/export_plugin.gd``)
also ships this file as the exported runtime's ``site-packages/sitecustomize.py``: CPython runs it
at start-up, before ``godot`` can be imported, and :func:`install` then patches each of
upstream's modules the moment it is imported (a finder first on ``sys.meta_path``; the editor
integration is imported in the editor only). Installing twice (the editor re-imports this
file; the game imports it as ``sitecustomize`` and as the addon's module) changes nothing.

Why functions are kept alive. Upstream keeps each virtual it looked up in a C++ static
(``class_creation_info.cpp`` ``_virt_funcs``) whose destructor drops its reference after the
interpreter is finalized: a function nothing else keeps alive by then is freed there and the
process crashes at exit (signal 11: measured in the editor for an installed function, and in the
exported demo for the upstream function an autoload had looked up before the addon replaced it).
One reference never given back, to the installed function and to the one it replaces, keeps
each alive.
"""

import sys

LANGUAGE_MODULE = "godot._python_extension.python_language"
UTILS_MODULE = "godot._internal.utils"
EDITOR_MODULE = "godot._python_extension.editor"  # imported in the editor only
PATCHED_MODULES = (UTILS_MODULE, LANGUAGE_MODULE, EDITOR_MODULE)
_IGNORED = ("_add_global_constant", "_add_named_global_constant", "_remove_named_global_constant")
_FIXED = "_sorteio_upstream_fixes"  # set on PythonLanguage once patched


def _ignored(name):
    def method(self, *args):
        return None

    # Upstream calls a virtual by the __name__ of the function it looked up.
    method.__name__ = method.__qualname__ = name
    return method


def _handles_global_class_type(self, type_: str) -> bool:
    return type_ == "PythonScript"


def _keep_alive(function) -> None:
    import ctypes

    ctypes.pythonapi.Py_IncRef(ctypes.py_object(function))


def patch(language) -> bool:
    """Installs the fixes on ``language`` (upstream's ``PythonLanguage`` class).

    Returns True when it patched now, False when there was nothing to do: already patched, or
    another build of the extension without these methods."""
    if getattr(language, _FIXED, False) or not all(
        hasattr(language, name) for name in (*_IGNORED, "_handles_global_class_type")
    ):
        return False
    fixes = {name: _ignored(name) for name in _IGNORED}
    fixes["_handles_global_class_type"] = _handles_global_class_type
    for name, function in fixes.items():
        _keep_alive(language.__dict__.get(name, function))
        _keep_alive(function)
        setattr(language, name, function)
    setattr(language, _FIXED, True)
    return True


def _typed_array_defaults(parse):
    """Upstream's ``parse_value_str_to_str(value, type_)`` (a default value from Godot's API ->
    the Python text of the generated ``def``), also right for an empty typed array."""

    def parse_value_str_to_str(value, type_):
        if isinstance(value, str) and value.startswith("Array[") and value.endswith("]([])"):
            element = value[len("Array["):-len("]([])")]
            if element.isidentifier():  # a Godot type name, a builtin or a class
                return f"godot.Array[godot.{element}]([])"
        return parse(value, type_=type_)

    parse_value_str_to_str.sorteio_typed_array_defaults = True
    return parse_value_str_to_str


def patch_utils(utils) -> bool:
    """Installs fix 3 on ``utils`` (upstream's ``godot._internal.utils``, whose attribute
    ``method_bind`` calls for each default value). Returns True when it patched now, False when
    already patched or another build without that function."""
    parse = getattr(utils, "parse_value_str_to_str", None)
    if parse is None or getattr(parse, "sorteio_typed_array_defaults", False):
        return False
    fixed = _typed_array_defaults(parse)
    _keep_alive(parse)
    _keep_alive(fixed)
    utils.parse_value_str_to_str = fixed
    return True


def patch_editor(editor) -> bool:
    """Installs fixes 4, 5 and 6 on ``editor`` (upstream's editor integration module, whose
    ``_init`` calls its globals ``_install_icons``, ``_install_commands`` and
    ``_register_export_plugin``).
    Returns True when it patched now, False when already patched or another build without
    ``_install_commands``."""
    install_commands = getattr(editor, "_install_commands", None)
    if install_commands is None or getattr(install_commands, "sorteio_viewport_first", False):
        return False

    def _install_commands(*args, **kwargs):
        import godot
        from godot._internal.utils import print_exceptions_and_continue

        with print_exceptions_and_continue():  # as upstream reports a failed binding
            godot.Viewport  # noqa: B018  (binds it: see fix 4)
        return install_commands(*args, **kwargs)

    _install_commands.sorteio_viewport_first = True
    _keep_alive(install_commands)
    _keep_alive(_install_commands)
    editor._install_commands = _install_commands
    install_icons = getattr(editor, "_install_icons", None)
    if install_icons is not None:

        def _install_icons(*args, **kwargs):
            import godot
            from godot._internal.utils import print_exceptions_and_continue

            with print_exceptions_and_continue():  # as upstream's own decorator does
                theme = godot.EditorInterface.get_editor_theme()
                was_blocking = theme.is_blocking_signals()
                theme.set_block_signals(True)  # fix 6
                try:
                    return install_icons(*args, **kwargs)
                finally:
                    theme.set_block_signals(was_blocking)
            return None

        _keep_alive(install_icons)
        _keep_alive(_install_icons)
        editor._install_icons = _install_icons
    register = getattr(editor, "_register_export_plugin", None)
    if register is not None:

        def _register_export_plugin(*args, **kwargs):
            if _addon_exports_the_runtime():
                return None  # fix 5
            return register(*args, **kwargs)

        _keep_alive(register)
        _keep_alive(_register_export_plugin)
        editor._register_export_plugin = _register_export_plugin
    return True


ADDON_PLUGIN = "res://addons/sorteio/plugin.cfg"


def _addon_exports_the_runtime() -> bool:
    """The addon's editor plugin, whose export plugin exports the runtime, is enabled in the
    project (the setting Godot keeps the enabled plugins in)."""
    import godot

    return ADDON_PLUGIN in godot.ProjectSettings.get_setting("editor_plugins/enabled", [])


def _patch_module(name, module) -> None:
    if name == UTILS_MODULE:
        patch_utils(module)
        return
    if name == EDITOR_MODULE:
        patch_editor(module)
        return
    language = getattr(module, "PythonLanguage", None)
    if language is not None:
        patch(language)


class _PatchingLoader:
    """Runs upstream's loader, then patches the module it made; anything else is the loader's."""

    def __init__(self, loader):
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        _patch_module(module.__name__, module)

    def __getattr__(self, name):
        return getattr(self._loader, name)


class PatchOnImport:
    """A ``sys.meta_path`` finder that finds nothing itself: it asks the other finders for
    upstream's modules named in ``PATCHED_MODULES`` and wraps the loader so the module is
    patched when it is run."""

    # Recognised by this flag, not by class: the game loads this file twice (as sitecustomize
    # and as the addon's module), which makes two classes.
    sorteio_patch_on_import = True

    def find_spec(self, name, path, target=None):
        if name not in PATCHED_MODULES:
            return None
        for finder in sys.meta_path:
            if getattr(finder, "sorteio_patch_on_import", False):
                continue
            find = getattr(finder, "find_spec", None)
            spec = find(name, path, target) if find is not None else None
            if spec is not None:
                if spec.loader is not None:
                    spec.loader = _PatchingLoader(spec.loader)
                return spec
        return None


def install() -> None:
    """Patches each of upstream's ``PATCHED_MODULES`` now if it is imported, else when it is
    (one finder at the front of ``sys.meta_path``, never two)."""
    waiting = False
    for name in PATCHED_MODULES:
        module = sys.modules.get(name)
        if module is None:
            waiting = True
        else:
            _patch_module(name, module)
    if waiting and not any(getattr(f, "sorteio_patch_on_import", False) for f in sys.meta_path):
        sys.meta_path.insert(0, PatchOnImport())


install()
