extends SceneTree
# Benchmark (not a test): latency of a draw over the socket bridge, called from GDScript.
#   SORTEIO_PYTHON=.venv/bin/python godot3-server --path godot3/demo_project \
#     -s benchmarks/bridge_socket.gd -- --draws=2000
# Times Sorteio.draw_next_card() (request, Python engine, reply, JSON parse, signal) and, for
# comparison, a bare `ping` round trip. Prints one "BENCH {json}" line per measure.

const DECK := "res://decks/padrao.json"

var draws_wanted := 2000


func _init() -> void:
	for arg in OS.get_cmdline_args():
		if arg.begins_with("--draws="):
			draws_wanted = int(arg.substr(8))
	call_deferred("_run")


func _run() -> void:
	var sorteio: Node = root.get_node("Sorteio")
	var deadline := OS.get_ticks_msec() + 20000
	while not sorteio.is_bridge_ready() and OS.get_ticks_msec() < deadline:
		yield(self, "idle_frame")
	if not sorteio.is_bridge_ready():
		print("BENCH FAIL bridge not ready")
		quit(1)
		return
	var draw_times := []
	var match_seed := 1
	var started := OS.get_ticks_usec()
	while draw_times.size() < draws_wanted:
		sorteio.start_match(match_seed, DECK)
		match_seed += 1
		while not sorteio.is_match_over() and draw_times.size() < draws_wanted:
			if sorteio.phase == "turn_start":
				sorteio.start_turn()
			var before := OS.get_ticks_usec()
			var draw: Dictionary = sorteio.draw_next_card()
			if not draw.empty():
				draw_times.append(OS.get_ticks_usec() - before)
				sorteio.apply_option(draw["option_order"][0])
	var wall := OS.get_ticks_usec() - started
	_report("socket draw from GDScript (SorteioNode.draw_next_card)", draw_times, wall)
	var bridge = sorteio.get("_bridge")
	var ping_times := []
	for _i in range(draws_wanted):
		var before := OS.get_ticks_usec()
		bridge.request("ping", {})
		ping_times.append(OS.get_ticks_usec() - before)
	_report("socket ping round trip from GDScript", ping_times, 0)
	quit(0)


func _report(name: String, times: Array, wall_usec: int) -> void:
	times.sort()
	var total := 0
	for value in times:
		total += value
	var result := {
		"name": name,
		"n": times.size(),
		"p50_us": times[int(times.size() * 0.50)],
		"p99_us": times[min(times.size() - 1, int(times.size() * 0.99))],
		"mean_us": total / times.size(),
		"per_second": 1000000.0 * times.size() / total,
	}
	if wall_usec > 0:
		result["whole_match_loop_per_second"] = 1000000.0 * times.size() / wall_usec
	print("BENCH " + JSON.print(result))
