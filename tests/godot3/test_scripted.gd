extends SceneTree
# The scripted bridge (bridges/scripted_bridge.gd) replays a match recorded with record_path
# (test_typed_api.gd --record) through the real SorteioNode, with no Python reachable: the same
# cards in the same order, the same ending. A game that drifts from its recording gets
# script_mismatch; a recording that is not there fails start_bridge with bridge_down.
#   godot3-server --path PROJECT -s tests/godot3/test_scripted.gd -- --recording=/abs/match.json
# PROJECT needs only addons/sorteio (no autoload, no Python). Prints "PLAYED <ids>", CHECK lines.

const Checks = preload("lib/checks.gd")
const SorteioNode = preload("res://addons/sorteio/sorteio_node.gd")
const ScriptedBridge = preload("res://addons/sorteio/bridges/scripted_bridge.gd")
const SEED := 11  # test_typed_api.gd's

var t = Checks.new()
var ended := []


func _init() -> void:
	call_deferred("_run")


func _run() -> void:
	var recording := Checks.arg("recording")
	var node: Node = SorteioNode.new()
	node.autostart_bridge = false
	node.bridge_mode = node.BRIDGE_SCRIPTED
	node.scripted_replies = recording
	node.connect("error_occurred", t, "on_error_occurred")
	node.connect("match_ended", self, "_on_match_ended")
	root.add_child(node)
	t.check(node.start_bridge() and node.is_bridge_ready(), "start_bridge() in scripted mode")
	print("BRIDGE %s" % node.bridge_kind)
	_replay(node)
	_test_drift(node, recording)
	_test_missing_recording(node)
	yield(self, "idle_frame")  # the deferred bridge_down of the missing recording
	t.check(t.one_error("bridge_down"), "...reported as bridge_down", t.errors)
	node.queue_free()
	t.finish(self)


func _replay(node: Node) -> void:
	t.check(node.start_match(SEED), "start_match from the recording")
	var ids := []
	var card = node.advance()
	while card != null:
		ids.append(card.id)
		node.choose_side(node.SIDE_LEFT)
		card = node.advance()
	print("PLAYED %s" % PoolStringArray(ids).join(","))
	print("ENDED %s" % [ended])
	t.check(node.is_match_over() and ended.size() == 1, "the replayed match ends", ended)
	t.check(t.errors.empty(), "no error in the replay", t.errors)


func _test_drift(node: Node, recording: String) -> void:
	# The same recording, but the game picks the other side on the first card.
	node.abandon_match()
	node.use_bridge(ScriptedBridge.from_file(recording))
	node.start_match(SEED)
	var card = node.advance()
	var other: int = node.SIDE_RIGHT if card.option_on(node.SIDE_RIGHT) != null else 5
	t.check(not node.choose_side(other), "a choice the recording does not have is refused")
	t.check(
		t.one_error("script_mismatch") and "option" in t.errors[0][0],
		"...with script_mismatch naming the option",
		t.errors
	)
	t.errors.clear()


func _test_missing_recording(node: Node) -> void:
	node.scripted_replies = "user://no_such_recording.json"
	t.check(not node.start_bridge(), "a missing recording fails start_bridge()")
	t.check("no_such_recording" in node.bridge_error, "...naming it", node.bridge_error)


func _on_match_ended(reason: String, _ending: Dictionary) -> void:
	ended.append(reason)
