extends SceneTree
# Engine test: SorteioNode used the wrong way from GDScript gets an error signal and a false /
# {} return, never a SCRIPT ERROR, and nothing of the match is lost:
# - load_state() given what a corrupt save file parses to (null, text, an Array);
# - a negative seed other than -1;
# - a relative deck path (read from res://, as exported games must);
# - a second SorteioNode beside the autoload (each has its own bridge and server);
# - over the socket bridge: bridge_mode "python" where pythonscript is not installed.
#   godot3-server --path godot3/demo_project -s tests/godot3/test_misuse.gd
# Prints "BRIDGE <kind>" and "CHECK ok|FAIL name: detail" lines; quits 0 when every check passed.

const Checks = preload("lib/checks.gd")
const DECK := "res://decks/padrao.json"
const SorteioNode = preload("res://addons/sorteio/sorteio_node.gd")

var t = Checks.new()
var sorteio: Node = null


func _init() -> void:
	call_deferred("_run")


func _run() -> void:
	sorteio = root.get_node("Sorteio")
	sorteio.connect("error_occurred", t, "on_error_occurred")
	yield(t.wait_ready(self, sorteio), "completed")
	print("BRIDGE %s" % sorteio.bridge_kind)
	_test_load_state_of_a_corrupt_save()
	_test_negative_seed()
	_test_relative_deck_path()
	_test_abandon_match_and_deck_names()
	yield(_test_second_node(), "completed")
	if sorteio.bridge_kind == "socket":
		yield(_test_python_mode_without_pythonscript(), "completed")
		yield(_test_bridge_ready_inside_a_call(false), "completed")
		yield(_test_bridge_ready_inside_a_call(true), "completed")
	t.finish(self)


func _test_load_state_of_a_corrupt_save() -> void:
	# JSON.parse(text).result of a truncated or empty save file is null; a hand-edited one may
	# hold any JSON value. The README's load_game passes it straight to load_state.
	sorteio.start_match(4, DECK)
	sorteio.start_turn()
	var card: String = sorteio.draw_next_card().get("card_id", "")
	for bad in [null, "not a save", [1, 2], 7]:
		t.errors.clear()
		var loaded: bool = sorteio.load_state(bad)
		t.check(
			not loaded and t.one_error("bad_request"),
			"load_state(%s) refused with bad_request" % typeof(bad),
			t.errors
		)
	t.check(
		sorteio.phase == "awaiting_choice" and sorteio.current_draw.get("card_id") == card,
		"...and the match in play is kept",
		sorteio.phase
	)
	t.errors.clear()


func _test_relative_deck_path() -> void:
	# "decks/padrao.json" worked in the editor (its working folder is the project) and broke
	# once exported: it is read from res://, and saved as the res:// path it names.
	t.errors.clear()
	var started: bool = sorteio.start_match(4, "decks/padrao.json")
	var saved: Dictionary = sorteio.save_state()
	t.check(
		started and t.errors.empty() and saved.get("deck") == DECK,
		"a relative deck path is read from res://",
		[started, t.errors, saved.get("deck")]
	)
	t.check(sorteio.load_state(saved) and t.errors.empty(), "...and its save loads", t.errors)
	sorteio.print_warnings = false
	t.errors.clear()
	t.check(not sorteio.start_match(-9), "with print_warnings off...")
	t.check(t.one_error("bad_request"), "...error_occurred is still emitted", t.errors)
	sorteio.print_warnings = true
	t.errors.clear()
	t.check(
		sorteio.start_match(4, "padrao") and t.errors.empty(),
		"a built-in deck name is still a name",
		t.errors
	)


func _test_abandon_match_and_deck_names() -> void:
	# abandon_match() drops the match in Python too: save_state() and advance() then say
	# no_match as before any match, not continue the abandoned one (QA, issue 14).
	sorteio.abandon_match()
	t.check(sorteio.start_match(3, "curto") and sorteio.advance() != null, "a match to abandon")
	sorteio.abandon_match()
	t.errors.clear()
	var saved: Dictionary = sorteio.save_state()
	t.check(
		saved.empty() and t.one_error("no_match"),
		"after abandon_match save_state() is {} (no_match)",
		[saved.keys(), t.errors]
	)
	t.errors.clear()
	t.check(
		sorteio.advance() == null and t.one_error("no_match"),
		"...and advance() says no_match",
		t.errors
	)
	# Python's deck errors name the deck as the game gave it, not its OS path or a temporary
	# user:// copy (an export's res:// deck, a SorteioDeck's text).
	var broken := File.new()
	broken.open("user://broken.json", File.WRITE)
	broken.store_string('{"nome": "x", "cartas": [\n')
	broken.close()
	t.errors.clear()
	t.check(not sorteio.start_match(1, "user://broken.json"), "a broken deck is refused")
	t.check(
		t.one_error("deck_error") and t.errors[0][0].begins_with("user://broken.json"),
		"...its deck_error names the path the game gave",
		t.errors
	)
	sorteio.start_match(3, "curto")
	saved = sorteio.save_state()
	sorteio.abandon_match()
	saved["deck"] = "user://broken.json"
	t.errors.clear()
	t.check(
		(
			not sorteio.load_state(saved)
			and t.one_error("deck_error")
			and t.errors[0][0].begins_with("user://broken.json")
		),
		"...and so does load_state's",
		t.errors
	)
	var packed: Resource = SorteioDeck.new()
	packed.json_text = '{"nome": "x", "cartas": [\n'
	packed.take_over_path("res://decks/packed/broken.json")
	sorteio.deck_resource = packed
	t.errors.clear()
	t.check(
		(
			not sorteio.start_match(1)
			and t.one_error("deck_error")
			and t.errors[0][0].begins_with("res://decks/packed/broken.json")
		),
		"a deck from the pack (sent as its text) is named as the game gave it",
		t.errors
	)
	# One made in code has no path: messages say what it is, never a temporary file's name.
	var made: Resource = SorteioDeck.new()
	made.json_text = packed.json_text
	sorteio.deck_resource = made
	t.errors.clear()
	t.check(
		(
			not sorteio.start_match(1)
			and t.one_error("deck_error")
			and t.errors[0][0].begins_with("a SorteioDeck made in code: ")
			and not "sorteio_deck_" in t.errors[0][0]
		),
		"a SorteioDeck made in code is named as one in its deck_error",
		t.errors
	)
	made.deck_name = "Meu baralho"
	t.errors.clear()
	t.check(
		(
			not sorteio.start_match(1)
			and t.errors[0][0].begins_with("the SorteioDeck 'Meu baralho' made in code: ")
		),
		"...with its deck_name when it has one",
		t.errors
	)
	sorteio.deck_resource = null
	Directory.new().remove("user://broken.json")
	t.errors.clear()


func _test_negative_seed() -> void:
	# -1 means "match_seed, or Python picks"; any other negative seed is a mistake, refused
	# like a seed above 2^31 - 1, not silently replaced by a random one.
	t.errors.clear()
	t.check(not sorteio.start_match(-7, DECK), "start_match(-7) refused")
	t.check(t.one_error("bad_request"), "...with bad_request", t.errors)
	t.check(sorteio.phase == "awaiting_choice", "...and the match in play is kept", sorteio.phase)
	t.errors.clear()
	sorteio.match_seed = -3
	t.check(not sorteio.start_match(), "match_seed -3 refused", t.errors)
	sorteio.match_seed = -1
	t.errors.clear()
	t.check(sorteio.start_match(-1, DECK), "start_match(-1) still lets Python pick", t.errors)
	t.errors.clear()


func _test_second_node():
	# A game may make its own SorteioNode (e.g. to preview an AI's match) beside the autoload.
	# Each must have its own bridge: stopping one must not take the other's down.
	var second: Node = SorteioNode.new()
	second.name = "SecondSorteio"
	second.connect("error_occurred", t, "on_error_occurred")
	root.add_child(second)
	sorteio.stop_bridge()
	sorteio.start_bridge()  # both starting in the same frame
	yield(t.wait_ready(self, second), "completed")
	yield(t.wait_ready(self, sorteio), "completed")
	t.check(
		sorteio.is_bridge_ready() and second.is_bridge_ready(), "two nodes: both ready", t.errors
	)
	t.check(
		sorteio.start_match(1, DECK) and second.start_match(2, "curto"),
		"...both start a match",
		t.errors
	)
	if sorteio.bridge_kind == "socket":
		t.check(
			sorteio.bridge_process_id() != second.bridge_process_id(),
			"...each with its own server",
			[sorteio.bridge_process_id(), second.bridge_process_id()]
		)
		# Which server each talks to (one port file name for both made that a race).
		var ports := [sorteio._bridge._port, second._bridge._port]
		t.check(ports[0] != ports[1], "...each connected to its own server", ports)
	second.stop_bridge()
	t.errors.clear()
	t.check(
		sorteio.start_turn() and not sorteio.draw_next_card().empty(),
		"...stopping one leaves the other playing",
		t.errors
	)
	t.check(sorteio.deck_info.get("nome") != second.deck_info.get("nome"), "...its own match")
	root.remove_child(second)
	second.free()
	t.errors.clear()


func _test_python_mode_without_pythonscript():
	sorteio.bridge_mode = "python"
	t.errors.clear()
	t.check(not sorteio.start_bridge(), "bridge_mode python without pythonscript fails")
	yield(self, "idle_frame")
	t.check(
		"pythonscript" in sorteio.bridge_error and not "is not there" in sorteio.bridge_error,
		"...saying pythonscript is not installed",
		sorteio.bridge_error
	)
	sorteio.bridge_mode = "auto"
	sorteio.start_bridge()
	yield(t.wait_ready(self, sorteio), "completed")
	t.errors.clear()
	t.check(sorteio.start_match(3, DECK), "...and auto plays again", t.errors)


func _test_bridge_ready_inside_a_call(stop_in_handler: bool):
	# The socket bridge may come up inside a call (the call's one poll connects); bridge_ready is
	# then emitted from that call. A handler that starts its own match there (the README's
	# _begin) must not be overwritten by the outer call's older reply: the node's state stays
	# Python's. A handler that stops the bridge makes the outer call fail cleanly.
	# A node outside the tree: no _process, so only the calls poll.
	var node: Node = SorteioNode.new()
	node.connect("error_occurred", t, "on_error_occurred")
	var handler := "_stop_in_bridge_ready" if stop_in_handler else "_begin_in_bridge_ready"
	node.connect("bridge_ready", self, handler, [node])
	node.start_bridge()
	var started := false
	var deadline := OS.get_ticks_msec() + 20000
	while not node.is_bridge_ready() and node.is_bridge_failed() == false:
		if OS.get_ticks_msec() > deadline:
			break
		t.errors.clear()
		started = node.start_match(7, "curto")
		if started:
			break
		yield(self, "idle_frame")
	for _i in range(2):  # what the handler does may come after the call
		yield(self, "idle_frame")
	if stop_in_handler:
		t.check(
			started and not node.is_bridge_ready(),
			"a bridge_ready handler stopping the bridge: the call that brought it up is whole",
			t.errors
		)
	else:
		var seen := [node.phase, str(node.deck_info.get("source"))]
		t.errors.clear()
		var applied: bool = node.apply_option(node.current_draw.get("option_order", [0])[0])
		t.check(
			started and seen[0] == "awaiting_choice" and seen[1].ends_with("padrao.json"),
			"a bridge_ready handler playing: the node's state is Python's",
			[seen, t.errors]
		)
		t.check(applied and t.errors.empty(), "...and play goes on", t.errors)
	node.free()
	t.errors.clear()


func _begin_in_bridge_ready(_kind: String, node: Node) -> void:
	# The outer call (start_match(7, "curto")) comes after this handler's match.
	node.start_match(42, DECK)
	node.start_turn()
	node.draw_next_card()


func _stop_in_bridge_ready(_kind: String, node: Node) -> void:
	node.stop_bridge()
