class_name SorteioPythonBridge
extends SorteioBridge
## The in-process bridge: the Python GDExtension's own interpreter answers the requests.
##
## With the Python GDExtension (godot-python-extension, an embedded CPython 3.12) in
## [code]res://addons/godot-python-extension/[/code] and sorteio installed in its own
## site-packages, the addon's Python side ([code]addons/sorteio/python/sorteio_extension.py[/code])
## registers the class [code]SorteioPython[/code], which forwards the request JSON text to
## [code]sorteio.bridge.inprocess[/code]: no server, no socket, no system Python.
## A fast request (a draw) is answered within [method request]; a slow one (a 30,000-card
## deck's [code]new_match[/code] or [code]load[/code]) runs in a Python thread while the game's
## frames go on, and [method request] awaits its reply on a [Semaphore] the Python side posts
## (checked once per frame without calling into Python, so a frame never waits for the GIL).
##
## How the class gets registered: when the editor or an editor build runs the project, the
## extension imports the package named by [code]res://sorteio.pyextension[/code] (a copy of
## [code]addons/sorteio/python/sorteio.pyextension[/code]; the extension reads it from the
## working folder, which is the project folder there). An exported game may be started from
## any folder, so there the bridge imports the Python side itself (through the extension's
## script loader, [constant LOADER]); release templates accept a class registered then.

## The class the addon's Python side registers.
const PYTHON_CLASS := "SorteioPython"
## A Python file whose import imports the addon's Python side (see the class description).
const LOADER := "res://addons/sorteio/python/sorteio_loader.py"
## The file the extension reads at the project root to import the addon's Python side.
const PYEXTENSION := "res://sorteio.pyextension"
## The extension's own configuration (its presence says the extension is installed).
const GDEXTENSION := "res://addons/godot-python-extension/python.gdextension"

var _python: RefCounted = null
var _failure: String = ""
var _next_key: int = 0
var _session: int = 0  # +1 on close: a request awaited across it answers bridge_down


## Always [code]"python"[/code] ([constant SorteioNode.BRIDGE_PYTHON]).
func kind() -> String:
	return "python"


## True when the Python GDExtension is loaded in this process (the bridge may then start).
static func extension_loaded() -> bool:
	return ClassDB.class_exists(PYTHON_CLASS) or ClassDB.class_exists("PythonScript")


## True when this bridge can serve here: the extension is loaded and the addon's Python side is
## registered with sorteio importable (SorteioNode's [code]auto[/code] mode asks it).
static func available() -> bool:
	if not ClassDB.class_exists(PYTHON_CLASS) and extension_loaded():
		_register()
	if not ClassDB.class_exists(PYTHON_CLASS):
		return false
	var probe: RefCounted = ClassDB.instantiate(PYTHON_CLASS) as RefCounted
	return probe != null and str(probe.call("problem")) == ""


## Makes the Python side ready at once (an in-process start needs no frame). Returns false
## with [method failure] saying why and what to do when it cannot: the extension is not
## installed, the addon's Python side is not registered, or sorteio does not import in the
## extension's Python.
func start(_owner: Node) -> bool:
	if _python != null or _failure != "":
		return _python != null
	if not ClassDB.class_exists(PYTHON_CLASS) and extension_loaded():
		_register()
	if not ClassDB.class_exists(PYTHON_CLASS):
		return _fail(_not_registered())
	_python = ClassDB.instantiate(PYTHON_CLASS) as RefCounted
	if _python == null:
		return _fail(
			(
				SorteioI18n.t("a classe %s da GDExtension do Python não pode ser " + "criada aqui")
				% PYTHON_CLASS
			)
		)
	var problem: String = _python.call("problem")
	if problem != "":
		_python = null
		return _fail(
			(
				SorteioI18n.t(
					(
						"%s: instale sorteio no Python da própria extensão "
						+ "(addons/sorteio/docs/in_process.md), ou mude a ponte "
						+ "para socket"
					)
				)
				% problem
			)
		)
	became_ready.emit.call_deferred()
	return true


## True once started (an in-process start is immediate).
func is_ready() -> bool:
	return _python != null


## True when start-up failed.
func has_failed() -> bool:
	return _failure != ""


## Why start-up failed ("" when it did not).
func failure() -> String:
	return _failure


## Sends one request and awaits its reply (see [method SorteioBridge.request]). A fast request
## is answered without waiting a frame; a slow one lets frames run, checking once per frame.
## Replies come in the order the requests were made. A bridge closed meanwhile answers
## [code]bridge_down[/code].
func request(method: String, params: Dictionary) -> Dictionary:
	if _python == null:
		return error_reply(
			"bridge_down", SorteioI18n.t("a ponte no processo não está rodando: %s") % _failure
		)
	_next_key += 1
	var key: int = _next_key
	# A deck's text goes beside the request: escaping it into the JSON (and Python reading it
	# back) took the frame ~0.5 s for a 30,000-card deck; handed as is, it is copied once.
	var deck_text: Variant = params.get("deck_text")
	if deck_text is String:
		params = params.duplicate()
		params.erase("deck_text")
	var request_text: String = JSON.stringify(
		{"id": key, "method": method, "params": params, "lang": SorteioI18n.protocol_lang()}
	)
	var text: String = (
		_python.call("submit_deck", key, request_text, deck_text)
		if deck_text is String
		else _python.call("submit", key, request_text)
	)
	if text != "":
		return parse_reply(text)
	# Pending: wait on a Semaphore that Python posts once the reply is there, with no call into
	# Python meanwhile (a call needs the GIL, which the work thread keeps through a long C call:
	# up to ~1 s, one frame). No local holds the Python object across frames either: copying
	# it takes the GIL (the extension's reference callbacks).
	# Woken once a frame, and at once by close(): a node freed meanwhile closes its bridge, and
	# this call ends inside that close (SorteioBridge.FrameWaker).
	var session: int = _session
	var replied := Semaphore.new()
	_python.call("notify", key, replied)
	var waker: FrameWaker = frame_waker()
	while text == "":
		await waker.woke
		if _session != session:
			waker.stop()
			return error_reply("bridge_down", SorteioI18n.t("a ponte no processo foi fechada"))
		if replied.try_wait():
			text = _python.call("take", key)
			if text == "":  # posted early (never expected): wait for the next post
				_python.call("notify", key, replied)
	waker.stop()
	return parse_reply(text)


## Lets the Python side go: a slow request still running, or a replaced match still being
## freed, stops in its thread at its next piece (a few ms), unanswered, without this call
## waiting for it. The node closes its bridge on [code]_exit_tree[/code], on the window's close
## request and when it is freed, so a game that quits mid-request leaves no Python thread
## running into the interpreter's exit (issue 13; one that is left is stopped and waited for
## there, at most 3 s: [code]sorteio.bridge.inprocess.EXIT_WAIT[/code]).
func close() -> void:
	if _python != null:
		_python.call("close")
	_python = null
	_session += 1
	wake_waiters()  # requests still waiting answer bridge_down now, inside this call


static func _register() -> void:
	# Only a release template accepts a class registered after start-up (an editor build
	# refuses to make it: "can only be instantiated by editor"), and only an exported game can
	# be started from a folder without the .pyextension, so only there is it needed.
	if OS.has_feature("template") and ResourceLoader.exists(LOADER):
		var loader: Script = load(LOADER)
		if loader != null:
			loader.reload()  # imports the module; its return value says nothing useful here


func _not_registered() -> String:
	if not extension_loaded():
		if FileAccess.file_exists(GDEXTENSION):
			return SorteioI18n.t(
				(
					"a GDExtension do Python está no projeto mas não foi "
					+ "carregada: abra o projeto no editor uma vez (ele lista "
					+ "a extensão em .godot/extension_list.cfg)"
				)
			)
		return SorteioI18n.t(
			(
				"a GDExtension do Python não está instalada "
				+ "(res://addons/godot-python-extension/): veja "
				+ "addons/sorteio/docs/in_process.md, ou mude a ponte "
				+ "para socket"
			)
		)
	if not OS.has_feature("template") and not FileAccess.file_exists(PYEXTENSION):
		return (
			(SorteioI18n.t(
				(
					"falta %s: copie "
					+ "addons/sorteio/python/sorteio.pyextension para a raiz "
					+ "do projeto (a extensão importa de lá o lado Python do "
					+ "addon), depois reinicie"
				)
			))
			% PYEXTENSION
		)
	return (
		SorteioI18n.t(
			(
				"o lado Python do addon não registrou %s (o erro do "
				+ "Python está na saída do Godot acima)"
			)
		)
		% PYTHON_CLASS
	)


func _fail(message: String) -> bool:
	_failure = message
	failed.emit.call_deferred(message)
	return false
