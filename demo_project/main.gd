extends Control
## The demo's flow: when the rules answer, start a match, show card after card, let the player
## pick a side, say what the choice moved, move on with [method SorteioNode.advance], and say at
## the end how the mandate went. The bar on top restarts with a seed, saves and loads.
##
## Command line (after [code]--[/code]): [code]--autoplay[/code] (or SORTEIO_AUTOPLAY=1) picks
## sides by itself; [code]--seed=N[/code]; [code]--delay=SECONDS[/code] (autoplay pace);
## [code]--quit-at-end[/code] (exit 0 at the end, 1 after an error);
## [code]--save-after=N[/code] (autoplay: save after N choices, load it back, and go on).

const Texts := preload("res://scenes/texts.gd")
const CardView := preload("res://scenes/card_view.gd")
const MetersView := preload("res://scenes/meters_view.gd")
const ActorsView := preload("res://scenes/actors_view.gd")
const DECK: String = "res://decks/padrao.json"
const SAVE_PATH: String = "user://demo_save.json"
## The level functions (GDD 07) of actors counted as unhappy at the end.
const UNHAPPY: Array[String] = ["ataque", "pressao"]

## The match's seed (-1: a new one each match).
@export var match_seed: int = -1
## Plays by itself, picking a side at random.
@export var autoplay: bool = false
## Seconds between autoplay steps.
@export var autoplay_delay: float = 0.6
## Quits when the match ends (the tests' runs).
@export var quit_at_end: bool = false

## Errors reported by the node so far.
var errors: int = 0
## Choices made in this match.
var choices: int = 0

var _rng: RandomNumberGenerator = RandomNumberGenerator.new()
var _save_after: int = -1
var _seed_played: int = -1
var _meters_before: Dictionary = {}
var _actors_before: Dictionary = {}
var _card_view: CardView = CardView.new()
var _status: Label = Label.new()
var _seed_field: LineEdit = LineEdit.new()
var _notice: Label = Label.new()


func _ready() -> void:
	# One language per run (issue 15): the demo's catalogs follow the addon's choice.
	TranslationServer.set_locale(SorteioI18n.language())
	_read_command_line()
	_rng.seed = match_seed if match_seed >= 0 else int(Time.get_unix_time_from_system())
	_build()
	_card_view.show_continue = not autoplay
	_card_view.side_chosen.connect(_on_side_chosen)
	_card_view.continue_requested.connect(_on_continue_requested)
	Sorteio.match_started.connect(_on_match_started)
	Sorteio.turn_started.connect(_on_turn_started)
	Sorteio.card_drawn.connect(_on_card_drawn)
	Sorteio.option_applied.connect(_on_option_applied)
	Sorteio.match_ended.connect(_on_match_ended)
	Sorteio.state_loaded.connect(_on_state_loaded)
	Sorteio.match_lost.connect(_on_match_lost)
	Sorteio.error_occurred.connect(_on_error_occurred)
	if Sorteio.is_bridge_failed():  # it failed before this scene connected
		_on_error_occurred(Sorteio.bridge_error, SorteioNode.CODE_BRIDGE_DOWN)
		return
	_new_match(match_seed)


func _read_command_line() -> void:
	if OS.get_environment("SORTEIO_AUTOPLAY") in ["1", "true", "yes"]:
		autoplay = true
	for arg: String in OS.get_cmdline_user_args():
		if arg == "--autoplay":
			autoplay = true
		elif arg == "--quit-at-end":
			quit_at_end = true
		elif arg.begins_with("--seed="):
			match_seed = arg.get_slice("=", 1).to_int()
		elif arg.begins_with("--delay="):
			autoplay_delay = arg.get_slice("=", 1).to_float()
		elif arg.begins_with("--save-after="):
			_save_after = arg.get_slice("=", 1).to_int()


# -- layout --------------------------------------------------------------------------------------


func _build() -> void:
	var margin: MarginContainer = MarginContainer.new()
	margin.set_anchors_and_offsets_preset(Control.PRESET_FULL_RECT)
	for side: String in ["left", "right", "top", "bottom"]:
		margin.add_theme_constant_override("margin_" + side, 16)
	add_child(margin)
	var rows: VBoxContainer = VBoxContainer.new()
	rows.add_theme_constant_override("separation", 12)
	margin.add_child(rows)
	rows.add_child(_bar())
	var columns: HBoxContainer = HBoxContainer.new()
	columns.size_flags_vertical = Control.SIZE_EXPAND_FILL
	columns.add_theme_constant_override("separation", 16)
	rows.add_child(columns)
	var left: VBoxContainer = VBoxContainer.new()
	left.custom_minimum_size = Vector2(340, 0)
	left.add_theme_constant_override("separation", 18)
	left.add_child(MetersView.new())
	left.add_child(ActorsView.new())
	columns.add_child(left)
	_card_view.size_flags_horizontal = Control.SIZE_EXPAND_FILL
	columns.add_child(_card_view)


func _bar() -> HBoxContainer:
	var bar: HBoxContainer = HBoxContainer.new()
	bar.add_theme_constant_override("separation", 8)
	_status.size_flags_horizontal = Control.SIZE_EXPAND_FILL
	_status.clip_text = true
	_status.text = Texts.t("Sorteio · esperando as regras")
	bar.add_child(_status)
	_notice.add_theme_color_override("font_color", Color(0.7, 0.85, 0.7))
	bar.add_child(_notice)
	var seed_label: Label = Label.new()
	seed_label.text = Texts.t("Semente:")
	bar.add_child(seed_label)
	_seed_field.placeholder_text = Texts.t("aleatória")
	_seed_field.custom_minimum_size = Vector2(110, 0)
	_seed_field.text_submitted.connect(_on_seed_submitted)
	bar.add_child(_seed_field)
	bar.add_child(_button("Nova partida", _on_restart_pressed))
	bar.add_child(_button("Salvar", _on_save_pressed))
	bar.add_child(_button("Carregar", _on_load_pressed))
	return bar


func _button(text: String, action: Callable) -> Button:
	var button: Button = Button.new()
	button.text = text
	button.pressed.connect(action)
	return button


func _show_status() -> void:
	var where: String = (
		Texts.t("fim")
		if Sorteio.is_match_over()
		else Texts.t("ano %d · carta %d") % [Sorteio.year, Sorteio.slot]
	)
	_status.text = (
		Texts.t("Sorteio · %s · semente %d · ponte %s") % [where, _seed_played, Sorteio.bridge_kind]
	)


# -- the match -----------------------------------------------------------------------------------


func _new_match(new_seed: int) -> void:
	Sorteio.abandon_match()  # a restart drops the match in play, explicitly
	choices = 0
	if await Sorteio.start_match(new_seed, DECK):
		_advance()


func _advance() -> void:
	_remember_state()
	await Sorteio.advance()  # card_drawn, or turn/match signals on the way


func _remember_state() -> void:
	_meters_before = Sorteio.meters.duplicate()
	_actors_before = Sorteio.actors.duplicate(true)


func _on_match_started(match_seed_used: int, _deck: Dictionary, _snapshot: Dictionary) -> void:
	_seed_played = match_seed_used
	_seed_field.text = str(match_seed_used)
	_show_status()


func _on_turn_started(year: int, mandatory: Array) -> void:
	_card_view.show_year(year, mandatory)
	_show_status()


func _on_card_drawn(card: SorteioCard) -> void:
	_remember_state()
	_card_view.show_card(card)
	_show_status()
	if autoplay:
		_later(_autopick)


func _on_side_chosen(side: Side) -> void:
	await Sorteio.choose_side(side)


func _on_option_applied(
	_card: SorteioCard, option: SorteioOption, meters: Dictionary, actors: Dictionary
) -> void:
	choices += 1
	_card_view.show_choice(
		option,
		Texts.effects(Sorteio.deck_info, _changes(_meters_before, meters), _actor_changes(actors))
	)
	if Sorteio.is_match_over():
		return  # match_ended comes next
	if autoplay:
		if choices == _save_after:
			_later(_save_and_reload)
		else:
			_later(_advance)


func _on_match_ended(_reason: String, ending: Dictionary) -> void:
	_show_status()
	_card_view.show_ending(ending, _summary(ending))
	if autoplay:  # a terminal user (headless) sees that the match happened and how it ended
		# One language: the prefix follows the run's, as the ending sentence (Python's) does.
		print(Texts.t("sorteio demo: semente %d: %s") % [_seed_played, Texts.ending(ending)])
	if quit_at_end:
		get_tree().quit(0 if errors == 0 else 1)


func _on_state_loaded(_snapshot: Dictionary, _pending: SorteioCard) -> void:
	_notice.text = Texts.t("partida carregada")
	_show_status()
	_advance()  # hands the card on the table again, or moves on


func _on_match_lost(message: String) -> void:
	_card_view.show_problem(
		message + Texts.t(" (Nova partida ou Carregar)"), SorteioNode.CODE_MATCH_LOST
	)


func _on_error_occurred(message: String, code: String) -> void:
	errors += 1
	_card_view.show_problem(message, code)
	if quit_at_end:
		get_tree().quit(1)


func _on_continue_requested() -> void:
	if Sorteio.is_match_over():
		_new_match(_seed_from_field(true))
	else:
		_advance()


func _autopick() -> void:
	if Sorteio.current_card == null:
		return
	await Sorteio.choose_side(SIDE_LEFT if _rng.randi_range(0, 1) == 0 else SIDE_RIGHT)


func _later(action: Callable) -> void:
	if autoplay_delay > 0:
		get_tree().create_timer(autoplay_delay).timeout.connect(action)
	else:
		action.call_deferred()


# -- what a choice moved, how the match went ----------------------------------------------------


func _changes(before: Dictionary, after: Dictionary) -> Dictionary:
	var moved: Dictionary = {}
	for id: String in after:
		var change: int = int(after[id]) - int(before.get(id, after[id]))
		if change != 0:
			moved[id] = change
	return moved


func _actor_changes(after: Dictionary) -> Dictionary:
	var moved: Dictionary = {}
	for id: String in after:
		var now: int = int((after[id] as Dictionary).get("satisfaction", 0))
		var then: int = int(
			(_actors_before.get(id, after[id]) as Dictionary).get("satisfaction", now)
		)
		if now != then:
			moved[id] = now - then
	return moved


func _summary(_ending: Dictionary) -> String:
	var lines: PackedStringArray = []
	var ids: Array = Sorteio.meters.keys()
	ids.sort_custom(
		func(a: String, b: String) -> bool: return Sorteio.meters[a] < Sorteio.meters[b]
	)
	if not ids.is_empty():
		var low: String = ids[0]
		var high: String = ids[ids.size() - 1]
		lines.append(
			(
				Texts.t("Medidor mais baixo: %s (%d); mais alto: %s (%d).")
				% [
					Texts.name_of(Sorteio.deck_info, low),
					int(Sorteio.meters[low]),
					Texts.name_of(Sorteio.deck_info, high),
					int(Sorteio.meters[high])
				]
			)
		)
	var unhappy: PackedStringArray = []
	for id: String in Sorteio.actors:
		var state: Dictionary = Sorteio.actors[id]
		if Texts.function_of(Sorteio.deck_info, str(state.get("level", ""))) in UNHAPPY:
			unhappy.append(
				(
					"%s (%s)"
					% [
						Texts.name_of(Sorteio.deck_info, id),
						Texts.name_of(Sorteio.deck_info, str(state.get("level", "")))
					]
				)
			)
	lines.append(
		(
			Texts.t("Atores descontentes: %s.") % ", ".join(unhappy)
			if not unhappy.is_empty()
			else Texts.t("Nenhum ator descontente.")
		)
	)
	return "\n".join(lines)


# -- the bar: seed, restart, save, load ---------------------------------------------------------


func _seed_from_field(fresh_when_empty: bool) -> int:
	var text: String = _seed_field.text.strip_edges()
	if text.is_valid_int() and text.to_int() >= 0:
		return text.to_int()
	return -1 if fresh_when_empty else match_seed


func _on_seed_submitted(_text: String) -> void:
	_new_match(_seed_from_field(true))


func _on_restart_pressed() -> void:
	_new_match(_seed_from_field(true))


func _on_save_pressed() -> void:
	var state: Dictionary = await Sorteio.save_state()
	if state.is_empty():
		return
	var file: FileAccess = FileAccess.open(SAVE_PATH, FileAccess.WRITE)
	if file == null:
		_notice.text = (
			Texts.t("não foi possível salvar (%s)") % error_string(FileAccess.get_open_error())
		)
		return
	file.store_string(JSON.stringify(state))
	file.close()
	_notice.text = Texts.t("partida salva")


func _on_load_pressed() -> void:
	if not FileAccess.file_exists(SAVE_PATH):
		_notice.text = Texts.t("nenhuma partida salva")
		return
	# JSON.new().parse, not JSON.parse_string: a corrupt file must not print an engine error.
	var json: JSON = JSON.new()
	if json.parse(FileAccess.get_file_as_string(SAVE_PATH)) != OK:
		_notice.text = Texts.t("o arquivo salvo está corrompido (%s)") % json.get_error_message()
		return
	await Sorteio.load_state(json.data)  # not a save: error_occurred says why, match kept


func _save_and_reload() -> void:
	await _on_save_pressed()
	_on_load_pressed()
