class_name SorteioNode, "res://addons/sorteio/icons/sorteio_node.svg"
extends Node
# The card draw of GDD 06 for a Godot 3 game. Registered as the autoload `Sorteio` by the plugin.
#
# The rules run in Python (package `sorteio`), reached through one of two bridges:
# - "python": in-process, when the pythonscript addon (godot-python) is installed;
# - "socket": a `python -m sorteio.bridge.server` child on 127.0.0.1 (the default otherwise).
# Every call returns at once with its result and emits the matching signal after this node's
# state (year, slot, phase, meters, actors, current_draw, ending) is updated. Anything the Python
# side rejects, and a bridge that is down, emits `error_occurred` instead. See README.md.

# The bridge is up ("socket" or "python"). A call made before it fails at once with
# error_occurred(..., "bridge_not_ready"): start the match from this signal (or is_bridge_ready()).
signal bridge_ready(kind)
# A match began: seed (int), deck summary (names of meters, actors, levels), snapshot.
signal match_started(match_seed, deck, snapshot)
# A turn began: year (int) and the mandatory list, each {"kind": "emergency"|"actor"|"meter",
# "target": meter or actor id, "card_id": id or null, "texto": the line to show}, in the order
# they will be drawn.
signal turn_started(year, mandatory)
# A card was drawn: card (Dictionary: id, titulo, texto, modo, tipo, opcoes[...]), slot (1..7),
# reason ({"kind": "mandatory", "obligation", "target", "texto"} or {"kind": "random",
# "candidates", "mode_relaxed", "replaces", "texto"}; texto: why, in the designers' Portuguese
# with the deck's names, made by Python's sorteio.wording), option_order (Array of option
# indexes in display order, GDD 05 §3.4: show card.opcoes[option_order[0]] first).
signal card_drawn(card, slot, reason, option_order)
# The player's option was applied: card id, option index (into card.opcoes), meters {id: value},
# actors {id: {"satisfaction", "level"}}.
signal option_applied(card_id, option, meters, actors)
# A turn closed: year, number of cards, short (true when cards ran out), meters at the closing.
signal turn_ended(year, cards, short, meters)
# The match is over: reason ("catastrophe" or "end_of_mandate"; "short": true in the ending
# means the deck ran out of cards), ending {"reason", "year", "cards_played", "short", "meters",
# "zeroed", "texto"}.
signal match_ended(reason, ending)
# A saved state was loaded: snapshot, and the drawn card awaiting a choice (Dictionary or {}).
signal state_loaded(snapshot, pending)
# The Python side refused a call, or the bridge is down: message, code (see README.md).
signal error_occurred(message, code)

const SocketBridge = preload("res://addons/sorteio/bridges/socket_bridge.gd")
const PythonBridge = preload("res://addons/sorteio/bridges/python_bridge.gd")
# Preloaded, not the class_name: a project whose class list the editor has not yet refreshed
# still runs.
const DeckResource = preload("res://addons/sorteio/sorteio_deck.gd")
# user://DECK_COPY_PREFIX<pid>_<file>: a deck from the pack, copied where Python can read it.
const DECK_COPY_PREFIX := "sorteio_deck_"
const SETTING_PYTHON := "sorteio/python"
const SETTING_BRIDGE_FILE := "sorteio/bridge_file"

# The deck: a res:// (or absolute) path to a deck JSON file; "" uses the package's default deck.
# A relative path ("decks/meu.json") is read from res://, in the editor and exported alike.
export(String, FILE, "*.json") var deck_path := ""
# The deck as a resource: a SorteioDeck (the plugin imports each deck JSON as one). When set, it
# wins over deck_path; start_match(seed, path) with a path still wins over both.
export(Resource) var deck_resource: Resource = null
# Seed of the next match; -1 lets Python pick one (reported by match_started).
export var match_seed := -1
# "auto" (python when pythonscript is installed, else socket), "socket" or "python".
export(String, "auto", "socket", "python") var bridge_mode := "auto"
# Start the bridge on the first frame, after the main scene's _ready ran (so settings made there
# apply), or at the first call, whichever comes first. Off: call start_bridge() yourself.
export var autostart_bridge := true
# Python interpreter for the socket bridge: an absolute path, a name on the PATH, or a res:// or
# user:// path (globalized); "" means $SORTEIO_PYTHON, then the project setting sorteio/python,
# then "python3".
export var python_executable := ""
# Port file of an already running server (`sorteio serve --port-file F`) to join instead of
# starting one; "" means $SORTEIO_BRIDGE_FILE, then the project setting sorteio/bridge_file.
export var bridge_file := ""
# The script the in-process bridge attaches (the pythonscript entry; tests put a stand-in here).
export(String, FILE) var python_entry := "res://addons/sorteio/python/sorteio_python_bridge.py"
# Each error_occurred is also printed with push_warning (the Debugger's Errors tab); a game that
# shows errors its own way turns this off. The signal is emitted either way.
export var print_warnings := true
export var startup_timeout_ms := 15000
export var request_timeout_ms := 5000

var year := 0
var slot := 0
var phase := ""
var meters := {}
var actors := {}
var deck_info := {}
var current_draw := {}
var ending := {}
var bridge_kind := ""
# Why the bridge failed (start-up or later), "" while it has not failed.
var bridge_error := ""

var _bridge = null
# The in-process bridge's script, kept from one bridge to the next (see python_bridge.gd).
var _python_script: Script = null
var _autostart_pending := false
# The deck as the game named it (res:// path, built-in name, "" for the default): saved as is,
# so a save file does not hold this machine's absolute path.
var _deck_given := ""
var _temporary_files := []
var _announced := false
var _ending_announced := false


func _ready() -> void:
	# Deferred: an autoload's _ready runs before the main scene's, whose settings must count.
	_autostart_pending = true
	call_deferred("_autostart")


func _autostart() -> void:
	if _autostart_pending and autostart_bridge and _bridge == null:
		start_bridge()
	_autostart_pending = false


func _process(_delta: float) -> void:
	if _bridge == null or _announced:
		set_process(false)
		return
	if _bridge.poll():
		_announce()
	elif _bridge.has_failed():
		set_process(false)
		bridge_error = _bridge_failure()
		_report(bridge_error, "bridge_down")


func _exit_tree() -> void:
	stop_bridge()


func _notification(what: int) -> void:
	if what == NOTIFICATION_WM_QUIT_REQUEST or what == NOTIFICATION_PREDELETE:
		stop_bridge()


# -- bridge -----------------------------------------------------------------------------------


func start_bridge() -> bool:
	# Start the bridge without blocking; bridge_ready (or error_occurred) follows. A failure to
	# start is reported deferred (is_bridge_failed() says so at once).
	_autostart_pending = false
	stop_bridge()
	bridge_error = ""
	var mode := bridge_mode
	if mode == "auto":
		mode = "python" if PythonBridge.available() else "socket"
		var gdnlib := PythonBridge.unregistered_gdnlib()
		if gdnlib != "" and print_warnings:
			# Not an error (the socket bridge may well serve), but never a silent fall-back.
			push_warning("sorteio: using the socket bridge; " + PythonBridge.enable_hint(gdnlib))
	if mode == "python":
		_bridge = PythonBridge.new()
		_bridge.entry = python_entry
		_bridge.entry_script = _python_script
		if not _bridge.start_in(self):
			return _bridge_failed()
		_python_script = _bridge.entry_script
	else:
		_bridge = _make_socket_bridge()
		if not _bridge.start():
			return _bridge_failed()
	bridge_kind = _bridge.kind()
	_announced = false
	set_process(true)
	if _bridge.poll():
		_announce()
	return true


func is_bridge_ready() -> bool:
	return _bridge != null and _bridge.is_ready()


func is_bridge_failed() -> bool:
	# True once the bridge failed (start-up or later) until start_bridge(); why: bridge_error.
	return bridge_error != ""


func bridge_process_id() -> int:
	# PID of the running server child this node started (-1: none, exited, joined, in-process).
	if _bridge != null and _bridge.kind() == "socket":
		return _bridge.live_pid()
	return -1


func stop_bridge() -> void:
	if _bridge != null:
		_bridge.close()
		_bridge = null
	_announced = false


# -- the draw -------------------------------------------------------------------------------


func start_match(new_seed: int = -1, deck: String = "") -> bool:
	# Begin a match with `deck` (default: deck_path) and `new_seed` (default: match_seed).
	var given := _resolved_deck(deck if deck != "" else deck_path)
	var chosen := new_seed if new_seed != -1 else match_seed
	if chosen < -1:
		# Only -1 means "pick one"; another negative seed is a mistake, not a random match.
		_report("seed must be -1 (any) or 0 to 2147483647, not %d" % chosen, "bad_request")
		return false
	var params := {}
	if deck == "" and deck_resource != null:
		given = deck_resource.resource_path
		params["deck"] = _deck_resource_for_python(deck_resource)
	else:
		params["deck"] = _deck_for_python(given)
	if chosen >= 0:
		params["seed"] = chosen
	var result = _call("new_match", params)
	if result == null:
		return false
	_deck_given = given
	deck_info = result["deck"]
	current_draw = {}
	ending = {}
	_ending_announced = false
	_take(result["snapshot"])
	emit_signal("match_started", int(result["seed"]), deck_info, result["snapshot"])
	return true


func start_turn() -> bool:
	# Open the next turn (year); turn_started lists its mandatory cards.
	var result = _call("start_turn", {})
	if result == null:
		return false
	_take(result["snapshot"])
	var turn: Dictionary = result["turn"]
	emit_signal("turn_started", int(turn["year"]), turn["mandatory"])
	return true


func draw_next_card() -> Dictionary:
	# Draw the next card of the turn. Returns the draw ({} when the turn is over or on error).
	# The turn's end emits turn_ended (and match_ended after year 4).
	var result = _call("draw", {})
	if result == null:
		return {}
	_take(result["snapshot"])
	var draw = result["draw"]
	if draw == null:
		current_draw = {}
		var end: Dictionary = result["turn_end"]
		_take_ending(result["ending"])
		emit_signal(
			"turn_ended", int(end["year"]), int(end["cards"]), bool(end["short"]), end["meters"]
		)
		_announce_ending()
		return {}
	draw["slot"] = int(draw["slot"])
	draw["option_order"] = _ints(draw["option_order"])
	current_draw = draw
	emit_signal("card_drawn", draw["card"], draw["slot"], draw["reason"], draw["option_order"])
	return draw


func apply_option(option: int) -> bool:
	# Apply option `option` (an index into the card's opcoes, not the display position).
	var result = _call("choose", {"option": option})
	if result == null:
		return false
	_take(result["snapshot"])
	current_draw = {}
	_take_ending(result["ending"])
	var choice: Dictionary = result["choice"]
	emit_signal(
		"option_applied",
		choice["card_id"],
		int(choice["option"]),
		choice["meters"],
		choice["actors"]
	)
	_announce_ending()
	return true


func save_state() -> Dictionary:
	# The whole match (RNG included) as a JSON-safe Dictionary; {} on error.
	# "deck" is the deck as the game named it (not Python's absolute path); load_state resolves
	# it again, and the engine state's deck fingerprint still refuses a different deck.
	var result = _call("save", {})
	if result == null:
		return {}
	var state: Dictionary = result["state"]
	state["deck"] = _deck_given
	return state


func load_state(state) -> bool:
	# Restore a match saved by save_state(); it continues exactly, mid-turn too. Untyped: what a
	# corrupt save file parses to (null, text, an Array) is refused with bad_request, not a
	# SCRIPT ERROR in the caller; the match in play is kept.
	if typeof(state) != TYPE_DICTIONARY:
		_report(
			"load_state needs the Dictionary save_state() returned, not %s" % _type_name(state),
			"bad_request"
		)
		return false
	var given = state.get("deck", "")
	if typeof(given) == TYPE_STRING:
		given = _resolved_deck(given)
	var sent: Dictionary = state.duplicate()
	if typeof(given) == TYPE_STRING:
		sent["deck"] = _deck_for_python(given)
	var result = _call("load", {"state": sent})
	if result == null:
		return false
	_deck_given = given if typeof(given) == TYPE_STRING else ""
	deck_info = result["deck"]
	_take(result["snapshot"])
	ending = {}
	_take_ending(result["ending"])
	_ending_announced = not ending.empty()  # an ended match loads as ended, announced once
	var pending = result["pending"]
	current_draw = {}
	if pending != null:
		pending["slot"] = int(pending["slot"])
		pending["option_order"] = _ints(pending["option_order"])
		current_draw = pending
	emit_signal("state_loaded", result["snapshot"], current_draw)
	return true


func is_match_over() -> bool:
	return phase == "ended"


# -- internals ------------------------------------------------------------------------------


func _make_socket_bridge():
	var bridge = SocketBridge.new()
	# Which server: python_executable, $SORTEIO_PYTHON, the frozen server shipped beside an
	# exported game, the project setting sorteio/python, then python3 (README "Exported games").
	bridge.python = python_executable
	if bridge.python == "":
		bridge.python = OS.get_environment("SORTEIO_PYTHON")
	if bridge.python == "":
		bridge.python = _frozen_server_beside_game()
	if bridge.python == "":
		bridge.python = _setting_or_env("", SETTING_PYTHON, "python3")
	if bridge.python.begins_with("res://") or bridge.python.begins_with("user://"):
		bridge.python = ProjectSettings.globalize_path(bridge.python)
	var join := bridge_file
	if join == "":
		join = _setting_or_env("SORTEIO_BRIDGE_FILE", SETTING_BRIDGE_FILE, "")
	if join != "":
		bridge.port_file = join
		bridge.join_existing = true
	else:
		# Our own port file; those of earlier runs that were killed are removed first.
		SocketBridge.clear_stale_port_files(OS.get_user_data_dir())
		# One per node, not per game: two SorteioNodes starting together must not read each
		# other's port file (both then talked to one server, which the other node kills).
		var own := (
			"user://%s%d_%d.json"
			% [SocketBridge.PORT_FILE_PREFIX, OS.get_process_id(), get_instance_id()]
		)
		bridge.port_file = ProjectSettings.globalize_path(own)
	bridge.startup_timeout_ms = startup_timeout_ms
	bridge.request_timeout_ms = request_timeout_ms
	return bridge


func _frozen_server_beside_game() -> String:
	# `make export` ships the frozen server (sorteio-serve) beside the game: in the folder of the
	# executable (an export template) or of the pack run with --main-pack. "" when there is none.
	var folders := [OS.get_executable_path().get_base_dir()]
	var pack := _main_pack()
	if pack != "":
		folders.append(pack.get_base_dir() if pack.get_base_dir() != "" else ".")
	var file := File.new()
	for folder in folders:
		for name in [SocketBridge.FROZEN_SERVER, SocketBridge.FROZEN_SERVER + ".exe"]:
			var path: String = folder.plus_file(name)
			if file.file_exists(path):
				return path
	return ""


func _main_pack() -> String:
	# The --main-pack argument: get_cmdline_args() hides Godot's own options, Linux's
	# /proc/self/cmdline (NUL-separated) does not. "" elsewhere or without one.
	var file := File.new()
	if file.open("/proc/self/cmdline", File.READ) != OK:
		return ""
	var args := []
	var arg := PoolByteArray()
	while true:
		var byte := file.get_8()
		if file.eof_reached():
			break
		if byte == 0:
			args.append(arg.get_string_from_utf8())
			arg = PoolByteArray()
		else:
			arg.append(byte)
	file.close()
	for at in range(args.size() - 1):
		if args[at] == "--main-pack":
			return args[at + 1]
	return ""


func _setting_or_env(env: String, setting: String, fallback: String) -> String:
	var value := OS.get_environment(env) if env != "" else ""
	if value == "" and ProjectSettings.has_setting(setting):
		value = str(ProjectSettings.get_setting(setting))
	return value if value != "" else fallback


func _bridge_failure() -> String:
	# Why the bridge failed; in auto mode a socket failure also says how to enable the
	# pythonscript the project holds, which would have served in-process.
	var gdnlib := PythonBridge.unregistered_gdnlib()
	if bridge_mode == "auto" and _bridge.kind() == "socket" and gdnlib != "":
		return _bridge.last_error + ". Or " + PythonBridge.enable_hint(gdnlib)
	return _bridge.last_error


func _bridge_failed() -> bool:
	bridge_error = _bridge_failure()
	_bridge.close()
	_bridge = null
	# Deferred: this may run in the first frame, before the game connected error_occurred.
	call_deferred("_report", bridge_error, "bridge_down")
	return false


func _announce() -> void:
	_announced = true
	set_process(false)
	emit_signal("bridge_ready", bridge_kind)


func _call(method: String, params: Dictionary):
	# The result Dictionary, or null after emitting error_occurred.
	if _bridge == null and _autostart_pending and autostart_bridge:
		start_bridge()  # a call in the first frame: start now, with the settings made so far
	if _bridge == null:
		var why := "the sorteio bridge is not running (start_bridge() first)"
		if bridge_error != "":
			why = "the sorteio bridge failed: " + bridge_error
		_report(why, "bridge_down")
		return null
	if not _bridge.is_ready() and not _bridge.has_failed():
		_bridge.poll()  # one non-blocking step; never wait for the start-up here
		if not _bridge.is_ready() and not _bridge.has_failed():
			_report(
				"bridge not ready: %s called before bridge_ready (wait for that signal)" % method,
				"bridge_not_ready"
			)
			return null
	var reply: Dictionary = _bridge.request(method, params)
	_remove_temporary_files()  # deck copies: Python read them during the request
	if not _announced and _bridge.is_ready():
		# This call brought the bridge up: bridge_ready goes out after it returns. Emitted here,
		# a handler's own calls (the README's _begin starts a match) ran inside this call, whose
		# older reply then overwrote the node's state; a handler's stop_bridge() left _bridge null.
		_announced = true
		set_process(false)
		call_deferred("emit_signal", "bridge_ready", bridge_kind)
	if _bridge.has_failed():
		bridge_error = _bridge_failure()
		set_process(false)  # this call reports the failure; _process must not report it again
	if reply.get("ok", false):
		return reply["result"]
	var error: Dictionary = reply.get("error", {})
	_report(str(error.get("message", "unknown error")), str(error.get("code", "unknown")))
	return null


func _report(message: String, code: String) -> void:
	if print_warnings:
		push_warning("sorteio: %s (%s)" % [message, code])
	emit_signal("error_occurred", message, code)


func _take(snapshot: Dictionary) -> void:
	year = int(snapshot["year"])
	slot = int(snapshot["slot"])
	phase = str(snapshot["phase"])
	meters = snapshot["meters"]
	actors = snapshot["actors"]


func _take_ending(value) -> void:
	if value != null:
		ending = value


func _announce_ending() -> void:
	if not ending.empty() and not _ending_announced:
		_ending_announced = true
		emit_signal("match_ended", str(ending["reason"]), ending)


static func _resolved_deck(path: String) -> String:
	# A relative file path ("decks/meu.json") is read from res://, as Godot resolves relative
	# resource paths: it worked in the editor only because the editor runs in the project
	# folder, and broke once exported. Built-in deck names ("padrao") have no "/" and no ".json".
	if path == "" or path.begins_with("res://") or path.begins_with("user://"):
		return path
	if path.is_abs_path() or (path.find("/") == -1 and path.get_extension() != "json"):
		return path
	return "res://" + path.trim_prefix("./")


func _deck_for_python(path: String):
	# An absolute path Python can read (null: the package's default deck).
	if path == "":
		return null
	if not (path.begins_with("res://") or path.begins_with("user://")):
		return path  # absolute path or a built-in deck name ("padrao", "curto")
	if path.begins_with("user://") or not OS.has_feature("standalone"):
		return ProjectSettings.globalize_path(path)
	# Exported game: res:// lives inside the .pck, which Python cannot open; hand it a copy.
	var source := File.new()
	if source.open(path, File.READ) != OK:
		# Not exported as a plain file: the imported SorteioDeck carries the text in the pack.
		if ResourceLoader.exists(path):
			var imported = load(path)
			if imported is DeckResource:
				return _deck_copy(imported.json_text, path.get_file())
		return ProjectSettings.globalize_path(path)
	var text := source.get_as_text()
	source.close()
	return _deck_copy(text, path.get_file())


func _deck_resource_for_python(resource: Resource):
	# The deck JSON of a SorteioDeck: its source file while it is on disk (the editor, a run from
	# the project folder), else the text the resource carries, copied where Python can read it.
	var path := resource.resource_path
	if path.begins_with("res://") and path.get_extension() == "json":
		if not OS.has_feature("standalone") and File.new().file_exists(path):
			return ProjectSettings.globalize_path(path)
	var text := str(resource.get("json_text"))
	var name := path.get_file() if path != "" else "resource.json"
	return _deck_copy(text, name)


func _deck_copy(text: String, name: String) -> String:
	# Absolute path of user://sorteio_deck_<pid>_<name> holding `text` (the path itself on
	# failure), removed once the request that hands it to Python returned; those of games killed
	# before that are removed first (issue 14, "Nothing left behind").
	SocketBridge.clear_stale_port_files(OS.get_user_data_dir(), DECK_COPY_PREFIX)
	var copy := "user://%s%d_%s" % [DECK_COPY_PREFIX, OS.get_process_id(), name]
	_temporary_files.append(copy)
	var target := File.new()
	if target.open(copy, File.WRITE) != OK:
		return ProjectSettings.globalize_path(copy)
	target.store_string(text)
	target.close()
	return ProjectSettings.globalize_path(copy)


func _remove_temporary_files() -> void:
	var dir := Directory.new()
	for path in _temporary_files:
		if dir.file_exists(path):
			dir.remove(path)
	_temporary_files.clear()


static func _type_name(value) -> String:
	match typeof(value):
		TYPE_NIL:
			return "null (an empty or corrupt save file?)"
		TYPE_STRING:
			return "text"
		TYPE_ARRAY:
			return "an Array"
	return "a value of Variant type %d" % typeof(value)


func _ints(values: Array) -> Array:
	var out := []
	for value in values:
		out.append(int(value))
	return out
