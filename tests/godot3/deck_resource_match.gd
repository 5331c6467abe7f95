extends SceneTree
# Plays one match with Sorteio.deck_resource = the imported SorteioDeck of res://decks/bom.json,
# run from an exported pack (tests/test_editor.py): the deck reaches Python from the resource
# alone. Prints "MATCH deck=<name> reason=<reason> cards=<n>" and "GODOT-TEST passed".

const TIMEOUT_MS := 60000

var _sorteio: Node = null
var _over := false
var _errors := []


func _init() -> void:
	call_deferred("_start")


func _start() -> void:
	_sorteio = root.get_node("Sorteio")
	_sorteio.connect("error_occurred", self, "_on_error_occurred")
	_sorteio.connect("match_ended", self, "_on_match_ended")
	var started := OS.get_ticks_msec()
	while not _sorteio.is_bridge_ready() and OS.get_ticks_msec() - started < TIMEOUT_MS:
		if _sorteio.is_bridge_failed():
			break
		yield(self, "idle_frame")
	var deck = load("res://decks/bom.json")
	var is_deck: bool = deck is preload("res://addons/sorteio/sorteio_deck.gd")
	print("DECK SorteioDeck=%s valid=%s" % [is_deck, deck.valid])
	_sorteio.deck_resource = deck
	var ok: bool = _sorteio.start_match(5)
	while ok and not _over and OS.get_ticks_msec() - started < TIMEOUT_MS:
		if _sorteio.phase == "turn_start":
			ok = _sorteio.start_turn()
		elif _sorteio.phase == "drawing":
			var draw: Dictionary = _sorteio.draw_next_card()
			if not draw.empty():
				ok = _sorteio.apply_option(int(draw["option_order"][0]))
		else:
			break
	var name := str(_sorteio.deck_info.get("nome", ""))
	print(
		(
			"MATCH deck=%s reason=%s cards=%s"
			% [name, _sorteio.ending.get("reason", ""), _sorteio.ending.get("cards_played", 0)]
		)
	)
	var passed := ok and _over and _errors.empty()
	print("GODOT-TEST %s %s" % ["passed" if passed else "failed", _errors])
	quit(0 if passed else 1)


func _on_match_ended(_reason: String, _ending: Dictionary) -> void:
	_over = true


func _on_error_occurred(message: String, code: String) -> void:
	_errors.append("%s: %s" % [code, message])
