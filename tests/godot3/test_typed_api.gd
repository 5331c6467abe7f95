extends SceneTree
# Engine test of the Godot 4 API the Godot 3 node got in 0.2.0 (issue 14), over the bridge
# "auto" picks: a call made as the node enters the tree (a game's _ready) succeeds; the typed
# SorteioCard / SorteioOption (year, slot, reason, options with int effects) beside the old
# Dictionary signals; choose_side (SIDE_* and Godot 3's MARGIN_*); advance() plays a whole match;
# abandon_match; match_lost when the bridge is restarted mid-match; print_warnings off.
#   godot3-server --path godot3/demo_project -s tests/godot3/test_typed_api.gd \
#       -- --record=/abs/match.json
# With --record the whole match of advance() is recorded there (record_path) for
# test_scripted.gd to replay without Python. Prints "BRIDGE <kind>", "PLAYED <ids>", CHECK lines.

const Checks = preload("lib/checks.gd")
const SorteioNode = preload("res://addons/sorteio/sorteio_node.gd")
const DECK := "res://decks/padrao.json"
const SEED := 11

var t = Checks.new()
var node: Node = null
var typed := []
var drawn := []
var applied := []
var typed_applied := []
var lost := []
var ready_kinds := []
var ended := []


func _init() -> void:
	call_deferred("_run")


func _run() -> void:
	node = SorteioNode.new()
	node.connect("error_occurred", t, "on_error_occurred")
	for signal_name in [
		"typed_card_drawn",
		"card_drawn",
		"option_applied",
		"typed_option_applied",
		"match_lost",
		"bridge_ready",
		"match_ended"
	]:
		node.connect(signal_name, self, "_on_" + signal_name)
	root.add_child(node)
	_test_a_call_in_ready()
	print("BRIDGE %s" % node.bridge_kind)
	_test_typed_card()
	_test_choose_side()
	_test_advance_plays_a_whole_match(Checks.arg("record"))
	_test_abandon_match()
	yield(_test_match_lost_on_restart(), "completed")
	_test_print_warnings_off()
	node.queue_free()
	t.finish(self)


func _test_a_call_in_ready() -> void:
	# add_child ran the node's _ready; the bridge starts on the next frame (or at this call).
	var started: bool = node.start_match(SEED, DECK)
	t.check(started and t.errors.empty(), "a call made in _ready succeeds", t.errors)
	t.check(node.is_bridge_ready(), "...the bridge is up after it", node.bridge_kind)


func _test_typed_card() -> void:
	var card = node.advance()
	t.check(card != null and card == node.current_card, "advance() returns current_card", card)
	if card == null:
		return
	var draw: Dictionary = node.current_draw
	t.check(card.id == draw["card_id"] and card.title == draw["card"]["titulo"], "id and title")
	t.check(card.year == 1 and node.year == 1 and draw["year"] == 1, "the year: card and draw")
	t.check(card.slot == 1 and typeof(card.slot) == TYPE_INT, "slot 1, an int", card.slot)
	t.check(card.reason != "" and card.reason == draw["reason"]["texto"], "the reason sentence")
	t.check(card.reason_kind in ["mandatory", "random"], "reason kind", card.reason_kind)
	t.check(card.mode_name != "" and card.mode != "", "mode and its name", card.mode_name)
	t.check(card.options.size() == draw["card"]["opcoes"].size(), "every option typed")
	var ints := true
	for option in card.options:
		for meter in option.effects:
			ints = ints and typeof(option.effects[meter]) == TYPE_INT
	t.check(ints, "option effects are ints", card.options)
	t.check(typed.size() == 1 and typed[0] == card, "typed_card_drawn carries it", typed)
	t.check(
		drawn.size() == 1 and drawn[0][0]["id"] == card.id and drawn[0][1] == 1,
		"card_drawn(card, slot, reason, option_order) still comes, once",
		drawn.size()
	)
	t.check(node.advance() == card and typed.size() == 2, "advance() with a card on the table")


func _test_choose_side() -> void:
	var card = node.current_card
	var right = card.option_on(node.SIDE_RIGHT)
	t.check(
		right != null and right.index == card.option_order[1] and right.side == node.SIDE_RIGHT,
		"option_on(SIDE_RIGHT) is the second shown",
		[card.option_order, right]
	)
	t.check(card.option_on(MARGIN_LEFT).index == card.option_order[0], "MARGIN_LEFT is left")
	t.check(not node.choose_side(7), "a side no card has is refused")
	t.check(
		t.one_error("bad_request") and "no option on side 7" in t.errors[0][0],
		"...with bad_request",
		t.errors
	)
	t.check(node.phase == node.PHASE_AWAITING_CHOICE and applied.empty(), "...nothing applied")
	t.errors.clear()
	t.check(node.choose_side(node.SIDE_RIGHT), "choose_side(SIDE_RIGHT)")
	t.check(
		applied.size() == 1 and applied[0][1] == right.index,
		"the option shown right was applied",
		applied
	)
	t.check(
		typed_applied.size() == 1 and typed_applied[0][0] == card and typed_applied[0][1] == right,
		"typed_option_applied(card, option, ...)",
		typed_applied.size()
	)
	t.check(node.current_card == null and not node.choose_side(node.SIDE_LEFT), "no card: refused")
	t.check(t.one_error("rule_error"), "...with rule_error", t.errors)
	t.errors.clear()


func _test_advance_plays_a_whole_match(record: String) -> void:
	node.abandon_match()
	node.record_path = record
	node.start_match(SEED, DECK)
	var ids := []
	var years_right := true
	var card = node.advance()
	while card != null:
		ids.append(card.id)
		years_right = years_right and card.year == node.year and card.slot == node.slot
		node.choose_side(node.SIDE_LEFT)
		card = node.advance()
	node.record_path = ""
	print("PLAYED %s" % PoolStringArray(ids).join(","))
	print("ENDED %s" % [ended])
	t.check(node.is_match_over() and node.phase == node.PHASE_ENDED, "advance() ends the match")
	t.check(ended.size() == 1 and ids.size() > 7, "match_ended once", ended)
	t.check(years_right, "each card's year and slot are the node's")
	t.check(node.advance() == null and t.errors.empty(), "advance() after the end: null", t.errors)


func _test_abandon_match() -> void:
	node.start_match(SEED, DECK)
	node.advance()
	t.check(node.is_match_in_play(), "a match in play")
	node.abandon_match()
	t.check(
		node.phase == node.PHASE_NONE and node.current_card == null and node.year == 0,
		"abandon_match() clears it",
		node.phase
	)
	t.check(node.start_match(SEED + 1, DECK) and t.errors.empty(), "start_match after it")


func _test_match_lost_on_restart():
	node.advance()
	lost.clear()
	node.start_bridge()
	t.check(
		lost.size() == 1 and "restarted" in lost[0] and node.phase == node.PHASE_LOST,
		"restarting the bridge mid-match emits match_lost",
		lost
	)
	t.check(node.draw_next_card().empty(), "a call about the lost match fails")
	t.check(t.one_error("match_lost"), "...with match_lost", t.errors)
	t.errors.clear()
	yield(t.wait_ready(self, node), "completed")
	t.check(node.start_match(SEED, DECK) and node.advance() != null, "a new match after it")
	t.check(ready_kinds.size() == 2, "bridge_ready once per start", ready_kinds)


func _test_print_warnings_off() -> void:
	# The pytest side checks the log: "side 5" is never printed, "side 7" above was.
	node.print_warnings = false
	node.choose_side(5)
	t.check(t.one_error("bad_request"), "the error still comes without push_warning", t.errors)
	t.errors.clear()


func _on_typed_card_drawn(card) -> void:
	typed.append(card)


func _on_card_drawn(card: Dictionary, slot: int, reason: Dictionary, order: Array) -> void:
	drawn.append([card, slot, reason, order])


func _on_option_applied(card_id: String, option: int, _meters, _actors) -> void:
	applied.append([card_id, option])


func _on_typed_option_applied(card, option, _meters, _actors) -> void:
	typed_applied.append([card, option])


func _on_match_lost(message: String) -> void:
	lost.append(message)


func _on_bridge_ready(kind: String) -> void:
	ready_kinds.append(kind)


func _on_match_ended(reason: String, _ending: Dictionary) -> void:
	ended.append(reason)
