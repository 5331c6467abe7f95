extends "res://tests/lib/engine_test.gd"
## A slow request does not freeze the game (issue 13): start_match with a big deck (the test
## writes a 30,000-card synthetic deck to --deck=PATH; reading and compiling it takes seconds)
## while frames are counted. Prints FRAMES <count> <longest gap ms> <request ms>.

var frames: int = 0
var longest_gap_ms: int = 0
var last_frame_ms: int = 0


func scenario() -> void:
	var sorteio: SorteioNode = autoload("Sorteio") as SorteioNode
	await sorteio.wait_bridge_ready()
	process_frame.connect(_on_frame)
	last_frame_ms = Time.get_ticks_msec()
	var began: int = Time.get_ticks_msec()
	var started: bool = await sorteio.start_match(1, arg("deck"))
	var took: int = Time.get_ticks_msec() - began
	process_frame.disconnect(_on_frame)
	check(started, "the big deck's match starts", sorteio.last_error)
	check(took > 500, "the request took long enough to tell", "%d ms" % took)
	check(frames >= 10, "frames ran while it was read", "%d frames in %d ms" % [frames, took])
	print("FRAMES %d %d %d" % [frames, longest_gap_ms, took])
	var card: SorteioCard = await sorteio.advance()
	check(card != null, "and the match plays")


func _on_frame() -> void:
	frames += 1
	var now: int = Time.get_ticks_msec()
	longest_gap_ms = maxi(longest_gap_ms, now - last_frame_ms)
	last_frame_ms = now
