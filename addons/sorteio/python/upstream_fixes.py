"""Quiets two defects of the Python GDExtension (godot-python-extension d01a302) that printed an
``ERROR:`` Python traceback on every run of a game with the addon, exported games included, and
in the editor. Applied when the addon's Python side is imported (at start-up, before Godot
registers autoloads or scans files); applying it again (the editor re-imports this file) changes
nothing. Each fix is the behaviour upstream meant; nothing of sorteio's rules is here.

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
"""

try:
    from godot._python_extension.python_language import PythonLanguage
except Exception:  # another build of the extension: nothing to fix
    PythonLanguage = None


def _ignored(name):
    def method(self, *args):
        return None

    # Upstream calls a virtual by the __name__ of the function it looked up.
    method.__name__ = method.__qualname__ = name
    return method


def _handles_global_class_type(self, type_: str) -> bool:
    return type_ == "PythonScript"


def _install(name, function):
    setattr(PythonLanguage, name, function)
    # Upstream keeps each virtual it looked up in a C++ static (class_creation_info.cpp
    # `_virt_funcs`) whose destructor drops its reference after the interpreter is finalized;
    # a function nothing else keeps alive by then is freed there and the process crashed at
    # exit (signal 11, measured in the editor). One reference never given back keeps it alive.
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(function))


if PythonLanguage is not None:
    import ctypes

    for _name in ("_add_global_constant", "_add_named_global_constant",
                  "_remove_named_global_constant"):
        _install(_name, _ignored(_name))
    _install("_handles_global_class_type", _handles_global_class_type)
