extends SceneTree
# The demo's layout, measured while a match plays itself, and its pictures (issue 8 "Demo
# layout"). Needs a display (Xvfb) and godot3-runner, run from the repository root:
#   DISPLAY=:99 godot3-runner --path godot3/demo_project --video-driver GLES2 --audio-driver Dummy \
#     --resolution 1024x600 -s "$PWD/tests/godot3/demo_shots.gd" -- --seed=N [--out-dir=/abs/dir]
# After every card, at the match end and on the first card of a second match with a long seed it
# checks that the card keeps the rect it had on the first card, and that the option buttons of a
# card sit at one height. With --out-dir it saves start.png (first card), mid.png (card 14),
# low.png (first card shown with a meter at or below the emergency limit, a red bar) and end.png
# (the match's end screen), each checked not blank. Quits 0 and prints "GODOT-TEST passed".

const Checks = preload("lib/checks.gd")
const MIN_COLOURS := 12
const TIMEOUT_MS := 90000
const LONG_SEED := 2147483000
const MID_CARD := 14
const SETTLE_FRAMES := 4

var t = Checks.new()
var out_dir := ""
var seed_value := 10
var main: Node = null
var sorteio: Node = null
var cards := 0
var reference := Rect2()
var worst_card_shift := 0.0
var worst_button_gap := 0.0
var measured := 0
var shots := {}
var texts_wrong := []
var _last_card := {}
var _last_reason := {}
var _pending := ""  # what to do once the layout settled: "card", "end" or "long"
var _frames := -1
var _second_match := false
var _started_ms := 0


func _init() -> void:
	for arg in OS.get_cmdline_args():
		if arg.begins_with("--out-dir="):
			out_dir = arg.substr(10)
		elif arg.begins_with("--seed="):
			seed_value = int(arg.substr(7))
	call_deferred("_start")


func _start() -> void:
	sorteio = root.get_node("Sorteio")
	sorteio.connect("card_drawn", self, "_on_card_drawn")
	sorteio.connect("match_ended", self, "_on_match_ended")
	sorteio.connect("error_occurred", self, "_on_error_occurred")
	main = load("res://main.tscn").instance()
	main.autoplay = true
	main.autoplay_delay = 0.0
	main.match_seed = seed_value
	_started_ms = OS.get_ticks_msec()
	root.add_child(main)


# Connected before the demo: pausing autoplay here keeps the card on screen until measured.
func _on_card_drawn(card: Dictionary, _slot: int, reason: Dictionary, _order: Array) -> void:
	cards += 1
	_last_card = card
	_last_reason = reason
	main.autoplay = false
	_wait("long" if _second_match else "card")


func _on_match_ended(_reason: String, _ending: Dictionary) -> void:
	if not _second_match:
		main.autoplay = false
		_wait("end")


func _on_error_occurred(message: String, code: String) -> void:
	print("SHOTS FAIL error_occurred %s: %s" % [code, message])
	quit(1)


func _wait(what: String) -> void:
	_pending = what
	_frames = 0


func _idle(_delta: float) -> bool:
	if OS.get_ticks_msec() - _started_ms > TIMEOUT_MS:
		print("SHOTS FAIL timed out after %d cards" % cards)
		quit(1)
	if _frames >= 0:
		_frames += 1
		if _frames == SETTLE_FRAMES:
			_frames = -1
			call_deferred("_settled", _pending)
	return false


func _settled(what: String) -> void:
	var card_rect: Rect2 = _card_view().get_global_rect()
	if reference.size == Vector2.ZERO:
		reference = card_rect
		_print_rect("first card", card_rect)
	_measure(what, card_rect)
	if what == "card":
		_check_texts()
		if cards == 1:
			_shot("start")
		elif cards == MID_CARD:
			_shot("mid")
		if not shots.has("low") and _emergency_meter():
			_shot("low")
		_resume()
	elif what == "end":
		_shot("end")
		_print_rect("end screen", card_rect)
		_second_match = true
		main.match_seed = LONG_SEED
		main.call("_on_continue_requested")  # "Nova partida", as the button does
	elif what == "long":
		_print_rect("long seed", card_rect)
		_finish()


func _measure(what: String, card_rect: Rect2) -> void:
	measured += 1
	var shift := (card_rect.position - reference.position).abs()
	var grow := (card_rect.size - reference.size).abs()
	var moved := max(max(shift.x, shift.y), max(grow.x, grow.y))
	if moved > worst_card_shift:
		worst_card_shift = moved
		_print_rect("moved at %s %d" % [what, cards], card_rect)
	var ys := []
	for side in _card_view().get_node("Box/Options").get_children():
		ys.append(side.get_child(1).get_global_rect().position.y)
	if ys.size() > 1:
		worst_button_gap = max(worst_button_gap, ys.max() - ys.min())


# The card says what Python said (reason.texto) and names its mode as the deck does (modos).
func _check_texts() -> void:
	var box: Node = _card_view().get_node("Box")
	var said: String = box.get_node("Reason").text
	var texto := str(_last_reason.get("texto", ""))
	var mode_name := ""
	for mode in sorteio.deck_info.get("modos", []):
		if mode["id"] == _last_card["modo"]:
			mode_name = mode["nome"]
	var ok := (
		not texto.empty()
		and said.ends_with(texto.substr(1, texto.length() - 1))
		and not mode_name.empty()
		and box.get_node("Mode").text.begins_with(mode_name)
	)
	if not ok:
		texts_wrong.append([said, texto, box.get_node("Mode").text, mode_name])


func _resume() -> void:
	main.autoplay = true
	main.call_deferred("_autopick")


func _emergency_meter() -> bool:
	var limit := int(sorteio.deck_info.get("limite_emergencia", 10))
	for id in sorteio.meters:
		if int(sorteio.meters[id]) <= limit:
			return true
	return false


func _card_view() -> Control:
	return main.get_node("Margin/Columns/CardView") as Control


func _shot(name: String) -> void:
	if out_dir.empty():
		return
	var image: Image = root.get_texture().get_data()
	image.flip_y()
	var path := out_dir.plus_file(name + ".png")
	var saved := image.save_png(path)
	var colours := Checks.count_colours(image)
	shots[name] = colours
	print(
		"SHOT %s %s %dx%d colours=%d" % [name, path, image.get_width(), image.get_height(), colours]
	)
	t.check(saved == OK and colours >= MIN_COLOURS, "%s picture saved, not blank" % name)


func _finish() -> void:
	var view: Vector2 = root.get_visible_rect().size
	print("SHOTS window=%s view=%s cards=%d measured=%d" % [OS.window_size, view, cards, measured])
	t.check(measured >= 8, "measured on many cards, the end screen and a long seed")
	t.check(worst_card_shift <= 0.5, "the card keeps its rect", worst_card_shift)
	t.check(worst_button_gap <= 0.5, "option buttons at one height", worst_button_gap)
	t.check(texts_wrong.empty(), "each card shows Python's texto and its mode's name", texts_wrong)
	t.check(
		reference.end.x <= view.x + 0.5 and reference.end.y <= view.y + 0.5, "card fits the window"
	)
	if not out_dir.empty():
		for name in ["start", "mid", "low", "end"]:
			t.check(shots.has(name), "%s picture taken" % name)
	t.finish(self)


func _print_rect(what: String, rect: Rect2) -> void:
	print(
		(
			"LAYOUT %s card=%d,%d %dx%d"
			% [what, rect.position.x, rect.position.y, rect.size.x, rect.size.y]
		)
	)
