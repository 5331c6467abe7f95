extends VBoxContainer
## The meters (GDD 01): a bar per meter, coloured by GDD 06's thresholds: red at or below the
## emergency limit (an emergency card is due, §3.3.1), orange below the meter limit (a linked
## card is due, §3.3.3), green otherwise. The limits come from the deck summary
## ([code]limite_emergencia[/code], [code]limite_medidor[/code]). Reacts to Sorteio's signals only.

const Texts := preload("res://scenes/texts.gd")
const RED: Color = Color(0.95, 0.3, 0.25)
const ORANGE: Color = Color(1.0, 0.6, 0.15)
const GREEN: Color = Color(0.45, 0.8, 0.5)

var emergency_limit: int = 10
var meter_limit: int = 30
var _rows: GridContainer = GridContainer.new()
var _bars: Dictionary = {}
var _values: Dictionary = {}


func _ready() -> void:
	var title: Label = Label.new()
	title.text = Texts.t("Medidores")
	title.add_theme_color_override("font_color", Color(0.6, 0.75, 1.0))
	add_child(title)
	_rows.columns = 3
	add_child(_rows)
	Sorteio.match_started.connect(_on_match_started)
	Sorteio.option_applied.connect(_on_option_applied)
	Sorteio.turn_ended.connect(_on_turn_ended)
	Sorteio.state_loaded.connect(_on_state_loaded)


## The colour of a meter at [param value] (0-100).
func colour_of(value: int) -> Color:
	if value <= emergency_limit:
		return RED
	if value < meter_limit:
		return ORANGE
	return GREEN


func _on_match_started(_match_seed: int, deck: Dictionary, snapshot: Dictionary) -> void:
	_build(deck)
	_show(snapshot.get("meters", {}))


func _on_state_loaded(snapshot: Dictionary, _pending: SorteioCard) -> void:
	_build(Sorteio.deck_info)
	_show(snapshot.get("meters", {}))


func _on_option_applied(
	_card: SorteioCard, _option: SorteioOption, meters: Dictionary, _actors: Dictionary
) -> void:
	_show(meters)


func _on_turn_ended(_year: int, _cards: int, _short: bool, meters: Dictionary) -> void:
	_show(meters)


func _build(deck: Dictionary) -> void:
	for child: Node in _rows.get_children():
		_rows.remove_child(child)
		child.queue_free()
	_bars.clear()
	_values.clear()
	emergency_limit = int(deck.get("limite_emergencia", emergency_limit))
	meter_limit = int(deck.get("limite_medidor", meter_limit))
	for meter: Dictionary in deck.get("medidores", []):
		var name_label: Label = Label.new()
		name_label.text = str(meter["nome"])
		name_label.custom_minimum_size = Vector2(140, 0)
		name_label.clip_text = true  # a long name must not widen the column and move the card
		var bar: ProgressBar = ProgressBar.new()
		bar.max_value = 100
		bar.show_percentage = false
		bar.custom_minimum_size = Vector2(120, 16)
		bar.size_flags_vertical = Control.SIZE_SHRINK_CENTER
		var value: Label = Label.new()
		value.custom_minimum_size = Vector2(34, 0)
		value.horizontal_alignment = HORIZONTAL_ALIGNMENT_RIGHT
		_rows.add_child(name_label)
		_rows.add_child(bar)
		_rows.add_child(value)
		_bars[meter["id"]] = bar
		_values[meter["id"]] = value


func _show(meters: Dictionary) -> void:
	for id: String in meters:
		if not _bars.has(id):
			continue
		var level: int = int(meters[id])
		var bar: ProgressBar = _bars[id]
		bar.value = level
		var fill: StyleBoxFlat = StyleBoxFlat.new()
		fill.bg_color = colour_of(level)
		bar.add_theme_stylebox_override("fill", fill)
		(_values[id] as Label).text = str(level)
