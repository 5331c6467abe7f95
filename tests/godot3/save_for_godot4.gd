extends SceneTree
# A save made by the Godot 3 addon, for the Godot 4 addon to load (tests/test_godot4_node.py):
#   godot3-server --path godot3/demo_project -s tests/godot3/save_for_godot4.gd -- --out=/abs.json
# Plays 10 cards of seed 12 (always the option shown first), draws the next one, saves, then
# plays 8 more the same way and writes {"state", "pending", "next": [card ids]} to --out.

const DECK := "res://decks/padrao.json"

var failures := 0
var errors := []


func _init() -> void:
	call_deferred("_run")


func _run() -> void:
	var sorteio: Node = root.get_node("Sorteio")
	sorteio.connect("error_occurred", self, "_on_error_occurred")
	var deadline := OS.get_ticks_msec() + 20000
	while not sorteio.is_bridge_ready() and OS.get_ticks_msec() < deadline and errors.empty():
		yield(self, "idle_frame")
	var out := ""
	for arg in OS.get_cmdline_args():
		if arg.begins_with("--out="):
			out = arg.substr(6)
	sorteio.start_match(12, DECK)
	_play(sorteio, 10)
	var pending := _next_card(sorteio)
	var state: Dictionary = sorteio.save_state()
	sorteio.apply_option(sorteio.current_draw["option_order"][0])
	var after := _play(sorteio, 8)
	var file := File.new()
	file.open(out, File.WRITE)
	file.store_string(JSON.print({"state": state, "pending": pending, "next": after}))
	file.close()
	_check(errors.empty() and after.size() == 8, "saved and played on", errors)
	print("GODOT-TEST %s" % ("passed" if failures == 0 else "failed"))
	quit(0 if failures == 0 else 1)


func _next_card(sorteio: Node) -> String:
	# Draws the next card, opening the next year when the turn closed; "" at the end.
	for _step in range(8):
		if sorteio.is_match_over():
			return ""
		if sorteio.phase == "turn_start":
			sorteio.start_turn()
		var draw: Dictionary = sorteio.draw_next_card()
		if not draw.empty():
			return draw["card_id"]
	return ""


func _play(sorteio: Node, count: int) -> Array:
	var ids := []
	for _at in range(count):
		var card := _next_card(sorteio)
		if card == "":
			break
		ids.append(card)
		sorteio.apply_option(sorteio.current_draw["option_order"][0])
	return ids


func _check(ok: bool, name: String, detail = "") -> void:
	if not ok:
		failures += 1
	print(
		"CHECK %s %s%s" % ["ok" if ok else "FAIL", name, ": " + str(detail) if str(detail) else ""]
	)


func _on_error_occurred(message: String, code: String) -> void:
	errors.append([code, message])
