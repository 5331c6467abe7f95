extends SceneTree
# A save made in one copy of the project loads in another copy at a different absolute path.
#   godot3-server --path A -s save_moved.gd -- --save=/abs/state.json
#   godot3-server --path B -s save_moved.gd -- --load=/abs/state.json
# Prints "CHECK ok|FAIL ..." and "GODOT-TEST passed" when every check passed.

const Checks = preload("lib/checks.gd")
const DECK := "res://decks/padrao.json"

var t = Checks.new()


func _init() -> void:
	call_deferred("_run")


func _run() -> void:
	var sorteio: Node = root.get_node("Sorteio")
	sorteio.connect("error_occurred", t, "on_error_occurred")
	yield(t.wait_ready(self, sorteio), "completed")
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
			t.check(state.get("deck") == DECK, "saved with the res:// deck", state.get("deck"))
		elif arg.begins_with("--load="):
			var file := File.new()
			file.open(arg.substr(7), File.READ)
			var saved: Dictionary = JSON.parse(file.get_as_text()).result
			file.close()
			t.check(sorteio.load_state(saved["state"]), "loads in the moved project", t.errors)
			t.check(
				sorteio.current_draw.get("card_id") == saved["card"],
				"the pending card is back",
				sorteio.current_draw.get("card_id")
			)
			t.check(
				sorteio.deck_info.get("source", "").begins_with(
					ProjectSettings.globalize_path("res://")
				),
				"Python opened this copy's deck",
				sorteio.deck_info.get("source")
			)
	t.check(t.errors.empty(), "no error", t.errors)
	print("BRIDGE %s" % sorteio.bridge_kind)
	t.finish(self)
