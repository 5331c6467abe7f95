extends "res://tests/lib/engine_test.gd"
## The socket server killed with OS.kill (which also reaps it) by the game, then the bridge
## stopped: the bridge finds the server gone without asking Godot about a reaped PID, which
## logged "ERROR: Thread <pid> exited with errno: 10" from stop_bridge (issue 14). Then the same
## with the server killed from outside (not reaped): stop_bridge reaps it quietly.

var sorteio: SorteioNode


func scenario() -> void:
	sorteio = autoload("Sorteio") as SorteioNode
	sorteio.print_warnings = false
	for how: String in ["OS.kill", "kill -KILL"]:
		check(await sorteio.wait_bridge_ready(), "[%s] the bridge is up" % how)
		var server: int = sorteio.bridge_process_id()
		check(server > 0, "[%s] a server runs" % how, str(server))
		if how == "OS.kill":
			OS.kill(server)
		else:
			OS.execute("kill", ["-KILL", str(server)])
		OS.delay_msec(200)
		sorteio.stop_bridge()
		check(sorteio.bridge_process_id() == -1, "[%s] stop_bridge leaves no server" % how)
		check(
			not DirAccess.dir_exists_absolute("/proc/%d" % server),
			"[%s] the server is gone, not a zombie" % how
		)
		sorteio.start_bridge()
