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
