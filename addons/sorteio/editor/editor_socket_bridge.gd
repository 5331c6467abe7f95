@tool
extends SorteioBridge
## The editor's socket bridge to [code]sorteio serve[/code]: a loopback TCP connection, frames
## of a 4-byte big-endian length + UTF-8 JSON (docs/protocol.md, "Socket bridge").
##
## Used by the Sorteio panel until the game's own socket bridge
## ([code]bridges/socket_bridge.gd[/code]) is there to share; [code]editor_python.gd[/code]
## prefers that one when it exists. Editor only: never exported.

const HEADER_SIZE := 4
const MAX_FRAME := 1048576
## The launcher of [code]sorteio.bridge.server.LAUNCHER[/code] (tests check they match): runs the
## server and writes any start-up error (e.g. "No module named 'sorteio'") to its first argument.
const LAUNCHER := (
	"import sys,os;e=sys.argv.pop(1);h=sys.excepthook;"
	+ "f=os.O_WRONLY|os.O_CREAT|os.O_TRUNC|getattr(os,'O_NOFOLLOW',0);"
	+ "sys.excepthook=lambda t,v,b:(h(t,v,b),"
	+ "os.write(os.open(e,f,0o600),('%s: %s'%(t.__name__,v)).encode()));"
	+ "from sorteio.bridge.server import main;sys.exit(main(sys.argv[1:],error_file=e))"
)

## The Python interpreter that has [code]sorteio[/code] installed.
var python: String = "python3"
## Where the server writes [code]{"port", "token", "pid"}[/code] (absolute path).
var port_file: String = ""
## Start-up budget in milliseconds.
var startup_timeout_ms: int = 20000
## Longest wait for one reply in milliseconds (a lint or preview of a big deck).
var request_timeout_ms: int = 60000
## PID of the server child (-1: none).
var pid: int = -1

var _owner: Node = null
var _peer: StreamPeerTCP = null
var _token: String = ""
var _port: int = 0
var _deadline: int = 0
var _next_id: int = 0
var _status: String = "idle"
var _failure: String = ""
var _busy: bool = false


func kind() -> String:
	return "socket"


func start(owner: Node) -> bool:
	_owner = owner
	_deadline = Time.get_ticks_msec() + startup_timeout_ms
	_status = "starting"
	for path: String in [port_file, _error_file()]:
		if FileAccess.file_exists(path):
			DirAccess.remove_absolute(path)
	var args := PackedStringArray(["-c", LAUNCHER, _error_file(), "--port", "0", "--port-file",
		port_file, "--parent-pid", str(OS.get_process_id())])
	pid = OS.create_process(python, args)
	if pid <= 0:
		pid = -1
		_fail("could not start the Python '%s'. %s" % [python, fix_hint()])
		return false
	return true


func poll() -> bool:
	if _status == "starting":
		_poll_port_file()
	if _status == "connecting":
		_poll_connection()
	if _status in ["starting", "connecting"] and Time.get_ticks_msec() > _deadline:
		_fail("the sorteio server did not come up within %d ms%s. %s"
			% [startup_timeout_ms, _child_said(), fix_hint()])
		_kill()
	return is_ready()


func is_ready() -> bool:
	return _status == "ready"


func has_failed() -> bool:
	return _status == "failed"


func failure() -> String:
	return _failure


func request(method: String, params: Dictionary) -> Dictionary:
	while _busy:  # one request at a time on the connection: replies come in order
		await _owner.get_tree().process_frame
	if not is_ready():
		return error_reply("bridge_down", _failure if _failure != "" else "bridge not started")
	_busy = true
	var reply: Dictionary = await _exchange(method, params)
	_busy = false
	return reply


func close() -> void:
	if _peer != null:
		_peer.disconnect_from_host()
		_peer = null
	_kill()
	for path: String in [port_file, _error_file()]:
		if path != "" and FileAccess.file_exists(path):
			DirAccess.remove_absolute(path)
	if _status != "failed":
		_status = "closed"


## What to do when the server cannot start, in a sentence a designer can act on.
func fix_hint() -> String:
	return ("The editor needs a Python 3.8 or later with the sorteio package installed; point "
		+ "SORTEIO_PYTHON or the project setting sorteio/python at it (or install the Python "
		+ "GDExtension runtime)")


func _exchange(method: String, params: Dictionary) -> Dictionary:
	_next_id += 1
	var message := {"id": _next_id, "token": _token, "method": method, "params": params}
	var body := JSON.stringify(message).to_utf8_buffer()
	if body.size() > MAX_FRAME:
		return error_reply("bad_request", "request of %d bytes is too large" % body.size())
	var frame := PackedByteArray([(body.size() >> 24) & 255, (body.size() >> 16) & 255,
		(body.size() >> 8) & 255, body.size() & 255])
	frame.append_array(body)
	if _peer.put_data(frame) != OK:
		return error_reply("bridge_down", _fail("the sorteio server closed the connection"))
	var deadline := Time.get_ticks_msec() + request_timeout_ms
	var data := PackedByteArray()
	var length := -1
	var quick_until := Time.get_ticks_usec() + 2000  # a fast reply comes without a frame
	while length < 0 or data.size() < HEADER_SIZE + length:
		_peer.poll()
		if _peer.get_status() != StreamPeerTCP.STATUS_CONNECTED:
			return error_reply("bridge_down", _fail("the sorteio server closed the connection"))
		var got: Array = _peer.get_partial_data(65536)
		if got[0] != OK:
			return error_reply("bridge_down", _fail("the sorteio server closed the connection"))
		data.append_array(got[1])
		if length < 0 and data.size() >= HEADER_SIZE:
			length = (data[0] << 24) | (data[1] << 16) | (data[2] << 8) | data[3]
			if length <= 0 or length > MAX_FRAME:
				return error_reply("bridge_down", _fail("bad frame of %d bytes" % length))
		if got[1].size() > 0:
			continue
		if Time.get_ticks_msec() > deadline:
			return error_reply("bridge_down", _fail(
				"the sorteio server did not answer within %d ms" % request_timeout_ms))
		if Time.get_ticks_usec() < quick_until:
			OS.delay_usec(50)
		else:
			await _owner.get_tree().process_frame  # a slow request lets the editor draw
	var reply := parse_reply(data.slice(HEADER_SIZE, HEADER_SIZE + length).get_string_from_utf8())
	if str(reply.get("error", {}).get("code", "")) == "bridge_down":
		_fail(str(reply["error"]["message"]))
	return reply


func _poll_port_file() -> void:
	if not FileAccess.file_exists(port_file):
		if pid > 0 and not OS.is_process_running(pid):
			pid = -1
			_fail("the sorteio server (%s) exited before it was ready%s. %s"
				% [python, _child_said(), fix_hint()])
		return
	var parsed: Variant = JSON.parse_string(FileAccess.get_file_as_string(port_file))
	if not parsed is Dictionary:
		return  # being written: try again on the next poll
	_port = int(parsed.get("port", 0))
	_token = str(parsed.get("token", ""))
	_peer = StreamPeerTCP.new()
	if _peer.connect_to_host("127.0.0.1", _port) != OK:
		_fail("cannot connect to the sorteio server on port %d" % _port)
		return
	_status = "connecting"


func _poll_connection() -> void:
	_peer.poll()
	var status := _peer.get_status()
	if status == StreamPeerTCP.STATUS_CONNECTED:
		_peer.set_no_delay(true)
		_status = "ready"
		became_ready.emit()
	elif status != StreamPeerTCP.STATUS_CONNECTING:
		_fail("the sorteio server refused the connection on port %d" % _port)


func _kill() -> void:
	if pid > 0:
		OS.kill(pid)
		pid = -1


func _error_file() -> String:
	return port_file + ".err" if port_file != "" else ""


func _child_said() -> String:
	var path := _error_file()
	if path == "" or not FileAccess.file_exists(path):
		return ""
	var text := FileAccess.get_file_as_string(path).strip_edges()
	DirAccess.remove_absolute(path)
	return ": Python said: " + text if text != "" else ""


func _fail(message: String) -> String:
	var first := _status != "failed"
	_failure = message
	_status = "failed"
	if _peer != null:
		_peer.disconnect_from_host()
	if first:
		failed.emit(message)
	return message
