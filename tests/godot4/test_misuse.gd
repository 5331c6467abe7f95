extends "res://tests/lib/engine_test.gd"
## Misuse, as a new user makes it: calls before any match, a missing and a broken deck, a node
## whose bridge never starts, a bad interpreter. Each is an error_occurred with its code and a
## message that says what to do, never a SCRIPT ERROR. The autoload prints its warnings
## (print_warnings on: the harness allows exactly those); a second node with print_warnings off
## prints none.

var sorteio: SorteioNode
var got: Array[String] = []


func scenario() -> void:
	sorteio = autoload("Sorteio") as SorteioNode
	sorteio.error_occurred.connect(
		func(message: String, code: String) -> void: got.append(code + ": " + message)
	)
	check(
		await sorteio.draw_next_card() == null and _last_code() == "no_match",
		"draw before a match gives no_match",
		_last()
	)
	check(
		not await sorteio.start_turn() and _last_code() == "no_match",
		"start_turn before a match gives no_match",
		_last()
	)
	check(
		(await sorteio.save_state()).is_empty() and _last_code() == "no_match",
		"save before a match gives no_match",
		_last()
	)
	check(
		not await sorteio.choose_side(SIDE_LEFT) and _last_code() == "rule_error",
		"choose_side before a match gives rule_error",
		_last()
	)
	check(
		await sorteio.advance() == null and _last_code() == "no_match",
		"advance before a match gives no_match",
		_last()
	)
	check(
		(
			not await sorteio.start_match(1, "res://decks/nope.json")
			and _last_code() == "deck_error"
			and _last().contains("res://decks/nope.json")
		),
		"a missing deck gives deck_error naming it",
		_last()
	)
	check(
		(
			not await sorteio.start_match(1, "decks/broken.json")
			and _last_code() == "deck_error"
			and _last().contains("broken.json")
		),
		"a broken deck gives Python's deck_error naming the file",
		_last()
	)
	check(
		_last().contains("res://decks/broken.json") and not _last().contains("/project/"),
		"it names the res path the game gave, not the OS path",
		_last()
	)
	check(await sorteio.start_match(1, "curto"), "a built-in deck by name", _last())
	var saved: Dictionary = await sorteio.save_state()
	sorteio.abandon_match()
	saved["deck"] = "decks/broken.json"
	check(
		(
			not await sorteio.load_state(saved)
			and _last_code() == "deck_error"
			and _last().contains("res://decks/broken.json")
			and not _last().contains("/project/")
		),
		"load_state's deck_error names the res path too",
		_last()
	)
	# A deck Python reads from a user:// copy (as in an export, where res:// is inside the pack).
	var packed: SorteioDeck = SorteioDeck.new()
	packed.json_text = FileAccess.get_file_as_string("res://decks/broken.json")
	packed.take_over_path("res://decks/packed/broken.json")
	check(
		(
			not await sorteio.start_match(1, packed)
			and _last_code() == "deck_error"
			and _last().contains("res://decks/packed/broken.json")
			and not _last().contains("sorteio_deck_")
		),
		"a deck from the pack (sent as its text) is named as the game gave it",
		_last()
	)
	# One made in code has no path: messages say what it is, never a temporary file's name.
	var made: SorteioDeck = SorteioDeck.new()
	made.json_text = packed.json_text
	check(
		(
			not await sorteio.start_match(1, made)
			and _last_code() == "deck_error"
			and _last().begins_with("deck_error: um SorteioDeck feito no código: ")
			and not _last().contains("sorteio_deck_")
			and not _last().contains("resource.json")
		),
		"a SorteioDeck made in code is named as one in its deck_error",
		_last()
	)
	made.deck_name = "Meu baralho"
	check(
		(
			not await sorteio.start_match(1, made)
			and _last().begins_with("deck_error: o SorteioDeck 'Meu baralho' feito no código: ")
		),
		"with its deck_name when it has one",
		_last()
	)

	var quiet: SorteioNode = SorteioNode.new()
	quiet.autostart_bridge = false
	quiet.print_warnings = false
	root.add_child(quiet)
	var quiet_codes: PackedStringArray = []
	quiet.error_occurred.connect(
		func(message: String, code: String) -> void: quiet_codes.append(code + ": " + message)
	)
	check(not await quiet.start_match(1), "a node whose bridge was never started refuses")
	check(
		(
			quiet_codes.size() == 1
			and quiet_codes[0].begins_with("bridge_down")
			and quiet_codes[0].contains("start_bridge()")
		),
		"it says bridge_down and start_bridge()",
		str(quiet_codes)
	)
	quiet.python_executable = "/nonexistent/python3"
	quiet.start_bridge()
	var failed: Array = await wait_for(quiet.error_occurred, 20.0)
	check(
		(
			failed.size() == 2
			and failed[1] == "bridge_down"
			and str(failed[0]).contains("/nonexistent/python3")
		),
		"a bad interpreter gives bridge_down naming it",
		str(failed)
	)
	check(str(failed[0]).contains("SORTEIO_PYTHON"), "and the fix", str(failed))
	check(quiet.is_bridge_failed(), "is_bridge_failed()")
	check(
		not await quiet.start_match(1) and quiet_codes[-1].begins_with("bridge_down"),
		"calls then say bridge_down",
		str(quiet_codes)
	)
	quiet.queue_free()


func _last() -> String:
	return got[-1] if not got.is_empty() else ""


func _last_code() -> String:
	return _last().get_slice(":", 0)
