@tool
extends RefCounted
## Which Python the editor talks to, and how (editor only; never exported).
##
## The Sorteio panel runs on a [SorteioBridge]: the in-process one
## ([code]bridges/python_bridge.gd[/code], the Python GDExtension's own interpreter inside the
## editor) when the project has that runtime and it starts, else a socket bridge to
## [code]sorteio serve[/code] run by [method python_executable] (the game's own
## [code]bridges/socket_bridge.gd[/code]).
## The deck importer cannot wait for frames, so it asks Python once per file through
## [method request_now]: the extension's interpreter in this process when the panel's rule
## above allows it and the addon's Python side is registered, else a short-lived process.

## Project setting: the Python interpreter of the socket path ([code]SORTEIO_PYTHON[/code] wins).
const SETTING_PYTHON := "sorteio/python"
## Project setting: the project's deck (a [code]res://[/code] path), read by the panel and the
## [code]Sorteio[/code] node; empty means the package's built-in deck.
const SETTING_DECK := "sorteio/deck"
## Project setting: let the panel use the Python GDExtension's interpreter inside the editor
## (on by default; set it to [code]false[/code] to keep the panel on the socket path with the
## extension installed). The addon's Python side survives the editor's re-import of it
## ([code]addons/sorteio/docs/in_process.md[/code], "In the editor").
const SETTING_INPROCESS := "sorteio/editor_uses_inprocess_python"
## The in-process bridge's script (loaded only when it exists).
const PYTHON_BRIDGE := "res://addons/sorteio/bridges/python_bridge.gd"
## The class the addon's Python side registers in the extension (see [constant PYTHON_BRIDGE]).
const PYTHON_CLASS := "SorteioPython"
## The socket bridge's script (the panel's path without the extension).
const SocketBridge := preload("res://addons/sorteio/bridges/socket_bridge.gd")
## File name prefix of the panel's socket bridge port file in user://.
const PORT_FILE_PREFIX := "sorteio_editor_bridge_"
## One request answered by the handler both bridges use, for [method request_now].
const ONE_SHOT := (
	"import sys,base64;from sorteio.bridge.handler import RequestHandler as H;"
	+ "r=H().handle_json(base64.b64decode(sys.argv[1]).decode());"
	+ "sys.stdout.buffer.write(b'SORTEIO-REPLY '+r.encode())"
)


## The interpreter of the socket path: [code]$SORTEIO_PYTHON[/code], else the project setting
## [code]sorteio/python[/code], else [code]python3[/code] (a res:// or user:// path is globalized).
static func python_executable() -> String:
	var value := OS.get_environment("SORTEIO_PYTHON")
	if value == "" and ProjectSettings.has_setting(SETTING_PYTHON):
		value = str(ProjectSettings.get_setting(SETTING_PYTHON))
	if value == "":
		value = "python3"
	if value.begins_with("res://") or value.begins_with("user://"):
		value = ProjectSettings.globalize_path(value)
	return value


## The project's deck path from [code]sorteio/deck[/code] ("" when unset).
static func project_deck() -> String:
	if ProjectSettings.has_setting(SETTING_DECK):
		return str(ProjectSettings.get_setting(SETTING_DECK)).strip_edges()
	return ""


## Makes and starts the editor's bridge: in-process first when available and allowed
## ([constant SETTING_INPROCESS]), else the socket path. [param owner] is the node that awaits
## frames (the panel). Never null: a bridge that could not start says why in
## [method SorteioBridge.failure].
static func start_bridge(owner: Node) -> SorteioBridge:
	var inprocess_allowed := bool(ProjectSettings.get_setting(SETTING_INPROCESS, true))
	if inprocess_allowed and ResourceLoader.exists(PYTHON_BRIDGE):
		var script: GDScript = load(PYTHON_BRIDGE)
		var inprocess: SorteioBridge = script.new()
		if inprocess.start(owner):
			return inprocess
	# An editor that crashed never removed its port file (it holds the token): clear those.
	SocketBridge.clear_stale_port_files(OS.get_user_data_dir(), PORT_FILE_PREFIX)
	var bridge: SocketBridge = SocketBridge.new()
	bridge.python = python_executable()
	bridge.port_file = ProjectSettings.globalize_path(
		"user://%s%d.json" % [PORT_FILE_PREFIX, OS.get_process_id()]
	)
	bridge.startup_timeout_ms = 20000
	bridge.request_timeout_ms = 60000  # a lint or a preview of a 30,000-card deck
	bridge.start(owner)
	return bridge


## A sentence for the panel's status: which Python answers.
static func describe(bridge: SorteioBridge) -> String:
	if bridge == null:
		return SorteioI18n.t("Python: nenhum")
	if bridge.kind() == "socket":
		return SorteioI18n.t("Python por socket (sorteio serve em %s)") % python_executable()
	return SorteioI18n.t("Python no processo do editor (GDExtension)")


## One request answered now, blocking (the importer's path: an import cannot wait for
## frames): by the Python GDExtension's interpreter in this process when
## [constant SETTING_INPROCESS] allows it and the addon's Python side is registered
## ([method request_inprocess]), else by a Python process started for it. Returns the reply
## Dictionary, or a [code]bridge_down[/code] reply that says how to point the editor at a Python.
static func request_now(method: String, params: Dictionary) -> Dictionary:
	var reply := request_inprocess(method, params)
	if not reply.is_empty():
		return reply
	return request_process(method, params)


## The in-process half of [method request_now]: the reply of the extension's
## [code]SorteioPython[/code], or an empty Dictionary when it cannot answer here (the extension
## is not installed or not loaded yet, [constant SETTING_INPROCESS] is false, or sorteio does
## not import in the extension's Python). Safe on any thread: a request the Python side answers
## later (a slow one) is awaited on a [Semaphore], with no call into Python meanwhile.
static func request_inprocess(method: String, params: Dictionary) -> Dictionary:
	if not bool(ProjectSettings.get_setting(SETTING_INPROCESS, true)):
		return {}
	if not ClassDB.class_exists(PYTHON_CLASS) or not ClassDB.can_instantiate(PYTHON_CLASS):
		return {}
	var python: RefCounted = ClassDB.instantiate(PYTHON_CLASS) as RefCounted
	if python == null or str(python.call("problem")) != "":
		return {}
	var text: String = python.call(
		"submit",
		1,
		JSON.stringify(
			{"id": 1, "method": method, "params": params, "lang": SorteioI18n.protocol_lang()}
		)
	)
	if text == "":
		var replied := Semaphore.new()
		python.call("notify", 1, replied)
		replied.wait()
		text = python.call("take", 1)
	return SorteioBridge.parse_reply(text)


## The separate-process half of [method request_now]: one request answered by a Python process
## started for it ([method python_executable]).
static func request_process(method: String, params: Dictionary) -> Dictionary:
	var python := python_executable()
	# Base64: the request's quotes would not survive every platform's argument passing.
	var request := Marshalls.utf8_to_base64(
		JSON.stringify(
			{"id": 1, "method": method, "params": params, "lang": SorteioI18n.protocol_lang()}
		)
	)
	var output: Array = []
	var code := OS.execute(python, PackedStringArray(["-c", ONE_SHOT, request]), output, true)
	var text: String = "" if output.is_empty() else str(output[0])
	var at := text.find("SORTEIO-REPLY ")
	if at >= 0:
		var parsed: Variant = JSON.parse_string(text.substr(at + 14).strip_edges())
		if parsed is Dictionary:
			return parsed
	var said := text.strip_edges().get_slice("\n", text.strip_edges().get_slice_count("\n") - 1)
	return SorteioBridge.error_reply(
		"bridge_down",
		(
			(SorteioI18n.t(
				(
					"o Python '%s' não respondeu (código de saída %d%s); "
					+ "instale sorteio num Python 3.8 ou mais novo e aponte "
					+ "SORTEIO_PYTHON ou a configuração sorteio/python para "
					+ "ele"
				)
			))
			% [python, code, ": " + said if said != "" else ""]
		)
	)
