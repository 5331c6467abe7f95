extends SceneTree
# Engine test of SorteioNode's GDScript API over the bridge the autoload picked: save/load
# mid-turn, errors from Python, accents, stop + start in one frame; over the socket bridge also
# a dead server, a server that never comes up, a silent server.
#   godot3-server --path godot3/demo_project -s tests/godot3/test_api.gd
# Prints "BRIDGE <kind>" (the caller checks it is the bridge it meant to test).
# Prints "CHECK ok|FAIL name: detail" lines; quits 0 when every check passed, 1 otherwise.

const DECK := "res://decks/padrao.json"
const HANGING := "hanging_python.sh"
const NO_SORTEIO := "python_without_sorteio.sh"

var failures := 0
var errors := []
var loaded := []
var lost := []
var sorteio: Node = null


func _init() -> void:
	call_deferred("_run")


func _run() -> void:
	sorteio = root.get_node("Sorteio")
	sorteio.connect("error_occurred", self, "_on_error_occurred")
	sorteio.connect("state_loaded", self, "_on_state_loaded")
	sorteio.connect("match_lost", self, "_on_match_lost")
	yield(_wait_ready(), "completed")
	_check(sorteio.is_bridge_ready(), "bridge up", sorteio.bridge_kind)
	print("BRIDGE %s" % sorteio.bridge_kind)
	print("SERVER_PID %d" % sorteio.bridge_process_id())
	_test_save_and_load()
	_test_load_between_turns()
	_test_refusals()
	_test_accents()
	yield(_test_restart_in_one_frame(), "completed")
	if sorteio.bridge_kind == "socket":  # the server child's failures
		yield(_test_dead_server(), "completed")
		yield(_test_never_up(), "completed")
		yield(_test_silent_server(), "completed")
	print("GODOT-TEST %s" % ("passed" if failures == 0 else "failed"))
	quit(0 if failures == 0 else 1)


func _wait_ready(timeout_ms := 20000):
	var deadline := OS.get_ticks_msec() + timeout_ms
	yield(self, "idle_frame")
	while not sorteio.is_bridge_ready() and OS.get_ticks_msec() < deadline:
		if not errors.empty() and errors[-1][1] == "bridge_down":
			break
		yield(self, "idle_frame")


func _check(ok: bool, name: String, detail = "") -> void:
	if not ok:
		failures += 1
	print(
		"CHECK %s %s%s" % ["ok" if ok else "FAIL", name, ": " + str(detail) if str(detail) else ""]
	)


func _on_error_occurred(message: String, code: String) -> void:
	errors.append([message, code])


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
	_check(sorteio.start_match(4, DECK), "start_match")
	_check(sorteio.start_turn(), "start_turn")
	sorteio.draw_next_card()
	_play(2)
	var pending_id: String = sorteio.current_draw["card_id"]
	var saved: Dictionary = sorteio.save_state()
	_check(not saved.empty(), "save_state returns a Dictionary", saved.keys())
	var here := ProjectSettings.globalize_path("res://")
	_check(
		saved.get("deck") == DECK and not here in JSON.print(saved),
		"the save holds the res:// deck, not this folder's path",
		saved.get("deck")
	)
	var expected := _play(3)
	var meters_after: Dictionary = sorteio.meters.duplicate()
	# As a save file would: through JSON text and back.
	var from_disk: Dictionary = JSON.parse(JSON.print(saved)).result
	_check(sorteio.load_state(from_disk), "load_state")
	_check(loaded.size() == 1, "state_loaded emitted once", loaded.size())
	_check(
		sorteio.current_draw.get("card_id") == pending_id and sorteio.phase == "awaiting_choice",
		"loaded mid-turn with the pending card",
		"%s / %s" % [sorteio.current_draw.get("card_id"), pending_id]
	)
	_check(loaded[0][1].get("card_id") == pending_id, "state_loaded carries the pending card")
	var replay := _play(3)
	_check(replay == expected, "the match continues exactly", "%s vs %s" % [replay, expected])
	_check(sorteio.meters.hash() == meters_after.hash(), "same meters after the replay")
	_check(sorteio.save_state().get("deck") == DECK, "a loaded match saves its res:// deck again")
	errors.clear()
	var other: Dictionary = from_disk.duplicate(true)
	other["deck"] = "curto"
	_check(not sorteio.load_state(other), "a save loaded with another deck is refused", errors)
	errors.clear()


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
	_check(sorteio.load_state(saved), "a save made between turns loads")
	_check(
		sorteio.phase == "turn_start" and sorteio.current_draw.empty(),
		"...in phase turn_start",
		sorteio.phase
	)
	errors.clear()
	_check(sorteio.draw_next_card().empty(), "...where draw_next_card() is refused")
	_check(errors.size() == 1 and errors[0][1] == "rule_error", "...with rule_error", errors)
	errors.clear()
	_check(
		sorteio.start_turn() and sorteio.year == next_year and not sorteio.draw_next_card().empty(),
		"...and start_turn() then draw_next_card() go on",
		errors
	)
	errors.clear()


func _test_refusals() -> void:
	errors.clear()
	var phase: String = sorteio.phase
	var year: int = sorteio.year
	_check(not sorteio.apply_option(99), "apply_option(99) refused")
	_check(errors.size() == 1 and errors[0][1] == "rule_error", "rule_error emitted", errors)
	_check(sorteio.phase == phase and sorteio.year == year, "state unchanged after a refusal")
	errors.clear()
	_check(sorteio.draw_next_card().empty(), "draw while awaiting a choice refused")
	_check(errors.size() == 1 and errors[0][1] == "rule_error", "rule_error on draw", errors)
	errors.clear()
	_check(not sorteio.load_state({"format": 1}), "bad state refused")
	_check(errors.size() == 1 and errors[0][1] == "bad_request", "bad_request on load", errors)
	errors.clear()
	_check(not sorteio.start_match(1, "res://decks/missing.json"), "missing deck refused")
	_check(errors.size() == 1 and errors[0][1] == "deck_error", "deck_error", errors)
	errors.clear()


func _test_accents() -> void:
	sorteio.start_match(2, DECK)
	var names := []
	for meter in sorteio.deck_info["medidores"]:
		names.append(meter["nome"])
	_check("Saúde" in names and "Educação" in names, "accents in deck names survive", names)
	sorteio.start_turn()
	var card: Dictionary = sorteio.draw_next_card()
	var text: String = card["card"]["titulo"] + card["card"]["texto"]
	var wide := false
	for i in range(text.length()):
		if text.ord_at(i) > 127:
			wide = true
	_check(wide, "card text keeps its accents", text.left(60))


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
	_check(own, "stop_bridge() + start_bridge() in one frame: one bridge, its own name", names)
	yield(_wait_ready(), "completed")
	_check(sorteio.bridge_kind == kind and sorteio.start_match(5, DECK), "...and it plays", errors)
	if kind == "socket":
		_check(old_pid != sorteio.bridge_process_id(), "...with a new server", old_pid)
		yield(create_timer(0.2), "timeout")
		_check(not Directory.new().dir_exists("/proc/%d" % old_pid), "...the old one killed")
	# And with frames between (the old child long freed).
	sorteio.stop_bridge()
	yield(self, "idle_frame")
	yield(self, "idle_frame")
	sorteio.start_bridge()
	yield(_wait_ready(), "completed")
	_check(sorteio.start_match(6, DECK), "stop, frames later start: it plays", errors)


func _test_dead_server():
	var pid: int = sorteio.bridge_process_id()
	OS.kill(pid)
	yield(create_timer(0.3), "timeout")
	errors.clear()
	lost.clear()
	var started := OS.get_ticks_msec()
	var result: Dictionary = sorteio.draw_next_card()
	var took := OS.get_ticks_msec() - started
	_check(result.empty() and errors.size() == 1, "request to a dead server fails", errors)
	_check(errors.size() == 1 and errors[0][1] == "bridge_down", "bridge_down emitted", errors)
	_check(took < 2000, "no freeze on a dead server", "%d ms" % took)
	_check(sorteio.bridge_process_id() == -1, "no PID for a dead server", pid)
	_check(sorteio.is_bridge_failed(), "is_bridge_failed() after the server died")
	_check(
		lost.size() == 1 and sorteio.phase == sorteio.PHASE_LOST,
		"the match in play is lost with its server (match_lost)",
		[lost, sorteio.phase]
	)
	errors.clear()
	sorteio.start_turn()
	_check(
		errors.size() == 1 and errors[0][1] == "match_lost" and "start_bridge()" in errors[0][0],
		"stays down, says so (match_lost)",
		errors
	)
	errors.clear()
	sorteio.start_bridge()
	yield(_wait_ready(), "completed")
	_check(sorteio.is_bridge_ready(), "start_bridge() brings it back", errors)
	_check(sorteio.start_match(9, DECK), "a new match after the restart")


func _test_never_up():
	sorteio.stop_bridge()
	errors.clear()
	sorteio.python_executable = "/nonexistent/python3"
	var started := OS.get_ticks_msec()
	sorteio.start_bridge()
	yield(_wait_ready(), "completed")
	var took := OS.get_ticks_msec() - started
	_check(not sorteio.is_bridge_ready(), "no bridge with a missing interpreter")
	_check(errors.size() == 1 and errors[0][1] == "bridge_down", "bridge_down reported", errors)
	_check(took < 5000, "reported quickly", "%d ms" % took)
	_check(
		(
			errors.size() == 1
			and "SORTEIO_PYTHON" in errors[0][0]
			and "sorteio/python" in errors[0][0]
			and "pip install" in errors[0][0]
			and not "make setup" in errors[0][0]
		),  # a game programmer never ran it
		"the failure says how to fix it",
		errors
	)
	_check(sorteio.bridge_process_id() == -1, "no PID after a failed start")
	_check(sorteio.is_bridge_failed() and sorteio.bridge_error != "", "failure is queryable")
	errors.clear()
	var script_dir: String = get_script().resource_path.get_base_dir()
	sorteio.python_executable = ProjectSettings.globalize_path(script_dir.plus_file(NO_SORTEIO))
	sorteio.start_bridge()
	yield(_wait_ready(), "completed")
	_check(
		errors.size() == 1 and "No module named 'sorteio'" in errors[0][0],
		"the child's own error is in the message",
		errors
	)
	errors.clear()
	sorteio.python_executable = ProjectSettings.globalize_path(script_dir.plus_file(HANGING))
	sorteio.startup_timeout_ms = 1500
	started = OS.get_ticks_msec()
	sorteio.start_bridge()
	var hanging_pid: int = sorteio.bridge_process_id()
	# A call before bridge_ready waits for the start-up (as on the in-process bridge), within
	# startup_timeout_ms: a server that never comes up fails it with bridge_down, once.
	_check(not sorteio.start_match(1, DECK), "a call before bridge_ready fails when it never comes")
	yield(_wait_ready(), "completed")
	took = OS.get_ticks_msec() - started
	_check(errors.size() == 1 and "within 1500 ms" in errors[0][0], "start-up timeout", errors)
	_check(took < 4000, "start-up timeout is bounded", "%d ms" % took)
	yield(create_timer(0.2), "timeout")
	_check(not Directory.new().dir_exists("/proc/%d" % hanging_pid), "a timed-out child is killed")
	sorteio.start_bridge()
	hanging_pid = sorteio.bridge_process_id()
	sorteio.stop_bridge()
	yield(create_timer(0.2), "timeout")
	_check(not Directory.new().dir_exists("/proc/%d" % hanging_pid), "stop_bridge kills the child")
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
	errors.clear()
	sorteio.request_timeout_ms = 800
	sorteio.start_bridge()
	yield(_wait_ready(), "completed")
	var started := OS.get_ticks_msec()
	_check(not sorteio.start_match(1, DECK), "silent server: request fails")
	var took := OS.get_ticks_msec() - started
	# The node pings as soon as it connects (the server's AUTH_TIMEOUT), so the silence is
	# already found at start-up (one bridge_down) and the call reports it too.
	var codes := []
	for error in errors:
		codes.append(error[1])
	_check(
		codes in [["bridge_down"], ["bridge_down", "bridge_down"]],
		"silent server: bridge_down",
		errors
	)
	_check(took < 2000, "silent server: bounded wait", "%d ms" % took)
	sorteio.stop_bridge()
	listener.stop()
	sorteio.bridge_file = ""
