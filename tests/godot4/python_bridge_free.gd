extends "res://tests/lib/engine_test.gd"
## Freeing what waits on a bridge (Godot 4): tests/test_godot4_python_free.py runs it with
## Godot's --verbose, which lists at exit every object and resource still alive, and fails on
## any leak or unexpected error line.
##
## --phase=free (with --bridge=python|socket): a second SorteioNode (besides the autoload)
## starts a match (--deck=PATH, default "padrao"), not awaited; one frame later the node is
## freed, its request still pending. Its pending calls must end (nothing of them may outlive
## the node); --frames=N frames run after (default 10), then the game quits.
## --phase=threaded: --requests=N (default 4) threaded in-process requests (new_match) in a
## row on one SorteioPythonBridge, each awaited, then the bridge is closed and dropped.
## Prints "FREED phase=P" just before quitting.


func scenario() -> void:
	var phase: String = arg("phase", "free")
	if phase == "threaded":
		await _threaded(int(arg("requests", "4")))
	else:
		await _free_mid_request(arg("bridge", "python"), int(arg("frames", "10")))
	print("FREED phase=%s" % phase)


func _free_mid_request(mode: String, frames: int) -> void:
	var node: SorteioNode = SorteioNode.new()
	node.bridge_mode = mode
	node.print_warnings = false
	root.add_child(node)
	if mode == "socket":  # the server must be up, so that the freed node's request is pending
		check(await node.wait_bridge_ready(), "the socket bridge comes up", node.bridge_error)
	node.start_match.call(3, arg("deck", "padrao"))  # not awaited: freed while it is pending
	await process_frame
	check(is_instance_valid(node), "the node still exists one frame later")
	check(not node.is_match_in_play(), "the request is still pending when the node is freed")
	node.queue_free()
	await wait_frames(frames)
	check(not is_instance_valid(node), "the node is freed")


func _threaded(requests: int) -> void:
	var bridge: SorteioPythonBridge = SorteioPythonBridge.new()
	if not check(bridge.start(root), "the bridge starts", bridge.failure()):
		return
	var answered: int = 0
	for at: int in range(requests):
		var reply: Dictionary = await bridge.request("new_match", {"seed": at + 1})
		if reply.get("ok", false):
			answered += 1
	check(
		answered == requests,
		"every threaded request is answered",
		"%d of %d" % [answered, requests]
	)
	bridge.close()
