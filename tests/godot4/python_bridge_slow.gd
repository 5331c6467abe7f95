extends "res://tests/lib/engine_test.gd"
## In-process bridge (Godot 4, issue 13): a slow request (new_match on the big deck given as
## --deck=ABSOLUTE_PATH, seconds of Python work) lets the game's frames run. Counts the frames
## rendered while the request is awaited and the longest gap between two of them, and prints
## "SLOW wait=W seconds=S frames=N longest_gap_ms=G" for tests/test_godot4_python.py and
## benchmarks/bench_inprocess_frames.py.
##
## --wait=semaphore (default): through SorteioPythonBridge.request, which waits on a Semaphore
## the Python side posts (no call into Python while waiting). --wait=take: the way the bridge
## waited before, asking the Python class take() once a frame (each call needs the GIL), kept
## to measure the two side by side. --repeat=N (default 1, semaphore only): N new_match in a
## row, each but the first replacing a big match (which the Python side then frees); the figures
## cover them all and 1 s of frames after the last (the previous match may be freed then).

var _frames: int = 0
var _last_usec: int = 0
var _longest_usec: int = 0


func scenario() -> void:
	var wait: String = arg("wait", "semaphore")
	var bridge := SorteioPythonBridge.new()
	if not check(bridge.start(root), "the bridge starts", bridge.failure()):
		return
	process_frame.connect(_on_frame)
	var started: int = Time.get_ticks_usec()
	_last_usec = started
	var reply: Dictionary = {}
	var params: Dictionary = {"deck": arg("deck"), "seed": 1}
	if wait == "take":
		reply = await _new_match_taking_each_frame(params)
	else:
		for match_seed: int in range(1, int(arg("repeat", "1")) + 1):
			params["seed"] = match_seed
			reply = await bridge.request("new_match", params)
		if int(arg("repeat", "1")) > 1:
			await create_timer(1.0).timeout
	var seconds: float = (Time.get_ticks_usec() - started) / 1e6
	process_frame.disconnect(_on_frame)
	check(reply.get("ok", false), "the big deck's new_match succeeds", str(reply).left(300))
	check(int(reply["result"]["deck"]["cards"]) >= 30000, "the deck is the big one")
	print(
		(
			"SLOW wait=%s seconds=%.3f frames=%d longest_gap_ms=%.1f"
			% [wait, seconds, _frames, _longest_usec / 1e3]
		)
	)
	if wait != "take":
		var drawn: Dictionary = await bridge.request("start_turn", {})
		check(drawn.get("ok", false), "the match plays after the slow start", str(drawn).left(300))
	bridge.close()


func _new_match_taking_each_frame(params: Dictionary) -> Dictionary:
	var python: RefCounted = ClassDB.instantiate(SorteioPythonBridge.PYTHON_CLASS) as RefCounted
	var request: String = JSON.stringify({"id": 1, "method": "new_match", "params": params})
	var text: String = python.call("submit", 1, request)
	while text == "":
		await process_frame
		text = python.call("take", 1)
	return SorteioBridge.parse_reply(text)


func _on_frame() -> void:
	var now: int = Time.get_ticks_usec()
	_longest_usec = maxi(_longest_usec, now - _last_usec)
	_last_usec = now
	_frames += 1
