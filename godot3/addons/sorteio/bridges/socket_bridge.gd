extends Reference
# Socket bridge: talks to `python -m sorteio.bridge.server` (or `sorteio serve`) on 127.0.0.1.
#
# Frames are a 4-byte big-endian byte length + UTF-8 JSON (see addons/sorteio/README.md).
# The server writes {"port", "token", "pid"} to a port file (mode 0600); we read it, connect,
# and send the token with every request. Reads never block: a dead or silent server turns
# into an error reply within request_timeout_ms, never a frozen game.

const Language := preload("res://addons/sorteio/sorteio_language.gd")
const HEADER_SIZE := 4
const MAX_FRAME := 1048576
const CODE_DOWN := "bridge_down"
# A node's own port file is user://PORT_FILE_PREFIX<game pid>_<node id>.json (see SorteioNode).
const PORT_FILE_PREFIX := "sorteio_bridge_"
# sorteio.bridge.server.LAUNCHER (tests/test_bridge_server.py checks they match): runs the server
# and writes any start-up error (e.g. "No module named 'sorteio'") to the file given first.
const LAUNCHER := (
	"import sys,os;e=sys.argv.pop(1);h=sys.excepthook;"
	+ "f=os.O_WRONLY|os.O_CREAT|os.O_TRUNC|getattr(os,'O_NOFOLLOW',0);"
	+ "sys.excepthook=lambda t,v,b:(h(t,v,b),"
	+ "os.write(os.open(e,f,0o600),('%s: %s'%(t.__name__,v)).encode()));"
	+ "from sorteio.bridge.server import main;sys.exit(main(sys.argv[1:],error_file=e))"
)

# Run before LAUNCHER: an ImportError (sorteio, or one of its dependencies, not installed in that
# Python) prints no traceback on the game's console; the launcher still writes it to the error
# file, and the node's one bridge_down message says it with the fix. Any other error keeps
# Python's traceback (a bug to report).
const QUIET_IMPORT_ERRORS := (
	"import sys;sys.excepthook=lambda t,v,b,d=sys.excepthook:"
	+ "None if issubclass(t,ImportError) else d(t,v,b);"
)

# The frozen server an exported game ships (scripts/export/sorteio_serve.py): `python` with this
# file name (+ ".exe") is run with the launcher's arguments, without `-c LAUNCHER`.
const FROZEN_SERVER := "sorteio-serve"

var python := "python3"
var port_file := ""
var join_existing := false
# Absolute path prefixes of the game's files (port files, deck copies) that the server removes
# when the game is gone, e.g. killed with SIGKILL (--game-files, docs/protocol.md).
var game_files := []
var startup_timeout_ms := 15000
var request_timeout_ms := 5000
var last_error := ""
var pid := -1

var _peer: StreamPeerTCP = null
var _token := ""
var _port := 0
var _deadline := 0
var _next_id := 0
var _status := "idle"
var _features := []  # what the server's first ping listed (an older server: none)


func kind() -> String:
	return "socket"


func start() -> bool:
	# Launch the server child (or join one whose port file exists) without waiting for it.
	_deadline = OS.get_ticks_msec() + startup_timeout_ms
	_status = "starting"
	if join_existing:
		return true
	var dir := Directory.new()
	if dir.file_exists(port_file):
		dir.remove(port_file)
	if dir.file_exists(_error_file()):
		dir.remove(_error_file())
	if not program_found(python):
		# Else the child forks, fails to exec and the message would say it "exited before it
		# was ready" (QA: SORTEIO_PYTHON=/nonexistent/python).
		var where := "" if "/" in python or "\\" in python else " on the PATH"
		_fail("the program '%s' was not found%s. %s" % [python, where, _fix_hint()])
		return false
	var args := PoolStringArray()
	if not is_frozen_server():
		args.append_array(PoolStringArray(["-c", QUIET_IMPORT_ERRORS + LAUNCHER]))
	args.append_array(
		PoolStringArray(
			[
				_error_file(),
				"--port",
				"0",
				"--port-file",
				port_file,
				"--parent-pid",
				str(OS.get_process_id()),
			]
		)
	)
	for prefix in game_files:
		args.append_array(PoolStringArray(["--game-files", prefix]))
	pid = OS.execute(python, args, false)
	if pid <= 0:
		pid = -1
		_fail("could not start the Python '%s'. %s" % [python, _fix_hint()])
		return false
	return true


static func program_found(program: String) -> bool:
	# True when `program` can be run: an existing file when it is a path, else a file of that
	# name (or name.exe, on Windows) in a folder of the PATH.
	var file := File.new()
	if "/" in program or "\\" in program:
		return file.file_exists(program)
	var windows := OS.get_name() == "Windows"
	var names := [program, program + ".exe"] if windows else [program]
	for folder in OS.get_environment("PATH").split(";" if windows else ":", false):
		for name in names:
			if file.file_exists(folder.plus_file(name)):
				return true
	return false


func is_frozen_server() -> bool:
	return python.get_file().get_basename() == FROZEN_SERVER


func live_pid() -> int:
	# The server child's PID while it runs; -1 once it exited (or none was started).
	if pid > 0 and not _child_alive():
		pid = -1
	return pid


func is_ready() -> bool:
	return _status == "ready"


func has_failed() -> bool:
	return _status == "failed"


func poll() -> bool:
	# One non-blocking step of the start-up; true once connected.
	if _status == "starting":
		_poll_port_file()
	if _status == "connecting":
		_poll_connection()
	if _status in ["starting", "connecting"] and OS.get_ticks_msec() > _deadline:
		var what := "did not write %s" % port_file
		if _status == "connecting":
			what = "did not accept a connection on port %d" % _port
		_fail("the sorteio server %s within %d ms%s" % [what, startup_timeout_ms, _child_said()])
		_stop_child()  # a server that never came up is of no use: do not leave it running
	return _status == "ready"


func wait_ready() -> bool:
	while _status in ["starting", "connecting"]:
		if poll():
			break
		OS.delay_msec(5)
	return _status == "ready"


func takes_deck_text() -> bool:
	# True when the server reads a deck's text in the request (deck_text): its first ping listed
	# it; a sorteio serve older than that lists no features (docs/protocol.md, "Features").
	return "deck_text" in _features


func max_request_bytes() -> int:
	# The largest request, in bytes of JSON: one frame (a deck's text over it goes as a file).
	return MAX_FRAME


func request(method: String, params: Dictionary) -> Dictionary:
	# Send one request and wait for its reply (bounded by request_timeout_ms).
	if not wait_ready():
		return _down_reply(last_error)
	_next_id += 1
	var message := {
		"id": _next_id,
		"token": _token,
		"method": method,
		"params": params,
		"lang": Language.protocol_lang()
	}
	var body := JSON.print(message).to_utf8()
	if body.size() > MAX_FRAME:
		return _error_reply("bad_request", "request of %d bytes is too large" % body.size())
	var frame := _header(body.size())
	frame.append_array(body)
	if _peer.put_data(frame) != OK:
		return _down_reply(_fail("the sorteio server closed the connection"))
	var deadline := OS.get_ticks_msec() + request_timeout_ms
	var header = _read_exactly(HEADER_SIZE, deadline)
	if header == null:
		return _down_reply(last_error)
	var length := _length(header)
	if length <= 0 or length > MAX_FRAME:
		return _down_reply(_fail("the sorteio server sent a bad frame of %d bytes" % length))
	var reply_body = _read_exactly(length, deadline)
	if reply_body == null:
		return _down_reply(last_error)
	var parsed := JSON.parse(reply_body.get_string_from_utf8())
	if parsed.error != OK or typeof(parsed.result) != TYPE_DICTIONARY:
		return _down_reply(_fail("the sorteio server sent a reply that is not JSON"))
	return parsed.result


func close() -> void:
	if _peer != null:
		_peer.disconnect_from_host()
		_peer = null
	_stop_child()
	_remove_own_files()
	if _status != "failed":
		_status = "closed"


static func clear_stale_port_files(dir_path: String, prefix := PORT_FILE_PREFIX) -> int:
	# Remove the files `prefix<pid>.json*` in dir_path left by games that are no longer running
	# (a game killed or crashed never removes its own). Keeps those of running games and, where
	# a process cannot be checked (no /proc), everything. Returns how many were removed.
	var dir := Directory.new()
	if not dir.dir_exists("/proc/self") or dir.open(dir_path) != OK:
		return 0
	var stale := []
	dir.list_dir_begin(true, true)
	var name := dir.get_next()
	while name != "":
		if name.begins_with(prefix) and not dir.current_is_dir():
			# <pid>.json (older games) or <pid>_<node id>.json
			var number: String = name.substr(prefix.length()).split(".")[0].split("_")[0]
			if number.is_valid_integer() and not _process_alive(int(number)):
				stale.append(name)
		name = dir.get_next()
	dir.list_dir_end()
	for stale_name in stale:
		dir.remove(dir_path.plus_file(stale_name))
	return stale.size()


static func _process_alive(process_id: int) -> bool:
	# Linux: /proc/<pid>/stat says whether it runs or is a zombie (gone, not yet reaped).
	if process_id <= 0:
		return false
	var file := File.new()
	var path := "/proc/%d/stat" % process_id
	if not file.file_exists(path):
		return false
	if file.open(path, File.READ) != OK:
		return true
	var stat := file.get_line()
	file.close()
	var after_name := stat.find_last(")")
	return after_name < 0 or stat.substr(after_name + 2, 1) != "Z"


func _poll_port_file() -> void:
	var file := File.new()
	if not file.file_exists(port_file):
		if pid > 0 and not _child_alive():
			var dead := pid
			pid = -1
			_fail(
				(
					"the sorteio server (%s, pid %d) exited before it was ready%s. %s"
					% [python, dead, _child_said(), _fix_hint()]
				)
			)
		return
	if file.open(port_file, File.READ) != OK:
		return
	var parsed := JSON.parse(file.get_as_text())
	file.close()
	if parsed.error != OK or typeof(parsed.result) != TYPE_DICTIONARY:
		return  # being written: try again on the next poll
	var info: Dictionary = parsed.result
	_port = int(info.get("port", 0))
	_token = str(info.get("token", ""))
	_peer = StreamPeerTCP.new()
	if _peer.connect_to_host("127.0.0.1", _port) != OK:
		_fail("cannot connect to the sorteio server on port %d" % _port)
		return
	_status = "connecting"


func _poll_connection() -> void:
	var status := _peer.get_status()
	if status == StreamPeerTCP.STATUS_CONNECTED:
		_peer.set_no_delay(true)
		_status = "ready"
		# Authenticate now: the server closes a connection that sends no request with the token
		# within its AUTH_TIMEOUT (10 s), and a game may wait longer before its first call.
		var reply := request("ping", {})
		var features = reply.get("result", {}).get("features", []) if reply.get("ok") else []
		_features = features if typeof(features) == TYPE_ARRAY else []
		if not reply.get("ok", false) and _status == "ready":
			var error: Dictionary = reply.get("error", {})
			_fail("the sorteio server refused the first ping: %s" % error.get("message", reply))
	elif status != StreamPeerTCP.STATUS_CONNECTING:
		_fail("the sorteio server refused the connection on port %d" % _port)


func _child_alive() -> bool:
	# Elsewhere than Linux (no /proc): assume alive and let the start-up timeout decide.
	if not Directory.new().dir_exists("/proc/self"):
		return true
	return _process_alive(pid)


func _stop_child() -> void:
	# SIGTERM first: the server stops cleanly (it removes its port file, which holds the token).
	# OS.kill is SIGKILL on Linux, kept for a server that does not stop within 2 s.
	if pid <= 0:
		return
	var terminated := false
	if OS.get_name() in ["X11", "OSX", "Server", "LinuxBSD", "macOS"] and _child_alive():
		terminated = OS.execute("kill", PoolStringArray(["-TERM", str(pid)]), true) == 0
	var until := OS.get_ticks_msec() + 2000
	while terminated and _child_alive() and OS.get_ticks_msec() < until:
		OS.delay_msec(5)
	# Also once it exited: a child that stopped on SIGTERM stays a zombie (its /proc entry) until
	# reaped, and Godot's OS.kill reaps it (waitpid); the PID is not reused before that.
	if _child_alive() or Directory.new().dir_exists("/proc/%d" % pid):
		OS.kill(pid)
	pid = -1


func _remove_own_files() -> void:
	# The port file and the launcher's error file of a server this bridge started (never those
	# of a server it joined).
	if join_existing or port_file == "":
		return
	var dir := Directory.new()
	for path in [port_file, _error_file()]:
		if dir.file_exists(path):
			dir.remove(path)


func _read_exactly(count: int, deadline: int):
	var data := PoolByteArray()
	while data.size() < count:
		if _peer == null or not _peer.is_connected_to_host():
			_fail("the sorteio server closed the connection")
			return null
		var got: Array = _peer.get_partial_data(count - data.size())
		if got[0] != OK:
			_fail("the sorteio server closed the connection")
			return null
		if got[1].size() > 0:
			data.append_array(got[1])
		elif OS.get_ticks_msec() > deadline:
			_fail("the sorteio server did not answer within %d ms" % request_timeout_ms)
			return null
		else:
			OS.delay_usec(50)
	return data


func _header(length: int) -> PoolByteArray:
	return PoolByteArray(
		[(length >> 24) & 255, (length >> 16) & 255, (length >> 8) & 255, length & 255]
	)


func _length(header: PoolByteArray) -> int:
	return (header[0] << 24) | (header[1] << 16) | (header[2] << 8) | header[3]


func _error_file() -> String:
	return port_file + ".err"


func _child_said() -> String:
	# The server's own start-up error, written by LAUNCHER ("" when there is none).
	if join_existing:
		return ""
	var file := File.new()
	if not file.file_exists(_error_file()) or file.open(_error_file(), File.READ) != OK:
		return ""
	var text := file.get_as_text().strip_edges()
	file.close()
	Directory.new().remove(_error_file())
	return ": Python said: " + text if text != "" else ""


func _fix_hint() -> String:
	# For a game programmer: what to install and where to point the node (addons README).
	if is_frozen_server():
		return "The frozen server shipped with the game failed; rebuild the export (make export)"
	return (
		"The socket bridge needs a Python 3.8 or later with the sorteio package installed, in a "
		+ "venv (the system's Python refuses pip on Debian and Ubuntu): "
		+ _install_command()
		+ " (see addons/sorteio/README.md, Install); then point SORTEIO_PYTHON, the project "
		+ "setting sorteio/python or the node's python_executable at "
		+ _venv_python()
	)


static func _install_command() -> String:
	# A venv, as the README says: Debian 12 and Ubuntu's python3 refuse a bare pip install
	# (PEP 668, "externally-managed-environment"). The release zip's installer picks the wheel
	# that fits that Python: the compiled kernel (manylinux, one CPython version) or the pure one
	# (scripts/install_wheel.py).
	var installer := "res://addons/sorteio/wheel/install.py"
	var install := "-m pip install " + _package_to_install()
	if File.new().file_exists(installer):
		install = ProjectSettings.globalize_path(installer)
	var system_python := "py" if OS.get_name() == "Windows" else "python3"
	return "%s -m venv %s && %s %s" % [system_python, _venv(), _venv_python(), install]


static func _venv() -> String:
	# The project's own .venv (Godot skips folders whose name starts with a dot).
	return ProjectSettings.globalize_path("res://").plus_file(".venv")


static func _venv_python() -> String:
	if OS.get_name() == "Windows":
		return _venv().plus_file("Scripts/python.exe")
	return _venv().plus_file("bin/python")


static func _package_to_install() -> String:
	# The release zip carries the package as a wheel: name the file a zip user has, not a
	# checkout they lack.
	var wheels := []
	var dir := Directory.new()
	if dir.open("res://addons/sorteio/wheel") == OK and dir.list_dir_begin(true, true) == OK:
		var name := dir.get_next()
		while name != "":
			if name.get_extension() == "whl":
				wheels.append(name)
			name = dir.get_next()
		dir.list_dir_end()
	if wheels.empty():
		return "/path/to/a/sorteio/checkout"
	wheels.sort()
	return ProjectSettings.globalize_path("res://addons/sorteio/wheel/" + wheels[-1])


func _fail(message: String) -> String:
	last_error = message
	_status = "failed"
	if _peer != null:
		_peer.disconnect_from_host()
	return message


func _down_reply(message: String) -> Dictionary:
	return _error_reply(CODE_DOWN, message)


func _error_reply(code: String, message: String) -> Dictionary:
	return {"id": null, "ok": false, "error": {"code": code, "message": message}}
