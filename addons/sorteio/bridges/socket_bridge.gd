extends SorteioBridge
## The socket bridge: a [code]sorteio serve[/code] child on 127.0.0.1, spoken to in framed JSON.
##
## Frames are a 4-byte big-endian byte length and that many bytes of UTF-8 JSON (docs/protocol.md,
## "Socket bridge"). The server writes [code]{"port", "token", "pid"}[/code] to a port file
## (mode 0600); the bridge reads it, connects, and sends the token with every request.
## Nothing here blocks a frame for long: start-up is polled once a frame, and a request waits for
## its reply a short while in place (a draw answers in a fraction of a millisecond) and then
## awaits frames until the reply comes or its time runs out. A server that dies turns into
## [signal SorteioBridge.failed] at the next poll or request.

## Bytes of a frame's length header (big-endian).
const HEADER_SIZE: int = 4
## The largest frame, in bytes, either side sends (1 MiB); a longer one is refused.
const MAX_FRAME: int = 1048576
## A node's own port file is user://PORT_FILE_PREFIX<game pid>_<node id>.json.
const PORT_FILE_PREFIX: String = "sorteio_bridge_"
## sorteio.bridge.server.LAUNCHER (tests/test_godot4_node.py checks they match): runs the server
## and writes any start-up error (e.g. "No module named 'sorteio'") to the file given first.
const LAUNCHER: String = (
	"import sys,os;e=sys.argv.pop(1);h=sys.excepthook;"
	+ "f=os.O_WRONLY|os.O_CREAT|os.O_TRUNC|getattr(os,'O_NOFOLLOW',0);"
	+ "sys.excepthook=lambda t,v,b:(h(t,v,b),"
	+ "os.write(os.open(e,f,0o600),('%s: %s'%(t.__name__,v)).encode()));"
	+ "from sorteio.bridge.server import main;sys.exit(main(sys.argv[1:],error_file=e))"
)
## Run before [constant LAUNCHER]: an ImportError (sorteio, or one of its dependencies, not
## installed in that Python) prints no traceback on the game's console; the launcher still writes
## it to the error file, and the node's one bridge_down message says it with the fix. Any other
## error keeps Python's traceback (a bug to report).
const QUIET_IMPORT_ERRORS: String = (
	"import sys;sys.excepthook=lambda t,v,b,d=sys.excepthook:"
	+ "None if issubclass(t,ImportError) else d(t,v,b);"
)
## The frozen server an exported game ships beside itself: run with the launcher's arguments,
## without [code]-c LAUNCHER[/code].
const FROZEN_SERVER: String = "sorteio-serve"
## Requests that read and compile a deck: the server answers them from a worker thread within
## 30 s (else a [code]timeout[/code] reply), so the bridge waits a little longer for them.
const SLOW_METHODS: PackedStringArray = ["new_match", "load"]
## How long a [constant SLOW_METHODS] request waits for its reply (milliseconds).
const SLOW_REQUEST_TIMEOUT_MS: int = 35000
## How long a request waits for its reply in place before it lets frames run (microseconds).
const SPIN_USEC: int = 2000

## The interpreter (or frozen server) to start.
var python: String = "python3"
## Absolute path of the port file: the server writes it, or (join_existing) it already exists.
var port_file: String = ""
## Join the server whose port file is [member port_file] instead of starting one.
var join_existing: bool = false
## Absolute path prefixes of the game's files (port files, deck copies) that the server removes
## when the game is gone, e.g. killed with SIGKILL ([code]--game-files[/code], docs/protocol.md).
var game_files: PackedStringArray = []
## How long [method start] waits for the server's port file and connection (milliseconds).
var startup_timeout_ms: int = 15000
## How long any other request waits for its reply (milliseconds).
var request_timeout_ms: int = 5000
## The server child's PID (-1: none, exited, or a joined server).
var pid: int = -1

var _owner: Node = null
var _peer: StreamPeerTCP = null
var _token: String = ""
var _port: int = 0
var _deadline: int = 0
var _next_id: int = 0
var _status: String = "idle"
var _error: String = ""
# What the server answered in the first ping's features (an older server: none).
var _features: Array = []


## Always [code]"socket"[/code] ([constant SorteioNode.BRIDGE_SOCKET]).
func kind() -> String:
	return "socket"


## Launches the server child (or prepares to join one) without waiting for it.
func start(owner: Node) -> bool:
	_owner = owner
	_deadline = Time.get_ticks_msec() + startup_timeout_ms
	_status = "starting"
	if join_existing:
		return true
	for path: String in [port_file, _error_file()]:
		if FileAccess.file_exists(path):
			DirAccess.remove_absolute(path)
	if not program_found(python):
		# Else the child forks, fails to exec and the message would say it "exited before it
		# was ready" (QA: SORTEIO_PYTHON=/nonexistent/python).
		var missing: String = SorteioI18n.t("o programa '%s' não foi encontrado") % python
		if not python.contains("/") and not python.contains("\\"):
			missing = SorteioI18n.t("o programa '%s' não foi encontrado no PATH") % python
		_fail("%s. %s" % [missing, _fix_hint()])
		return false
	var args: PackedStringArray = []
	if not is_frozen_server():
		args.append_array(["-c", QUIET_IMPORT_ERRORS + LAUNCHER])
	(
		args
		. append_array(
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
	for prefix: String in game_files:
		args.append_array(["--game-files", prefix])
	pid = OS.create_process(python, args)
	if pid <= 0:
		pid = -1
		_fail(SorteioI18n.t("não foi possível iniciar o Python '%s'. %s") % [python, _fix_hint()])
		return false
	return true


## True when [param program] can be run: an existing file when it is a path, else a file of
## that name (or name.exe, on Windows) in a folder of the PATH.
static func program_found(program: String) -> bool:
	if program.contains("/") or program.contains("\\"):
		return FileAccess.file_exists(program)
	var windows: bool = OS.get_name() == "Windows"
	for folder: String in OS.get_environment("PATH").split(";" if windows else ":", false):
		for name: String in [program, program + ".exe"] if windows else [program]:
			if FileAccess.file_exists(folder.path_join(name)):
				return true
	return false


## True when [member python] names the frozen server (sorteio-serve[.exe]).
func is_frozen_server() -> bool:
	return python.get_file().get_basename() == FROZEN_SERVER


## The server child's PID while it runs; -1 once it exited (or none was started).
func live_pid() -> int:
	_child_running()
	return pid


## True once connected to the server.
func is_ready() -> bool:
	return _status == "ready"


## True when start-up failed or the server died.
func has_failed() -> bool:
	return _status == "failed"


## Why the bridge failed, with what to do ("" while it has not).
func failure() -> String:
	return _error


## One non-blocking step: start-up while starting, and once ready a check that the server is
## still there (a dead one fails the bridge, so the node can say the match is lost).
func poll() -> bool:
	match _status:
		"starting":
			_poll_port_file()
		"ready":
			_check_alive()
	if _status == "connecting":
		_poll_connection()
	if (
		_status in ["starting", "connecting", "authenticating"]
		and Time.get_ticks_msec() > _deadline
	):
		var what: String = SorteioI18n.t("não escreveu %s") % port_file
		if _status == "connecting":
			what = SorteioI18n.t("não aceitou uma conexão na porta %d") % _port
		elif _status == "authenticating":
			what = SorteioI18n.t("não respondeu ao primeiro ping na porta %d") % _port
		_fail(
			(
				SorteioI18n.t("o servidor do sorteio %s em %d ms%s")
				% [what, startup_timeout_ms, _child_said()]
			)
		)
		_stop_child()  # a server that never came up is of no use: do not leave it running
	return _status == "ready"


## True when the server's first ping listed [code]deck_text[/code] in its features (see
## [method SorteioBridge.takes_deck_text]); a server older than that field lists none.
func takes_deck_text() -> bool:
	return "deck_text" in _features


## One frame: 1 MiB (see [method SorteioBridge.max_request_bytes]).
func max_request_bytes() -> int:
	return MAX_FRAME


## Sends one request and returns its reply (see [method SorteioBridge.request]). Await it.
func request(method: String, params: Dictionary) -> Dictionary:
	if _status != "ready" and _status != "authenticating":
		return SorteioBridge.error_reply(
			"bridge_down", _error if _error != "" else SorteioI18n.t("não está pronta")
		)
	_next_id += 1
	var message: Dictionary = {
		"id": _next_id,
		"token": _token,
		"method": method,
		"params": params,
		"lang": SorteioI18n.protocol_lang()  # the session speaks the addon's language
	}
	var body: PackedByteArray = JSON.stringify(message).to_utf8_buffer()
	if body.size() > MAX_FRAME:
		return SorteioBridge.error_reply(
			"bad_request", SorteioI18n.t("pedido de %d bytes grande demais") % body.size()
		)
	var frame: PackedByteArray = _header(body.size())
	frame.append_array(body)
	if _peer.put_data(frame) != OK:
		return _down(SorteioI18n.t("o servidor do sorteio fechou a conexão"))
	var limit: int = SLOW_REQUEST_TIMEOUT_MS if method in SLOW_METHODS else request_timeout_ms
	var deadline: int = Time.get_ticks_msec() + maxi(limit, request_timeout_ms)
	var header: PackedByteArray = await _read_exactly(HEADER_SIZE, deadline, limit)
	if _status == "failed":
		return _down(_error)
	var length: int = _length(header)
	if length <= 0 or length > MAX_FRAME:
		return _down(
			SorteioI18n.t("o servidor do sorteio enviou um quadro inválido de %d bytes") % length
		)
	var reply_body: PackedByteArray = await _read_exactly(length, deadline, limit)
	if _status == "failed":
		return _down(_error)
	var parsed: Variant = JSON.parse_string(reply_body.get_string_from_utf8())
	if not parsed is Dictionary:
		return _down(SorteioI18n.t("o servidor do sorteio enviou uma resposta que não é JSON"))
	return SorteioBridge.whole_numbers_as_ints(parsed)


## Closes the connection, stops the server child (SIGTERM first, so it removes its own files and
## a frozen server its unpacked folder) and removes this bridge's port and error files.
func close() -> void:
	if _peer != null:
		_peer.disconnect_from_host()
		_peer = null
	_stop_child()
	_remove_own_files()
	if _status != "failed":
		_status = "closed"
	wake_waiters()  # a request still waiting ends now, inside this call, with bridge_down


## Removes the files [code]PREFIX<pid>*.json*[/code] in [param dir_path] of games no longer
## running (a game killed or crashed never removes its own). Keeps those of running games and,
## where a process cannot be checked (no /proc), everything. Returns how many were removed.
static func clear_stale_port_files(dir_path: String, prefix: String = PORT_FILE_PREFIX) -> int:
	if not DirAccess.dir_exists_absolute("/proc/self"):
		return 0
	var removed: int = 0
	for name: String in DirAccess.get_files_at(dir_path):
		if not name.begins_with(prefix):
			continue
		# <pid>.json (older games) or <pid>_<node id>.json
		var number: String = name.substr(prefix.length()).split(".")[0].split("_")[0]
		if number.is_valid_int() and not _process_alive(int(number)):
			if DirAccess.remove_absolute(dir_path.path_join(name)) == OK:
				removed += 1
	return removed


static func _process_alive(process_id: int) -> bool:
	# Another program's process (not our child): /proc/<pid>/stat, a zombie counts as gone.
	if process_id <= 0:
		return false
	var path: String = "/proc/%d/stat" % process_id
	if not FileAccess.file_exists(path):
		return false
	var stat: String = FileAccess.get_file_as_string(path)
	var after_name: int = stat.rfind(")")
	return after_name < 0 or stat.substr(after_name + 2, 1) != "Z"


func _poll_port_file() -> void:
	if not FileAccess.file_exists(port_file):
		var dead: int = pid
		if dead > 0 and not _child_running():
			_fail(
				(
					SorteioI18n.t(
						"o servidor do sorteio (%s, pid %d) saiu antes de ficar pronto%s. %s"
					)
					% [python, dead, _child_said(), _fix_hint()]
				)
			)
		return
	var parsed: Variant = JSON.parse_string(FileAccess.get_file_as_string(port_file))
	if not parsed is Dictionary:
		return  # being written: try again on the next poll
	var info: Dictionary = parsed
	_port = int(info.get("port", 0))
	_token = str(info.get("token", ""))
	_peer = StreamPeerTCP.new()
	if _peer.connect_to_host("127.0.0.1", _port) != OK:
		_fail(SorteioI18n.t("não foi possível conectar ao servidor do sorteio na porta %d") % _port)
		return
	_status = "connecting"


func _poll_connection() -> void:
	_peer.poll()
	var status: StreamPeerTCP.Status = _peer.get_status()
	if status == StreamPeerTCP.STATUS_CONNECTED:
		_peer.set_no_delay(true)
		_status = "authenticating"
		_authenticate()
	elif status != StreamPeerTCP.STATUS_CONNECTING:
		_fail(SorteioI18n.t("o servidor do sorteio recusou a conexão na porta %d") % _port)


func _authenticate() -> void:
	# At once: the server closes a connection that sends no request with the token within 10 s,
	# and a game may wait longer than that before its first call.
	var reply: Dictionary = await request("ping", {})
	if _status != "authenticating":
		return
	if not reply.get("ok", false):
		var error: Dictionary = reply.get("error", {})
		_fail(
			(
				SorteioI18n.t("o servidor do sorteio recusou o primeiro ping: %s")
				% error.get("message", reply)
			)
		)
		return
	var features: Variant = reply.get("result", {}).get("features", [])
	_features = features if features is Array else []
	_status = "ready"
	became_ready.emit()


func _check_alive() -> void:
	_peer.poll()
	if _peer.get_status() != StreamPeerTCP.STATUS_CONNECTED:
		_fail(SorteioI18n.t("o servidor do sorteio fechou a conexão"))
	elif pid > 0 and not _child_running():
		_fail(SorteioI18n.t("o servidor do sorteio (%s) saiu") % python)


func _read_exactly(count: int, deadline: int, limit: int) -> PackedByteArray:
	var data: PackedByteArray = []
	var spin_until: int = Time.get_ticks_usec() + SPIN_USEC
	var waker: FrameWaker = null  # made at the first frame waited (SorteioBridge.FrameWaker)
	while data.size() < count:
		if _peer == null:  # close() while this call waited (stop_bridge(), or its node freed)
			_fail(SorteioI18n.t("o servidor do sorteio fechou a conexão"))
			break
		_peer.poll()
		if _peer.get_status() != StreamPeerTCP.STATUS_CONNECTED:
			_fail(SorteioI18n.t("o servidor do sorteio fechou a conexão"))
			break
		var available: int = _peer.get_available_bytes()
		if available > 0:
			var got: Array = _peer.get_partial_data(mini(available, count - data.size()))
			if got[0] != OK:
				_fail(SorteioI18n.t("o servidor do sorteio fechou a conexão"))
				break
			data.append_array(got[1])
		elif Time.get_ticks_msec() > deadline:
			_fail(SorteioI18n.t("o servidor do sorteio não respondeu em %d ms") % limit)
			break
		elif (
			Time.get_ticks_usec() < spin_until
			or not is_instance_valid(_owner)
			or not _owner.is_inside_tree()
		):
			OS.delay_usec(20)
		else:
			if waker == null:
				waker = frame_waker()
			await waker.woke  # a slow request: let the game's frames run (close() wakes it)
	if waker != null:
		waker.stop()
	return data


func _child_running() -> bool:
	# Our child: OS.is_process_running reaps it once it exited, and asking again about a reaped
	# PID logs an engine error, so the PID is forgotten the first time it is found gone. Someone
	# else may have reaped it already (OS.kill waits for the process it kills, e.g. a game or a
	# test killing the server by bridge_process_id()): Godot then logs "Thread <pid> exited with
	# errno: 10" (ECHILD). Where /proc tells, a PID with no /proc entry is gone without asking.
	if pid <= 0:
		return false
	if (
		DirAccess.dir_exists_absolute("/proc/self")
		and not DirAccess.dir_exists_absolute("/proc/%d" % pid)
	):
		pid = -1
		return false
	if OS.is_process_running(pid):
		return true
	pid = -1
	return false


func _stop_child() -> void:
	if _child_running():
		# SIGTERM: the server stops cleanly (port file removed; a frozen server's bootloader
		# deletes its unpacked folder). OS.kill is SIGKILL, kept for what does not stop.
		var terminated: bool = false
		if OS.get_name() in ["Linux", "macOS", "FreeBSD", "NetBSD", "OpenBSD", "BSD"]:
			terminated = OS.execute("kill", ["-TERM", str(pid)]) == 0
		var until: int = Time.get_ticks_msec() + 2000
		while terminated and _child_running() and Time.get_ticks_msec() < until:
			OS.delay_msec(5)
		if _child_running():
			OS.kill(pid)
	pid = -1


func _remove_own_files() -> void:
	# The port file and the launcher's error file of a server this bridge started (never those
	# of a server it joined).
	if join_existing or port_file == "":
		return
	for path: String in [port_file, _error_file()]:
		if FileAccess.file_exists(path):
			DirAccess.remove_absolute(path)


func _header(length: int) -> PackedByteArray:
	return PackedByteArray(
		[(length >> 24) & 255, (length >> 16) & 255, (length >> 8) & 255, length & 255]
	)


func _length(header: PackedByteArray) -> int:
	if header.size() < HEADER_SIZE:
		return -1
	return (header[0] << 24) | (header[1] << 16) | (header[2] << 8) | header[3]


func _error_file() -> String:
	return port_file + ".err"


func _child_said() -> String:
	# The server's own start-up error, written by LAUNCHER ("" when there is none).
	if join_existing or not FileAccess.file_exists(_error_file()):
		return ""
	var text: String = FileAccess.get_file_as_string(_error_file()).strip_edges()
	DirAccess.remove_absolute(_error_file())
	return SorteioI18n.t(": o Python disse: %s") % text if text != "" else ""


func _fix_hint() -> String:
	# For a game programmer: what to install and where to point the node (the addon README).
	if is_frozen_server():
		return SorteioI18n.t(
			"O servidor congelado que veio com o jogo falhou; exporte o jogo de novo"
		)
	return (
		SorteioI18n.t(
			(
				"A ponte por socket precisa de um Python 3.8 ou mais novo com o pacote sorteio "
				+ "instalado, num venv (o Python do sistema recusa o pip no Debian e no Ubuntu): "
				+ "%s (veja addons/sorteio/README.md, Install); depois aponte SORTEIO_PYTHON, a "
				+ "configuração sorteio/python ou o python_executable do nó para %s"
			)
		)
		% [_install_command(), _venv_python()]
	)


static func _install_command() -> String:
	# A venv, as the README says: Debian 12 and Ubuntu's python3 refuse a bare pip install
	# (PEP 668, "externally-managed-environment"). The release zip's installer picks the wheel
	# that fits that Python: the compiled kernel (manylinux, one CPython version) or the pure one
	# (scripts/install_wheel.py).
	var installer: String = "res://addons/sorteio/wheel/install.py"
	var install: String = "-m pip install " + _package_to_install()
	if FileAccess.file_exists(installer):
		install = ProjectSettings.globalize_path(installer)
	var system_python: String = "py" if OS.get_name() == "Windows" else "python3"
	return "%s -m venv %s && %s %s" % [system_python, _venv(), _venv_python(), install]


static func _venv() -> String:
	# The project's own .venv (Godot skips folders whose name starts with a dot).
	return ProjectSettings.globalize_path("res://").path_join(".venv")


static func _venv_python() -> String:
	if OS.get_name() == "Windows":
		return _venv().path_join("Scripts/python.exe")
	return _venv().path_join("bin").path_join("python")


static func _package_to_install() -> String:
	# The release zip carries the package as a wheel: name the file a zip user has.
	var wheels: Array[String] = []
	if not DirAccess.dir_exists_absolute("res://addons/sorteio/wheel"):
		return "/path/to/a/sorteio/checkout"
	for name: String in DirAccess.get_files_at("res://addons/sorteio/wheel"):
		if name.get_extension() == "whl":
			wheels.append(name)
	if wheels.is_empty():
		return "/path/to/a/sorteio/checkout"
	wheels.sort()
	return ProjectSettings.globalize_path("res://addons/sorteio/wheel/" + wheels[-1])


func _fail(message: String) -> String:
	var first: bool = _status != "failed"
	_error = message
	_status = "failed"
	if _peer != null:
		_peer.disconnect_from_host()
	if first:
		failed.emit(message)
	return message


func _down(message: String) -> Dictionary:
	if _status != "failed":
		_fail(message)
	return SorteioBridge.error_reply("bridge_down", message)
