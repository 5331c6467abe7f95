"""Quiets two defects of the Python GDExtension (godot-python-extension d01a302) that printed an
``ERROR:`` Python traceback on every run of a game with the addon, exported games included, and
in the editor, and keeps an exported game with an autoload from crashing at exit. Nothing of
sorteio's rules is here; each fix is the behaviour upstream meant.

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

When it applies. The addon's Python side imports this module: in the editor and in a project run
that is before Godot registers autoloads. An exported game imports the addon's Python side only
when its bridge starts, after the autoloads, so the export plugin (``editor/export_plugin.gd``)
also ships this file as the exported runtime's ``site-packages/sitecustomize.py``: CPython runs it
at start-up, before ``godot`` can be imported, and :func:`install` then patches
``PythonLanguage`` the moment upstream's module is imported (a finder first on
``sys.meta_path``). Installing twice (the editor re-imports this file; the game imports it as
``sitecustomize`` and as the addon's module) changes nothing.

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


class _PatchingLoader:
    """Runs upstream's loader, then patches the module it made; anything else is the loader's."""

    def __init__(self, loader):
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        language = getattr(module, "PythonLanguage", None)
        if language is not None:
            patch(language)

    def __getattr__(self, name):
        return getattr(self._loader, name)


class PatchOnImport:
    """A ``sys.meta_path`` finder that finds nothing itself: it asks the other finders for
    upstream's language module and wraps the loader so the module is patched when it is run."""

    # Recognised by this flag, not by class: the game loads this file twice (as sitecustomize
    # and as the addon's module), which makes two classes.
    sorteio_patch_on_import = True

    def find_spec(self, name, path, target=None):
        if name != LANGUAGE_MODULE:
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
    """Patches upstream's ``PythonLanguage`` now if its module is imported, else when it is
    (one finder at the front of ``sys.meta_path``, never two)."""
    module = sys.modules.get(LANGUAGE_MODULE)
    if module is not None:
        language = getattr(module, "PythonLanguage", None)
        if language is not None:
            patch(language)
        return
    if not any(getattr(f, "sorteio_patch_on_import", False) for f in sys.meta_path):
        sys.meta_path.insert(0, PatchOnImport())


install()
