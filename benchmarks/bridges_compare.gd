extends SceneTree
# Benchmark (not a test), run by benchmarks/bench_bridges.py in a copy of the demo with
# pythonscript installed: one bridge per Godot process, everything timed from GDScript.
#   godot3-server --path PROJECT -s bridges_compare.gd -- --mode=socket|python \
#     [--entry=res://...py] [--matches=200] [--restarts=5]
# Prints one "BENCH {json}" line per measure, in microseconds:
# - startup: start_bridge() until a first `ping` is answered (the first one of the process is
#   "cold": the socket bridge always is, a new process; the in-process one imports sorteio then);
# - draw: Sorteio.draw_next_card() (request, engine, reply, JSON parse, signal);
# - match: a whole match from start_match() to match_ended (28 draws when it runs to year 4);
# - new_match: start_match() alone (the deck file read and checked, the engine built);
# - draw_request: the bridge's request("draw") alone (JSON both ways, the engine; no node state
#   or signals), in matches played through request() only;
# - ping: a bare request round trip.

var mode := "socket"
var entry := ""
var matches_wanted := 200
var restarts := 5


func _init() -> void:
	for arg in OS.get_cmdline_args():
		if arg.begins_with("--mode="):
			mode = arg.substr(7)
		elif arg.begins_with("--entry="):
			entry = arg.substr(8)
		elif arg.begins_with("--matches="):
			matches_wanted = int(arg.substr(10))
		elif arg.begins_with("--restarts="):
			restarts = int(arg.substr(11))
	call_deferred("_run")


func _initialize() -> void:
	# The autoload is in the tree now and its deferred autostart not run yet: turn it off, so
	# the first start of the process is the one timed here.
	var sorteio: Node = root.get_node("Sorteio")
	sorteio.autostart_bridge = false


func _run() -> void:
	var sorteio: Node = root.get_node("Sorteio")
	if sorteio.get("_bridge") != null:
		print("BENCH FAIL the autoload started its bridge before the benchmark")
		quit(1)
		return
	sorteio.bridge_mode = mode
	if entry != "":
		sorteio.python_entry = entry
	var startups := []
	for _i in range(restarts):
		var took := _start(sorteio)
		if took < 0:
			print("BENCH FAIL %s bridge did not start: %s" % [mode, sorteio.bridge_error])
			quit(1)
			return
		startups.append(took)
	if sorteio.bridge_kind != mode:
		print("BENCH FAIL asked for %s, got %s" % [mode, sorteio.bridge_kind])
		quit(1)
		return
	_report("startup_cold", [startups[0]])
	_report("startup_warm", startups.slice(1, startups.size() - 1))
	var draws := []
	var match_times := []
	var new_matches := []
	for match_seed in range(1, matches_wanted + 1):
		var began := OS.get_ticks_usec()
		if not sorteio.start_match(match_seed, "res://decks/padrao.json"):
			print("BENCH FAIL start_match")
			quit(1)
			return
		new_matches.append(OS.get_ticks_usec() - began)
		while not sorteio.is_match_over():
			if sorteio.phase == "turn_start":
				sorteio.start_turn()
			var before := OS.get_ticks_usec()
			var draw: Dictionary = sorteio.draw_next_card()
			if not draw.empty():
				draws.append(OS.get_ticks_usec() - before)
				sorteio.apply_option(draw["option_order"][0])
		match_times.append(OS.get_ticks_usec() - began)
	_report("draw", draws)
	_report("match", match_times)
	_report("new_match", new_matches)
	var bridge = sorteio.get("_bridge")
	var requests := []
	# The deck params of new_match as the node makes them ({"deck": path} here, in the editor).
	var deck: Dictionary = sorteio.call("_deck_for_python", "res://decks/padrao.json")
	for match_seed in range(1, matches_wanted + 1):
		_raw_match(bridge, deck, match_seed, requests)
	_report("draw_request", requests)
	var pings := []
	for _i in range(draws.size()):
		var before := OS.get_ticks_usec()
		bridge.request("ping", {})
		pings.append(OS.get_ticks_usec() - before)
	_report("ping", pings)
	sorteio.stop_bridge()
	quit(0)


func _raw_match(bridge, deck: Dictionary, match_seed: int, times: Array) -> void:
	# A match through the bridge's request() alone, timing each draw request (JSON both ways and
	# the engine, without the node's bookkeeping and signals).
	var params := deck.duplicate()
	params["seed"] = match_seed
	var reply: Dictionary = bridge.request("new_match", params)
	var phase: String = reply["result"]["snapshot"]["phase"]
	while phase != "ended":
		if phase == "turn_start":
			phase = bridge.request("start_turn", {})["result"]["snapshot"]["phase"]
		var before := OS.get_ticks_usec()
		var drawn: Dictionary = bridge.request("draw", {})
		var took := OS.get_ticks_usec() - before
		var result: Dictionary = drawn["result"]
		phase = result["snapshot"]["phase"]
		if result["draw"] != null:
			times.append(took)
			var option := int(result["draw"]["option_order"][0])
			phase = bridge.request("choose", {"option": option})["result"]["snapshot"]["phase"]


func _start(sorteio: Node) -> int:
	# Microseconds from start_bridge() to the first answered ping; -1 when it never came up.
	var began := OS.get_ticks_usec()
	sorteio.start_bridge()
	var bridge = sorteio.get("_bridge")
	if bridge == null:
		return -1
	while not bridge.poll():
		if bridge.has_failed():
			return -1
		OS.delay_usec(200)
	var reply: Dictionary = bridge.request("ping", {})
	if not reply.get("ok", false):
		return -1
	return OS.get_ticks_usec() - began


func _report(measure: String, times: Array) -> void:
	times.sort()
	var total := 0
	for value in times:
		total += value
	var count := times.size()
	var result := {"mode": mode, "entry": entry, "measure": measure, "n": count, "times": times}
	if count > 0:
		result["p50_us"] = times[int(count * 0.50)]
		result["p99_us"] = times[min(count - 1, int(count * 0.99))]
		result["mean_us"] = total / count
	print("BENCH " + JSON.print(result))
