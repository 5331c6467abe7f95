extends "res://tests/lib/engine_test.gd"
## QA (issue 14): a save loaded into a deck a game patch edited. Python adapts the save and says
## what it changed (the protocol's deck_update); the node hands the sentences to the game as
## deck_updated(changes) and deck_update, and state_loaded keeps its signature.

var changes: Array[PackedStringArray] = []
var order: PackedStringArray = []


func scenario() -> void:
	var sorteio: SorteioNode = autoload("Sorteio") as SorteioNode
	sorteio.deck_updated.connect(_on_deck_updated)
	sorteio.state_loaded.connect(_on_state_loaded)
	check(
		await sorteio.start_match(4, "res://decks/meu.json"), "a match starts", sorteio.last_error
	)
	await sorteio.advance()
	await sorteio.choose_side(SIDE_LEFT)
	# Two cards shown: the save is of this deck (one with none of its cards is another deck).
	var card_id: String = str((await sorteio.advance()).get("id"))
	var saved: Dictionary = await sorteio.save_state()
	# The patch: the card on screen is gone from the deck.
	var deck: Dictionary = JSON.parse_string(FileAccess.get_file_as_string("res://decks/meu.json"))
	var kept: Array = []
	for entry: Dictionary in deck["cartas"]:
		if entry["id"] != card_id:
			kept.append(entry)
	deck["cartas"] = kept
	FileAccess.open("res://decks/patched.json", FileAccess.WRITE).store_string(
		JSON.stringify(SorteioBridge.whole_numbers_as_ints(deck))  # Godot's JSON reads floats
	)
	saved["deck"] = "res://decks/patched.json"
	check(await sorteio.load_state(saved), "a save loads into a deck without its card on screen")
	check(
		(
			changes.size() == 1
			and changes[0].size() >= 1
			and " ".join(changes[0]).contains("'%s'" % card_id)
			and sorteio.deck_update == changes[0]
		),
		"deck_updated hands the game what changed, deck_update too",
		str(changes)
	)
	check(
		order == PackedStringArray(["deck_updated", "state_loaded"]),
		"deck_updated comes right before state_loaded",
		str(order)
	)
	check(sorteio.current_card == null, "the card on screen was closed", sorteio.phase)
	changes.clear()
	saved["deck"] = "res://decks/meu.json"
	check(
		await sorteio.load_state(saved) and changes.is_empty() and sorteio.deck_update.is_empty(),
		"a save of this very deck gives no deck_updated",
		str(changes)
	)
	sorteio.deck_updated.disconnect(_on_deck_updated)
	sorteio.state_loaded.disconnect(_on_state_loaded)
	await sorteio.abandon_match()


func _on_deck_updated(got: PackedStringArray) -> void:
	changes.append(got)
	order.append("deck_updated")


func _on_state_loaded(_snapshot: Dictionary, _pending: SorteioCard) -> void:
	order.append("state_loaded")
