extends SceneTree
# The in-process bridge in a project where pythonscript is installed but the entry's Python
# import fails (what a project gets when sorteio was not installed into pythonscript's own
# Python): the bridge must fail at start, with bridge_down and a message saying what to install,
# never report ready and then raise a SCRIPT ERROR on every call.
#   godot3-server --path PYTHONSCRIPT_PROJECT -s tests/godot3/test_python_entry_fails.gd -- \
#     --entry=res://broken_entry.py
# Prints "BRIDGE <kind>" (the autoload's, with the real entry) and "CHECK ok|FAIL name" lines.

const Checks = preload("lib/checks.gd")
const SorteioNode = preload("res://addons/sorteio/sorteio_node.gd")

var t = Checks.new()


func _init() -> void:
	var entry := ""
	for arg in OS.get_cmdline_args():
		if arg.begins_with("--entry="):
			entry = arg.substr(8)
	call_deferred("_run", entry)


func _run(entry: String) -> void:
	yield(self, "idle_frame")
	print("BRIDGE %s" % root.get_node("Sorteio").bridge_kind)
	var node: Node = SorteioNode.new()
	node.autostart_bridge = false
	node.bridge_mode = "python"
	node.python_entry = entry
	root.add_child(node)
	node.connect("error_occurred", t, "on_error_occurred")
	t.check(not node.start_bridge(), "an entry whose import fails does not start", entry)
	t.check(not node.is_bridge_ready() and node.is_bridge_failed(), "...the bridge is failed")
	t.check(
		entry in node.bridge_error and "pythonscript's own Python" in node.bridge_error,
		"...saying where sorteio must be installed",
		node.bridge_error
	)
	yield(self, "idle_frame")  # start-up t.failures are reported deferred
	t.check(
		t.errors.size() == 1 and t.errors[0][1] == "bridge_down", "...with bridge_down", t.errors
	)
	t.errors.clear()
	t.check(not node.start_match(1, "padrao"), "a call then fails")
	t.check(
		t.errors.size() == 1 and t.errors[0][1] == "bridge_down", "...with bridge_down", t.errors
	)
	root.remove_child(node)
	node.free()
	t.finish(self)
