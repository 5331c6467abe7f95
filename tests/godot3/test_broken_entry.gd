extends SceneTree
# python_bridge.gd with an entry that answers garbage and with one that does not load: each
# gives bridge_down with a message that says what is wrong; nothing crashes.
#   godot3-server --path godot3/demo_project -s tests/godot3/test_broken_entry.gd -- \
#     --entry=/abs/tests/godot3/fake_python_entry.gd
# Prints "CHECK ok|FAIL name: detail" lines; quits 0 when every check passed, 1 otherwise.

const Checks = preload("lib/checks.gd")
const SorteioNode = preload("res://addons/sorteio/sorteio_node.gd")
const MISSING := "res://addons/sorteio/python/missing_entry.py"

var t = Checks.new()


func _init() -> void:
	var entry := ""
	for arg in OS.get_cmdline_args():
		if arg.begins_with("--entry="):
			entry = arg.substr(8)
	call_deferred("_run", entry)


func _run(entry: String) -> void:
	var node: Node = SorteioNode.new()
	node.autostart_bridge = false
	node.bridge_mode = "python"
	node.python_entry = entry
	root.add_child(node)
	node.connect("error_occurred", t, "on_error_occurred")
	t.check(node.start_bridge() and node.is_bridge_ready(), "the stand-in entry loads", entry)
	t.check(not node.start_match(1, "padrao"), "a non-JSON answer fails the call")
	t.check(
		t.errors.size() == 1 and t.errors[0][1] == "bridge_down",
		"a non-JSON answer is bridge_down",
		t.errors
	)
	t.check(t.errors.size() == 1 and "not JSON" in t.errors[0][0], "the message says so", t.errors)
	t.errors.clear()
	node.python_entry = MISSING
	t.check(not node.start_bridge(), "a missing entry fails at start")
	t.check(
		node.is_bridge_failed() and MISSING in node.bridge_error,
		"the failure names the entry",
		node.bridge_error
	)
	yield(self, "idle_frame")  # the start-up failure is reported deferred
	t.check(
		t.errors.size() == 1 and t.errors[0][1] == "bridge_down", "...with bridge_down", t.errors
	)
	node.queue_free()
	t.finish(self)
