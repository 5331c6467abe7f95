extends "res://tests/lib/engine_test.gd"
## In-process bridge (Godot 4, issue 13): a slow request (new_match on the big deck given as
## --deck=ABSOLUTE_PATH, seconds of Python work) lets the game's frames run. Counts the frames
## rendered while the request is awaited and the longest gap between two of them, and prints
## "SLOW seconds=S frames=N longest_gap_ms=G" for tests/test_godot4_python.py to bound.

var _frames: int = 0
var _last_usec: int = 0
var _longest_usec: int = 0


func scenario() -> void:
	var bridge := SorteioPythonBridge.new()
	if not check(bridge.start(root), "the bridge starts", bridge.failure()):
		return
	process_frame.connect(_on_frame)
	var started: int = Time.get_ticks_usec()
	_last_usec = started
	var reply: Dictionary = await bridge.request("new_match", {"deck": arg("deck"), "seed": 1})
	var seconds: float = (Time.get_ticks_usec() - started) / 1e6
	process_frame.disconnect(_on_frame)
	check(reply.get("ok", false), "the big deck's new_match succeeds", str(reply).left(300))
	check(int(reply["result"]["deck"]["cards"]) >= 30000, "the deck is the big one")
	print("SLOW seconds=%.3f frames=%d longest_gap_ms=%.1f" % [seconds, _frames, _longest_usec / 1e3])
	var drawn: Dictionary = await bridge.request("start_turn", {})
	check(drawn.get("ok", false), "the match plays after the slow start", str(drawn).left(300))
	bridge.close()


func _on_frame() -> void:
	var now: int = Time.get_ticks_usec()
	_longest_usec = maxi(_longest_usec, now - _last_usec)
	_last_usec = now
	_frames += 1
