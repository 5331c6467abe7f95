extends SceneTree
# The in-process bridge in a project where pythonscript is installed but the entry's Python
# import fails (what a project gets when sorteio was not installed into pythonscript's own
# Python): the bridge must fail at start, with bridge_down and a message saying what to install,
# never report ready and then raise a SCRIPT ERROR on every call.
#   godot3-server --path PYTHONSCRIPT_PROJECT -s tests/godot3/test_python_entry_fails.gd -- \
#     --entry=res://broken_entry.py
# Prints "BRIDGE <kind>" (the autoload's, with the real entry) and "CHECK ok|FAIL name" lines.

const SorteioNode = preload("res://addons/sorteio/sorteio_node.gd")

var failures := 0
var errors := []


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
	node.connect("error_occurred", self, "_on_error_occurred")
	_check(not node.start_bridge(), "an entry whose import fails does not start", entry)
	_check(not node.is_bridge_ready() and node.is_bridge_failed(), "...the bridge is failed")
	_check(
		entry in node.bridge_error and "pythonscript's own Python" in node.bridge_error,
		"...saying where sorteio must be installed",
		node.bridge_error
	)
	yield(self, "idle_frame")  # start-up failures are reported deferred
	_check(errors.size() == 1 and errors[0][1] == "bridge_down", "...with bridge_down", errors)
	errors.clear()
	_check(not node.start_match(1, "padrao"), "a call then fails")
	_check(errors.size() == 1 and errors[0][1] == "bridge_down", "...with bridge_down", errors)
	root.remove_child(node)
	node.free()
	print("GODOT-TEST %s" % ("passed" if failures == 0 else "failed"))
	quit(0 if failures == 0 else 1)


func _on_error_occurred(message: String, code: String) -> void:
	errors.append([message, code])


func _check(ok: bool, name: String, detail = "") -> void:
	if not ok:
		failures += 1
	print(
		"CHECK %s %s%s" % ["ok" if ok else "FAIL", name, ": " + str(detail) if str(detail) else ""]
	)
