"""The Godot 4 addon's Python side: the only sorteio file that imports ``godot``.

The Python GDExtension (godot-python-extension) imports this module at start-up (named by
``sorteio.pyextension``) and it registers ``SorteioPython`` in Godot's ClassDB. The class
forwards request JSON text to ``sorteio.bridge.inprocess`` and nothing else: the rules and the
threading of slow requests live in the tested package. Python exceptions never cross into
GDScript (the extension would print an ERROR: and abort the calling function): every method
answers an error reply instead.
"""

import godot

from . import upstream_fixes  # noqa: F401  (the extension's per-run ERROR tracebacks)

try:
    from sorteio.bridge.inprocess import InProcessBridge

    _IMPORT_ERROR = ""
except Exception as exc:  # sorteio missing from the extension's site-packages: say so in replies
    InProcessBridge = None
    _IMPORT_ERROR = f"{type(exc).__name__}: {exc}"


def _failure(message: str) -> str:
    import json

    error = {"code": "bridge_down", "message": message}
    return json.dumps({"id": None, "ok": False, "error": error})


# Registered once per process, never again. The editor runs this file again: its scan treats
# every res:// .py as a PythonScript and asks it for a global class name, and upstream answers
# by re-executing the module (lib/godot/_python_extension/python_script.py:133 `_class` ->
# `_reload`, line 348 `importlib.reload(module)`, from python_language.py:270
# `_get_global_class_name`). A second `register_extension_class` of a new class object replaces
# upstream's `_registered_class_infos[name]` (lib/godot/_internal/extension_classes.py), which
# frees the creation and method infos whose raw pointers Godot's ClassDB holds as userdata
# (src/module/class_creation_info.cpp `class_userdata = this`, class_method_info.cpp
# `method_userdata = this`): the next `ClassDB.instantiate("SorteioPython")` called freed
# memory (signal 11 in libpython, PyVectorcall_Function, measured under gdb). A reload keeps
# the module's globals, so the first class stays registered and in use.
if "SorteioPython" not in globals():
    @godot.register_extension_class
    class SorteioPython(godot.RefCounted):
        """One in-process handler: ``submit(key, text)`` -> reply text or "" (pending);
        ``submit_deck(key, text, deck_text)``: the same with the params' ``deck_text`` beside;
        ``notify(key, semaphore)``: post ``semaphore`` once ``take(key)`` has the reply;
        ``take(key)`` -> reply text or "" (still pending); ``problem()`` -> why it cannot serve;
        ``close()``: stop the threads of slow requests (no Semaphore posted afterwards)."""

        @godot.method
        def problem(self) -> str:
            if InProcessBridge is None:
                return "sorteio does not import in the Python extension: " + _IMPORT_ERROR
            return ""

        @godot.method
        def submit(self, key: int, text: str) -> str:
            try:
                return self._bridge().submit(int(key), str(text))
            except Exception as exc:
                return _failure(f"{type(exc).__name__}: {exc}")

        @godot.method
        def submit_deck(self, key: int, text: str, deck_text: str) -> str:
            # submit(), the request's deck_text handed beside its JSON: escaping megabytes of
            # deck into the request cost the game's frame ~0.4 s for 30,000 cards (issue 14).
            try:
                return self._bridge().submit(int(key), str(text), str(deck_text))
            except Exception as exc:
                return _failure(f"{type(exc).__name__}: {exc}")

        @godot.method
        def notify(self, key: int, semaphore: godot.Semaphore) -> None:
            # Posted (from the work thread, or from a take) once take(key) has the reply: the
            # GDScript side waits on it with no call into Python, so without needing the GIL.
            try:
                self._bridge().notify(int(key), semaphore.post)
            except Exception:  # no bridge: post at once, take() then answers bridge_down
                semaphore.post()

        @godot.method
        def take(self, key: int) -> str:
            try:
                return self._bridge().take(int(key))
            except Exception as exc:
                return _failure(f"{type(exc).__name__}: {exc}")

        @godot.method
        def close(self) -> None:
            # The bridge's threads stop at their next piece, without waiting here, and post no
            # Semaphore after this returns (the game may be quitting: issue 13).
            bridge = getattr(self, "_inprocess", None)
            if bridge is not None:
                bridge.close()

        def _bridge(self):
            bridge = getattr(self, "_inprocess", None)
            if bridge is None:
                if InProcessBridge is None:
                    raise RuntimeError(self.problem())
                bridge = self._inprocess = InProcessBridge()
            return bridge
