extends "res://tests/lib/engine_test.gd"
## QA, on the scripted bridge (no Python): load_state(save, deck) sends the SorteioDeck made in
## code as the load request's deck_text, and a save of deck "" loads into it again afterwards;
## a recording of another deck's text is a script_mismatch naming deck_text; a scripted
## empty_deck refusal reaches the game with its code.

const LOADED: Dictionary = {
	"deck": {"nome": "feito no código", "modos": []},
	"snapshot": {"year": 1, "slot": 0, "phase": "turn_start", "meters": {}, "actors": {}},
	"ending": null,
	"pending": null,
	"deck_update": [],
}


func scenario() -> void:
	var made: SorteioDeck = SorteioDeck.new()
	made.json_text = '{"nome": "feito no código", "cartas": []}'
	var save: Dictionary = {"format": 1, "deck": "", "seed": 3, "engine": {}}
	var scripted: SorteioScriptedBridge = SorteioScriptedBridge.new()
	scripted.add_reply("load", LOADED, {"deck_text": made.json_text})
	scripted.add_reply("load", LOADED, {"deck_text": made.json_text})
	scripted.add_error("new_match", SorteioNode.CODE_EMPTY_DECK, "deck: cartas: no cards")
	scripted.add_reply("load", LOADED, {"deck_text": "another deck"})
	var node: SorteioNode = SorteioNode.new()
	node.print_warnings = false
	root.add_child(node)
	node.use_bridge(scripted)
	check(
		await node.load_state(save, made), "load_state(save, deck) sends its text", node.last_error
	)
	check(await node.load_state(save), 'a save of "" loads into it again', node.last_error)
	await node.abandon_match()  # the scripted bridge answers end_match itself
	check(
		not await node.start_match(1, made) and node.last_error_code == SorteioNode.CODE_EMPTY_DECK,
		"a scripted empty_deck reaches the game with its code",
		node.last_error
	)
	check(
		(
			not await node.load_state(save, made)
			and node.last_error_code == SorteioNode.CODE_SCRIPT_MISMATCH
			and node.last_error.contains("deck_text")
		),
		"another deck's text is a script_mismatch naming deck_text",
		node.last_error
	)
	node.stop_bridge()
	node.queue_free()
