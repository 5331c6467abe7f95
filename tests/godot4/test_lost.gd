extends "res://tests/lib/engine_test.gd"
## match_lost (issue 14): the socket server is killed mid-match; the node says the match is
## lost (signal, phase), never "awaiting_choice" with every call answering "no match";
## start_bridge() brings a new server that holds no match, and a save loads into it and the
## match continues. stop_bridge() mid-match loses it too. Prints SERVER_PID for each server.

var sorteio: SorteioNode
var codes: PackedStringArray = []


func scenario() -> void:
	sorteio = autoload("Sorteio") as SorteioNode
	sorteio.print_warnings = false
	sorteio.error_occurred.connect(func(_message: String, code: String) -> void: codes.append(code))
	check(await sorteio.start_match(4), "start_match")
	var card: SorteioCard = await sorteio.advance()
	var saved: Dictionary = await sorteio.save_state()
	var first_server: int = sorteio.bridge_process_id()
	print("SERVER_PID %d" % first_server)
	# Killed from outside, as a crash or the OOM killer would (OS.kill would also reap it).
	OS.execute("kill", ["-KILL", str(first_server)])
	var lost: Array = await wait_for(sorteio.match_lost, 10.0)
	check(
		lost.size() == 1 and str(lost[0]) != "", "match_lost comes when the server dies", str(lost)
	)
	check(
		sorteio.phase == SorteioNode.PHASE_LOST and not sorteio.is_match_in_play(),
		"the phase says lost",
		sorteio.phase
	)
	check(codes.has(SorteioNode.CODE_BRIDGE_DOWN), "error_occurred says bridge_down", str(codes))
	check(
		sorteio.is_bridge_failed() and sorteio.bridge_error != "",
		"the bridge is failed",
		sorteio.bridge_error
	)
	check(
		await sorteio.advance() == null and sorteio.last_error_code == SorteioNode.CODE_MATCH_LOST,
		"calls about the lost match are refused with match_lost",
		sorteio.last_error_code
	)
	check(
		sorteio.last_error.contains("load_state()"),
		"the refusal says how to go on",
		sorteio.last_error
	)
	check(sorteio.start_bridge(), "start_bridge() again")
	var ready: Array = await wait_for(sorteio.bridge_ready, 20.0)
	check(ready == [SorteioNode.BRIDGE_SOCKET], "a new server comes up", str(ready))
	print("SERVER_PID %d" % sorteio.bridge_process_id())
	check(
		sorteio.phase == SorteioNode.PHASE_LOST,
		"after reconnecting the match is still said lost",
		sorteio.phase
	)
	check(await sorteio.load_state(saved), "a save loads into the new server")
	var again: SorteioCard = await sorteio.advance()
	check(again != null and again.id == card.id, "and the match continues with its pending card")
	var stopped: Array = []
	sorteio.match_lost.connect(func(message: String) -> void: stopped.append(message))
	sorteio.stop_bridge()
	check(
		stopped.size() == 1 and sorteio.phase == SorteioNode.PHASE_LOST,
		"stop_bridge() mid-match loses it, said at once",
		str(stopped)
	)
	sorteio.abandon_match()
	check(sorteio.phase == SorteioNode.PHASE_NONE, "a lost match can be abandoned")
	check(sorteio.start_bridge(), "start_bridge() once more")
	await wait_for(sorteio.bridge_ready, 20.0)
	check(await sorteio.start_match(4), "a match to abandon", sorteio.last_error)
	codes.clear()
	# A quit to the menu: abandon_match() not awaited, the bridge stopped while its end_match
	# waits for the reply (the server paused, so the reply cannot come first).
	var server: int = sorteio.bridge_process_id()
	OS.execute("kill", ["-STOP", str(server)])
	sorteio.abandon_match()
	await process_frame
	OS.execute("kill", ["-CONT", str(server)])
	sorteio.stop_bridge()
	for _frame: int in 10:
		await process_frame
	check(
		sorteio.phase == SorteioNode.PHASE_NONE and codes.is_empty(),
		"abandon_match() then stop_bridge() at once is quiet",
		str(codes)
	)
	check(sorteio.start_bridge(), "and the bridge starts again")
	await wait_for(sorteio.bridge_ready, 20.0)
	check(await sorteio.start_match(5), "the next call is not stuck behind it", sorteio.last_error)
	sorteio.stop_bridge()
