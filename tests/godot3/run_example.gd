extends SceneTree
# Runs a Node script (e.g. the README's example) in the demo project, one match per seed.
#   godot3-server --path godot3/demo_project -s tests/godot3/run_example.gd -- \
#     --script=/abs/example.gd [--seeds=N]
# Each match: Sorteio.match_seed is set to the seed (the example should start with seed -1), the
# node is added, the match must end, and a few frames more run (deferred calls made at the end
# would fail then). Prints "EXAMPLE seeds=N ended=N catastrophes=N errors=N" and
# "GODOT-TEST passed" when every match ended without any error_occurred.

const TIMEOUT_MS := 60000
const FRAMES_AFTER_END := 5

var ended := 0
var catastrophes := 0
var errors := []
var _ended_this := false


func _init() -> void:
	var path := ""
	var seeds := 1
	for arg in OS.get_cmdline_args():
		if arg.begins_with("--script="):
			path = arg.substr(9)
		elif arg.begins_with("--seeds="):
			seeds = int(arg.substr(8))
	call_deferred("_start", path, seeds)


func _start(path: String, seeds: int) -> void:
	var sorteio: Node = root.get_node("Sorteio")
	sorteio.connect("match_ended", self, "_on_match_ended")
	sorteio.connect("error_occurred", self, "_on_error_occurred")
	var script: Script = load(path)
	var started_ms := OS.get_ticks_msec()
	for seed_value in range(seeds):
		sorteio.match_seed = seed_value
		_ended_this = false
		var node: Node = script.new()
		root.add_child(node)
		while not _ended_this and OS.get_ticks_msec() - started_ms < TIMEOUT_MS:
			yield(self, "idle_frame")
		for _i in range(FRAMES_AFTER_END):
			yield(self, "idle_frame")
		root.remove_child(node)
		node.free()
		if not _ended_this or not errors.empty():
			break
	print(
		"EXAMPLE seeds=%d ended=%d catastrophes=%d errors=%s" % [seeds, ended, catastrophes, errors]
	)
	print("BRIDGE %s" % sorteio.bridge_kind)
	var ok := ended == seeds and errors.empty()
	print("GODOT-TEST %s" % ("passed" if ok else "failed"))
	quit(0 if ok else 1)


func _on_match_ended(reason: String, _ending: Dictionary) -> void:
	_ended_this = true
	ended += 1
	if reason == "catastrophe":
		catastrophes += 1


func _on_error_occurred(message: String, code: String) -> void:
	errors.append([code, message])
