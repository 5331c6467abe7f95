extends SceneTree
# The README example's save_game() / load_game() against what a player's disk may hold: no save
# yet, an empty file, a truncated one, JSON that is not a save. Each is refused with one
# error_occurred("...", "bad_request") (or nothing, for no save), never a SCRIPT ERROR, and the
# match in play is kept; the real save then loads.
#   godot3-server --path godot3/demo_project -s tests/godot3/readme_saves.gd -- \
#     --script=/abs/example.gd
# Prints "BRIDGE <kind>" and "CHECK ok|FAIL name: detail" lines; quits 0 when every check passed.

const Checks = preload("lib/checks.gd")
const SAVE := "user://partida.json"
const TIMEOUT_MS := 60000

var t = Checks.new()
var loaded := 0
var ended := false


func _init() -> void:
	var path := ""
	for arg in OS.get_cmdline_args():
		if arg.begins_with("--script="):
			path = arg.substr(9)
	call_deferred("_run", path)


func _run(path: String) -> void:
	var sorteio: Node = root.get_node("Sorteio")
	sorteio.connect("error_occurred", t, "on_error_occurred")
	sorteio.connect("state_loaded", self, "_on_state_loaded")
	sorteio.connect("match_ended", self, "_on_match_ended")
	var example: Node = load(path).new()
	root.add_child(example)
	var deadline := OS.get_ticks_msec() + TIMEOUT_MS
	while not ended and OS.get_ticks_msec() < deadline:
		yield(self, "idle_frame")
	print("BRIDGE %s" % sorteio.bridge_kind)
	t.check(ended, "the example's match ended")
	Directory.new().remove(SAVE)
	t.errors.clear()
	example.load_game()
	t.check(t.errors.empty() and loaded == 0, "no save yet: load_game does nothing", t.errors)
	example.save_game()
	var good := _read()
	t.check(good.begins_with("{"), "save_game writes " + SAVE, good.left(40))
	var corrupt := {
		"empty": "", "truncated": good.left(good.length() / 2), "an Array": "[1, 2]", "null": "null"
	}
	for name in corrupt:
		_write(corrupt[name])
		t.errors.clear()
		example.load_game()
		t.check(
			t.errors.size() == 1 and t.errors[0][1] == "bad_request" and loaded == 0,
			"a save file that is %s is refused with bad_request" % name,
			t.errors
		)
		t.check(sorteio.phase == "ended", "...the match is kept", sorteio.phase)
	_write(good)
	t.errors.clear()
	example.load_game()
	t.check(loaded == 1 and t.errors.empty(), "the real save loads again", t.errors)
	t.finish(self)


func _read() -> String:
	var file := File.new()
	if file.open(SAVE, File.READ) != OK:
		return ""
	var text := file.get_as_text()
	file.close()
	return text


func _write(text: String) -> void:
	var file := File.new()
	file.open(SAVE, File.WRITE)
	file.store_string(text)
	file.close()


func _on_state_loaded(_snapshot: Dictionary, _pending: Dictionary) -> void:
	loaded += 1


func _on_match_ended(_reason: String, _ending: Dictionary) -> void:
	ended = true
