extends VBoxContainer
# The meters (GDD 01): a bar per meter, colored by the GDD 06 thresholds: red at or below the
# emergency limit (an emergency card is due), orange below the meter limit (a linked card is due),
# green otherwise. The limits come from the deck summary (`limite_emergencia`, `limite_medidor`),
# else the GDD defaults. Reacts to Sorteio's signals only.

const Nodes = preload("res://scenes/nodes.gd")
const Signals = preload("res://scenes/signals.gd")
const Texts = preload("res://scenes/texts.gd")
const DEFAULT_EMERGENCY_LIMIT := 10
const DEFAULT_METER_LIMIT := 30
const RED := Color(0.95, 0.3, 0.25)
const ORANGE := Color(1.0, 0.6, 0.15)
const GREEN := Color(0.45, 0.8, 0.5)

var emergency_limit := DEFAULT_EMERGENCY_LIMIT
var meter_limit := DEFAULT_METER_LIMIT
var _bars := {}
var _values := {}

onready var _rows: GridContainer = $Rows


func _init() -> void:
	Nodes.add_label(self, "Title", Texts.t("Medidores"), false)
	Nodes.add_grid(self, "Rows", 3)


func _ready() -> void:
	Signals.connect_all(
		Sorteio,
		self,
		{
			"match_started": "_on_match_started",
			"option_applied": "_on_option_applied",
			"turn_ended": "_on_turn_ended",
			"state_loaded": "_on_state_loaded",
		}
	)


func _on_match_started(_match_seed: int, deck: Dictionary, snapshot: Dictionary) -> void:
	_build(deck)
	_show(snapshot["meters"])


func _on_state_loaded(snapshot: Dictionary, _pending: Dictionary) -> void:
	_build(Sorteio.deck_info)
	_show(snapshot["meters"])


func _on_option_applied(_card_id: String, _option: int, meters: Dictionary, _actors) -> void:
	_show(meters)


func _on_turn_ended(_year: int, _cards: int, _short: bool, meters: Dictionary) -> void:
	_show(meters)


func _build(deck: Dictionary) -> void:
	for child in _rows.get_children():
		_rows.remove_child(child)  # now, so it no longer counts in the layout
		child.queue_free()
	_bars.clear()
	_values.clear()
	set_limits(deck)
	for meter in deck["medidores"]:
		var name_label := Label.new()
		name_label.text = meter["nome"]
		name_label.rect_min_size = Vector2(130, 0)
		name_label.clip_text = true  # a long name must not widen the column (and move the card)
		var bar := ProgressBar.new()
		bar.min_value = 0
		bar.max_value = 100
		bar.percent_visible = false
		bar.rect_min_size = Vector2(120, 18)
		bar.size_flags_vertical = SIZE_SHRINK_CENTER
		var back := StyleBoxFlat.new()
		back.bg_color = Color(0.2, 0.22, 0.26)
		bar.add_stylebox_override("bg", back)
		var value := Label.new()
		value.rect_min_size = Vector2(30, 0)
		_rows.add_child(name_label)
		_rows.add_child(bar)
		_rows.add_child(value)
		_bars[meter["id"]] = bar
		_values[meter["id"]] = value


func _show(meters: Dictionary) -> void:
	for id in meters:
		if not _bars.has(id):
			continue
		var level := int(meters[id])
		_bars[id].value = level
		_values[id].text = str(level)
		var color := level_color(level)
		_values[id].add_color_override("font_color", color)
		var fill := StyleBoxFlat.new()
		fill.bg_color = color
		_bars[id].add_stylebox_override("fg", fill)


# The deck's limits when its summary has them (numbers from JSON are floats), else the defaults.
func set_limits(deck: Dictionary) -> void:
	emergency_limit = int(deck.get("limite_emergencia", DEFAULT_EMERGENCY_LIMIT))
	meter_limit = int(deck.get("limite_medidor", DEFAULT_METER_LIMIT))


func level_color(level: int) -> Color:
	if level <= emergency_limit:
		return RED
	if level < meter_limit:
		return ORANGE
	return GREEN


# What a bar shows now: {meter id: [value, fill color]} (for tests).
func bar_colors() -> Dictionary:
	var shown := {}
	for id in _bars:
		var fill: StyleBoxFlat = _bars[id].get_stylebox("fg")
		shown[id] = [int(_bars[id].value), fill.bg_color]
	return shown
