extends Node
## A small game (not the demo) for the export test: plays one whole match through the
## in-process bridge with option slot % options, prints "GAME <what>" lines, quits 0 on a
## finished match and 1 otherwise.


func _ready() -> void:
	_play.call_deferred()


func _play() -> void:
	var bridge := SorteioPythonBridge.new()
	if not bridge.start(self):
		print("GAME bridge failed: %s" % bridge.failure())
		get_tree().quit(1)
		return
	print("GAME bridge %s" % bridge.kind())
	var seed_value: int = 11
	for given: String in OS.get_cmdline_user_args():
		if given.begins_with("--seed="):
			seed_value = int(given.split("=")[1])
	var started: Dictionary = await bridge.request("new_match", {"seed": seed_value})
	if not started.get("ok", false):
		print("GAME new_match failed: %s" % str(started))
		get_tree().quit(1)
		return
	var cards: int = 0
	while true:
		var turn: Dictionary = await bridge.request("start_turn", {})
		if not turn.get("ok", false):
			break
		while true:
			var drawn: Dictionary = await bridge.request("draw", {})
			var result: Dictionary = drawn.get("result", {})
			if result.get("ending") != null:
				_end(result["ending"], cards, bridge)
				return
			if result.get("draw") == null:
				break
			var draw: Dictionary = result["draw"]
			var option: int = int(draw["slot"]) % (draw["card"]["opcoes"] as Array).size()
			var chosen: Dictionary = await bridge.request("choose", {"option": option})
			cards += 1
			if chosen.get("ok", false) and chosen["result"].get("ending") != null:
				_end(chosen["result"]["ending"], cards, bridge)
				return
	print("GAME no ending")
	get_tree().quit(1)


func _end(ending: Dictionary, cards: int, bridge: SorteioPythonBridge) -> void:
	print("GAME ending %s after %d cards" % [JSON.stringify(ending), cards])
	bridge.close()
	get_tree().quit(0)
