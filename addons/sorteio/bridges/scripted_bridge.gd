class_name SorteioScriptedBridge
extends SorteioBridge
## A test double: a bridge that replays scripted or recorded replies, with no Python at all.
##
## For a game's own tests (GUT or plain scripts): a studio's CI plays its UI through the real
## [SorteioNode] with no Python installed. It holds no rule: it answers each request with the
## next reply of its script, in order, and refuses a call the script does not have next
## ([code]script_mismatch[/code]), so a test that drifts from its recording says where.
##
## Record a real match once (any bridge) with [member SorteioNode.record_path], then replay it:
## [codeblock]
## # once, with Python: Sorteio.record_path = "res://tests/match_42.json"; play the match.
## # in the tests, no Python:
## Sorteio.use_bridge(SorteioScriptedBridge.from_file("res://tests/match_42.json"))
## await Sorteio.start_match(42)
## var card: SorteioCard = await Sorteio.advance()
## [/codeblock]
## Or script replies in code with [method add_reply] ([code]result[/code] in the protocol's
## shape, docs/protocol.md). [code]ping[/code] is always answered and never consumes the script;
## nor does [code]end_match[/code] ([method SorteioNode.abandon_match]) unless it is next.
## The file format is [code]{"format": "sorteio-recording/1", "exchanges": [{"method",
## "params", "reply"}, ...]}[/code]; [code]params[/code] hold what a replay checks (the
## [code]option[/code] of [code]choose[/code]; paths are left out).

## The exchanges still to replay, each {"method", "params", "reply"}.
var exchanges: Array[Dictionary] = []
## How many requests were answered from the script so far.
var answered: int = 0
var _started: bool = false
var _closed: bool = false
var _error: String = ""


## Always [code]"scripted"[/code] ([constant SorteioNode.BRIDGE_SCRIPTED]).
func kind() -> String:
	return "scripted"


## A bridge replaying the recording at [param path] (res://, user:// or absolute); null when
## the file is missing or is not a recording.
static func from_file(path: String) -> SorteioScriptedBridge:
	var text: String = FileAccess.get_file_as_string(path) if FileAccess.file_exists(path) else ""
	var parsed: Variant = JSON.parse_string(text) if text != "" else null
	if not parsed is Dictionary or not (parsed as Dictionary).get("exchanges") is Array:
		return null
	return from_recording(parsed)


## A bridge replaying a recording already parsed ({"format", "exchanges"}).
static func from_recording(recording: Dictionary) -> SorteioScriptedBridge:
	var bridge: SorteioScriptedBridge = SorteioScriptedBridge.new()
	for exchange: Variant in recording.get("exchanges", []):
		if exchange is Dictionary:
			# JSON gave floats: the replies' whole numbers become ints once, here.
			bridge.exchanges.append(whole_numbers_as_ints(exchange))
	return bridge


## Appends one scripted reply: [param method] answered with [code]{"ok": true, "result":
## result}[/code]; [param params] (e.g. [code]{"option": 1}[/code] for choose) are checked.
func add_reply(
	method: String, result: Dictionary, params: Dictionary = {}
) -> SorteioScriptedBridge:
	var reply: Dictionary = {"ok": true, "result": result.duplicate(true)}
	exchanges.append({"method": method, "params": params, "reply": whole_numbers_as_ints(reply)})
	return self


## Appends one scripted refusal: [param method] answered with error [param code].
func add_error(method: String, code: String, message: String) -> SorteioScriptedBridge:
	exchanges.append({"method": method, "params": {}, "reply": error_reply(code, message)})
	return self


## Ready at once (no Python): emits [signal SorteioBridge.became_ready] deferred, returns true.
func start(_owner: Node) -> bool:
	_started = true
	became_ready.emit.call_deferred()
	return true


## True between [method start] and [method close].
func is_ready() -> bool:
	return _started and not _closed


## Always false: a scripted bridge cannot fail to start.
func has_failed() -> bool:
	return false


## Always "" (see [method has_failed]).
func failure() -> String:
	return _error


## The next scripted reply when [param method] (and, for [code]choose[/code], the option) is
## the one the script has next, else a [code]script_mismatch[/code] error reply; a closed
## bridge answers [code]bridge_down[/code]. Answers at once; await it as any bridge's.
func request(method: String, params: Dictionary) -> Dictionary:
	if not is_ready():
		return error_reply("bridge_down", SorteioI18n.t("a ponte roteirizada está fechada"))
	if method == "ping":
		return {"ok": true, "result": {"pong": true, "protocol": 1}}
	if method == "end_match" and (exchanges.is_empty() or exchanges[0].get("method") != method):
		# abandon_match(): answered like ping, so recordings made before 0.2.0 sent it replay.
		return {"ok": true, "result": {"ended": true}}
	if exchanges.is_empty():
		return error_reply(
			"script_mismatch",
			(
				SorteioI18n.t("o roteiro não tem mais resposta para '%s' (%d respondidas)%s")
				% [method, answered, drifted()]
			)
		)
	var expected: Dictionary = exchanges[0]
	var wanted: String = str(expected.get("method", ""))
	if wanted != method:
		return error_reply(
			"script_mismatch",
			(
				SorteioI18n.t("chamada %d: o roteiro tem '%s' a seguir, o jogo pediu '%s'%s")
				% [answered + 1, wanted, method, drifted()]
			)
		)
	var checked: Dictionary = expected.get("params", {})
	for key: Variant in checked:
		if not params.has(key) or not _same(params[key], checked[key]):
			return error_reply(
				"script_mismatch",
				(
					SorteioI18n.t("chamada %d (%s): o roteiro tem %s=%s, o jogo enviou %s%s")
					% [answered + 1, method, key, checked[key], params.get(key), drifted()]
				)
			)
	exchanges.pop_front()
	answered += 1
	return (expected.get("reply", {}) as Dictionary).duplicate(true)


## Stops answering (later requests answer [code]bridge_down[/code]).
func close() -> void:
	_closed = true


## Said after every [code]script_mismatch[/code]: what to do about it, in the run's language
## (a function, not a constant: a constant is fixed when the script is parsed, before the
## language is known).
static func drifted() -> String:
	return SorteioI18n.t(
		(
			": as chamadas do jogo se afastaram da gravação; grave a partida de novo "
			+ "(SorteioNode.record_path) ou faça o teste chamar o que foi gravado"
		)
	)


static func _same(given: Variant, scripted: Variant) -> bool:
	# JSON gives floats: 1.0 in a recording is the 1 a game sends.
	if typeof(given) in [TYPE_INT, TYPE_FLOAT] and typeof(scripted) in [TYPE_INT, TYPE_FLOAT]:
		return float(given) == float(scripted)
	return given == scripted
