class_name SorteioScriptedBridge
extends Reference
# A test double: a bridge that replays scripted or recorded replies, with no Python at all (the
# Godot 4 addon's SorteioScriptedBridge, for Godot 3).
#
# For a game's own tests (GUT or plain scripts): a studio's CI plays its UI through the real
# SorteioNode with no Python installed. It holds no rule: it answers each request with the next
# reply of its script, in order, and refuses a call the script does not have next
# (script_mismatch), so a test that drifts from its recording says where.
#
# Record a real match once (any bridge) with SorteioNode.record_path, then replay it:
#   # once, with Python: Sorteio.record_path = "res://tests/match_42.json"; play the match.
#   # in the tests, no Python:
#   Sorteio.use_bridge(SorteioScriptedBridge.from_file("res://tests/match_42.json"))
#   Sorteio.start_match(42)
#   var card = Sorteio.advance()
# Or script replies in code with add_reply() (result in the protocol's shape, docs/protocol.md).
# "ping" is always answered and never consumes the script; nor is "end_match" (abandon_match())
# unless it is next. The file format is
# {"format": "sorteio-recording/1", "exchanges": [{"method", "params", "reply"}, ...]}; params
# hold what a replay checks (the option of choose; paths are left out). Godot 4's scripted
# bridge reads the same files.

const CODE_MISMATCH := "script_mismatch"

# The exchanges still to replay, each {"method", "params", "reply"}.
var exchanges := []
# How many requests were answered from the script so far.
var answered := 0
var last_error := ""

var _started := false
var _closed := false


func kind() -> String:
	return "scripted"


# A bridge replaying the recording at `path` (res://, user:// or absolute); null when the file
# is missing or is not a recording.
static func from_file(path: String) -> Reference:
	var file := File.new()
	if not file.file_exists(path) or file.open(path, File.READ) != OK:
		return null
	var text := file.get_as_text()
	file.close()
	if text.strip_edges() == "":
		return null
	var parsed := JSON.parse(text)
	if parsed.error != OK or typeof(parsed.result) != TYPE_DICTIONARY:
		return null
	if typeof(parsed.result.get("exchanges")) != TYPE_ARRAY:
		return null
	return from_recording(parsed.result)


# A bridge replaying a recording already parsed ({"format", "exchanges"}).
static func from_recording(recording: Dictionary) -> Reference:
	var bridge = load("res://addons/sorteio/bridges/scripted_bridge.gd").new()
	for exchange in recording.get("exchanges", []):
		if typeof(exchange) == TYPE_DICTIONARY:
			bridge.exchanges.append(exchange)
	return bridge


# Appends one scripted reply: `method` answered with {"ok": true, "result": result}; `params`
# (e.g. {"option": 1} for choose) are checked against what the game sends. Returns the bridge.
func add_reply(method: String, result: Dictionary, params := {}) -> Reference:
	exchanges.append({"method": method, "params": params, "reply": {"ok": true, "result": result}})
	return self


# Appends one scripted refusal: `method` answered with error `code`. Returns the bridge.
func add_error(method: String, code: String, message: String) -> Reference:
	exchanges.append({"method": method, "params": {}, "reply": _error_reply(code, message)})
	return self


func start() -> bool:
	_started = true
	return true


func is_ready() -> bool:
	return _started and not _closed


func has_failed() -> bool:
	return false


func poll() -> bool:
	return is_ready()


func wait_ready() -> bool:
	return is_ready()


func request(method: String, params: Dictionary) -> Dictionary:
	if not is_ready():
		return _error_reply("bridge_down", "the scripted bridge is closed")
	if method == "ping":
		return {"ok": true, "result": {"pong": true, "protocol": 1}}
	if method == "end_match" and (exchanges.empty() or exchanges[0].get("method") != method):
		# abandon_match(): answered like ping, so recordings made before 0.2.0 sent it replay.
		return {"ok": true, "result": {"ended": true}}
	if exchanges.empty():
		return _error_reply(
			CODE_MISMATCH,
			"the script has no reply left for '%s' (%d answered)" % [method, answered]
		)
	var expected: Dictionary = exchanges[0]
	var wanted := str(expected.get("method", ""))
	if wanted != method:
		return _error_reply(
			CODE_MISMATCH,
			(
				"call %d: the script has '%s' next, the game asked '%s'"
				% [answered + 1, wanted, method]
			)
		)
	var checked: Dictionary = expected.get("params", {})
	for key in checked:
		if not params.has(key) or not _same(params[key], checked[key]):
			return _error_reply(
				CODE_MISMATCH,
				(
					"call %d (%s): the script has %s=%s, the game sent %s"
					% [answered + 1, method, key, checked[key], params.get(key)]
				)
			)
	exchanges.pop_front()
	answered += 1
	return (expected.get("reply", {}) as Dictionary).duplicate(true)


func close() -> void:
	_closed = true


static func _same(given, scripted) -> bool:
	# JSON gives floats: 1.0 in a recording is the 1 a game sends.
	if typeof(given) in [TYPE_INT, TYPE_REAL] and typeof(scripted) in [TYPE_INT, TYPE_REAL]:
		return float(given) == float(scripted)
	return given == scripted


static func _error_reply(code: String, message: String) -> Dictionary:
	return {"id": null, "ok": false, "error": {"code": code, "message": message}}
