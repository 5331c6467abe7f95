extends Control
## The Godot 4 demo: a designer plays a match of the deck card by card. Everything it shows
## comes from the Sorteio autoload (no rule here): the card, why it came, the two options on
## fixed left/right buttons, the effects of the choice, meters and actors, the end.
##
## Command line (after --): --seed=N, --autoplay (the demo presses the buttons itself),
## --delay=S (seconds between autoplay picks, default 0.6), --quit-at-end (prints one line with
## how the mandate went, then quits).

const DECK: String = "res://decks/padrao.sorteio.json"
const SAVE: String = "user://demo_save.json"
const RED: Color = Color(0.85, 0.25, 0.22)
const ORANGE: Color = Color(0.93, 0.6, 0.2)
const GREEN: Color = Color(0.3, 0.7, 0.4)

var autoplay: bool = false
var autoplay_delay: float = 0.6
var quit_at_end: bool = false
var chosen_seed: int = -1

var _year_label: Label
var _seed_box: SpinBox
var _mode_label: Label
var _title_label: Label
var _text_label: Label
var _reason_label: Label
var _left_button: Button
var _right_button: Button
var _effects_label: Label
var _status_label: Label
var _meters_box: VBoxContainer
var _actors_box: VBoxContainer
var _end_panel: PanelContainer
var _end_label: Label
var _meter_names: Dictionary = {}
var _actor_names: Dictionary = {}
var _level_names: Dictionary = {}
var _picks: int = 0


func _ready() -> void:
	_read_arguments()
	_build()
	Sorteio.deck_path = DECK
	Sorteio.print_warnings = false  # errors are shown on screen (_status_label)
	Sorteio.match_started.connect(_on_match_started)
	Sorteio.turn_started.connect(_on_turn_started)
	Sorteio.card_drawn.connect(_on_card_drawn)
	Sorteio.option_applied.connect(_on_option_applied)
	Sorteio.match_ended.connect(_on_match_ended)
	Sorteio.match_lost.connect(_on_match_lost)
	Sorteio.error_occurred.connect(_on_error_occurred)
	new_match()


## Starts a new match with the seed in the box (-1: any), abandoning the one in play.
func new_match() -> void:
	Sorteio.abandon_match()
	_end_panel.visible = false
	_effects_label.text = ""
	_status_label.text = "iniciando..."
	if await Sorteio.start_match(int(_seed_box.value)):
		_status_label.text = ""
		Sorteio.advance()


## Picks the option on [param side] of the card on the table.
func pick(side: Side) -> void:
	_set_buttons(false)
	if await Sorteio.choose_side(side):
		_picks += 1
		Sorteio.advance()


func save_game() -> void:
	var state: Dictionary = await Sorteio.save_state()
	if state.is_empty():
		return
	var file: FileAccess = FileAccess.open(SAVE, FileAccess.WRITE)
	file.store_string(JSON.stringify(state))
	file.close()
	_status_label.text = "partida salva (ano %d, carta %d)" % [Sorteio.year, Sorteio.slot]


func load_game() -> void:
	if not FileAccess.file_exists(SAVE):
		_status_label.text = "nenhuma partida salva"
		return
	var json: JSON = JSON.new()  # JSON.parse_string would log an engine error on a corrupt file
	json.parse(FileAccess.get_file_as_string(SAVE))
	if await Sorteio.load_state(json.data):
		_end_panel.visible = Sorteio.is_match_over()
		_status_label.text = "partida carregada"
		_refresh_meters(Sorteio.meters)
		_refresh_actors(Sorteio.actors)
		if not Sorteio.is_match_over():
			Sorteio.advance()


func _read_arguments() -> void:
	for given: String in OS.get_cmdline_user_args():
		if given == "--autoplay":
			autoplay = true
		elif given == "--quit-at-end":
			quit_at_end = true
		elif given.begins_with("--delay="):
			autoplay_delay = float(given.get_slice("=", 1))
		elif given.begins_with("--seed="):
			chosen_seed = int(given.get_slice("=", 1))


func _on_match_started(match_seed: int, deck: Dictionary, snapshot: Dictionary) -> void:
	_seed_box.set_value_no_signal(match_seed)
	_meter_names = _names(deck["medidores"])
	_actor_names = _names(deck["atores"])
	_level_names = _names(deck["niveis"])
	_build_meters(deck)
	_refresh_meters(snapshot["meters"])
	_refresh_actors(snapshot["actors"])


func _on_turn_started(year: int, mandatory: Array) -> void:
	_year_label.text = "Ano %d de 4 · %d obrigatória(s)" % [year, mandatory.size()]


func _on_card_drawn(card: SorteioCard) -> void:
	_year_label.text = "Ano %d de 4 · carta %d" % [card.year, card.slot]
	_mode_label.text = card.mode_name.to_upper()
	_title_label.text = card.title
	_text_label.text = card.text
	_reason_label.text = card.reason
	var left: SorteioOption = card.option_on(SIDE_LEFT)
	var right: SorteioOption = card.option_on(SIDE_RIGHT)
	_left_button.text = left.text if left != null else ""
	_right_button.text = right.text if right != null else ""
	_set_buttons(true)
	_right_button.disabled = right == null
	if autoplay:
		await get_tree().create_timer(autoplay_delay).timeout
		var button: Button = _left_button if _picks % 3 != 1 or right == null else _right_button
		button.pressed.emit()


func _on_option_applied(_card: SorteioCard, option: SorteioOption, meters: Dictionary, actors: Dictionary) -> void:
	var parts: PackedStringArray = []
	for meter: String in option.effects:
		parts.append("%s %+d" % [_meter_names.get(meter, meter), int(option.effects[meter])])
	for actor: String in option.actor_effects:
		parts.append("%s %+d" % [_actor_names.get(actor, actor), int(option.actor_effects[actor])])
	_effects_label.text = "«%s»: %s" % [option.text, ", ".join(parts) if parts else "nada muda"]
	_refresh_meters(meters)
	_refresh_actors(actors)


func _on_match_ended(reason: String, ending: Dictionary) -> void:
	_set_buttons(false)
	var title: String = "Mandato cumprido" if reason == SorteioNode.END_OF_MANDATE else "Catástrofe"
	_end_label.text = "%s\n\n%s" % [title, ending["texto"]]
	_end_panel.visible = true
	if quit_at_end:
		print("sorteio demo: semente %d: %s." % [int(_seed_box.value), ending["texto"]])
		get_tree().quit(0)


func _on_match_lost(message: String) -> void:
	_set_buttons(false)
	_status_label.text = "a partida se perdeu (%s): carregue ou comece outra" % message


func _on_error_occurred(message: String, code: String) -> void:
	_status_label.text = "%s: %s" % [code, message]
	if quit_at_end:  # a run that cannot reach its end says why and stops
		printerr("sorteio demo: %s" % message)
		get_tree().quit(1)


func _set_buttons(enabled: bool) -> void:
	_left_button.disabled = not enabled
	_right_button.disabled = not enabled


func _names(rows: Array) -> Dictionary:
	var names: Dictionary = {}
	for row: Dictionary in rows:
		names[row["id"]] = row["nome"]
	return names


func _build_meters(deck: Dictionary) -> void:
	for child: Node in _meters_box.get_children():
		child.queue_free()
	for meter: Dictionary in deck["medidores"]:
		var row: HBoxContainer = HBoxContainer.new()
		row.name = str(meter["id"])
		var label: Label = Label.new()
		label.text = str(meter["nome"])
		label.custom_minimum_size.x = 150
		var bar: ProgressBar = ProgressBar.new()
		bar.name = "Bar"
		bar.custom_minimum_size = Vector2(140, 18)
		bar.show_percentage = false
		var value: Label = Label.new()
		value.name = "Value"
		row.add_child(label)
		row.add_child(bar)
		row.add_child(value)
		_meters_box.add_child(row)


func _refresh_meters(meters: Dictionary) -> void:
	var emergency: int = int(Sorteio.deck_info.get("limite_emergencia", 10))
	var low: int = int(Sorteio.deck_info.get("limite_medidor", 30))
	for meter: String in meters:
		var row: Node = _meters_box.get_node_or_null(meter)
		if row == null:
			continue
		var value: int = int(meters[meter])
		var bar: ProgressBar = row.get_node("Bar")
		bar.value = value
		var fill: StyleBoxFlat = StyleBoxFlat.new()
		fill.bg_color = RED if value <= emergency else (ORANGE if value < low else GREEN)
		bar.add_theme_stylebox_override("fill", fill)
		(row.get_node("Value") as Label).text = str(value)


func _refresh_actors(actors: Dictionary) -> void:
	for child: Node in _actors_box.get_children():
		child.queue_free()
	for actor: String in actors:
		var row: Label = Label.new()
		var state: Dictionary = actors[actor]
		var level: String = str(_level_names.get(state["level"], state["level"]))
		row.text = "%s: %d (%s)" % [_actor_names.get(actor, actor), int(state["satisfaction"]), level]
		_actors_box.add_child(row)


func _build() -> void:
	var margin: MarginContainer = MarginContainer.new()
	margin.set_anchors_and_offsets_preset(Control.PRESET_FULL_RECT)
	for side: String in ["left", "right", "top", "bottom"]:
		margin.add_theme_constant_override("margin_" + side, 16)
	add_child(margin)
	var page: VBoxContainer = VBoxContainer.new()
	page.add_theme_constant_override("separation", 12)
	margin.add_child(page)

	var header: HBoxContainer = HBoxContainer.new()
	page.add_child(header)
	_year_label = Label.new()
	_year_label.size_flags_horizontal = Control.SIZE_EXPAND_FILL
	_year_label.add_theme_font_size_override("font_size", 20)
	header.add_child(_year_label)
	var seed_label: Label = Label.new()
	seed_label.text = "semente"
	header.add_child(seed_label)
	_seed_box = SpinBox.new()
	_seed_box.min_value = -1
	_seed_box.max_value = 2147483647
	_seed_box.value = chosen_seed
	header.add_child(_seed_box)
	for action: Array in [["Nova partida", new_match], ["Salvar", save_game], ["Carregar", load_game]]:
		var button: Button = Button.new()
		button.text = action[0]
		button.pressed.connect(action[1])
		header.add_child(button)

	var body: HBoxContainer = HBoxContainer.new()
	body.size_flags_vertical = Control.SIZE_EXPAND_FILL
	body.add_theme_constant_override("separation", 24)
	page.add_child(body)
	_meters_box = _column(body, "Medidores", 330)
	var card: VBoxContainer = _column(body, "", 0)
	card.size_flags_horizontal = Control.SIZE_EXPAND_FILL
	_actors_box = _column(body, "Atores", 280)
	_mode_label = _label(card, 14, Color(0.6, 0.75, 0.95))
	_title_label = _label(card, 26, Color.WHITE)
	_text_label = _label(card, 17, Color(0.9, 0.9, 0.9))
	_reason_label = _label(card, 14, Color(0.7, 0.7, 0.7))
	var buttons: HBoxContainer = HBoxContainer.new()
	buttons.add_theme_constant_override("separation", 16)
	card.add_child(buttons)
	_left_button = _option_button(buttons, SIDE_LEFT)
	_right_button = _option_button(buttons, SIDE_RIGHT)
	_effects_label = _label(card, 15, Color(0.95, 0.85, 0.5))
	_status_label = _label(page, 14, Color(0.95, 0.5, 0.45))

	_end_panel = PanelContainer.new()
	_end_panel.set_anchors_and_offsets_preset(Control.PRESET_CENTER)
	_end_panel.custom_minimum_size = Vector2(560, 220)
	_end_panel.visible = false
	add_child(_end_panel)
	var end_box: VBoxContainer = VBoxContainer.new()
	_end_panel.add_child(end_box)
	_end_label = _label(end_box, 22, Color.WHITE)
	_end_label.horizontal_alignment = HORIZONTAL_ALIGNMENT_CENTER
	var again: Button = Button.new()
	again.text = "Nova partida"
	again.pressed.connect(new_match)
	end_box.add_child(again)


func _column(parent: Control, title: String, width: int) -> VBoxContainer:
	var column: VBoxContainer = VBoxContainer.new()
	column.custom_minimum_size.x = width
	parent.add_child(column)
	if title != "":
		_label(column, 18, Color(0.8, 0.85, 0.9)).text = title
		var rows: VBoxContainer = VBoxContainer.new()
		column.add_child(rows)
		return rows
	return column


func _label(parent: Control, font_size: int, color: Color) -> Label:
	var label: Label = Label.new()
	label.autowrap_mode = TextServer.AUTOWRAP_WORD_SMART
	label.add_theme_font_size_override("font_size", font_size)
	label.add_theme_color_override("font_color", color)
	parent.add_child(label)
	return label


func _option_button(parent: Control, side: Side) -> Button:
	var button: Button = Button.new()
	button.custom_minimum_size = Vector2(0, 64)
	button.size_flags_horizontal = Control.SIZE_EXPAND_FILL
	button.autowrap_mode = TextServer.AUTOWRAP_WORD_SMART
	button.disabled = true
	button.pressed.connect(pick.bind(side))
	parent.add_child(button)
	return button
