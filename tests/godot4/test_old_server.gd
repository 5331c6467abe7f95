extends "res://tests/lib/engine_test.gd"
## QA: a game joining a `sorteio serve` older than decks sent as text (deck_text; its hello
## answers no features) sends a deck it cannot name on disk (a SorteioDeck made in code) as a
## user:// copy the old server reads, says once why, and plays; the copy is removed after.
## User args: --deck-file=ABSOLUTE deck JSON path.


func scenario() -> void:
	var sorteio: SorteioNode = autoload("Sorteio") as SorteioNode
	var made: SorteioDeck = SorteioDeck.new()
	made.json_text = FileAccess.get_file_as_string(arg("deck-file", ""))
	check(
		await sorteio.start_match(5, made) and sorteio.deck_info.get("cards", 0) != 0,
		"a match starts on a deck made in code through the old server",
		sorteio.last_error
	)
	print("BRIDGE %s" % sorteio.bridge_kind)
	check(await sorteio.advance() != null, "and plays", sorteio.last_error)
	var saved: Dictionary = await sorteio.save_state()
	check(await sorteio.load_state(saved), "a save loads back into it", sorteio.last_error)
	var copies: PackedStringArray = []
	for name: String in DirAccess.get_files_at("user://"):
		if name.begins_with("sorteio_deck_"):
			copies.append(name)
	check(copies.is_empty(), "no deck copy is left in user://", str(copies))
	await sorteio.abandon_match()
