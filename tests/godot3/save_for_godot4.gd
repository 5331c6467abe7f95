extends SceneTree
# A save made by the Godot 3 addon, for the Godot 4 addon to load (tests/test_godot4_node.py):
#   godot3-server --path godot3/demo_project -s tests/godot3/save_for_godot4.gd -- --out=/abs.json
# Plays 10 cards of seed 12 (always the option shown first), draws the next one, saves, then
# plays 8 more the same way and writes {"state", "pending", "next": [card ids]} to --out.

const Checks = preload("lib/checks.gd")
const DECK := "res://decks/padrao.json"

var t = Checks.new()


func _init() -> void:
	call_deferred("_run")


func _run() -> void:
	var sorteio: Node = root.get_node("Sorteio")
	sorteio.connect("error_occurred", t, "on_error_occurred")
	yield(t.wait_ready(self, sorteio), "completed")
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
	t.check(t.errors.empty() and after.size() == 8, "saved and played on", t.errors)
	t.finish(self)


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
