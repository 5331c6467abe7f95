extends "res://tests/lib/engine_test.gd"
## In-process bridge (Godot 4, issue 13): a whole match played from GDScript through
## SorteioPythonBridge on the real Python GDExtension, a save loaded back (in the same bridge and
## in a new one), and error replies instead of aborted GDScript.
## Prints "MOVE <card_id> <option>" per card and "ENDING <json>" so that
## tests/test_godot4_python.py replays the match in Python and compares (same deck + seed +
## choices = same match). User args: --seed=N.

var bridge: SorteioPythonBridge


func scenario() -> void:
	bridge = SorteioPythonBridge.new()
	check(bridge.kind() == "python", "the bridge reports the python kind", bridge.kind())
	check(SorteioPythonBridge.available(), "available() says the bridge can serve here")
	var ready_waiter: Array = []
	bridge.became_ready.connect(func() -> void: ready_waiter.append(true))
	if not check(bridge.start(root), "the bridge starts in-process", bridge.failure()):
		return
	check(bridge.is_ready() and not bridge.has_failed(), "ready at once")
	await process_frame
	check(ready_waiter.size() == 1, "became_ready emitted once")
	var seed_value: int = int(arg("seed", "7"))
	var reply: Dictionary = await bridge.request("new_match", {"seed": seed_value})
	if not check(reply.get("ok", false), "new_match", str(reply)):
		return
	var ending: Variant = await _play(-1)
	check(ending != null, "the match reached its ending", str(ending))
	print("ENDING %s" % JSON.stringify(ending))
	await _save_and_load(seed_value)
	await _errors()
	bridge.close()
	var closed: Dictionary = await bridge.request("ping", {})
	check(closed["error"]["code"] == "bridge_down", "a closed bridge answers bridge_down")


## Plays until the ending (or [param cards] cards when >= 0); returns the ending or null.
func _play(cards: int, echo: bool = true) -> Variant:
	var played: int = 0
	while cards < 0 or played < cards:
		var turn: Dictionary = await bridge.request("start_turn", {})
		if not turn.get("ok", false):
			check(false, "start_turn answers", str(turn))
			return null
		while cards < 0 or played < cards:
			var drawn: Dictionary = await bridge.request("draw", {})
			var result: Dictionary = drawn.get("result", {})
			if result.get("ending") != null:
				return result["ending"]
			if result.get("draw") == null:
				break  # the engine closed the turn
			var draw: Dictionary = result["draw"]
			var options: int = (draw["card"]["opcoes"] as Array).size()
			var option: int = int(draw["slot"]) % options
			var chosen: Dictionary = await bridge.request("choose", {"option": option})
			played += 1
			if echo:
				print("MOVE %s %d" % [draw["card_id"], option])
			if not chosen.get("ok", false):
				check(false, "choose answers", str(chosen))
				return null
			if chosen["result"].get("ending") != null:
				return chosen["result"]["ending"]
	return null


func _save_and_load(seed_value: int) -> void:
	var again: Dictionary = await bridge.request("new_match", {"seed": seed_value + 1})
	await _play(5, false)
	var saved: Dictionary = await bridge.request("save", {})
	if not check(saved.get("ok", false), "save", str(saved)):
		return
	var state: Dictionary = saved["result"]["state"]
	var first: Dictionary = await bridge.request("draw", {})
	var loaded: Dictionary = await bridge.request("load", {"state": state})
	check(loaded.get("ok", false), "load in the same bridge", str(loaded))
	var second: Dictionary = await bridge.request("draw", {})
	check(
		JSON.stringify(first["result"]["draw"]) == JSON.stringify(second["result"]["draw"]),
		"after load the same card comes again",
		"%s vs %s" % [str(first.get("result")), str(second.get("result"))]
	)
	var other := SorteioPythonBridge.new()
	other.start(root)
	var moved: Dictionary = await other.request("load", {"state": state})
	check(moved.get("ok", false), "load in a new bridge", str(moved))
	var third: Dictionary = await other.request("draw", {})
	check(
		JSON.stringify(third.get("result", {}).get("draw")) == JSON.stringify(first["result"]["draw"]),
		"a new bridge continues the saved match",
		str(third)
	)
	other.close()
	check(again.get("ok", false), "a second new_match replaces the first")


func _errors() -> void:
	var unknown: Dictionary = await bridge.request("no_such_method", {})
	check(_code(unknown) == "unknown_method", "unknown method -> unknown_method", str(unknown))
	var bad_option: Dictionary = await bridge.request("choose", {"option": 99})
	check(_code(bad_option) == "rule_error", "bad option -> rule_error", str(bad_option))
	var bad_deck: Dictionary = await bridge.request("new_match", {"deck": "/nonexistent/d.json"})
	check(
		_code(bad_deck) == "deck_error" and "/nonexistent/d.json" in str(bad_deck["error"]),
		"missing deck -> deck_error naming the file",
		str(bad_deck)
	)
	var bad_params: Dictionary = await bridge.request("new_match", {"seed": "x"})
	check(_code(bad_params) != "", "bad params -> an error reply", str(bad_params))
	var ping: Dictionary = await bridge.request("ping", {})
	check(ping.get("ok", false), "the bridge serves on after errors", str(ping))


func _code(reply: Dictionary) -> String:
	if reply.get("ok", true):
		return ""
	return str(reply["error"]["code"])
