class_name SorteioNode, "res://addons/sorteio/icons/sorteio_node.svg"
extends Node
# The card draw of GDD 06 for a Godot 3 game. Registered as the autoload `Sorteio` by the plugin.
#
# The rules run in Python (package `sorteio`), reached through one of two bridges:
# - "python": in-process, when the pythonscript addon (godot-python) is installed;
# - "socket": a `python -m sorteio.bridge.server` child on 127.0.0.1 (the default otherwise).
# Every call returns at once with its result and emits the matching signal after this node's
# state (year, slot, phase, meters, actors, current_draw, current_card, ending) is updated.
# Anything the Python side rejects, and a bridge that is down, emits `error_occurred` instead
# (code: one of the CODE_* constants). A call made before the bridge is up (in _ready) waits for
# it, on every bridge. Names and meanings follow the Godot 4 addon's SorteioNode wherever Godot 3
# allows (docs/reference.md, "Moving to Godot 4").

# The bridge is up: BRIDGE_SOCKET, BRIDGE_PYTHON or BRIDGE_SCRIPTED. A call made before it waits
# for the bridge (blocking, up to startup_timeout_ms) instead of failing.
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
# The same draw as a typed SorteioCard (id, title, text, mode_name, options with their effects,
# reason, year, slot): what Godot 4's card_drawn(card) hands the game. Emitted right after
# card_drawn; connect one of the two.
signal typed_card_drawn(card)
# The player's option was applied: card id, option index (into card.opcoes), meters {id: value},
# actors {id: {"satisfaction", "level"}}.
signal option_applied(card_id, option, meters, actors)
# The same choice typed, as Godot 4's option_applied: the SorteioCard, the SorteioOption applied,
# meters, actors. Emitted right after option_applied.
signal typed_option_applied(card, option, meters, actors)
# A turn closed: year, number of cards, short (true when cards ran out), meters at the closing.
signal turn_ended(year, cards, short, meters)
# The match is over: reason ("catastrophe" or "end_of_mandate"; "short": true in the ending
# means the deck ran out of cards), ending {"reason", "year", "cards_played", "short", "meters",
# "zeroed", "texto"}.
signal match_ended(reason, ending)
# A saved state was loaded: snapshot, and the drawn card awaiting a choice (Dictionary or {}).
signal state_loaded(snapshot, pending)
# A save of an earlier version of the deck was loaded into this one (a game patch edited the
# deck): changes (PoolStringArray), one sentence per change made to fit it, in the run's language
# (a removed card kept as shown, a reserved card's slot given to the draw, the card on screen
# closed unanswered...), for the game to log or tell the player. Emitted right before
# state_loaded, only when something changed; deck_update holds the same list. Also printed as one
# warning when print_warnings is on.
signal deck_updated(changes)
# The match in play is gone: the bridge died or was restarted (a new Python side holds no
# match). phase is PHASE_LOST. When the bridge died, start_bridge() again first; then
# load_state() a save or start_match() a new one.
signal match_lost(message)
# The Python side refused a call, or the bridge is down: message, code (a CODE_* constant).
signal error_occurred(message, code)

# No match (none started, or abandoned).
const PHASE_NONE := ""
# Between turns: start_turn() (or advance()) opens the next year.
const PHASE_TURN_START := "turn_start"
# Within a turn, between two cards: draw_next_card() (or advance()).
const PHASE_DRAWING := "drawing"
# A card is on the table (current_card): choose_side() or apply_option().
const PHASE_AWAITING_CHOICE := "awaiting_choice"
# The match is over (ending).
const PHASE_ENDED := "ended"
# The match was lost with its bridge (match_lost).
const PHASE_LOST := "lost"

# bridge_mode: the in-process bridge when pythonscript is installed, else the socket bridge.
const BRIDGE_AUTO := "auto"
# A `python -m sorteio.bridge.server` child (or the frozen server shipped beside the game).
const BRIDGE_SOCKET := "socket"
# In-process, through pythonscript (godot-python).
const BRIDGE_PYTHON := "python"
# The test double replaying scripted or recorded replies (bridges/scripted_bridge.gd).
const BRIDGE_SCRIPTED := "scripted"

# A meter reached 0 (GDD 06: catastrophe).
const END_CATASTROPHE := "catastrophe"
# Year 4 closed.
const END_OF_MANDATE := "end_of_mandate"

# Sides for choose_side(): Godot 4's Side values, which are Godot 3's MARGIN_* values.
const SIDE_LEFT := 0
const SIDE_TOP := 1
const SIDE_RIGHT := 2
const SIDE_BOTTOM := 3

# Bad arguments (a seed out of range, a save that is not one, a side the card lacks).
const CODE_BAD_REQUEST := "bad_request"
# The deck file: missing, unreadable, or invalid (file, card id and field named).
const CODE_DECK_ERROR := "deck_error"
# start_match() on a deck with no card a match can draw (GDD 06 §1; README decision 13).
const CODE_EMPTY_DECK := "empty_deck"
# The rules refused: wrong phase, bad option index, a save of another deck.
const CODE_RULE_ERROR := "rule_error"
# Nothing started or loaded.
const CODE_NO_MATCH := "no_match"
# Godot 4's start_match() refuses with it while a match is in play; the Godot 3 node keeps
# starting the new match (with a warning) and never sends it.
const CODE_MATCH_IN_PROGRESS := "match_in_progress"
# A call about a match that was lost with its bridge (match_lost).
const CODE_MATCH_LOST := "match_lost"
# The bridge is down: never up, failed, or its server died.
const CODE_BRIDGE_DOWN := "bridge_down"
# Sent before 0.2.0 to a call made before bridge_ready; calls now wait for the bridge.
const CODE_BRIDGE_NOT_READY := "bridge_not_ready"
# A slow request took longer than request_timeout_ms; nothing changed.
const CODE_TIMEOUT := "timeout"
# A bug on the Python side (reported, not fatal).
const CODE_INTERNAL_ERROR := "internal_error"
# The scripted bridge got a call its script does not have next.
const CODE_SCRIPT_MISMATCH := "script_mismatch"
# The format of record_path files (shared with the Godot 4 addon's scripted bridge).
const RECORDING_FORMAT := "sorteio-recording/1"

const SocketBridge = preload("res://addons/sorteio/bridges/socket_bridge.gd")
const PythonBridge = preload("res://addons/sorteio/bridges/python_bridge.gd")
# Preloaded, so the node holds them: a script only load()ed is dropped from Godot's cache once
# its last card is freed and read and compiled again for the next draw (measured: a draw took
# ~4 ms instead of ~0.6 ms). The test double is loaded when a test asks for it.
const Card = preload("res://addons/sorteio/sorteio_card.gd")
const Option = preload("res://addons/sorteio/sorteio_option.gd")
const SCRIPTED_BRIDGE := "res://addons/sorteio/bridges/scripted_bridge.gd"
# Preloaded, not the class_name: a project whose class list the editor has not yet refreshed
# still runs.
const DeckResource = preload("res://addons/sorteio/sorteio_deck.gd")
const NodeTexts = preload("res://addons/sorteio/node_texts.gd")
# user://DECK_COPY_PREFIX<pid>_<file>: a deck from the pack too big to travel as its text in one
# request (the socket's 1 MiB frame), copied where Python can read it.
const DECK_COPY_PREFIX := "sorteio_deck_"
# Bytes of a request left for all but a deck's text (a save's state is a few KiB).
const ROOM_FOR_THE_REST := 65536
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
# BRIDGE_AUTO (python when pythonscript is installed, else socket), BRIDGE_SOCKET,
# BRIDGE_PYTHON or BRIDGE_SCRIPTED (replays scripted_replies, no Python).
export(String, "auto", "socket", "python", "scripted") var bridge_mode := "auto"
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
# The recording (JSON) the BRIDGE_SCRIPTED bridge replays.
export(String, FILE, "*.json") var scripted_replies := ""
# When set, every request of a match and its reply are written to this JSON file (user:// or
# absolute path), which the scripted bridge replays: record a real match once, replay it in
# tests with no Python.
export var record_path := ""
export var startup_timeout_ms := 15000
export var request_timeout_ms := 5000

var year := 0
var slot := 0
var phase := ""
var meters := {}
var actors := {}
var deck_info := {}
var current_draw := {}
# The card awaiting a choice as a SorteioCard, or null (Godot 4's current_card).
var current_card: Reference = null
var ending := {}
# What the last load_state() changed to fit a save into an updated deck (see deck_updated);
# empty when the save was made with this very deck.
var deck_update := PoolStringArray()
var bridge_kind := ""
# Why the bridge failed (start-up or later), "" while it has not failed.
var bridge_error := ""
# The message and code of the last error_occurred.
var last_error := ""
var last_error_code := ""

var _bridge = null
# The in-process bridge's script, kept from one bridge to the next (see python_bridge.gd).
var _python_script: Script = null
var _autostart_pending := false
# The deck as the game named it (res:// path, built-in name, "" for the default): saved as is,
# so a save file does not hold this machine's absolute path.
var _deck_given := ""
# [Python's path of the deck, the game's name for it] for the next request's error message.
var _deck_names := []
# The SorteioDeck made in code (no path to save: its save says "") of the last match, or null.
var _deck_in_code: Resource = null
var _old_server_said := false
var _temporary_files := []
var _announced := false
var _ending_announced := false
var _mode_names := {}
var _recorded := []
# Why the match was lost (match_lost's message), named again by every call about it.
var _lost_reason := ""


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
		_report(bridge_error, CODE_BRIDGE_DOWN)
		_lose_match_if_in_play(bridge_error)


func _exit_tree() -> void:
	_close_bridge()


func _notification(what: int) -> void:
	if what == NOTIFICATION_WM_QUIT_REQUEST or what == NOTIFICATION_PREDELETE:
		_close_bridge()


# -- bridge -----------------------------------------------------------------------------------


func start_bridge() -> bool:
	# Start the bridge without blocking; bridge_ready (or error_occurred) follows. A failure to
	# start is reported deferred (is_bridge_failed() says so at once). A match in play is lost
	# (match_lost): the new Python side holds none.
	_autostart_pending = false
	_lose_match_if_in_play("the bridge was restarted: the new one holds no match")
	_close_bridge()
	bridge_error = ""
	var mode := bridge_mode
	if mode == BRIDGE_SCRIPTED:
		var scripted = load(SCRIPTED_BRIDGE).from_file(scripted_replies)
		if scripted == null:
			bridge_error = "cannot read the scripted replies '%s'" % scripted_replies
			call_deferred("_report", bridge_error, CODE_BRIDGE_DOWN)
			return false
		return use_bridge(scripted)
	if mode == "auto":
		mode = "python" if PythonBridge.available() else "socket"
		var gdnlib := PythonBridge.unregistered_gdnlib()
		if gdnlib != "" and print_warnings:
			# Not an error (the socket bridge may well serve), but never a silent fall-back.
			push_warning("sorteio: using the socket bridge; " + PythonBridge.enable_hint(gdnlib))
	if mode != "python":
		return _begin(_make_socket_bridge())
	var python = PythonBridge.new()
	python.entry = python_entry
	python.entry_script = _python_script
	if not _begin(python):
		return false
	_python_script = python.entry_script
	return true


func use_bridge(bridge: Reference) -> bool:
	# Use `bridge` (e.g. a SorteioScriptedBridge in a game's tests) instead of the one
	# bridge_mode names, starting it as start_bridge() does. It needs the bridges' methods:
	# start() (or start_in(node)), poll, wait_ready, is_ready, has_failed, request, close, kind,
	# last_error.
	_autostart_pending = false
	_lose_match_if_in_play("the bridge was restarted: the new one holds no match")
	_close_bridge()
	bridge_error = ""
	return _begin(bridge)


func _begin(bridge: Reference) -> bool:
	# Start `bridge` as the node's bridge; false (reported deferred) when it cannot begin.
	_bridge = bridge
	var started: bool = bridge.start_in(self) if bridge.has_method("start_in") else bridge.start()
	if not started:
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
	# Close the bridge (the socket server stops; also done on exit). A match in play is lost.
	_lose_match_if_in_play("the bridge was stopped")
	_close_bridge()


func _close_bridge() -> void:
	if _bridge != null:
		_bridge.close()
		_bridge = null
	_announced = false


# -- the draw -------------------------------------------------------------------------------


func start_match(new_seed: int = -1, deck: String = "") -> bool:
	# Begin a match with `deck` (default: deck_resource, then deck_path) and `new_seed`
	# (default: match_seed). A match still in play is dropped, as before 0.2.0, with a warning:
	# call abandon_match() first (Godot 4 refuses with CODE_MATCH_IN_PROGRESS instead).
	var given := _resolved_deck(deck if deck != "" else deck_path)
	var chosen := new_seed if new_seed != -1 else match_seed
	if chosen < -1:
		# Only -1 means "pick one"; another negative seed is a mistake, not a random match.
		_report("seed must be -1 (any) or 0 to 2147483647, not %d" % chosen, CODE_BAD_REQUEST)
		return false
	# The bridge before any deck copy: a socket server then watches the game, and removes the
	# copy if the game is killed before it can (--game-files).
	if not _bridge_up():
		return false
	var params := {}
	var named := given  # the deck as messages name it
	if deck == "" and deck_resource != null:
		given = deck_resource.resource_path
		named = NodeTexts.resource_name(deck_resource)
		params = _deck_resource_for_python(deck_resource)
	else:
		params = _deck_for_python(given)
	if chosen >= 0:
		params["seed"] = chosen
	var dropped := is_match_in_play()
	var was := "year %d, phase '%s'" % [year, phase]
	_deck_names = [params["deck"], named]
	var result = _call("new_match", params)
	if result == null:
		return false
	if dropped and print_warnings:
		push_warning(
			(
				(
					"sorteio: start_match() dropped the match in play (%s): call abandon_match() "
					+ "first (Godot 4's node refuses with match_in_progress)"
				)
				% was
			)
		)
	_clear_match()
	_deck_given = given
	_deck_in_code = deck_resource if deck == "" and deck_resource != null and given == "" else null
	_take_deck(result["deck"])
	_take(result["snapshot"])
	emit_signal("match_started", int(result["seed"]), deck_info, result["snapshot"])
	return true


func abandon_match() -> void:
	# Drop the match in play (a restart): phase becomes PHASE_NONE and start_match() is quiet
	# again. Python forgets it too (end_match), so save_state() and advance() say no_match, as
	# before any match; a bridge that is down or not up yet holds none.
	_clear_match()
	phase = PHASE_NONE
	if _bridge != null and _bridge.is_ready():
		_call("end_match", {})


func start_turn() -> bool:
	# Open the next turn (year); turn_started lists its mandatory cards.
	if not _match_usable():
		return false
	var result = _call("start_turn", {})
	if result == null:
		return false
	_take(result["snapshot"])
	var turn: Dictionary = result["turn"]
	emit_signal("turn_started", int(turn["year"]), turn["mandatory"])
	return true


func draw_next_card() -> Dictionary:
	# Draw the next card of the turn. Returns the draw ({} when the turn is over or on error):
	# {card_id, card, slot, year, reason, option_order}; current_card holds it typed. The turn's
	# end emits turn_ended (and match_ended after year 4).
	if not _match_usable():
		return {}
	var result = _call("draw", {})
	if result == null:
		return {}
	_take(result["snapshot"])
	var draw = result["draw"]
	if draw == null:
		current_draw = {}
		current_card = null
		var end: Dictionary = result["turn_end"]
		_take_ending(result["ending"])
		emit_signal(
			"turn_ended", int(end["year"]), int(end["cards"]), bool(end["short"]), end["meters"]
		)
		_announce_ending()
		return {}
	_take_draw(draw)
	_emit_card()
	return draw


func advance() -> Reference:
	# Move the match on to the next card awaiting a choice and return it (a SorteioCard): draws
	# the next card, or when the turn closed opens the next year and draws its first (the turn
	# and match signals come on the way). With a card already on the table (after load_state)
	# it hands that card again, emitting card_drawn and typed_card_drawn, without drawing.
	# Returns null when the match ended (or was over already) and on an error.
	if phase == PHASE_ENDED or not _match_usable():
		return null
	if phase == PHASE_AWAITING_CHOICE and current_card != null:
		_emit_card()
		return current_card
	# At most one closed turn per year on the way (a year may close with no card left).
	for _step in range(8):
		if phase == PHASE_TURN_START and not start_turn():
			return null
		draw_next_card()
		if current_card != null or phase != PHASE_TURN_START:
			return current_card  # a card, or the end (PHASE_ENDED), or an error (null)
	return null


func choose_side(side: int) -> bool:
	# Apply the option shown on `side` of the card on the table: SIDE_LEFT (or SIDE_TOP; Godot
	# 3's MARGIN_LEFT / MARGIN_TOP) is the first in display order, SIDE_RIGHT (or SIDE_BOTTOM)
	# the second (GDD 05 §3.4: the sides are drawn with the card). Emits option_applied (and
	# match_ended on a catastrophe). A side the card lacks: bad_request, nothing applied.
	if not _match_usable():
		return false
	if current_card == null:
		_report("no card awaits a choice (phase '%s'): advance() first" % phase, CODE_RULE_ERROR)
		return false
	var option = current_card.option_on(side)
	if option == null:
		_report(
			(
				"card %s has no option on side %d (it has %d option(s))"
				% [current_card.id, side, current_card.options.size()]
			),
			CODE_BAD_REQUEST
		)
		return false
	return apply_option(option.index)


func apply_option(option: int) -> bool:
	# Apply option `option` (an index into the card's opcoes, not the display position; see
	# choose_side).
	if not _match_usable():
		return false
	var card = current_card
	var result = _call("choose", {"option": option})
	if result == null:
		return false
	_take(result["snapshot"])
	current_draw = {}
	current_card = null
	_take_ending(result["ending"])
	var choice: Dictionary = result["choice"]
	var meters_after: Dictionary = choice["meters"]
	var actors_after: Dictionary = choice["actors"]
	emit_signal(
		"option_applied", choice["card_id"], int(choice["option"]), meters_after, actors_after
	)
	var chosen = null
	if card != null and option >= 0 and option < card.options.size():
		chosen = card.options[option]
	else:
		chosen = Option.from_dictionary({}, option, -1)
	emit_signal("typed_option_applied", card, chosen, meters_after, actors_after)
	_announce_ending()
	return true


func save_state() -> Dictionary:
	# The whole match (RNG included) as a JSON-safe Dictionary; {} on error.
	# "deck" is the deck as the game named it (not Python's absolute path); load_state resolves
	# it again, and the engine state's deck fingerprint still refuses a different deck.
	if not _match_usable():
		return {}
	var result = _call("save", {})
	if result == null:
		return {}
	var state: Dictionary = result["state"]
	state["deck"] = _deck_given
	return state


func load_state(state, deck = null) -> bool:
	# Restore a match saved by save_state(); it continues exactly, mid-turn too (then advance()
	# hands the pending card again). Untyped: what a corrupt save file parses to (null, text, an
	# Array) is refused with bad_request, not a SCRIPT ERROR in the caller; the match in play is
	# kept. `deck`: the deck to load it into (a SorteioDeck or a path); null: the save's own. A
	# save of a SorteioDeck made in code (no path: its deck is "") loads into the one the last
	# match used, or a deck_resource made in code; in a new run, pass the deck.
	if typeof(state) != TYPE_DICTIONARY:
		_report(
			(
				"load_state needs the Dictionary save_state() returned, not %s"
				% NodeTexts.type_name(state)
			),
			CODE_BAD_REQUEST
		)
		return false
	var given = state.get("deck", "") if typeof(deck) == TYPE_NIL else deck
	var deck_object := typeof(given) == TYPE_OBJECT and given is Resource  # a SorteioDeck
	if typeof(deck) != TYPE_NIL and typeof(deck) != TYPE_STRING and not deck_object:
		var what := NodeTexts.type_name(deck)
		_report("deck must be a path (String) or a SorteioDeck, not %s" % what, CODE_BAD_REQUEST)
		return false
	var in_code = _deck_in_code if _deck_in_code != null else deck_resource
	var hint: bool = typeof(deck) == TYPE_NIL and typeof(given) == TYPE_STRING and given == ""
	if hint and in_code != null and in_code.resource_path == "":
		given = in_code  # a save of a deck made in code (its deck is ""), into that deck
		deck_object = true
		hint = false
	var sent: Dictionary = state.duplicate()
	var params := {"state": sent}
	if typeof(given) == TYPE_STRING or deck_object:
		if not _bridge_up():  # before any deck copy, as in start_match
			return false
		var named = given
		var deck_params := {}
		if deck_object:
			named = NodeTexts.resource_name(given)
			deck_params = _deck_resource_for_python(given)
		else:
			given = _resolved_deck(given)
			named = given
			deck_params = _deck_for_python(given)
		sent["deck"] = deck_params["deck"]
		if deck_params.has("deck_text"):
			params["deck_text"] = deck_params["deck_text"]
		_deck_names = [sent["deck"], named]
	var result = _call("load", params, NodeTexts.in_code_hint() if hint else "")
	if result == null:
		return false
	_clear_match()
	_deck_in_code = given if deck_object and given.resource_path == "" else null
	_deck_given = given.resource_path if deck_object else ""
	if typeof(given) == TYPE_STRING:
		_deck_given = given
	_take_deck(result["deck"])
	_take(result["snapshot"])
	_take_ending(result["ending"])
	_ending_announced = not ending.empty()  # an ended match loads as ended, announced once
	var pending = result["pending"]
	if pending != null:
		_take_draw(pending)
	# Python adapts a save of an earlier deck version and says what it changed (issue 14); a
	# reply without the field (an older recording, a scripted bridge) changed nothing.
	deck_update = PoolStringArray(result.get("deck_update", []))
	if not deck_update.empty():
		if print_warnings:
			push_warning(
				"sorteio: the save was loaded into an updated deck: " + deck_update.join("; ")
			)
		emit_signal("deck_updated", deck_update)
	emit_signal("state_loaded", result["snapshot"], current_draw)
	return true


func is_match_over() -> bool:
	return phase == PHASE_ENDED


func is_match_in_play() -> bool:
	# True while a match is in play (not none, ended or lost).
	return phase in [PHASE_TURN_START, PHASE_DRAWING, PHASE_AWAITING_CHOICE]


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
		# This game's port files and deck copies, which its server removes if the game is
		# killed (it cannot remove them itself then).
		for prefix in [SocketBridge.PORT_FILE_PREFIX, DECK_COPY_PREFIX]:
			bridge.game_files.append(
				OS.get_user_data_dir().plus_file("%s%d_" % [prefix, OS.get_process_id()])
			)
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
	call_deferred("_report", bridge_error, CODE_BRIDGE_DOWN)
	return false


func _announce() -> void:
	_announced = true
	set_process(false)
	emit_signal("bridge_ready", bridge_kind)


func _call(method: String, params: Dictionary, note := ""):
	# The result Dictionary, or null after emitting error_occurred (+ `note` for a rule_error).
	var deck_names := _deck_names
	_deck_names = []
	if not _bridge_up():
		return null
	var reply: Dictionary = _bridge.request(method, params)
	if record_path != "":
		_record(method, params, reply)
	_remove_temporary_files()  # deck copies: Python read them during the request
	if not _announced and _bridge.is_ready():
		# This call brought the bridge up: bridge_ready goes out after it returns. Emitted here,
		# a handler's own calls (the README's _begin starts a match) ran inside this call, whose
		# older reply then overwrote the node's state; a handler's stop_bridge() left _bridge null.
		_announced = true
		set_process(false)
		call_deferred("emit_signal", "bridge_ready", bridge_kind)
	var failed: bool = _bridge.has_failed()
	if failed:
		bridge_error = _bridge_failure()
		set_process(false)  # this call reports the failure; _process must not report it again
	if reply.get("ok", false):
		return reply["result"]
	var error: Dictionary = reply.get("error", {})
	var message := str(error.get("message", "unknown error"))
	if not deck_names.empty():
		message = NodeTexts.named_as_given(message, deck_names[0], deck_names[1])
	var code := str(error.get("code", "unknown"))
	_report(message + (note if code == CODE_RULE_ERROR else ""), code)
	if failed:
		_lose_match_if_in_play(bridge_error)
	return null


func _bridge_up() -> bool:
	# Starts (autostart pending) and waits for the bridge; false after reporting that it is down.
	if _bridge == null and _autostart_pending and autostart_bridge:
		start_bridge()  # a call in the first frame: start now, with the settings made so far
	if _bridge == null:
		var why := "the sorteio bridge is not running (start_bridge() first)"
		if bridge_error != "":
			why = "the sorteio bridge failed: " + bridge_error
		_report(why, CODE_BRIDGE_DOWN)
		return false
	if not _bridge.is_ready() and not _bridge.has_failed():
		# A call before bridge_ready (in _ready): wait for the start-up, as the in-process bridge
		# (ready at once) would have served it. Godot 3 calls are not coroutines, so this blocks
		# the frame until the server answers (startup_timeout_ms at most).
		_bridge.wait_ready()
	if _bridge.has_failed() and not _bridge.is_ready():
		bridge_error = _bridge_failure()
		set_process(false)  # reported here; _process must not report it again
		_report(bridge_error, CODE_BRIDGE_DOWN)
		_lose_match_if_in_play(bridge_error)
		return false
	return true


func _record(method: String, params: Dictionary, reply: Dictionary) -> void:
	# Paths (the deck, a save's deck) stay out: a recording replays on any machine.
	var kept: Dictionary = params.duplicate()
	kept.erase("deck")
	kept.erase("deck_text")  # a deck from the pack, sent as its text
	kept.erase("state")
	_recorded.append({"method": method, "params": kept, "reply": reply})
	var path := record_path
	if path.begins_with("res://") or path.begins_with("user://"):
		path = ProjectSettings.globalize_path(path)
	var file := File.new()
	if file.open(path, File.WRITE) != OK:
		return
	file.store_string(JSON.print({"format": RECORDING_FORMAT, "exchanges": _recorded}, "\t"))
	file.close()


func _report(message: String, code: String) -> void:
	last_error = message
	last_error_code = code
	if print_warnings:
		push_warning("sorteio: %s (%s)" % [message, code])
	emit_signal("error_occurred", message, code)


func _take(snapshot: Dictionary) -> void:
	year = int(snapshot["year"])
	slot = int(snapshot["slot"])
	phase = str(snapshot["phase"])
	meters = snapshot["meters"]
	actors = snapshot["actors"]


func _take_deck(summary: Dictionary) -> void:
	deck_info = summary
	_mode_names = {}
	for mode in summary.get("modos", []):
		_mode_names[mode["id"]] = mode["nome"]


func _take_draw(draw: Dictionary) -> void:
	# The draw as the node keeps it: ints where Godot 3's JSON gave floats, the year added.
	draw["slot"] = int(draw["slot"])
	draw["year"] = year
	draw["option_order"] = _ints(draw["option_order"])
	current_draw = draw
	current_card = Card.from_draw(draw, _mode_names, year)


func _emit_card() -> void:
	emit_signal(
		"card_drawn",
		current_draw["card"],
		current_draw["slot"],
		current_draw["reason"],
		current_draw["option_order"]
	)
	emit_signal("typed_card_drawn", current_card)


func _clear_match() -> void:
	year = 0
	slot = 0
	meters = {}
	actors = {}
	current_draw = {}
	current_card = null
	ending = {}
	deck_update = PoolStringArray()
	_ending_announced = false


func _match_usable() -> bool:
	# Calls about a match say at once when it was lost (Python would only say "no match").
	if phase != PHASE_LOST:
		return true
	_report(
		(
			(
				"the match was lost with its bridge (%s): start_bridge() if it is down, then "
				+ "load_state() a save or start_match()"
			)
			% _lost_reason
		),
		CODE_MATCH_LOST
	)
	return false


func _lose_match_if_in_play(message: String) -> void:
	if not is_match_in_play():
		return
	_clear_match()
	phase = PHASE_LOST
	_lost_reason = message
	emit_signal("match_lost", message)


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


func _deck_for_python(path: String) -> Dictionary:
	# The deck params of new_match / load: {"deck": an absolute path Python can read, a built-in
	# name, or null for the package's default deck}, or {"deck": path, "deck_text": its JSON}
	# for a deck inside the pack, which Python cannot open (docs/protocol.md, deck_text).
	if path == "":
		return {"deck": null}
	if not (path.begins_with("res://") or path.begins_with("user://")):
		return {"deck": path}  # absolute path or a built-in deck name ("padrao", "curto")
	if path.begins_with("user://") or not OS.has_feature("standalone"):
		return {"deck": ProjectSettings.globalize_path(path)}
	# Exported game: res:// lives inside the .pck, which Python cannot open; hand it the text.
	var source := File.new()
	if source.open(path, File.READ) != OK:
		# Not exported as a plain file: the imported SorteioDeck carries the text in the pack.
		if ResourceLoader.exists(path):
			var imported = load(path)
			if imported is DeckResource:
				return _carried(imported.json_text, path)
		return {"deck": ProjectSettings.globalize_path(path)}
	var text := source.get_as_text()
	source.close()
	return _carried(text, path)


func _deck_resource_for_python(resource: Resource) -> Dictionary:
	# The deck params of a SorteioDeck: its source file while it is on disk (the editor, a run
	# from the project folder), else the text the resource carries, named as the game has it:
	# its path, or for one made in code (no path) what it is, never a temporary file.
	var path := resource.resource_path
	if path.begins_with("res://") and path.get_extension() == "json":
		if not OS.has_feature("standalone") and File.new().file_exists(path):
			return {"deck": ProjectSettings.globalize_path(path)}
	return _carried(str(resource.get("json_text")), NodeTexts.resource_name(resource))


func _carried(text: String, name: String) -> Dictionary:
	if _bridge != null and _bridge.has_method("takes_deck_text") and not _bridge.takes_deck_text():
		if print_warnings and not _old_server_said:  # it ignores deck_text: a copy, said once
			_old_server_said = true
			push_warning("sorteio: " + NodeTexts.old_server_note())
		return {"deck": _deck_copy(text, "deck.json")}
	# The deck params for a deck Python cannot open, named `name` as the game gave it: its text,
	# which leaves nothing on the player's disk even if the game is killed mid-request (issue
	# 14); a copy only when the text would not fit the bridge's request (the socket's frame).
	var most := -1
	if _bridge != null and _bridge.has_method("max_request_bytes"):
		most = _bridge.max_request_bytes()
	if most < 0 or JSON.print(text).to_utf8().size() <= most - ROOM_FOR_THE_REST:
		return {"deck": name, "deck_text": text}
	var file_name := name.get_file() if name.get_extension() == "json" else "deck.json"
	return {"deck": _deck_copy(text, file_name)}


func _deck_copy(text: String, name: String) -> String:
	# Absolute path of user://sorteio_deck_<pid>_<name> holding `text` (the path itself on
	# failure), removed once the request that hands it to Python returned; those of games killed
	# before that are removed first. A game killed mid-request: its own socket server removes it
	# (--game-files); a joined server removes none (issue 14, "Nothing left behind").
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


func _ints(values: Array) -> Array:
	var out := []
	for value in values:
		out.append(int(value))
	return out
