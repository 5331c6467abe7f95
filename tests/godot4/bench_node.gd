extends "res://tests/lib/engine_test.gd"
## Godot 4 bridge figures, timed from GDScript (benchmarks/bench_godot4.py runs it; not a test).
## --bridge=socket|python --matches=N --restarts=R. Prints one line "BENCH <json>" with the raw
## samples: startup (start_bridge() to bridge_ready, ms; the first is the process's first),
## stop (stop_bridge(), ms),
## draw (await Sorteio.draw_next_card(), us), ping (a bare request round trip, us), match
## (start_match() to its end, ms), new_match (start_match() alone, ms).


func scenario() -> void:
	time_limit_s = 1200.0
	var sorteio: SorteioNode = autoload("Sorteio") as SorteioNode
	sorteio.stop_bridge()
	sorteio.bridge_mode = arg("bridge", SorteioNode.BRIDGE_SOCKET)
	var samples: Dictionary = {
		"startup": [], "stop": [], "draw": [], "ping": [], "match": [], "new_match": []
	}
	for round_number: int in int(arg("restarts", "4")):
		if round_number > 0:
			var stopping: int = Time.get_ticks_usec()
			sorteio.stop_bridge()  # the socket server: SIGTERM, then wait for it to exit
			samples["stop"].append((Time.get_ticks_usec() - stopping) / 1000.0)
		var began: int = Time.get_ticks_usec()
		if not check(sorteio.start_bridge(), "start_bridge", sorteio.bridge_error):
			return
		await sorteio.wait_bridge_ready()
		samples["startup"].append((Time.get_ticks_usec() - began) / 1000.0)
	print("BRIDGE %s" % sorteio.bridge_kind)
	var bridge: SorteioBridge = sorteio.get("_bridge")
	for _ping: int in 300:
		var began: int = Time.get_ticks_usec()
		@warning_ignore("redundant_await")
		await bridge.request("ping", {})
		samples["ping"].append(Time.get_ticks_usec() - began)
	for game: int in int(arg("matches", "50")):
		sorteio.abandon_match()
		var began: int = Time.get_ticks_usec()
		await sorteio.start_match(game)
		samples["new_match"].append((Time.get_ticks_usec() - began) / 1000.0)
		while not sorteio.is_match_over():
			if sorteio.phase == SorteioNode.PHASE_TURN_START:
				await sorteio.start_turn()
			var drawn: int = Time.get_ticks_usec()
			var card: SorteioCard = await sorteio.draw_next_card()
			if card == null:
				continue
			samples["draw"].append(Time.get_ticks_usec() - drawn)
			await sorteio.choose_side(SIDE_LEFT if game % 2 else SIDE_RIGHT)
		samples["match"].append((Time.get_ticks_usec() - began) / 1000.0)
	check(sorteio.last_error == "", "no error", sorteio.last_error)
	print("BENCH %s" % JSON.stringify(samples))
