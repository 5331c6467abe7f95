extends "res://tests/lib/engine_test.gd"
## In-process bridge (Godot 4, issue 13): the game quits while Python still works in a thread of
## its interpreter. tests/test_godot4_python_quit.py runs it several times and fails on a
## non-zero exit, a signal or any unexpected error line.
##
## --deck=ABSOLUTE_PATH: a big deck, whose new_match is over a second of Python work.
## --phase=measure: awaits the big deck's new_match and prints "TOOK S" (seconds).
## --phase=request: starts it and quits --after-ms=MS later, its work thread still running.
## --phase=release: plays the big match, replaces it with the built-in deck's (the Python side
## then frees the big one in pieces in a thread) and quits MS after that.
## --close: closes the bridge before quitting (what SorteioNode does on _exit_tree and on the
## window's close request); without it the bridge is left as it is (a game that uses the bridge
## directly and never closes it).
## Prints "QUIT phase=P after_ms=MS" just before quitting.


func scenario() -> void:
	var phase: String = arg("phase", "request")
	var after_ms: int = int(arg("after-ms", "0"))
	var bridge := SorteioPythonBridge.new()
	if not check(bridge.start(root), "the bridge starts", bridge.failure()):
		return
	var big: Dictionary = {"deck": arg("deck"), "seed": 1}
	var reply: Dictionary = {}
	if phase == "measure":
		var started: int = Time.get_ticks_usec()
		reply = await bridge.request("new_match", big)
		check(reply.get("ok", false), "the big deck's new_match succeeds", str(reply).left(300))
		print("TOOK %.3f" % ((Time.get_ticks_usec() - started) / 1e6))
	elif phase == "release":
		reply = await bridge.request("new_match", big)
		check(reply.get("ok", false), "the big deck's new_match succeeds", str(reply).left(300))
		reply = await bridge.request("new_match", {"seed": 2})
		check(reply.get("ok", false), "the small new_match replaces it", str(reply).left(300))
	else:
		bridge.request.call("new_match", big)  # not awaited: the game quits meanwhile
	var waited_from: int = Time.get_ticks_msec()
	while Time.get_ticks_msec() - waited_from < after_ms:
		await process_frame
	if arg("close") == "true":
		bridge.close()
	print("QUIT phase=%s after_ms=%d" % [phase, after_ms])
