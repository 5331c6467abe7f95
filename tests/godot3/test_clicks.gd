extends SceneTree
# Engine test: a whole match played by pressing the demo's buttons, as a player clicks them
# (no autoplay): an option button for each card, "Começar o ano N" between years.
#   godot3-server --path godot3/demo_project -s tests/godot3/test_clicks.gd
# Prints "GODOT-TEST passed" when the match ended with no error_occurred.

const TIMEOUT_MS := 60000

var main: Node = null
var clicks := 0
var year_clicks := 0
var ended := false
var errors := []
var started_ms := 0


func _init() -> void:
	call_deferred("_start")


func _start() -> void:
	var sorteio: Node = root.get_node("Sorteio")
	sorteio.connect("match_ended", self, "_on_match_ended")
	sorteio.connect("error_occurred", self, "_on_error_occurred")
	main = load("res://main.tscn").instance()
	main.autoplay = false
	main.match_seed = 21
	started_ms = OS.get_ticks_msec()
	root.add_child(main)


func _on_match_ended(_reason: String, _ending: Dictionary) -> void:
	ended = true


func _on_error_occurred(message: String, code: String) -> void:
	errors.append([code, message])


func _idle(_delta: float) -> bool:
	if ended or not errors.empty() or OS.get_ticks_msec() - started_ms > TIMEOUT_MS:
		_finish()
		return false
	var card_view: Node = main.get_node("Margin/Columns/CardView")
	var next: Button = card_view.get_node("Box/Next")
	if next.visible:
		year_clicks += 1
		next.emit_signal("pressed")
		return false
	var sides: Array = card_view.get_node("Box/Options").get_children()
	if not sides.empty():
		var button: Button = sides[clicks % sides.size()].get_child(1)
		if not button.disabled:
			clicks += 1
			button.emit_signal("pressed")
	return false


func _finish() -> void:
	var ok := ended and errors.empty() and clicks >= 7 and year_clicks >= 1
	print("BRIDGE %s" % root.get_node("Sorteio").bridge_kind)
	print("CLICKS options=%d years=%d ended=%s errors=%s" % [clicks, year_clicks, ended, errors])
	var next: Button = main.get_node("Margin/Columns/CardView/Box/Next")
	ok = ok and next.visible and next.text == "Nova partida"
	print("GODOT-TEST %s" % ("passed" if ok else "failed"))
	quit(0 if ok else 1)
