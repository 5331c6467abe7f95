extends "res://tests/lib/engine_test.gd"
## QA: the socket bridge with a Python that lacks sorteio, and with an interpreter that does
## not exist. Each start_match called before the bridge's first frame (as a game's _ready does
## with the autoload's autostart) gets one bridge_down, whose message says the cause and the fix.

var said: PackedStringArray = []


func scenario() -> void:
	check(await _start_with(arg("bare")), "a Python without sorteio fails start_match")
	check(said.size() == 1, "...bridge_down once", str(said))
	check(
		(
			said[0].begins_with("bridge_down")
			and said[0].contains("No module named 'sorteio'")
			and said[0].contains(".venv/bin/python")
			and said[0].contains("-m venv")
		),
		"...saying why, with a venv to make",
		str(said)
	)
	said.clear()
	check(await _start_with("/nonexistent/python"), "a missing interpreter fails start_match")
	check(said.size() == 1, "...bridge_down once too", str(said))
	check(
		said[0].contains("'/nonexistent/python'") and not said[0].contains("pid"),
		"...said not found, naming it",
		str(said)
	)
	said.clear()
	check(await _start_with("no-such-python-here"), "a name not on the PATH fails too")
	check(said.size() == 1 and said[0].contains("PATH"), "...saying PATH", str(said))


func _start_with(python: String) -> bool:
	var node: SorteioNode = SorteioNode.new()
	node.python_executable = python
	node.bridge_mode = SorteioNode.BRIDGE_SOCKET
	node.error_occurred.connect(
		func(message: String, code: String) -> void: said.append(code + ": " + message)
	)
	root.add_child(node)
	var started: bool = await node.start_match(1)
	await wait_frames(5)  # a second report would come by then
	node.queue_free()
	return not started
