extends VBoxContainer
# The meters (GDD 01): a bar per meter, red at emergency level, amber below the meter limit.
# Reacts to Sorteio's signals only.

const DANGER := 10
const LOW := 30

var _bars := {}
var _values := {}

onready var _rows: GridContainer = $Rows


func _ready() -> void:
	Sorteio.connect("match_started", self, "_on_match_started")
	Sorteio.connect("option_applied", self, "_on_option_applied")
	Sorteio.connect("turn_ended", self, "_on_turn_ended")
	Sorteio.connect("state_loaded", self, "_on_state_loaded")


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
	for meter in deck["medidores"]:
		var name_label := Label.new()
		name_label.text = meter["nome"]
		name_label.rect_min_size = Vector2(130, 0)
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
		var color := Color(0.45, 0.8, 0.5)
		if level <= DANGER:
			color = Color(1.0, 0.35, 0.3)
		elif level < LOW:
			color = Color(1.0, 0.7, 0.25)
		_values[id].add_color_override("font_color", color)
		var fill := StyleBoxFlat.new()
		fill.bg_color = color
		_bars[id].add_stylebox_override("fg", fill)
