extends Control
# The demo's flow: when the bridge is up start a match, draw card after card, open each year.
# Command line (after `--`): --autoplay (or SORTEIO_AUTOPLAY=1) picks options by itself;
# --seed=N, --delay=SECONDS (autoplay pace), --quit-at-end (exit 0 at the end, 1 after an error).

const Texts = preload("res://scenes/texts.gd")

export(String, FILE, "*.json") var deck_path := "res://decks/padrao.json"
export var match_seed := -1
export var autoplay := false
export var autoplay_delay := 0.6
export var quit_at_end := false

var errors := 0

var _rng := RandomNumberGenerator.new()
var _seed_played := -1

onready var _card_view = $Margin/Columns/CardView
onready var _margin: MarginContainer = $Margin


func _ready() -> void:
	_read_command_line()
	_rng.seed = match_seed if match_seed >= 0 else OS.get_unix_time()
	_card_view.show_continue = not autoplay
	# Godot 3 grows a Control past its anchors while a child is briefly wide (a wrapping label
	# before it has a width) and does not shrink it back: refit the layout to the window.
	_margin.connect("minimum_size_changed", self, "_refit", [], CONNECT_DEFERRED)
	_margin.connect("resized", self, "_refit", [], CONNECT_DEFERRED)
	_card_view.connect("continue_requested", self, "_on_continue_requested")
	Sorteio.connect("bridge_ready", self, "_on_bridge_ready")
	Sorteio.connect("match_started", self, "_on_match_started")
	Sorteio.connect("turn_started", self, "_on_turn_started")
	Sorteio.connect("card_drawn", self, "_on_card_drawn")
	Sorteio.connect("option_applied", self, "_on_option_applied")
	Sorteio.connect("turn_ended", self, "_on_turn_ended")
	Sorteio.connect("match_ended", self, "_on_match_ended")
	Sorteio.connect("error_occurred", self, "_on_error_occurred")
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
	Sorteio.start_turn()


func _draw_card() -> void:
	Sorteio.draw_next_card()


func _autopick() -> void:
	if Sorteio.current_draw.empty():
		return
	var order: Array = Sorteio.current_draw["option_order"]
	Sorteio.apply_option(order[_rng.randi_range(0, order.size() - 1)])


func _later(method: String) -> void:
	if autoplay_delay > 0:
		get_tree().create_timer(autoplay_delay).connect("timeout", self, method)
	else:
		call_deferred(method)
