extends SceneTree
## Times one Godot 4 bridge from GDScript (benchmarks/bench_godot4_bridges.py runs it):
## start to ready, one draw (start_turn + draw + choose, the draw request alone timed) p50/p99,
## and a whole match. User args: --bridge=python|socket --draws=N. Prints "BENCH key=value" lines.


func _initialize() -> void:
	_run.call_deferred()


func _run() -> void:
	var kind: String = _arg("bridge", "python")
	var path: String = "res://addons/sorteio/bridges/%s_bridge.gd" % kind
	if not ResourceLoader.exists(path):
		print("BENCH unavailable=%s" % path)
		quit(2)
		return
	var engine_started_ms: int = Time.get_ticks_msec()  # ms since the engine started
	var started: int = Time.get_ticks_usec()
	# Object, not SorteioBridge: the base class's request() is no coroutine, so awaiting it through
	# that type warns (redundant_await) although every real bridge's request() is one.
	var bridge: Object = (load(path) as GDScript).new()
	if not bridge.start(root):
		print("BENCH failed=%s" % bridge.failure())
		quit(1)
		return
	while not bridge.poll():
		if bridge.has_failed():
			print("BENCH failed=%s" % bridge.failure())
			quit(1)
			return
		await process_frame
	print("BENCH ready_ms=%.1f" % ((Time.get_ticks_usec() - started) / 1e3))
	print("BENCH engine_to_ready_ms=%d" % (engine_started_ms + int((Time.get_ticks_usec() - started) / 1000.0)))
	var draws: Array[float] = []
	var wanted: int = int(_arg("draws", "2000"))
	var seed_value: int = 0
	while draws.size() < wanted:
		seed_value += 1
		await bridge.request("new_match", {"seed": seed_value})
		await _match(bridge, draws)
	draws.sort()
	print("BENCH draws=%d" % draws.size())
	print("BENCH draw_p50_us=%.1f" % draws[int(draws.size() / 2.0)])
	print("BENCH draw_p99_us=%.1f" % draws[int(draws.size() * 0.99)])
	var matches: Array[float] = []
	for index: int in 5:
		await bridge.request("new_match", {"seed": 1000 + index})
		var match_started: int = Time.get_ticks_usec()
		await _match(bridge, [] as Array[float])
		matches.append((Time.get_ticks_usec() - match_started) / 1e3)
	matches.sort()
	print("BENCH match_ms_median=%.1f" % matches[int(matches.size() / 2.0)])
	bridge.close()
	quit(0)


func _match(bridge: Object, draws: Array[float]) -> void:
	while true:
		var turn: Dictionary = await bridge.request("start_turn", {})
		if not turn.get("ok", false):
			return
		while true:
			var before: int = Time.get_ticks_usec()
			var drawn: Dictionary = await bridge.request("draw", {})
			draws.append(float(Time.get_ticks_usec() - before))
			var result: Dictionary = drawn.get("result", {})
			if result.get("ending") != null:
				return
			if result.get("draw") == null:
				break
			var draw: Dictionary = result["draw"]
			var option: int = int(draw["slot"]) % (draw["card"]["opcoes"] as Array).size()
			var chosen: Dictionary = await bridge.request("choose", {"option": option})
			if chosen.get("ok", false) and chosen["result"].get("ending") != null:
				return


func _arg(name: String, default: String) -> String:
	for given: String in OS.get_cmdline_user_args():
		if given.begins_with("--%s=" % name):
			return given.split("=", true, 1)[1]
	return default
