@icon("res://addons/sorteio/icons/sorteio_node.svg")
class_name SorteioNode
extends Node
## The card draw of GDD 06 for a Godot 4 game: the autoload [code]Sorteio[/code].
##
## Each year of a 4-year mandate is a turn of 7 cards; no card repeats in a match; mandatory
## cards (emergencies, Furious actors' attacks, cards linked to low meters) come first. The rules
## run in Python (the [code]sorteio[/code] package), reached through a bridge: in-process
## ([constant BRIDGE_PYTHON], the Python GDExtension) or a [code]sorteio serve[/code] child on
## 127.0.0.1 ([constant BRIDGE_SOCKET]). No rule lives in GDScript.
##
## Every call is a coroutine: [code]await[/code] it for its result. A call made before the bridge
## is up (in [code]_ready[/code]) waits for it on every bridge. Calls run one at a time in the
## order they were made: a call made from a signal handler runs right after the call that
## emitted the signal (same frame). Each signal is emitted after the node's state (year, slot,
## phase, meters, actors, current_card, ending) is updated. A refusal, and a bridge that is down,
## emit [signal error_occurred] with a code ([code]CODE_*[/code]) and the call returns
## false / null / {}.
## [codeblock]
## func _ready() -> void:
##     Sorteio.card_drawn.connect(_show_card)
##     await Sorteio.start_match(42)
##     Sorteio.advance()  # draws the first card: _show_card gets it
##
## func _on_left_pressed() -> void:
##     await Sorteio.choose_side(SIDE_LEFT)
##     Sorteio.advance()  # next card, next year, or the end (match_ended)
## [/codeblock]

## The bridge is up; [param kind] is [constant BRIDGE_SOCKET], [constant BRIDGE_PYTHON] or
## [constant BRIDGE_SCRIPTED].
signal bridge_ready(kind: String)
## A match began: the seed used, the deck summary (names of meters [code]medidores[/code],
## actors [code]atores[/code], levels [code]niveis[/code], modes [code]modos[/code], limits) and
## the snapshot [code]{year, phase, slot, meters, actors}[/code].
signal match_started(match_seed: int, deck: Dictionary, snapshot: Dictionary)
## A turn (year 1-4) began; [param mandatory] lists its mandatory cards in draw order, each
## [code]{kind: "emergency"|"actor"|"meter", target, card_id, merged, texto}[/code] (GDD 06 §5).
signal turn_started(year: int, mandatory: Array)
## A card was drawn and awaits a choice: the card, with its year, slot, reason and option sides.
signal card_drawn(card: SorteioCard)
## The player's option was applied: the card, the option, then meters [code]{id: 0-100}[/code]
## and actors [code]{id: {"satisfaction": int, "level": String}}[/code] after it.
signal option_applied(
	card: SorteioCard, option: SorteioOption, meters: Dictionary, actors: Dictionary
)
## A turn closed: its year, the cards played in it, [param short] when eligible cards ran out
## before the turn was full, the meters at the closing.
signal turn_ended(year: int, cards: int, short: bool, meters: Dictionary)
## The match is over: [param reason] is [constant END_CATASTROPHE] or [constant END_OF_MANDATE];
## [param ending] is [code]{reason, year, cards_played, short, meters, zeroed, texto}[/code].
signal match_ended(reason: String, ending: Dictionary)
## A saved match was loaded: its snapshot and the card awaiting a choice (null when none).
signal state_loaded(snapshot: Dictionary, pending: SorteioCard)
## A save of an earlier version of the deck was loaded into this one (a game patch edited the
## deck): one sentence per change made to fit it, in the run's language (a removed card kept as
## shown, a reserved card's slot given to the draw, the card on screen closed unanswered...),
## for the game to log or tell the player. Emitted right before [signal state_loaded], only when
## something changed; [member deck_update] holds the same list. Also printed as one warning
## when [member print_warnings] is on.
signal deck_updated(changes: PackedStringArray)
## The match in play is gone: the bridge died or was restarted (a new Python side holds no
## match). [member phase] is [constant PHASE_LOST]. When the bridge died, [method start_bridge]
## again first; then [method load_state] a save or [method start_match] a new one.
signal match_lost(message: String)
## A call was refused, or the bridge is down: the message and its code ([code]CODE_*[/code]).
signal error_occurred(message: String, code: String)

## No match (none started, or abandoned).
const PHASE_NONE: String = ""
## Between turns: [method start_turn] (or [method advance]) opens the next year.
const PHASE_TURN_START: String = "turn_start"
## Within a turn, between two cards: [method draw_next_card] (or [method advance]).
const PHASE_DRAWING: String = "drawing"
## A card is on the table ([member current_card]): [method choose_side] or [method apply_option].
const PHASE_AWAITING_CHOICE: String = "awaiting_choice"
## The match is over ([member ending]).
const PHASE_ENDED: String = "ended"
## The match was lost with its bridge ([signal match_lost]).
const PHASE_LOST: String = "lost"

## [member bridge_mode]: the in-process bridge when it is installed, else the socket bridge.
const BRIDGE_AUTO: String = "auto"
## A [code]sorteio serve[/code] child (or the frozen server shipped beside the game).
const BRIDGE_SOCKET: String = "socket"
## In-process, through the Python GDExtension (bridges/python_bridge.gd).
const BRIDGE_PYTHON: String = "python"
## The test double replaying scripted or recorded replies (bridges/scripted_bridge.gd).
const BRIDGE_SCRIPTED: String = "scripted"

## A meter reached 0 (GDD 06: catastrophe).
const END_CATASTROPHE: String = "catastrophe"
## Year 4 closed.
const END_OF_MANDATE: String = "end_of_mandate"

## Bad arguments (a seed out of range, a save that is not one, a side the card lacks).
const CODE_BAD_REQUEST: String = "bad_request"
## The deck file: missing, unreadable, or invalid (file, card id and field named).
const CODE_DECK_ERROR: String = "deck_error"
## [method start_match] on a deck with no card a match can draw (GDD 06 §1; README decision 13).
const CODE_EMPTY_DECK: String = "empty_deck"
## The rules refused: wrong phase, bad option index, a save of another deck.
const CODE_RULE_ERROR: String = "rule_error"
## Nothing started or loaded.
const CODE_NO_MATCH: String = "no_match"
## [method start_match] while a match is in play: [method abandon_match] it first.
const CODE_MATCH_IN_PROGRESS: String = "match_in_progress"
## A call about a match that was lost with its bridge ([signal match_lost]).
const CODE_MATCH_LOST: String = "match_lost"
## The bridge is down: never up, failed, or its server died.
const CODE_BRIDGE_DOWN: String = "bridge_down"
## Kept from the Godot 3 addon; the Godot 4 node waits for the bridge instead and never sends it.
const CODE_BRIDGE_NOT_READY: String = "bridge_not_ready"
## A slow request (a huge deck's new_match or load) took more than 30 s; nothing changed.
const CODE_TIMEOUT: String = "timeout"
## A bug on the Python side (reported, not fatal).
const CODE_INTERNAL_ERROR: String = "internal_error"
## The scripted bridge got a call its script does not have next.
const CODE_SCRIPT_MISMATCH: String = "script_mismatch"

## Project setting: the socket bridge's Python, read when [member python_executable] is "".
const SETTING_PYTHON: String = "sorteio/python"
## Project setting: a running server's port file to join, read when [member bridge_file] is "".
const SETTING_BRIDGE_FILE: String = "sorteio/bridge_file"
## The project's deck, shared with the Sorteio panel ([member deck_path] "" uses it).
const SETTING_DECK: String = "sorteio/deck"
## The socket bridge's script ([code]bridges/socket_bridge.gd[/code]), for [method use_bridge].
const SocketBridge := preload("res://addons/sorteio/bridges/socket_bridge.gd")
## The scripted test bridge's script ([SorteioScriptedBridge]), for [method use_bridge].
const ScriptedBridge := preload("res://addons/sorteio/bridges/scripted_bridge.gd")
## Loaded only when present: the in-process bridge ships with the Python GDExtension.
const PYTHON_BRIDGE_PATH: String = "res://addons/sorteio/bridges/python_bridge.gd"
## The [code]format[/code] a [member record_path] recording is written with (and replayed).
const RECORDING_FORMAT: String = "sorteio-recording/1"
# The node's parts, each doing one job (node/*.gd): the line calls wait in, the bridge's making,
# the deck files handed to Python, the recording, messages about misuse.
const _CALL_LINE := preload("res://addons/sorteio/node/call_line.gd")
const _BRIDGE_FACTORY := preload("res://addons/sorteio/node/bridge_factory.gd")
const _DECK_FILES := preload("res://addons/sorteio/node/deck_files.gd")
const _RECORDER := preload("res://addons/sorteio/node/recorder.gd")
const _MESSAGES := preload("res://addons/sorteio/node/messages.gd")

## The deck: a res:// (or absolute) path to a deck JSON file, or a built-in deck name
## ("padrao", "curto"); "" is the project's deck (the project setting [code]sorteio/deck[/code],
## the deck the Sorteio panel checks), else the package's default deck. A relative path
## ("decks/meu.json") is read from res://, in the editor and exported alike.
@export_file("*.json") var deck_path: String = ""
## The deck as a resource (the editor imports each .sorteio.json file as one). When set, it wins
## over [member deck_path]; a deck given to [method start_match] wins over both.
@export var deck_resource: SorteioDeck = null
## Seed of the next match; -1 lets Python pick one (reported by [signal match_started]).
@export var match_seed: int = -1
## Which bridge [method start_bridge] starts: [constant BRIDGE_AUTO], [constant BRIDGE_SOCKET],
## [constant BRIDGE_PYTHON] or [constant BRIDGE_SCRIPTED] (replays [member scripted_replies]).
@export_enum("auto", "socket", "python", "scripted") var bridge_mode: String = BRIDGE_AUTO
## Start the bridge on the first frame (after the main scene's _ready, so settings made there
## count) or at the first call, whichever comes first. Off: call [method start_bridge].
@export var autostart_bridge: bool = true
## Python for the socket bridge: an absolute path, a name on the PATH, or a res:// / user://
## path. "" means $SORTEIO_PYTHON, then the frozen sorteio-serve beside an exported game, then the
## project setting sorteio/python, then "python3".
@export var python_executable: String = ""
## Port file of a running server ([code]sorteio serve --port-file F[/code]) to join instead of
## starting one; "" means $SORTEIO_BRIDGE_FILE, then the project setting sorteio/bridge_file.
@export var bridge_file: String = ""
## The recording (JSON) the [constant BRIDGE_SCRIPTED] bridge replays.
@export_file("*.json") var scripted_replies: String = ""
## When set, every request of a match and its reply are written to this JSON file (user:// or
## absolute path), which the scripted bridge replays: record a real match once, replay it in
## tests with no Python.
@export var record_path: String = ""
## Each [signal error_occurred] is also printed with push_warning; a game that shows errors its
## own way turns this off (the signal comes either way).
@export var print_warnings: bool = true
## How long the bridge may take to come up.
@export var startup_timeout_ms: int = 15000
## How long a request may take (reading a deck: up to 35 s on the socket bridge).
@export var request_timeout_ms: int = 5000

## The current year, 1-4 (0 before the first turn).
var year: int = 0
## Cards drawn in this turn so far.
var slot: int = 0
## One of the [code]PHASE_*[/code] constants.
var phase: String = PHASE_NONE
## Meter id -> value 0-100.
var meters: Dictionary = {}
## Actor id -> [code]{"satisfaction": 0-100, "level": level id}[/code].
var actors: Dictionary = {}
## The deck summary [signal match_started] gave.
var deck_info: Dictionary = {}
## The card awaiting a choice, or null.
var current_card: SorteioCard = null
## The same draw as the protocol's Dictionary ({} when none), as the Godot 3 node had it.
var current_draw: Dictionary = {}
## How the match ended ({} while it goes on).
var ending: Dictionary = {}
## What the last [method load_state] changed to fit a save into an updated deck (see
## [signal deck_updated]); empty when the save was made with this very deck.
var deck_update: PackedStringArray = []
## The bridge in use ("" before one starts).
var bridge_kind: String = ""
## Why the bridge failed ("" while it has not).
var bridge_error: String = ""
## The message of the last [signal error_occurred] (for code that awaits a call and wants to
## know why it returned false).
var last_error: String = ""
## The code ([code]CODE_*[/code]) of the last [signal error_occurred].
var last_error_code: String = ""

var _bridge: SorteioBridge = null
# True until the bridge is started or stopped: a call made before the first frame (even before
# the node is in the tree, as from a -s script's _initialize) starts it with the settings so far.
var _autostart_pending: bool = true
# Said after a failure of the socket bridge that bridge_mode auto chose over an in-process bridge
# that is installed but not usable ("" otherwise).
var _fallback_note: String = ""
var _announced: bool = false
var _failure_handled: bool = false
# A start-up failure awaiting its deferred report (a call saying it first clears it: said once).
var _start_failure_unsaid: bool = false
var _ending_announced: bool = false
# [the deck as the game named it (res:// path, built-in name, "" for the default or one made in
# code): saved as is, so a save never holds this machine's absolute path; the SorteioDeck made in
# code (no path to save) the match was started or loaded with, else null].
var _deck_source: Array = ["", null]
var _mode_names: Dictionary = {}
var _line: _CALL_LINE = _CALL_LINE.new()
var _decks: _DECK_FILES = null
var _recorder: _RECORDER = _RECORDER.new()


func _init() -> void:
	_decks = _DECK_FILES.new(_report)


func _ready() -> void:
	# Deferred: an autoload's _ready runs before the main scene's, whose settings must count.
	_autostart.call_deferred()


func _process(_delta: float) -> void:
	if _bridge == null or _failure_handled:
		set_process(false)
		return
	_poll_bridge()


func _exit_tree() -> void:
	_close_bridge()
	_decks.remove_temporary_files()


func _notification(what: int) -> void:
	if what == NOTIFICATION_WM_CLOSE_REQUEST or what == NOTIFICATION_PREDELETE:
		_close_bridge()
		_decks.remove_temporary_files()


# -- the bridge ------------------------------------------------------------------------------


## Starts the bridge [member bridge_mode] names, without blocking; [signal bridge_ready] follows
## (or [signal error_occurred] with [constant CODE_BRIDGE_DOWN]). A match in play is lost
## ([signal match_lost]): the new Python side holds none. Returns false when it cannot begin.
func start_bridge() -> bool:
	_autostart_pending = false
	var made: Variant = _BRIDGE_FACTORY.make(self)
	if made is String:
		_install_failed(made)
		return false
	return _use(made, _BRIDGE_FACTORY.fallback_note(self, made))


## Uses [param bridge] (any [SorteioBridge]: e.g. a [code]SorteioScriptedBridge[/code] in a
## game's tests) instead of the one [member bridge_mode] names, starting it as
## [method start_bridge] does.
func use_bridge(bridge: SorteioBridge) -> bool:
	return _use(bridge, "")


## Closes the bridge (the socket server stops; also done on exit). A match in play is lost.
func stop_bridge() -> void:
	_autostart_pending = false
	_lose_match_if_in_play(SorteioI18n.t("a ponte foi parada"))
	_close_bridge()


## True once requests can be made.
func is_bridge_ready() -> bool:
	return _bridge != null and _bridge.is_ready()


## True once the bridge failed (start-up or later), until [method start_bridge]; why:
## [member bridge_error].
func is_bridge_failed() -> bool:
	return bridge_error != ""


## Awaits the bridge (starting it if autostart is pending): true once it is up, false when it
## failed or none is running (reported with [constant CODE_BRIDGE_DOWN]).
func wait_bridge_ready() -> bool:
	var ticket: int = await _line.take()
	var up: bool = await _bridge_up()
	_line.leave(ticket)
	return up


## PID of the socket server child this node started (-1: none, exited, joined, other bridges).
func bridge_process_id() -> int:
	if _bridge != null and _bridge.has_method("live_pid"):
		return int(_bridge.call("live_pid"))
	return -1


# -- the match ---------------------------------------------------------------------------------


## Begins a match with [param deck] (a path String or a [SorteioDeck]; "" uses
## [member deck_resource], then [member deck_path]) and [param new_seed] (-1: [member match_seed],
## and -1 there lets Python pick). Refused with [constant CODE_MATCH_IN_PROGRESS] while a match
## is in play ([method abandon_match] it first). Emits [signal match_started].
func start_match(new_seed: int = -1, deck: Variant = "") -> bool:
	var ticket: int = await _line.take()
	var started: bool = await _start_match(new_seed, deck)
	_line.leave(ticket)
	return started


## Drops the match in play, in Python too (a restart): [member phase] is [constant PHASE_NONE]
## at once, [method start_match] allowed again; the calls after it ([method save_state],
## [method advance]...) answer [constant CODE_NO_MATCH] as before any match.
func abandon_match() -> void:
	_clear_match()
	phase = PHASE_NONE
	var ticket: int = await _line.take()
	if _bridge != null and _bridge.is_ready():  # one down or starting holds no match
		await _request("end_match", {})
		_clear_match()  # again: the reply of a call made before this one may have set it
		phase = PHASE_NONE
	_line.leave(ticket)


## Opens the next year (turn); [signal turn_started] lists its mandatory cards.
func start_turn() -> bool:
	var ticket: int = await _line.take()
	var opened: bool = await _guarded_start_turn()
	_line.leave(ticket)
	return opened


## Draws the next card of the turn and returns it ([signal card_drawn]). When the turn is full or
## no eligible card is left, closes the turn instead ([signal turn_ended], and
## [signal match_ended] after year 4) and returns null; null on an error too.
func draw_next_card() -> SorteioCard:
	var ticket: int = await _line.take()
	var card: SorteioCard = null
	if _match_usable():
		card = await _draw()
	_line.leave(ticket)
	return card


## Moves the match on to the next card awaiting a choice and returns it: draws the next card,
## or when the turn closed opens the next year and draws its first (the turn and match signals
## come on the way). With a card already on the table (after [method load_state]) it hands that
## card again, emitting [signal card_drawn], without drawing. Returns null when the match ended
## (or was over already) and on an error.
func advance() -> SorteioCard:
	var ticket: int = await _line.take()
	var card: SorteioCard = await _advance()
	_line.leave(ticket)
	return card


## Applies the option shown on [param side] of the card on the table: [constant SIDE_LEFT] (or
## [constant SIDE_TOP]) is the first in display order, [constant SIDE_RIGHT] (or
## [constant SIDE_BOTTOM]) the second (GDD 05 §3.4: the sides are drawn with the card). Emits
## [signal option_applied] (and [signal match_ended] on a catastrophe).
func choose_side(side: Side) -> bool:
	var ticket: int = await _line.take()
	var applied: bool = false
	if _match_usable():
		if current_card == null:
			_report(_MESSAGES.no_card(phase, ending), CODE_RULE_ERROR)
		else:
			var option: SorteioOption = current_card.option_on(side)
			if option == null:
				_report(_MESSAGES.no_option_on(current_card, side), CODE_BAD_REQUEST)
			else:
				applied = await _apply(option.index)
	_line.leave(ticket)
	return applied


## Applies [code]card.options[option][/code]: the card's own option index
## ([member SorteioOption.index]), not the display position (see [method choose_side]).
func apply_option(option: int) -> bool:
	var ticket: int = await _line.take()
	var applied: bool = false
	if _match_usable():
		applied = await _apply(option)
	_line.leave(ticket)
	return applied


## The whole match (RNG included) as a JSON-safe Dictionary with int numbers; {} on error. Its
## [code]deck[/code] is the deck as the game named it, resolved again by [method load_state].
func save_state() -> Dictionary:
	var ticket: int = await _line.take()
	var state: Dictionary = {}
	if _match_usable():
		var result: Variant = await _request("save", {})
		if result != null:
			state = (result as Dictionary).get("state", {})
			state["deck"] = _deck_source[0]
	_line.leave(ticket)
	return state


## Restores a match [method save_state] returned (also one saved by the Godot 3 addon, and one
## read back from a JSON file: its float numbers are made ints); it continues exactly, mid-turn
## too, replacing any match in play. Anything else ([code]null[/code] from an empty or corrupt
## file, text, an Array) is refused with [constant CODE_BAD_REQUEST], the match kept. Emits
## [signal state_loaded]; then [method advance] continues (it hands a pending card again).
## [param deck]: the deck to load it into, a [SorteioDeck] or a path; null: the save's own. A
## save of a [SorteioDeck] made in code (no path: its deck is "") loads into the one this node's
## last match used, or a [member deck_resource] made in code; in a new run, pass the deck.
func load_state(state: Variant, deck: Variant = null) -> bool:
	var ticket: int = await _line.take()
	var loaded: bool = await _load_state(state, deck)
	_line.leave(ticket)
	return loaded


## True when the match is over (ended by a catastrophe or the end of the mandate).
func is_match_over() -> bool:
	return phase == PHASE_ENDED


## True while a match is in play (not none, ended or lost).
func is_match_in_play() -> bool:
	return phase in [PHASE_TURN_START, PHASE_DRAWING, PHASE_AWAITING_CHOICE]


# -- the match, inside a call's turn -------------------------------------------------------------


func _start_match(new_seed: int, deck: Variant) -> bool:
	if is_match_in_play():
		_report(_MESSAGES.match_in_progress(year, phase), CODE_MATCH_IN_PROGRESS)
		return false
	var chosen: int = new_seed if new_seed != -1 else match_seed
	if chosen < -1:
		# Only -1 means "pick one"; another negative seed is a mistake, not a random match.
		_report(_MESSAGES.bad_seed(chosen), CODE_BAD_REQUEST)
		return false
	# The bridge before any deck copy: a socket server then watches the game, and removes the
	# copy if the game is killed before it can (--game-files).
	if not await _bridge_up():
		return false
	var source: Array = _decks.source(deck, deck_resource, deck_path)
	if source.is_empty():
		return false
	var params: Dictionary = source[1]
	if chosen >= 0:
		params["seed"] = chosen
	var result: Variant = await _request("new_match", params)
	_decks.remove_temporary_files()
	if result == null:
		return false
	var reply: Dictionary = result
	_clear_match()
	_deck_source = [source[0], source[2]]
	_take_deck(reply["deck"])
	_take(reply["snapshot"])
	match_started.emit(int(reply["seed"]), deck_info, reply["snapshot"])
	return true


func _guarded_start_turn() -> bool:
	if not _match_usable():
		return false
	return await _start_turn()


func _start_turn() -> bool:
	var result: Variant = await _request("start_turn", {})
	if result == null:
		return false
	var reply: Dictionary = result
	_take(reply["snapshot"])
	var turn: Dictionary = reply["turn"]
	turn_started.emit(int(turn["year"]), turn["mandatory"])
	return true


func _draw() -> SorteioCard:
	var result: Variant = await _request("draw", {})
	if result == null:
		return null
	var reply: Dictionary = result
	_take(reply["snapshot"])
	if reply["draw"] == null:
		current_card = null
		current_draw = {}
		var end: Dictionary = reply["turn_end"]
		ending = reply["ending"] if reply["ending"] != null else ending
		turn_ended.emit(int(end["year"]), int(end["cards"]), bool(end["short"]), end["meters"])
		_announce_ending()
		return null
	current_draw = reply["draw"]
	current_card = SorteioCard.from_draw(current_draw, _mode_names)
	card_drawn.emit(current_card)
	return current_card


func _apply(option: int) -> bool:
	var card: SorteioCard = current_card
	var result: Variant = await _request("choose", {"option": option})
	if result == null:
		return false
	var reply: Dictionary = result
	_take(reply["snapshot"])
	current_card = null
	current_draw = {}
	ending = reply["ending"] if reply["ending"] != null else ending
	var choice: Dictionary = reply["choice"]
	var chosen: SorteioOption = null
	if card != null and option >= 0 and option < card.options.size():
		chosen = card.options[option]
	else:
		chosen = SorteioOption.from_dictionary({}, option, -1)
	option_applied.emit(card, chosen, choice["meters"], choice["actors"])
	_announce_ending()
	return true


func _advance() -> SorteioCard:
	if phase == PHASE_ENDED:
		return null
	if not _match_usable():
		return null
	if phase == PHASE_AWAITING_CHOICE and current_card != null:
		card_drawn.emit(current_card)
		return current_card
	# At most one closed turn per year on the way (a year may close with no card left).
	for _step: int in 8:
		if phase == PHASE_TURN_START and not await _start_turn():
			return null
		var card: SorteioCard = await _draw()
		if card != null or phase != PHASE_TURN_START:
			return card  # a card, or the end (PHASE_ENDED), or an error
	return null


func _load_state(state: Variant, deck: Variant) -> bool:
	var wrong: String = _MESSAGES.not_a_save(state)
	if wrong != "":
		_report(wrong, CODE_BAD_REQUEST)
		return false
	var sent: Dictionary = SorteioBridge.whole_numbers_as_ints(
		(state as Dictionary).duplicate(true)
	)
	var saved: Variant = sent.get("deck", "")
	var params: Dictionary = {"state": sent}
	var source: Array = ["", {}, null, ""]  # a save's deck that is no String: Python refuses it
	if saved is String or typeof(deck) != TYPE_NIL:
		if not await _bridge_up():  # before any deck copy, as in _start_match
			return false
		source = _decks.for_load(str(saved), deck, _deck_source[1], deck_resource)
		if source.is_empty():
			return false
		sent["deck"] = source[1]["deck"]  # a deck sent as its text: its name
		params["deck_text"] = source[1].get("deck_text")
	var result: Variant = await _request("load", params, source[3])  # [3]: a hint on failure
	_decks.remove_temporary_files()
	if result == null:
		return false
	var reply: Dictionary = result
	_clear_match()
	_deck_source = [source[0], source[2]]
	_take_deck(reply["deck"])
	_take(reply["snapshot"])
	ending = reply["ending"] if reply["ending"] != null else ending
	_ending_announced = not ending.is_empty()  # an ended match loads as ended, announced once
	if reply["pending"] != null:
		current_draw = reply["pending"]
		current_card = SorteioCard.from_draw(current_draw, _mode_names)
	# A save of an earlier deck version, adapted by Python (issue 14); no field: nothing changed.
	deck_update = PackedStringArray(reply.get("deck_update", []))
	if not deck_update.is_empty():
		if print_warnings:
			push_warning("sorteio: " + _MESSAGES.deck_updated(deck_update))
		deck_updated.emit(deck_update)
	state_loaded.emit(reply["snapshot"], current_card)
	return true


func _match_usable() -> bool:
	# Calls about a match say at once when it was lost (Python would only say "no match").
	if phase == PHASE_LOST:
		_report(_MESSAGES.match_lost(bridge_error), CODE_MATCH_LOST)
		return false
	return true


func _clear_match() -> void:
	year = 0
	slot = 0
	meters = {}
	actors = {}
	current_card = null
	current_draw = {}
	ending = {}
	deck_update = PackedStringArray()
	_ending_announced = false


func _take(snapshot: Dictionary) -> void:
	year = int(snapshot["year"])
	slot = int(snapshot["slot"])
	phase = str(snapshot["phase"])
	meters = snapshot["meters"]
	actors = snapshot["actors"]


func _take_deck(summary: Dictionary) -> void:
	deck_info = summary
	_mode_names = {}
	for mode: Dictionary in summary.get("modos", []):
		_mode_names[mode["id"]] = mode["nome"]


func _announce_ending() -> void:
	if not ending.is_empty() and not _ending_announced:
		_ending_announced = true
		match_ended.emit(str(ending["reason"]), ending)


# -- the bridge, inside a call's turn ------------------------------------------------------------


func _bridge_up() -> bool:
	if _bridge == null and _autostart_pending and autostart_bridge:
		start_bridge()  # a call before the first frame: start now, with the settings made so far
	if _bridge == null:
		var why: String = SorteioI18n.t(
			"a ponte do sorteio não está rodando (start_bridge() " + "primeiro)"
		)
		if bridge_error != "":
			why = SorteioI18n.t("a ponte do sorteio falhou: %s") % bridge_error
		_start_failure_unsaid = false  # this call says it
		_report(why, CODE_BRIDGE_DOWN)
		return false
	# A failure found while this call waits is said once, by _poll_bridge() or here (QA: twice
	# for one start_match); one said before this call began is said again, for this call.
	var said_before: bool = _failure_handled
	while not _bridge.is_ready():
		_poll_bridge()
		if _bridge == null or _bridge.is_ready():
			break
		# Before the node is in the tree (a -s script's _initialize), the main loop's frames.
		var frames: SceneTree = (
			get_tree() if is_inside_tree() else Engine.get_main_loop() as SceneTree
		)
		if _bridge.has_failed() or frames == null:
			var message: String = _failure_of(_bridge)
			if not _bridge.has_failed():
				message = _MESSAGES.no_frames()
			var said_while_waiting: bool = (
				_failure_handled and not said_before and not _start_failure_unsaid
			)
			_failure_handled = true
			_start_failure_unsaid = false
			bridge_error = message
			if not said_while_waiting:
				_report(message, CODE_BRIDGE_DOWN)
			return false
		await frames.process_frame
	return _bridge != null and _bridge.is_ready()


func _request(method: String, params: Dictionary, note: String = "") -> Variant:
	# The result Dictionary (numbers made ints), or null after error_occurred (+ note: rule_error).
	if not await _bridge_up():
		return null
	var bridge: SorteioBridge = _bridge  # held: stop_bridge() must not free it mid-request
	# SorteioBridge.request is a coroutine in the bridges that wait (the base one is not).
	@warning_ignore("redundant_await")
	# Whole numbers come as ints: each bridge converts its reply once (SorteioBridge.request).
	var reply: Dictionary = await bridge.request(method, params)
	if _bridge == null:
		return null  # stop_bridge() while it waited (an abandon_match() not awaited): no report
	if record_path != "":
		_recorder.record(record_path, method, params, reply)
	if reply.get("ok", false):
		return reply.get("result", {})
	var error: Dictionary = reply.get("error", {})
	var code: String = str(error.get("code", "unknown"))
	var message: String = str(error.get("message", SorteioI18n.t("erro desconhecido")))
	message = _decks.named_as_given(message)  # the deck as the game named it, not Python's path
	message += note if code == CODE_RULE_ERROR else ""
	if code == CODE_BRIDGE_DOWN or _bridge.has_failed():
		_failure_handled = true
		bridge_error = message
	_report(message, code)
	if _bridge.has_failed():
		_lose_match_if_in_play(message)
	return null


func _poll_bridge() -> void:
	if _bridge == null:
		return
	_bridge.poll()
	if _bridge.is_ready() and not _announced:
		_announced = true
		bridge_ready.emit(bridge_kind)
	elif _bridge.has_failed() and not _failure_handled:
		_failure_handled = true
		bridge_error = _failure_of(_bridge)
		_report(bridge_error, CODE_BRIDGE_DOWN)
		_lose_match_if_in_play(bridge_error)


func _bridge_failed_at_start(message: String) -> void:
	bridge_error = message
	_failure_handled = true
	# Deferred: this may run before the game connected error_occurred (autostart, _ready).
	_start_failure_unsaid = true
	_say_start_failure.call_deferred()


func _say_start_failure() -> void:
	if _start_failure_unsaid and bridge_error != "":
		_start_failure_unsaid = false
		_report(bridge_error, CODE_BRIDGE_DOWN)


func _lose_match_if_in_play(message: String) -> void:
	if not is_match_in_play():
		return
	_clear_match()
	phase = PHASE_LOST
	match_lost.emit(message)


func _close_bridge() -> void:
	var closing: SorteioBridge = _bridge
	_bridge = null  # first: close() ends waiting requests at once, and their calls find none
	if closing != null:
		closing.close()
	_announced = false


func _autostart() -> void:
	if _autostart_pending and autostart_bridge and _bridge == null:
		start_bridge()
	_autostart_pending = false


func _use(bridge: SorteioBridge, fallback_note: String) -> bool:
	_fallback_note = fallback_note
	_autostart_pending = false
	_lose_match_if_in_play(SorteioI18n.t("a ponte foi reiniciada: a nova não tem partida"))
	_close_bridge()
	bridge_error = ""
	_failure_handled = false
	_announced = false
	_bridge = bridge
	bridge_kind = bridge.kind()
	_decks.fit(bridge)  # a deck's text goes in one request when the bridge carries it
	set_process(true)
	if not bridge.start(self):
		_bridge_failed_at_start(_failure_of(bridge))
		return false
	_poll_bridge()
	return true


func _failure_of(bridge: SorteioBridge) -> String:
	# Why it failed, and why auto fell back from in-process (its missing piece: often the fix).
	return bridge.failure() + _fallback_note


func _install_failed(message: String) -> void:
	_close_bridge()
	_failure_handled = false
	_bridge_failed_at_start(message)


func _report(message: String, code: String) -> void:
	last_error = message
	last_error_code = code
	if print_warnings:
		push_warning("sorteio: %s (%s)" % [message, code])
	error_occurred.emit(message, code)
