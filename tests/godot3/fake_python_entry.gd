extends Node
# A broken in-process entry, for what the real pythonscript entry
# (addons/sorteio/python/sorteio_python_bridge.py) cannot be made to do in a test: answer text
# that is not JSON. Set as SorteioNode.python_entry by tests/godot3/test_broken_entry.gd; being
# GDScript, it runs with or without pythonscript installed.

var requests := 0


func request(_text: String) -> String:
	requests += 1
	return "<html>not JSON</html>"
