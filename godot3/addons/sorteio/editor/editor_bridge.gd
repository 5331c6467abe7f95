tool
extends Reference
# The editor's own connection to Python: a socket bridge child (bridges/socket_bridge.gd), the
# same server and request handler the game uses. The panel and the deck importer share one.
# The in-process bridge is not used here: pythonscript scripts do not run in the editor.
#
# The interpreter: $SORTEIO_PYTHON, else the project setting sorteio/python, else python3
# (a res:// or user:// path is globalized), as SorteioNode chooses it.

const SocketBridge = preload("res://addons/sorteio/bridges/socket_bridge.gd")
const SETTING_PYTHON := "sorteio/python"
const PORT_FILE_PREFIX := "sorteio_editor_bridge_"

var startup_timeout_ms := 20000
# Long enough for a lint or a preview of a big deck; simulate steps are kept to ~0.1 s.
var request_timeout_ms := 30000

var _bridge = null


func python_executable() -> String:
	var value := OS.get_environment("SORTEIO_PYTHON")
	if value == "" and ProjectSettings.has_setting(SETTING_PYTHON):
		value = str(ProjectSettings.get_setting(SETTING_PYTHON))
	if value == "":
		value = "python3"
	if value.begins_with("res://") or value.begins_with("user://"):
		value = ProjectSettings.globalize_path(value)
	return value


func start() -> bool:
	# Start the server child without waiting; poll() says when it is up.
	close()
	_bridge = SocketBridge.new()
	_bridge.python = python_executable()
	# An editor that crashed never removed its port file (it holds the token): clear those.
	SocketBridge.clear_stale_port_files(OS.get_user_data_dir(), PORT_FILE_PREFIX)
	var own := "user://%s%d.json" % [PORT_FILE_PREFIX, OS.get_process_id()]
	_bridge.port_file = ProjectSettings.globalize_path(own)
	_bridge.startup_timeout_ms = startup_timeout_ms
	_bridge.request_timeout_ms = request_timeout_ms
	return _bridge.start()


func is_running() -> bool:
	return _bridge != null and not _bridge.has_failed()


func poll() -> bool:
	# One non-blocking step of the start-up (starting it when needed); true once connected.
	if _bridge == null or _bridge.has_failed():
		if not start():
			return false
	return _bridge.poll()


func has_failed() -> bool:
	return _bridge != null and _bridge.has_failed()


func process_id() -> int:
	# PID of the server child while it runs (-1: none).
	return _bridge.live_pid() if _bridge != null else -1


func last_error() -> String:
	return _bridge.last_error if _bridge != null else ""


func request(method: String, params: Dictionary) -> Dictionary:
	# The reply Dictionary ({"ok", "result"} or {"ok": false, "error": {code, message}}); waits
	# for the start-up first when needed (the importer does, the panel polls before calling).
	if _bridge == null or _bridge.has_failed():
		start()
	return _bridge.request(method, params)


func close() -> void:
	if _bridge != null:
		_bridge.close()
		_bridge = null
