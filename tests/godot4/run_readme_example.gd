extends "res://tests/lib/engine_test.gd"
## Plays addons/sorteio/README.md's "Your first game" (copied by the test to
## res://readme_example.gd) as a player would: its pick() on alternate sides for every card,
## save_game() at the 6th card, load_game() at the 9th (the 6th card must come back), to the
## end; then restart(). The example's own push_error on error_occurred fails the run.

var sorteio: SorteioNode
var example: Node
var drawn: int = 0
var saved_id: String = ""
var reloaded: bool = false
var back_id: String = ""
var stopping: bool = false


func scenario() -> void:
	sorteio = autoload("Sorteio") as SorteioNode
	example = (load("res://readme_example.gd") as GDScript).new()
	sorteio.card_drawn.connect(func(card: SorteioCard) -> void: _on_card.call_deferred(card))
	root.add_child(example)
	var ended: Array = await wait_for(sorteio.match_ended, 90.0)
	check(ended.size() == 2, "the example plays a whole match", str(ended))
	check(back_id != "" and back_id == saved_id, "load_game() brings the saved card back", "%s vs %s" % [back_id, saved_id])
	print("EXAMPLE drawn=%d reason=%s" % [drawn, ended[0] if ended else ""])
	stopping = true  # from here on nobody picks: the run ends with no call in flight
	example.call("restart")
	var restarted: Array = await wait_for(sorteio.card_drawn, 30.0)
	check(restarted.size() == 1 and sorteio.year == 1 and sorteio.slot == 1, "restart() begins a new match")
	# What a player's disk may hold instead of a save: refused, the match kept, no engine error
	# but the example's own push_error of error_occurred.
	for corrupt: String in ["", "{\"state\": ", "[1, 2]", "null"]:
		var file: FileAccess = FileAccess.open("user://partida.json", FileAccess.WRITE)
		file.store_string(corrupt)
		file.close()
		var codes: Array = []
		var on_error: Callable = func(_message: String, code: String) -> void: codes.append(code)
		sorteio.error_occurred.connect(on_error)
		await example.call("load_game")
		sorteio.error_occurred.disconnect(on_error)
		check(codes == ["bad_request"] and sorteio.is_match_in_play() and sorteio.year == 1,
			"a save file holding %s is refused and the match kept" % JSON.stringify(corrupt), str(codes))


func _on_card(card: SorteioCard) -> void:
	if stopping:
		return
	drawn += 1
	if reloaded and back_id == "":
		back_id = card.id
	if drawn == 6:
		saved_id = card.id
		await example.call("save_game")
	if drawn == 9 and not reloaded:
		reloaded = true
		example.call("load_game")
		return
	if not sorteio.is_match_over() and sorteio.phase == SorteioNode.PHASE_AWAITING_CHOICE:
		example.call("pick", SIDE_LEFT if drawn % 2 else SIDE_RIGHT)
