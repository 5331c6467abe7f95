extends SceneTree
# Renders the demo mid-match and saves a PNG. Needs a display (Xvfb) and godot3-runner; from the
# repository root, after `make setup` (-s and --out need absolute paths: Godot resolves a relative
# -s inside the project and exits 0 when it finds nothing):
#   DISPLAY=:99 SORTEIO_PYTHON="$PWD/.venv/bin/python" godot3-runner --path godot3/demo_project \
#     --video-driver GLES2 --resolution 1280x720 -s "$PWD/tests/godot3/screenshot.gd" -- \
#     --out="$PWD/build/godot/shot.png" --seed=10 --cards=22
# Prints "BRIDGE <kind>" (the bridge the autoload picked).
# Autoplay runs until the N-th card is on the table, stops, and the frame is captured.
# Checks the image is not blank (enough distinct colours); quits 0 when saved and not blank.

const Checks = preload("lib/checks.gd")
const MIN_COLOURS := 12
const TIMEOUT_MS := 60000

var out_path := ""
var seed_value := 7
var cards_wanted := 10
var cards := 0
var main: Node = null
var frames_after := -1
var started_ms := 0


func _init() -> void:
	for arg in OS.get_cmdline_args():
		if arg.begins_with("--out="):
			out_path = arg.substr(6)
		elif arg.begins_with("--seed="):
			seed_value = int(arg.substr(7))
		elif arg.begins_with("--cards="):
			cards_wanted = int(arg.substr(8))
	if not out_path.is_abs_path():
		print("SCREENSHOT FAIL --out=ABSOLUTE_PATH.png is required (got '%s')" % out_path)
		quit(2)
		return
	call_deferred("_start")


func _start() -> void:
	var sorteio: Node = root.get_node("Sorteio")
	sorteio.connect("card_drawn", self, "_on_card_drawn")
	sorteio.connect("error_occurred", self, "_on_error_occurred")
	main = load("res://main.tscn").instance()
	main.autoplay = true
	main.autoplay_delay = 0.0
	main.match_seed = seed_value
	started_ms = OS.get_ticks_msec()
	root.add_child(main)


func _on_card_drawn(_card: Dictionary, _slot: int, _reason: Dictionary, _order: Array) -> void:
	cards += 1
	if cards >= cards_wanted:
		main.autoplay = false  # connected before the demo: it will not pick this card
		frames_after = 0


func _on_error_occurred(message: String, code: String) -> void:
	print("SCREENSHOT FAIL error_occurred %s: %s" % [code, message])
	quit(1)


func _idle(_delta: float) -> bool:
	if OS.get_ticks_msec() - started_ms > TIMEOUT_MS:
		print("SCREENSHOT FAIL timed out after %d cards" % cards)
		quit(1)
	if frames_after >= 0:
		frames_after += 1
		if frames_after == 5:  # let the containers lay out and the frame render
			_capture()
	return false


func _capture() -> void:
	var image: Image = root.get_texture().get_data()
	image.flip_y()
	var colours := Checks.count_colours(image)
	var size := image.get_size()
	var saved := image.save_png(out_path)
	print("SCREENSHOT %s %dx%d colours=%d" % [out_path, size.x, size.y, colours])
	print("SCREENSHOT meters %s" % JSON.print(root.get_node("Sorteio").meters))
	print("BRIDGE %s" % root.get_node("Sorteio").bridge_kind)
	var ok := saved == OK and colours >= MIN_COLOURS and size.x >= 640
	print("GODOT-TEST %s" % ("passed" if ok else "failed"))
	quit(0 if ok else 1)
