extends "res://tests/lib/engine_test.gd"
## The Godot 4 node's API (issue 14, "An API a Godot programmer enjoys") over a real bridge:
## calls from _ready, the typed card and its sides, choose_side, advance, save/load mid-turn
## continuing exactly (through JSON text, as a save file), abandon_match, errors with codes,
## a relative deck path, a SorteioDeck resource, nothing left in user://.
## Arguments: --deck-copy=res://decks/meu.json (a deck file the test placed in the project).

var sorteio: SorteioNode
var errors: Array[String] = []
var game: Node


func _initialize() -> void:
	super._initialize()
	game = (load("res://tests/ready_caller.gd") as GDScript).new()
	root.add_child.call_deferred(game)


func scenario() -> void:
	sorteio = autoload("Sorteio") as SorteioNode
	sorteio.print_warnings = false  # errors are provoked here; the signal still comes
	sorteio.error_occurred.connect(
		func(message: String, code: String) -> void: errors.append(code + ": " + message)
	)
	await _calls_from_ready()
	await _typed_card_and_sides()
	await _save_and_load_continue_exactly()
	await _errors_have_codes()
	await _abandon_match()
	await _relative_deck_path_and_resource()


func _calls_from_ready() -> void:
	while game.get("first_card") == null and game.get("errors").is_empty():
		await process_frame
	check(not game.get("bridge_was_ready"), "the bridge was not up when _ready called")
	check(
		game.get("started") == true,
		"start_match awaited in _ready succeeds",
		str(game.get("errors"))
	)
	check(game.get("first_card") is SorteioCard, "advance awaited in _ready hands a card")
	check(
		game.get("errors").is_empty(), "no bridge_not_ready on any bridge", str(game.get("errors"))
	)
	print("BRIDGE %s" % sorteio.bridge_kind)


func _typed_card_and_sides() -> void:
	var card: SorteioCard = sorteio.current_card
	var names: Dictionary = {}
	for mode: Dictionary in sorteio.deck_info["modos"]:
		names[mode["id"]] = mode["nome"]
	check(
		card.mode_name == names.get(card.mode, "?"),
		"the card carries its mode's name",
		card.mode_name
	)
	check(
		card.year == 1 and card.slot == 1 and card.reason != "",
		"year, slot and reason are in the card",
		str(card)
	)
	check(typeof(card.options[0].effects.values()[0]) == TYPE_INT, "option effects are ints")
	var left: SorteioOption = card.option_on(SIDE_LEFT)
	var right: SorteioOption = card.option_on(SIDE_RIGHT)
	check(
		(
			left.index == card.option_order[0]
			and right.index == card.option_order[1]
			and card.option_on(SIDE_TOP) == left
			and card.option_on(SIDE_BOTTOM) == right
			and left.side == SIDE_LEFT
			and right.side == SIDE_RIGHT
		),
		"sides follow the drawn option_order",
		"%s %s" % [card.option_order, [left.index, right.index]]
	)
	var applied: Array = []
	var on_applied: Callable = func(
		c: SorteioCard, o: SorteioOption, _m: Dictionary, _a: Dictionary
	) -> void:
		applied.append([c, o])
	sorteio.option_applied.connect(on_applied)
	check(await sorteio.choose_side(SIDE_RIGHT), "choose_side(SIDE_RIGHT)")
	sorteio.option_applied.disconnect(on_applied)
	check(
		(
			applied.size() == 1
			and applied[0][0] == card
			and (applied[0][1] as SorteioOption).index == card.option_order[1]
		),
		"choose_side applies the option shown on that side",
		str(applied)
	)
	check(
		not await sorteio.choose_side(SIDE_LEFT) and errors[-1].begins_with("rule_error"),
		"choose_side with no card on the table is a rule_error",
		errors[-1] if errors else ""
	)


## Plays [param count] cards with alternate sides; returns the ids and meters seen.
func _play(count: int) -> Array:
	var seen: Array = []
	for at: int in count:
		var card: SorteioCard = await sorteio.advance()
		if card == null:
			break
		await sorteio.choose_side(SIDE_LEFT if at % 2 == 0 else SIDE_RIGHT)
		seen.append([card.id, card.year, card.slot, sorteio.meters.duplicate()])
	return seen


func _save_and_load_continue_exactly() -> void:
	await _play(3)
	var card: SorteioCard = await sorteio.advance()  # a card on the table: saved mid-turn
	var text: String = JSON.stringify(await sorteio.save_state())
	check(text.contains('"phase":"awaiting_choice"'), "saved with a card awaiting a choice")
	var on_table: String = card.id
	var after: Array = await _play(12)  # crosses into year 2
	var between: String = ""
	var loaded_pending: Array = []
	sorteio.state_loaded.connect(
		func(_s: Dictionary, pending: SorteioCard) -> void: loaded_pending.append(pending)
	)
	check(
		await sorteio.load_state(JSON.parse_string(text)), "a save read back from JSON text loads"
	)
	check(
		(
			loaded_pending.size() == 1
			and loaded_pending[0] != null
			and loaded_pending[0].id == on_table
		),
		"state_loaded hands the pending card",
		str(loaded_pending)
	)
	check(sorteio.phase == SorteioNode.PHASE_AWAITING_CHOICE, "the phase is back", sorteio.phase)
	var again: SorteioCard = await sorteio.advance()
	check(
		again != null and again.id == on_table,
		"advance() hands the pending card again, drawing nothing"
	)
	var replay: Array = await _play(12)
	check(
		replay == after,
		"the match continues exactly (cards, years, slots, meters)",
		"%s\nvs\n%s" % [str(replay.slice(0, 3)), str(after.slice(0, 3))]
	)
	# A save between turns continues with the next year.
	while sorteio.phase != SorteioNode.PHASE_TURN_START and not sorteio.is_match_over():
		var next: SorteioCard = await sorteio.advance()
		if next == null:
			break
		await sorteio.choose_side(SIDE_LEFT)
		if (
			sorteio.phase == SorteioNode.PHASE_DRAWING
			and sorteio.slot == int(sorteio.deck_info["cartas_por_turno"])
		):
			await sorteio.draw_next_card()  # closes the turn
	if sorteio.phase == SorteioNode.PHASE_TURN_START:
		between = JSON.stringify(await sorteio.save_state())
		var year_before: int = sorteio.year
		var first_next: SorteioCard = await sorteio.advance()
		check(await sorteio.load_state(JSON.parse_string(between)), "a save between turns loads")
		var again_next: SorteioCard = await sorteio.advance()
		check(
			again_next.id == first_next.id and again_next.year == year_before,
			"a save between turns continues with the same next year and card"
		)


func _errors_have_codes() -> void:
	var count: int = errors.size()
	check(not await sorteio.apply_option(99), "apply_option(99) is refused")
	check(
		errors.size() == count + 1 and errors[-1].begins_with("rule_error"),
		"a bad option index is a rule_error",
		errors[-1]
	)
	check(
		not await sorteio.load_state(null) and errors[-1].begins_with("bad_request"),
		"load_state(null) is a bad_request",
		errors[-1]
	)
	check(sorteio.is_match_in_play(), "a refused load keeps the match")
	check(
		(
			not await sorteio.start_match(-5)
			and sorteio.last_error_code == SorteioNode.CODE_MATCH_IN_PROGRESS
		),
		"start_match mid-match is refused before anything else",
		sorteio.last_error
	)
	check(
		sorteio.last_error.contains("abandon_match()"),
		"the refusal says how to go on",
		sorteio.last_error
	)


func _abandon_match() -> void:
	var year_before: int = sorteio.year
	check(sorteio.is_match_in_play() and year_before > 0, "a match is in play")
	sorteio.abandon_match()
	check(
		sorteio.phase == SorteioNode.PHASE_NONE and sorteio.current_card == null,
		"abandon_match clears the match"
	)
	# Not awaited above: the calls below wait in line behind its end_match.
	check(
		(
			(await sorteio.save_state()).is_empty()
			and sorteio.last_error_code == SorteioNode.CODE_NO_MATCH
		),
		"Python forgot the abandoned match, save_state() is {} (no_match)",
		sorteio.last_error
	)
	check(
		await sorteio.advance() == null and sorteio.last_error_code == SorteioNode.CODE_NO_MATCH,
		"advance() after abandon_match gives no_match, as before any match",
		sorteio.last_error
	)
	check(
		(
			not await sorteio.start_match(-5)
			and sorteio.last_error_code == SorteioNode.CODE_BAD_REQUEST
		),
		"a seed below -1 is a bad_request",
		sorteio.last_error
	)
	check(
		(
			not await sorteio.start_match(1, 42)
			and sorteio.last_error_code == SorteioNode.CODE_BAD_REQUEST
		),
		"a deck that is neither a path nor a SorteioDeck is a bad_request",
		sorteio.last_error
	)
	check(
		(
			not await sorteio.start_match(1, "res://decks/missing.json")
			and sorteio.last_error_code == SorteioNode.CODE_DECK_ERROR
			and sorteio.last_error.contains("res://decks/missing.json")
		),
		"a missing deck file is a deck_error naming it",
		sorteio.last_error
	)
	check(await sorteio.start_match(8), "after abandon_match a new match starts")
	var initial: Dictionary = {}
	for meter: Dictionary in sorteio.deck_info["medidores"]:
		initial[meter["id"]] = meter["inicial"]
	check(
		(
			sorteio.phase == SorteioNode.PHASE_TURN_START
			and sorteio.slot == 0
			and sorteio.meters == initial
		),
		"the new match starts at its beginning",
		"%s %d %s" % [sorteio.phase, sorteio.slot, sorteio.meters]
	)


func _relative_deck_path_and_resource() -> void:
	sorteio.abandon_match()
	var relative: String = arg("deck-copy", "res://decks/meu.json").trim_prefix("res://")
	check(
		await sorteio.start_match(2, relative),
		"a relative deck path starts a match",
		sorteio.last_error
	)
	var saved: Dictionary = await sorteio.save_state()
	check(
		saved.get("deck") == "res://" + relative,
		"it is read and saved as the res:// path",
		str(saved.get("deck"))
	)
	var resource: SorteioDeck = SorteioDeck.new()
	resource.json_text = FileAccess.get_file_as_string("res://" + relative)
	sorteio.abandon_match()
	check(
		await sorteio.start_match(2, resource),
		"a SorteioDeck made in code starts a match",
		sorteio.last_error
	)
	check(
		sorteio.deck_info["nome"] == saved_deck_name(),
		"it is the same deck",
		str(sorteio.deck_info["nome"])
	)
	var leftovers: PackedStringArray = []
	for file: String in DirAccess.get_files_at("user://"):
		if file.begins_with("sorteio_deck_"):
			leftovers.append(file)
	check(leftovers.is_empty(), "no deck copy is left in user://", str(leftovers))


func saved_deck_name() -> String:
	var parsed: Variant = JSON.parse_string(
		FileAccess.get_file_as_string(arg("deck-copy", "res://decks/meu.json"))
	)
	return str((parsed as Dictionary).get("nome", "")) if parsed is Dictionary else ""
