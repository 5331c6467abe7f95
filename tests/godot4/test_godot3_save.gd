extends "res://tests/lib/engine_test.gd"
## A save made by the Godot 3 addon (tests/godot3/save_for_godot4.gd) loads in the Godot 4 node
## and the match continues exactly: the same pending card, then the same cards when the same
## options are chosen (the option shown first = SIDE_LEFT). Arguments: --save=/abs/path.json,
## --saved-deck=res://... (the deck a new save names: the save's own, or its file renamed to
## .sorteio.json as "Moving from Godot 3" asks).


func scenario() -> void:
	var sorteio: SorteioNode = autoload("Sorteio") as SorteioNode
	var saved: Dictionary = JSON.parse_string(FileAccess.get_file_as_string(arg("save")))
	var state: Dictionary = saved["state"]
	check(await sorteio.load_state(state), "a Godot 3 save loads", sorteio.last_error)
	check(
		sorteio.current_card != null and sorteio.current_card.id == saved["pending"],
		"its pending card is back",
		str(sorteio.current_card)
	)
	check(
		sorteio.phase == SorteioNode.PHASE_AWAITING_CHOICE,
		"mid-turn, awaiting a choice",
		sorteio.phase
	)
	var after: Array = []
	var card: SorteioCard = await sorteio.advance()
	check(card.id == saved["pending"], "advance() hands the pending card")
	await sorteio.choose_side(SIDE_LEFT)
	while after.size() < (saved["next"] as Array).size():
		card = await sorteio.advance()
		if card == null:
			break
		after.append(card.id)
		await sorteio.choose_side(SIDE_LEFT)
	check(
		after == saved["next"],
		"the match continues as it did in Godot 3",
		"%s vs %s" % [after, saved["next"]]
	)
	var again: Dictionary = await sorteio.save_state()
	check(
		again.get("deck") == arg("saved-deck", state["deck"]),
		"saved again under the deck's res:// path",
		str(again.get("deck"))
	)
