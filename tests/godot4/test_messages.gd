extends "res://tests/lib/engine_test.gd"
## Messages a new user meets (issue 13's QA findings): each says what is wrong and what to do.
## No Python: a node whose bridge never starts, and the scripted bridge for a match in play.

var node: SorteioNode
var got: Array[String] = []


func scenario() -> void:
	node = SorteioNode.new()
	node.autostart_bridge = false
	node.print_warnings = false
	root.add_child(node)
	node.error_occurred.connect(
		func(message: String, code: String) -> void: got.append(code + ": " + message)
	)
	check(
		not await node.choose_side(SIDE_LEFT) and _said("rule_error", "start_match()"),
		"choose_side with no match says start_match(), not advance()",
		_last()
	)
	check(not _last().contains("advance() primeiro"), "and not advance() first", _last())
	check(
		not await node.load_state({}) and _said("bad_request", "Dictionary vazio"),
		"load_state({}) says the Dictionary is empty, not that it must be a dict",
		_last()
	)
	check(_last().contains("save_state()"), "and to pass what save_state() returned", _last())
	check(
		not await node.load_state({"engine": {}}) and _said("bad_request", "sem format"),
		"a Dictionary without format is not a save, said before Python says 'format None'",
		_last()
	)
	check(
		(
			not await node.load_state({"cartas": [], "medidores": []})
			and _said("bad_request", "baralho")
		),
		"a deck given to load_state is named a deck",
		_last()
	)
	check(not _last().contains("None"), "no Python None in the messages", _last())

	var scripted := SorteioScriptedBridge.new()
	var snapshot: Dictionary = {
		"year": 0, "slot": 0, "phase": "turn_start", "meters": {}, "actors": {}
	}
	scripted.add_reply("new_match", {"seed": 1, "deck": {"modos": []}, "snapshot": snapshot})
	node.use_bridge(scripted)
	check(await node.start_match(1), "a scripted match starts", _last())
	check(
		not await node.choose_side(SIDE_LEFT) and _said("rule_error", "advance() primeiro"),
		"choose_side between cards says advance() first",
		_last()
	)
	check(
		await node.draw_next_card() == null and _said("script_mismatch", "grave a partida de novo"),
		"script_mismatch says what to do",
		_last()
	)


func _said(code: String, words: String) -> bool:
	return _last().begins_with(code + ": ") and _last().contains(words)


func _last() -> String:
	return got[-1] if not got.is_empty() else ""
