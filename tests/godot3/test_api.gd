extends SceneTree
# Engine test of SorteioNode's GDScript API over the bridge the autoload picked: save/load
# mid-turn, t.errors from Python, accents, stop + start in one frame; over the socket bridge also
# a dead server, a server that never comes up, a silent server.
#   godot3-server --path godot3/demo_project -s tests/godot3/test_api.gd
# Prints "BRIDGE <kind>" (the caller checks it is the bridge it meant to test).
# Prints "CHECK ok|FAIL name: detail" lines; quits 0 when every check passed, 1 otherwise.

const Checks = preload("lib/checks.gd")
const DECK := "res://decks/padrao.json"
const HANGING := "hanging_python.sh"
const NO_SORTEIO := "python_without_sorteio.sh"

var t = Checks.new()
var loaded := []
var lost := []
var sorteio: Node = null


func _init() -> void:
	call_deferred("_run")


func _run() -> void:
	sorteio = root.get_node("Sorteio")
	sorteio.connect("error_occurred", t, "on_error_occurred")
	sorteio.connect("state_loaded", self, "_on_state_loaded")
	sorteio.connect("match_lost", self, "_on_match_lost")
	yield(t.wait_ready(self, sorteio), "completed")
	t.check(sorteio.is_bridge_ready(), "bridge up", sorteio.bridge_kind)
	print("BRIDGE %s" % sorteio.bridge_kind)
	print("SERVER_PID %d" % sorteio.bridge_process_id())
	_test_save_and_load()
	_test_deck_update()
	_test_load_between_turns()
	_test_refusals()
	_test_accents()
	yield(_test_restart_in_one_frame(), "completed")
	if sorteio.bridge_kind == "socket":  # the server child's t.failures
		yield(_test_dead_server(), "completed")
		yield(_test_never_up(), "completed")
		yield(_test_silent_server(), "completed")
	t.finish(self)


func _on_match_lost(message: String) -> void:
	lost.append(message)


func _on_state_loaded(snapshot: Dictionary, pending: Dictionary) -> void:
	loaded.append([snapshot, pending])


func _play(count: int) -> Array:
	# Apply the first shown option and draw the next card, `count` times: the ids drawn.
	var ids := []
	for _i in range(count):
		sorteio.apply_option(sorteio.current_draw["option_order"][0])
		var draw: Dictionary = sorteio.draw_next_card()
		ids.append(draw.get("card_id", "<turn over>"))
	return ids


func _test_save_and_load() -> void:
	t.check(sorteio.start_match(4, DECK), "start_match")
	t.check(sorteio.start_turn(), "start_turn")
	sorteio.draw_next_card()
	_play(2)
	var pending_id: String = sorteio.current_draw["card_id"]
	var saved: Dictionary = sorteio.save_state()
	t.check(not saved.empty(), "save_state returns a Dictionary", saved.keys())
	var here := ProjectSettings.globalize_path("res://")
	t.check(
		saved.get("deck") == DECK and not here in JSON.print(saved),
		"the save holds the res:// deck, not this folder's path",
		saved.get("deck")
	)
	var expected := _play(3)
	var meters_after: Dictionary = sorteio.meters.duplicate()
	# As a save file would: through JSON text and back.
	var from_disk: Dictionary = JSON.parse(JSON.print(saved)).result
	t.check(sorteio.load_state(from_disk), "load_state")
	t.check(loaded.size() == 1, "state_loaded emitted once", loaded.size())
	t.check(
		sorteio.current_draw.get("card_id") == pending_id and sorteio.phase == "awaiting_choice",
		"loaded mid-turn with the pending card",
		"%s / %s" % [sorteio.current_draw.get("card_id"), pending_id]
	)
	t.check(loaded[0][1].get("card_id") == pending_id, "state_loaded carries the pending card")
	var replay := _play(3)
	t.check(replay == expected, "the match continues exactly", "%s vs %s" % [replay, expected])
	t.check(sorteio.meters.hash() == meters_after.hash(), "same meters after the replay")
	t.check(sorteio.save_state().get("deck") == DECK, "a loaded match saves its res:// deck again")
	t.errors.clear()
	var other: Dictionary = from_disk.duplicate(true)
	other["deck"] = "curto"
	t.check(not sorteio.load_state(other), "a save loaded with another deck is refused", t.errors)
	t.errors.clear()


func _test_deck_update() -> void:
	# QA (issue 14): a save loaded into a deck a game patch edited. Python adapts it and says
	# what it changed (deck_update); the node hands the sentences to the game.
	t.check(sorteio.start_match(4, DECK), "start_match for a deck update")
	sorteio.start_turn()
	sorteio.draw_next_card()
	_play(1)  # two cards shown: the save is of this deck, not another one
	var pending_id: String = sorteio.current_draw["card_id"]
	var saved: Dictionary = sorteio.save_state()
	var file := File.new()
	file.open(DECK, File.READ)
	var deck: Dictionary = JSON.parse(file.get_as_text()).result
	file.close()
	var kept := []
	for card in deck["cartas"]:
		if card["id"] != pending_id:
			kept.append(card)
	deck["cartas"] = kept  # the patch removed the card on screen
	var patched := ProjectSettings.globalize_path("user://deck_patched.json")
	file.open(patched, File.WRITE)
	file.store_string(JSON.print(deck))
	file.close()
	saved["deck"] = patched
	var changes := []
	sorteio.connect("deck_updated", self, "_on_deck_updated", [changes])
	t.errors.clear()
	t.check(sorteio.load_state(saved), "a save loads into a deck without its card on screen")
	t.check(
		(
			changes.size() == 1
			and changes[0] is PoolStringArray
			and pending_id in changes[0].join(" ")
			and sorteio.deck_update == changes[0]
		),
		"deck_updated hands the game what changed, deck_update too",
		changes
	)
	t.check(t.errors.empty() and sorteio.current_draw.empty(), "...the card closed", t.errors)
	changes.clear()
	saved["deck"] = DECK
	t.check(
		sorteio.load_state(saved) and changes.empty() and sorteio.deck_update.empty(),
		"a save of this very deck: no deck_updated",
		changes
	)
	sorteio.disconnect("deck_updated", self, "_on_deck_updated")
	Directory.new().remove(patched)


func _on_deck_updated(changes: PoolStringArray, into: Array) -> void:
	into.append(changes)


func _test_load_between_turns() -> void:
	# README "After load_state, continue by phase": a save made after turn_ended needs
	# start_turn() first; draw_next_card() there is refused.
	sorteio.start_match(8, DECK)
	sorteio.start_turn()
	var guard := 0
	while sorteio.phase != "turn_start" and guard < 20:
		guard += 1
		if sorteio.phase == "awaiting_choice":
			sorteio.apply_option(sorteio.current_draw["option_order"][0])
		else:
			sorteio.draw_next_card()
	var saved: Dictionary = JSON.parse(JSON.print(sorteio.save_state())).result
	var next_year: int = sorteio.year
	t.check(sorteio.load_state(saved), "a save made between turns loads")
	t.check(
		sorteio.phase == "turn_start" and sorteio.current_draw.empty(),
		"...in phase turn_start",
		sorteio.phase
	)
	t.errors.clear()
	t.check(sorteio.draw_next_card().empty(), "...where draw_next_card() is refused")
	t.check(t.errors.size() == 1 and t.errors[0][1] == "rule_error", "...with rule_error", t.errors)
	t.errors.clear()
	t.check(
		sorteio.start_turn() and sorteio.year == next_year and not sorteio.draw_next_card().empty(),
		"...and start_turn() then draw_next_card() go on",
		t.errors
	)
	t.errors.clear()


func _test_refusals() -> void:
	t.errors.clear()
	var phase: String = sorteio.phase
	var year: int = sorteio.year
	t.check(not sorteio.apply_option(99), "apply_option(99) refused")
	t.check(t.errors.size() == 1 and t.errors[0][1] == "rule_error", "rule_error emitted", t.errors)
	t.check(sorteio.phase == phase and sorteio.year == year, "state unchanged after a refusal")
	t.errors.clear()
	t.check(sorteio.draw_next_card().empty(), "draw while awaiting a choice refused")
	t.check(t.errors.size() == 1 and t.errors[0][1] == "rule_error", "rule_error on draw", t.errors)
	t.errors.clear()
	t.check(not sorteio.load_state({"format": 1}), "bad state refused")
	t.check(
		t.errors.size() == 1 and t.errors[0][1] == "bad_request", "bad_request on load", t.errors
	)
	t.errors.clear()
	t.check(not sorteio.start_match(1, "res://decks/missing.json"), "missing deck refused")
	t.check(t.errors.size() == 1 and t.errors[0][1] == "deck_error", "deck_error", t.errors)
	t.errors.clear()


func _test_accents() -> void:
	sorteio.start_match(2, DECK)
	var names := []
	for meter in sorteio.deck_info["medidores"]:
		names.append(meter["nome"])
	t.check("Saúde" in names and "Educação" in names, "accents in deck names survive", names)
	sorteio.start_turn()
	var card: Dictionary = sorteio.draw_next_card()
	var text: String = card["card"]["titulo"] + card["card"]["texto"]
	var wide := false
	for i in range(text.length()):
		if text.ord_at(i) > 127:
			wide = true
	t.check(wide, "card text keeps its accents", text.left(60))


func _test_restart_in_one_frame():
	# stop_bridge() + start_bridge() without a frame between: the old bridge is gone at once, the
	# new one keeps its own name (a queue_free()d child left in the tree renamed it @...@2).
	var kind: String = sorteio.bridge_kind
	var old_pid: int = sorteio.bridge_process_id()
	sorteio.stop_bridge()
	sorteio.start_bridge()
	var names := []
	for child in sorteio.get_children():
		names.append(child.name)
	var own := names == ([] if kind == "socket" else ["SorteioPython"])
	t.check(own, "stop_bridge() + start_bridge() in one frame: one bridge, its own name", names)
	yield(t.wait_ready(self, sorteio), "completed")
	t.check(
		sorteio.bridge_kind == kind and sorteio.start_match(5, DECK), "...and it plays", t.errors
	)
	if kind == "socket":
		t.check(old_pid != sorteio.bridge_process_id(), "...with a new server", old_pid)
		yield(create_timer(0.2), "timeout")
		t.check(not Directory.new().dir_exists("/proc/%d" % old_pid), "...the old one killed")
	# And with frames between (the old child long freed).
	sorteio.stop_bridge()
	yield(self, "idle_frame")
	yield(self, "idle_frame")
	sorteio.start_bridge()
	yield(t.wait_ready(self, sorteio), "completed")
	t.check(sorteio.start_match(6, DECK), "stop, frames later start: it plays", t.errors)


func _test_dead_server():
	var pid: int = sorteio.bridge_process_id()
	OS.kill(pid)
	yield(create_timer(0.3), "timeout")
	t.errors.clear()
	lost.clear()
	var started := OS.get_ticks_msec()
	var result: Dictionary = sorteio.draw_next_card()
	var took := OS.get_ticks_msec() - started
	t.check(result.empty() and t.errors.size() == 1, "request to a dead server fails", t.errors)
	t.check(
		t.errors.size() == 1 and t.errors[0][1] == "bridge_down", "bridge_down emitted", t.errors
	)
	t.check(took < 2000, "no freeze on a dead server", "%d ms" % took)
	t.check(sorteio.bridge_process_id() == -1, "no PID for a dead server", pid)
	t.check(sorteio.is_bridge_failed(), "is_bridge_failed() after the server died")
	t.check(
		lost.size() == 1 and sorteio.phase == sorteio.PHASE_LOST,
		"the match in play is lost with its server (match_lost)",
		[lost, sorteio.phase]
	)
	t.errors.clear()
	sorteio.start_turn()
	t.check(
		(
			t.errors.size() == 1
			and t.errors[0][1] == "match_lost"
			and "start_bridge()" in t.errors[0][0]
		),
		"stays down, says so (match_lost)",
		t.errors
	)
	t.errors.clear()
	sorteio.start_bridge()
	yield(t.wait_ready(self, sorteio), "completed")
	t.check(sorteio.is_bridge_ready(), "start_bridge() brings it back", t.errors)
	t.check(sorteio.start_match(9, DECK), "a new match after the restart")


func _test_never_up():
	sorteio.stop_bridge()
	t.errors.clear()
	sorteio.python_executable = "/nonexistent/python3"
	var started := OS.get_ticks_msec()
	sorteio.start_bridge()
	yield(t.wait_ready(self, sorteio), "completed")
	var took := OS.get_ticks_msec() - started
	t.check(not sorteio.is_bridge_ready(), "no bridge with a missing interpreter")
	t.check(
		t.errors.size() == 1 and t.errors[0][1] == "bridge_down", "bridge_down reported", t.errors
	)
	t.check(took < 5000, "reported quickly", "%d ms" % took)
	t.check(
		(
			t.errors.size() == 1
			and "SORTEIO_PYTHON" in t.errors[0][0]
			and "sorteio/python" in t.errors[0][0]
			and "pip install" in t.errors[0][0]
			and not "make setup" in t.errors[0][0]
		),  # a game programmer never ran it
		"the failure says how to fix it",
		t.errors
	)
	t.check(
		(
			t.errors.size() == 1
			and "the program '/nonexistent/python3' was not found" in t.errors[0][0]
			and not "exited before" in t.errors[0][0]
			and ".venv/bin/python" in t.errors[0][0]
		),  # QA: it said the server "exited before it was ready"; pip needs a venv (PEP 668)
		"a missing interpreter is said not found, with a venv to make",
		t.errors
	)
	t.check(sorteio.bridge_process_id() == -1, "no PID after a failed start")
	t.check(sorteio.is_bridge_failed() and sorteio.bridge_error != "", "failure is queryable")
	t.errors.clear()
	var script_dir: String = get_script().resource_path.get_base_dir()
	sorteio.python_executable = ProjectSettings.globalize_path(script_dir.plus_file(NO_SORTEIO))
	sorteio.start_bridge()
	yield(t.wait_ready(self, sorteio), "completed")
	t.check(
		t.errors.size() == 1 and "No module named 'sorteio'" in t.errors[0][0],
		"the child's own error is in the message",
		t.errors
	)
	t.errors.clear()
	sorteio.python_executable = ProjectSettings.globalize_path(script_dir.plus_file(HANGING))
	sorteio.startup_timeout_ms = 1500
	started = OS.get_ticks_msec()
	sorteio.start_bridge()
	var hanging_pid: int = sorteio.bridge_process_id()
	# A call before bridge_ready waits for the start-up (as on the in-process bridge), within
	# startup_timeout_ms: a server that never comes up fails it with bridge_down, once.
	t.check(
		not sorteio.start_match(1, DECK), "a call before bridge_ready fails when it never comes"
	)
	yield(t.wait_ready(self, sorteio), "completed")
	took = OS.get_ticks_msec() - started
	t.check(
		t.errors.size() == 1 and "within 1500 ms" in t.errors[0][0], "start-up timeout", t.errors
	)
	t.check(took < 4000, "start-up timeout is bounded", "%d ms" % took)
	yield(create_timer(0.2), "timeout")
	t.check(not Directory.new().dir_exists("/proc/%d" % hanging_pid), "a timed-out child is killed")
	sorteio.start_bridge()
	hanging_pid = sorteio.bridge_process_id()
	sorteio.stop_bridge()
	yield(create_timer(0.2), "timeout")
	t.check(not Directory.new().dir_exists("/proc/%d" % hanging_pid), "stop_bridge kills the child")
	sorteio.python_executable = ""
	sorteio.startup_timeout_ms = 15000


func _test_silent_server():
	# A server that accepts the connection and never answers: the request times out.
	var listener := TCP_Server.new()
	var port := 0
	for candidate in range(47000, 47100):
		if listener.listen(candidate, "127.0.0.1") == OK:
			port = candidate
			break
	var port_file := ProjectSettings.globalize_path("user://silent_bridge.json")
	var file := File.new()
	file.open(port_file, File.WRITE)
	file.store_string(JSON.print({"port": port, "token": "x", "pid": 0}))
	file.close()
	sorteio.bridge_file = port_file
	t.errors.clear()
	sorteio.request_timeout_ms = 800
	sorteio.start_bridge()
	yield(t.wait_ready(self, sorteio), "completed")
	var started := OS.get_ticks_msec()
	t.check(not sorteio.start_match(1, DECK), "silent server: request fails")
	var took := OS.get_ticks_msec() - started
	# The node pings as soon as it connects (the server's AUTH_TIMEOUT), so the silence is
	# already found at start-up (one bridge_down) and the call reports it too.
	var codes := []
	for error in t.errors:
		codes.append(error[1])
	t.check(
		codes in [["bridge_down"], ["bridge_down", "bridge_down"]],
		"silent server: bridge_down",
		t.errors
	)
	t.check(took < 2000, "silent server: bounded wait", "%d ms" % took)
	sorteio.stop_bridge()
	listener.stop()
	sorteio.bridge_file = ""
