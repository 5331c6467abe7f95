"""addons/sorteio/python/upstream_fixes.py, without Godot: upstream's PythonLanguage as in
godot-python-extension d01a302, stood in by a small package on sys.path. The real extension runs
it in the Godot 4 engine tests (tests/test_godot4_python.py, tests/test_godot4_export.py: an
exported game with an autoload plays and exits 0 with no upstream traceback)."""

import importlib
import importlib.util
import sys
from pathlib import Path

import pytest

FIXES = Path(__file__).resolve().parents[1] / "addons/sorteio/python/upstream_fixes.py"

UPSTREAM = '''
class PythonLanguage:  # upstream's, as in d01a302
    def _add_global_constant(self, name, value):
        raise NotImplementedError

    def _add_named_global_constant(self, name, value):
        raise NotImplementedError

    def _remove_named_global_constant(self, name):
        raise NotImplementedError

    def _handles_global_class_type(self, type_):
        return type_ in ("PythonScript")  # upstream's defect: a string, not a tuple
'''

GODOT = """
bound = []  # the classes binding was asked for, in order


class _Settings:
    enabled = []  # editor_plugins/enabled

    def get_setting(self, name, default=None):
        return self.enabled if name == "editor_plugins/enabled" else default


ProjectSettings = _Settings()


class _Theme:  # the editor theme: a change propagates to every control unless blocked
    def __init__(self):
        self.blocking = False
        self.icons = {}  # name -> signals blocked when it was set

    def is_blocking_signals(self):
        return self.blocking

    def set_block_signals(self, enable):
        self.blocking = enable

    def set_icon(self, name, theme_type, texture):
        self.icons[name] = self.blocking


class _EditorInterface:
    theme = _Theme()

    def get_editor_theme(self):
        return self.theme


EditorInterface = _EditorInterface()


def __getattr__(name):  # upstream binds a class when the module is asked for it
    if name == "Viewport":
        bound.append(name)
        return type(name, (), {})
    raise AttributeError(name)
"""

UTILS = """
import contextlib


def parse_value_str_to_str(value, type_):
    return value  # upstream's answer for Array[StringName]([]): the text unchanged


@contextlib.contextmanager
def print_exceptions_and_continue():
    yield
"""

EDITOR = """
import godot

calls = []


def _install_commands():
    calls.append(("commands", list(godot.bound)))


def _register_export_plugin():
    calls.append("export plugin")


def _install_icons():  # upstream's sets the PythonScript icon on the editor theme
    godot.EditorInterface.get_editor_theme().set_icon("PythonScript", "EditorIcons", object())


def _init():  # what the editor calls deferred
    _install_icons()
    _install_commands()
    _register_export_plugin()
"""


@pytest.fixture
def upstream(tmp_path, monkeypatch):
    """A stand-in ``godot`` package on sys.path, none of it imported yet; sys.meta_path and the
    godot modules are restored afterwards."""
    language = tmp_path / "godot" / "_python_extension"
    (language / "editor").mkdir(parents=True)
    (tmp_path / "godot" / "_internal" / "utils").mkdir(parents=True)
    (tmp_path / "godot" / "__init__.py").write_text(GODOT)
    (tmp_path / "godot" / "_internal" / "__init__.py").write_text("")
    (tmp_path / "godot" / "_internal" / "utils" / "__init__.py").write_text(UTILS)
    (language / "__init__.py").write_text("")
    (language / "python_language.py").write_text(UPSTREAM)
    (language / "editor" / "__init__.py").write_text(EDITOR)
    monkeypatch.syspath_prepend(str(tmp_path))
    # Without a finder another test's import of the fixes left (each test restores its own).
    monkeypatch.setattr(sys, "meta_path", [
        f for f in sys.meta_path if not getattr(f, "sorteio_patch_on_import", False)])
    for name in [m for m in sys.modules if m == "godot" or m.startswith("godot.")]:
        monkeypatch.delitem(sys.modules, name)
    yield
    for name in [m for m in sys.modules if m == "godot" or m.startswith("godot.")]:
        del sys.modules[name]


def load_fixes(name: str):
    """Runs upstream_fixes.py as a module called ``name`` (the game runs it as "sitecustomize"
    and as "addons.sorteio.python.upstream_fixes")."""
    spec = importlib.util.spec_from_file_location(name, FIXES)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def assert_fixed(language_class) -> None:
    lang = language_class()
    for name in ("_add_global_constant", "_add_named_global_constant"):
        assert getattr(lang, name)("Sorteio", object()) is None
        assert getattr(language_class, name).__name__ == name  # upstream calls it by name
    assert lang._remove_named_global_constant("Sorteio") is None
    assert lang._handles_global_class_type("PythonScript")
    assert not any(lang._handles_global_class_type(t) for t in ("", "Script", "JSON"))


def test_upstream_fixes_quiet_the_extensions_per_run_tracebacks(upstream):
    """The editor's and a project run's case: upstream's module is imported before the addon's
    Python side, which patches it on import; importing it again (the editor does) changes
    nothing."""
    language = importlib.import_module("godot._python_extension.python_language").PythonLanguage
    assert language()._handles_global_class_type("")  # the defect
    with pytest.raises(NotImplementedError):
        language()._add_global_constant("Sorteio", object())
    first = load_fixes("addons.sorteio.python.upstream_fixes")
    patched = dict(vars(language))
    load_fixes("addons.sorteio.python.upstream_fixes")
    assert dict(vars(language)) == patched
    assert_fixed(language)
    assert not first.patch(language)  # already patched: nothing to do


def test_upstream_fixes_as_sitecustomize_patch_upstream_when_it_is_imported(upstream):
    """The exported game's case (issue 13): CPython runs sitecustomize before ``godot`` can be
    imported; upstream's module is patched the moment it is imported, before any autoload
    reaches it. Loaded again as the addon's module, it installs no second finder."""
    load_fixes("sitecustomize")
    assert "godot._python_extension.python_language" not in sys.modules
    load_fixes("addons.sorteio.python.upstream_fixes")
    finders = [f for f in sys.meta_path if getattr(f, "sorteio_patch_on_import", False)]
    assert len(finders) == 1
    language = importlib.import_module("godot._python_extension.python_language").PythonLanguage
    assert_fixed(language)


def test_upstream_fixes_keep_the_functions_they_replace_alive(upstream):
    """Upstream's C++ keeps each virtual it looked up and drops it after finalize: a replaced
    function must not be freed when the class lets go of it (the exported demo's crash at exit)."""
    language = importlib.import_module("godot._python_extension.python_language").PythonLanguage
    original = language.__dict__["_add_global_constant"]
    before = sys.getrefcount(original)
    load_fixes("addons.sorteio.python.upstream_fixes")
    assert language.__dict__["_add_global_constant"] is not original
    # The class's reference is gone and one that is never given back took its place.
    assert sys.getrefcount(original) == before


def test_upstream_fixes_leave_another_build_alone(tmp_path, monkeypatch, upstream):
    """A build of the extension without these methods is not touched."""
    module = importlib.import_module("godot._python_extension.python_language")
    monkeypatch.setattr(module, "PythonLanguage", type("PythonLanguage", (), {}))
    fixes = load_fixes("addons.sorteio.python.upstream_fixes")
    assert vars(module.PythonLanguage).get("_handles_global_class_type") is None
    assert not fixes.patch(module.PythonLanguage)


@pytest.mark.parametrize("as_name", ["addons.sorteio.python.upstream_fixes", "sitecustomize"])
def test_typed_array_default_values_bind(upstream, as_name):
    """Fix 3: Godot 4.6's API writes an empty typed array default as ``Array[StringName]([])``,
    which upstream left unqualified (the binding of EditorInterface failed on it); the fix
    qualifies exactly that form and leaves every other value to upstream. Patched whether the
    module was imported before (the editor) or after (an exported game's sitecustomize)."""
    if as_name != "sitecustomize":
        importlib.import_module("godot._internal.utils")
    load_fixes(as_name)
    utils = importlib.import_module("godot._internal.utils")
    parse = utils.parse_value_str_to_str
    assert parse("Array[StringName]([])", type_="typedarray::StringName") == (
        "godot.Array[godot.StringName]([])")
    assert parse("Array[RDPipelineSpecializationConstant]([])", type_="x") == (
        "godot.Array[godot.RDPipelineSpecializationConstant]([])")
    for value in ("[]", "Array[StringName]([&\"a\"])", "Array[]([])", "true", "Vector2(0, 0)"):
        assert parse(value, type_="Variant") == value  # upstream's answer
    load_fixes("addons.sorteio.python.upstream_fixes")
    assert utils.parse_value_str_to_str is parse  # patched once


@pytest.mark.parametrize("enabled, registered", [
    ([], True),
    (["res://addons/other/plugin.cfg"], True),
    (["res://addons/sorteio/plugin.cfg"], False),
])
def test_editor_integration_binds_viewport_first_and_leaves_the_export_to_the_addon(
        upstream, enabled, registered):
    """Fixes 4 and 5: the editor integration's command palette entries bind Viewport before
    anything reaches Window (no TypeBindInProgressError), and upstream's export plugin (which
    kept the last preset past the RenderingServer) is registered only when the addon's editor
    plugin, whose export plugin exports the runtime, is not enabled."""
    godot = importlib.import_module("godot")
    godot.ProjectSettings.enabled = enabled
    editor = importlib.import_module("godot._python_extension.editor")
    load_fixes("addons.sorteio.python.upstream_fixes")
    editor._init()
    assert editor.calls[0] == ("commands", ["Viewport"])
    assert ("export plugin" in editor.calls) is registered
    fixes = load_fixes("addons.sorteio.python.upstream_fixes")
    assert not fixes.patch_editor(editor)  # patched once


def test_editor_integration_installs_its_icon_without_a_theme_change_storm(upstream):
    """Fix 6: upstream's ``_install_icons`` set the PythonScript icon on the editor theme with
    its signals live; on the first open of a project (the extension loaded during the first
    scan) the theme change reached an editor popup not yet filled and Godot 4.6 printed
    ``ERROR: Index p_idx = 1 is out of bounds`` (``set_item_icon``) 1-3 times. The icon is now
    set with the theme's signals blocked, and they are live again afterwards."""
    godot = importlib.import_module("godot")
    editor = importlib.import_module("godot._python_extension.editor")
    load_fixes("addons.sorteio.python.upstream_fixes")
    editor._init()
    theme = godot.EditorInterface.get_editor_theme()
    assert theme.icons == {"PythonScript": True}  # set, with the signals blocked
    assert theme.is_blocking_signals() is False
