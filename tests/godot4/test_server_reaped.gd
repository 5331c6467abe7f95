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
		check(_exited(server), "[%s] the server exited" % how)
		sorteio.stop_bridge()
		check(sorteio.bridge_process_id() == -1, "[%s] stop_bridge leaves no server" % how)
		check(
			not DirAccess.dir_exists_absolute("/proc/%d" % server),
			"[%s] the server is gone, not a zombie" % how
		)
		sorteio.start_bridge()


## Waits (10 s at most, polling) until [param pid] has exited: gone (OS.kill reaps it) or a
## zombie (killed from outside). A fixed 200 ms assumed it had died by then; on a loaded machine
## the bridge could then stop a server still alive, not the case this script is about.
func _exited(pid: int) -> bool:
	var until := Time.get_ticks_msec() + 10000
	while Time.get_ticks_msec() < until:
		# open() returns null quietly for a PID with no /proc entry (get_file_as_string logs);
		# get_line, as /proc files have no length.
		var stat := FileAccess.open("/proc/%d/stat" % pid, FileAccess.READ)
		if stat == null or stat.get_line().get_slice(") ", 1).begins_with("Z"):
			return true
		OS.delay_msec(10)
	return false
