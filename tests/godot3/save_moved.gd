extends SceneTree
# A save made in one copy of the project loads in another copy at a different absolute path.
#   godot3-server --path A -s save_moved.gd -- --save=/abs/state.json
#   godot3-server --path B -s save_moved.gd -- --load=/abs/state.json
# Prints "CHECK ok|FAIL ..." and "GODOT-TEST passed" when every check passed.

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
	for arg in OS.get_cmdline_args():
		if arg.begins_with("--save="):
			sorteio.start_match(4, DECK)
			sorteio.start_turn()
			sorteio.draw_next_card()
			var state: Dictionary = sorteio.save_state()
			var file := File.new()
			file.open(arg.substr(7), File.WRITE)
			file.store_string(JSON.print({"state": state, "card": sorteio.current_draw["card_id"]}))
			file.close()
			_check(state.get("deck") == DECK, "saved with the res:// deck", state.get("deck"))
		elif arg.begins_with("--load="):
			var file := File.new()
			file.open(arg.substr(7), File.READ)
			var saved: Dictionary = JSON.parse(file.get_as_text()).result
			file.close()
			_check(sorteio.load_state(saved["state"]), "loads in the moved project", errors)
			_check(
				sorteio.current_draw.get("card_id") == saved["card"],
				"the pending card is back",
				sorteio.current_draw.get("card_id")
			)
			_check(
				sorteio.deck_info.get("source", "").begins_with(
					ProjectSettings.globalize_path("res://")
				),
				"Python opened this copy's deck",
				sorteio.deck_info.get("source")
			)
	_check(errors.empty(), "no error", errors)
	print("BRIDGE %s" % sorteio.bridge_kind)
	print("GODOT-TEST %s" % ("passed" if failures == 0 else "failed"))
	quit(0 if failures == 0 else 1)


func _check(ok: bool, name: String, detail = "") -> void:
	if not ok:
		failures += 1
	print(
		"CHECK %s %s%s" % ["ok" if ok else "FAIL", name, ": " + str(detail) if str(detail) else ""]
	)


func _on_error_occurred(message: String, code: String) -> void:
	errors.append([code, message])
