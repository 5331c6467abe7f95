extends SceneTree
# Runs a Node script (e.g. the README's example) in the demo project until the match ends.
#   godot3-server --path demo_project -s tests/godot/run_example.gd -- --script=/abs/example.gd
# Prints "GODOT-TEST passed" once match_ended was emitted without error_occurred.

const TIMEOUT_MS := 60000

var ended := false
var errors := 0
var started_ms := 0


func _init() -> void:
	var path := ""
	for arg in OS.get_cmdline_args():
		if arg.begins_with("--script="):
			path = arg.substr(9)
	call_deferred("_start", path)


func _start(path: String) -> void:
	var sorteio: Node = root.get_node("Sorteio")
	sorteio.connect("match_ended", self, "_on_match_ended")
	sorteio.connect("error_occurred", self, "_on_error_occurred")
	var node: Node = load(path).new()
	started_ms = OS.get_ticks_msec()
	root.add_child(node)


func _on_match_ended(_reason: String, _ending: Dictionary) -> void:
	ended = true


func _on_error_occurred(_message: String, _code: String) -> void:
	errors += 1


func _idle(_delta: float) -> bool:
	if ended or errors > 0 or OS.get_ticks_msec() - started_ms > TIMEOUT_MS:
		var ok := ended and errors == 0
		print("GODOT-TEST %s" % ("passed" if ok else "failed"))
		quit(0 if ok else 1)
	return false
