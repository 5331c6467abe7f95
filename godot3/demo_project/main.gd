extends Control
# The demo's flow: when the bridge is up start a match, draw card after card, open each year.
# Command line (after `--`): --autoplay (or SORTEIO_AUTOPLAY=1) picks options by itself;
# --seed=N, --delay=SECONDS (autoplay pace), --quit-at-end (exit 0 at the end, 1 after an error).
#
# The layout (margins, columns, the five views) is built here, not saved in main.tscn: the editor
# lays out an open scene's containers and saves the positions it computed when it runs the game,
# so a main.tscn holding containers was rewritten (+17 lines) by every press of Play (issue 15).
# main.tscn holds the root alone (the views too: scenes/nodes.gd). Failures of Sorteio's calls
# come back as error_occurred (the views show them), so their bool results are not read here.

const Signals = preload("res://scenes/signals.gd")
const Texts = preload("res://scenes/texts.gd")
const VIEWS := {
	"HeaderView": preload("res://scenes/header_view.tscn"),
	"MetersView": preload("res://scenes/meters_view.tscn"),
	"ActorsView": preload("res://scenes/actors_view.tscn"),
	"CardView": preload("res://scenes/card_view.tscn"),
	"DrawLog": preload("res://scenes/draw_log.tscn"),
}

export(String, FILE, "*.json") var deck_path := "res://decks/padrao.json"
export var match_seed := -1
export var autoplay := false
export var autoplay_delay := 0.6
export var quit_at_end := false

var errors := 0

var _rng := RandomNumberGenerator.new()
var _seed_played := -1

var _card_view: Control
var _margin: MarginContainer


func _init() -> void:
	# Built when the scene is made, so Margin/Columns/... exist as soon as it is instanced.
	_margin = MarginContainer.new()
	_margin.name = "Margin"
	_margin.anchor_right = 1.0
	_margin.anchor_bottom = 1.0
	for side in [["left", 16], ["right", 16], ["top", 12], ["bottom", 12]]:
		_margin.add_constant_override("margin_" + side[0], side[1])
	add_child(_margin)
	var columns := HBoxContainer.new()
	columns.name = "Columns"
	columns.add_constant_override("separation", 16)
	_margin.add_child(columns)
	var left := VBoxContainer.new()
	left.name = "Left"
	left.rect_min_size = Vector2(300, 0)
	left.add_constant_override("separation", 10)
	columns.add_child(left)
	for view_name in VIEWS:
		var view: Control = VIEWS[view_name].instance()
		view.name = view_name
		if view_name in ["CardView", "DrawLog"]:
			columns.add_child(view)
		else:
			left.add_child(view)
	_card_view = columns.get_node("CardView")


func _ready() -> void:
	_read_command_line()
	_rng.seed = match_seed if match_seed >= 0 else OS.get_unix_time()
	_card_view.show_continue = not autoplay
	# Godot 3 grows a Control past its anchors while a child is briefly wide (a wrapping label
	# before it has a width) and does not shrink it back: refit the layout to the window.
	Signals.connect_all(
		_margin, self, {"minimum_size_changed": "_refit", "resized": "_refit"}, [], CONNECT_DEFERRED
	)
	Signals.connect_all(_card_view, self, {"continue_requested": "_on_continue_requested"})
	Signals.connect_all(
		Sorteio,
		self,
		{
			"bridge_ready": "_on_bridge_ready",
			"match_started": "_on_match_started",
			"turn_started": "_on_turn_started",
			"card_drawn": "_on_card_drawn",
			"option_applied": "_on_option_applied",
			"turn_ended": "_on_turn_ended",
			"match_ended": "_on_match_ended",
			"error_occurred": "_on_error_occurred",
		}
	)
	if Sorteio.is_bridge_ready():
		call_deferred("_start_match")


func _read_command_line() -> void:
	if OS.get_environment("SORTEIO_AUTOPLAY") in ["1", "true", "yes"]:
		autoplay = true
	for arg in OS.get_cmdline_args():
		if arg == "--autoplay":
			autoplay = true
		elif arg == "--quit-at-end":
			quit_at_end = true
		elif arg.begins_with("--seed="):
			match_seed = int(arg.split("=")[1])
		elif arg.begins_with("--delay="):
			autoplay_delay = float(arg.split("=")[1])


func _refit() -> void:
	if _margin.rect_size != rect_size:
		_margin.rect_size = rect_size


func _start_match() -> void:
	# warning-ignore:return_value_discarded
	Sorteio.start_match(match_seed, deck_path)


func _on_bridge_ready(_kind: String) -> void:
	call_deferred("_start_match")


func _on_match_started(match_seed_used: int, _deck: Dictionary, _snapshot: Dictionary) -> void:
	_seed_played = match_seed_used
	call_deferred("_start_turn")


func _on_turn_started(_year: int, _mandatory: Array) -> void:
	call_deferred("_draw_card")


func _on_card_drawn(_card: Dictionary, _slot: int, _reason: Dictionary, _order: Array) -> void:
	if autoplay:
		_later("_autopick")


func _on_option_applied(_card_id: String, _option: int, _meters, _actors) -> void:
	if not Sorteio.is_match_over():
		call_deferred("_draw_card")


func _on_turn_ended(_year: int, _cards: int, _short: bool, _meters: Dictionary) -> void:
	if autoplay and not Sorteio.is_match_over():
		_later("_start_turn")


func _on_match_ended(_reason: String, ending: Dictionary) -> void:
	if autoplay:  # a terminal user (headless) sees that the match happened and how it ended
		print("sorteio demo: semente %d: %s" % [_seed_played, Texts.ending(ending)])
	if quit_at_end:
		get_tree().quit(0 if errors == 0 else 1)


func _on_error_occurred(_message: String, _code: String) -> void:
	errors += 1
	if quit_at_end:
		get_tree().quit(1)


func _on_continue_requested() -> void:
	if Sorteio.is_match_over():
		_start_match()
	else:
		_start_turn()


func _start_turn() -> void:
	# warning-ignore:return_value_discarded
	Sorteio.start_turn()


func _draw_card() -> void:
	# warning-ignore:return_value_discarded
	Sorteio.draw_next_card()


func _autopick() -> void:
	if Sorteio.current_draw.empty():
		return
	var order: Array = Sorteio.current_draw["option_order"]
	# warning-ignore:return_value_discarded
	Sorteio.apply_option(order[_rng.randi_range(0, order.size() - 1)])


func _later(method: String) -> void:
	if autoplay_delay > 0:
		Signals.connect_all(get_tree().create_timer(autoplay_delay), self, {"timeout": method})
	else:
		call_deferred(method)
