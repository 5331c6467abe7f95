extends "res://tests/lib/engine_test.gd"
## QA: a match on a SorteioDeck made in code (no resource_path) saves its deck as "" (it has no
## path). load_state(save) loads it into the deck made in code that the node's last match used,
## or into a deck_resource made in code; load_state(save, deck) into the deck given (a
## SorteioDeck or a path); with neither, the default deck refuses the save with a message saying
## how to pass the deck. And GDD 06 §1: start_match on a deck with no drawable card is refused
## with empty_deck (README "Rule decisions" 13). User args: --deck-file=ABSOLUTE deck JSON path,
## --empty-file=ABSOLUTE path of that deck with "cartas": [] (made by the Python test: building it
## here with JSON.parse_string left the card scripts "still in use" at exit, a test-only leak).


func scenario() -> void:
	var deck_file: String = arg("deck-file", "")
	var made: SorteioDeck = SorteioDeck.new()  # a local: a script variable outlives the exit check
	made.json_text = FileAccess.get_file_as_string(deck_file)
	var sorteio: SorteioNode = autoload("Sorteio") as SorteioNode
	sorteio.print_warnings = false  # the provoked errors are checked by code here
	if not check(
		await sorteio.start_match(11, made),
		"a match starts on a deck made in code",
		sorteio.last_error
	):
		return
	print("BRIDGE %s" % sorteio.bridge_kind)
	await sorteio.advance()
	await sorteio.choose_side(SIDE_LEFT)
	var pending: SorteioCard = await sorteio.advance()
	var saved: Dictionary = await sorteio.save_state()
	check(saved.get("deck") == "", "its save names no deck (no path)", str(saved.get("deck")))
	var restored: Dictionary = JSON.parse_string(JSON.stringify(saved))  # as read from a file
	check(
		await sorteio.load_state(restored) and _on_screen(sorteio) == pending.id,
		"load_state(save) loads into the deck made in code of the last match",
		sorteio.last_error
	)
	await _a_new_run(made, restored, pending.id, deck_file)
	await _empty_deck(sorteio)


func _a_new_run(made: SorteioDeck, restored: Dictionary, pending: String, path: String) -> void:
	# A new run: a node that never saw the deck.
	var fresh: SorteioNode = _node()
	check(
		(
			not await fresh.load_state(restored)
			and fresh.last_error_code == SorteioNode.CODE_RULE_ERROR
			and fresh.last_error.contains("load_state(save, deck)")
		),
		"without the deck the default deck refuses it, saying how to pass it",
		fresh.last_error
	)
	check(
		await fresh.load_state(restored, made) and _on_screen(fresh) == pending,
		"load_state(save, deck) loads into the SorteioDeck given",
		fresh.last_error
	)
	check(
		(await fresh.save_state()).get("deck") == "" and await fresh.load_state(restored),
		"the node remembers that deck for the next load",
		fresh.last_error
	)
	check(
		(
			not await fresh.load_state(restored, 5)
			and fresh.last_error_code == SorteioNode.CODE_BAD_REQUEST
			and fresh.phase == SorteioNode.PHASE_AWAITING_CHOICE
		),
		"a deck that is neither a path nor a SorteioDeck is bad_request, the match kept",
		fresh.last_error
	)
	fresh.stop_bridge()
	fresh.queue_free()
	var by_path: SorteioNode = _node()
	check(
		(
			await by_path.load_state(restored, path)
			and (await by_path.save_state()).get("deck") == path
		),
		"load_state(save, path) loads into that file, and saves name it",
		by_path.last_error
	)
	by_path.stop_bridge()
	by_path.queue_free()
	var with_resource: SorteioNode = _node()
	with_resource.deck_resource = made
	check(
		await with_resource.load_state(restored) and _on_screen(with_resource) == pending,
		'a deck_resource made in code takes a save of deck ""',
		with_resource.last_error
	)
	with_resource.stop_bridge()
	with_resource.queue_free()


func _empty_deck(sorteio: SorteioNode) -> void:
	await sorteio.abandon_match()
	var empty: SorteioDeck = SorteioDeck.new()
	empty.json_text = FileAccess.get_file_as_string(arg("empty-file", ""))
	check(
		(
			not await sorteio.start_match(1, empty)
			and sorteio.last_error_code == SorteioNode.CODE_EMPTY_DECK
			and sorteio.last_error.begins_with(
				"um SorteioDeck feito no código: cartas: o baralho não tem cartas"
			)
			and sorteio.phase == SorteioNode.PHASE_NONE
		),
		"a deck with no card is refused with empty_deck (GDD 06 §1), no match started",
		"%s: %s" % [sorteio.last_error_code, sorteio.last_error]
	)


func _node() -> SorteioNode:
	var node: SorteioNode = SorteioNode.new()
	node.print_warnings = false
	root.add_child(node)
	return node


func _on_screen(node: SorteioNode) -> String:
	return node.current_card.id if node.current_card != null else "(none)"
