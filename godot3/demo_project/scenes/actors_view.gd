extends VBoxContainer
# The actors (GDD 07): satisfaction and mood (level), colored by the function their level calls
# for. Reacts to Sorteio's signals only.

const Nodes = preload("res://scenes/nodes.gd")
const Signals = preload("res://scenes/signals.gd")
const Texts = preload("res://scenes/texts.gd")
const MOOD_COLORS := {
	"ataque": Color(1.0, 0.35, 0.3),
	"pressao": Color(1.0, 0.7, 0.25),
	"exigencia": Color(0.85, 0.85, 0.85),
	"apoio": Color(0.55, 0.85, 0.55),
	"favor": Color(0.45, 0.75, 1.0),
}

var _deck := {}
var _rows_by_id := {}

onready var _rows: GridContainer = $Rows


func _init() -> void:
	Nodes.add_label(self, "Title", Texts.t("Atores"), false)
	Nodes.add_grid(self, "Rows", 3)


func _ready() -> void:
	Signals.connect_all(
		Sorteio,
		self,
		{
			"match_started": "_on_match_started",
			"option_applied": "_on_option_applied",
			"state_loaded": "_on_state_loaded",
		}
	)


func _on_match_started(_match_seed: int, deck: Dictionary, snapshot: Dictionary) -> void:
	_build(deck)
	_show(snapshot["actors"])


func _on_state_loaded(snapshot: Dictionary, _pending: Dictionary) -> void:
	_build(Sorteio.deck_info)
	_show(snapshot["actors"])


func _on_option_applied(_card_id: String, _option: int, _meters, actors: Dictionary) -> void:
	_show(actors)


func _build(deck: Dictionary) -> void:
	_deck = deck
	for child in _rows.get_children():
		_rows.remove_child(child)  # now, so it no longer counts in the layout
		child.queue_free()
	_rows_by_id.clear()
	for actor in deck["atores"]:
		var labels := []
		for width in [150, 30, 100]:
			var label := Label.new()
			label.rect_min_size = Vector2(width, 0)
			label.clip_text = true  # a long name must not widen the column (and move the card)
			_rows.add_child(label)
			labels.append(label)
		labels[0].text = actor["nome"]
		_rows_by_id[actor["id"]] = labels


func _show(actors: Dictionary) -> void:
	for id in actors:
		if not _rows_by_id.has(id):
			continue
		var labels: Array = _rows_by_id[id]
		var level_id := str(actors[id]["level"])
		labels[1].text = str(int(actors[id]["satisfaction"]))
		labels[2].text = Texts.name_of(_deck, level_id)
		var color: Color = MOOD_COLORS.get(_function_of(level_id), Color.white)
		labels[2].add_color_override("font_color", color)


func _function_of(level_id: String) -> String:
	for level in _deck.get("niveis", []):
		if level["id"] == level_id:
			return level["funcao"]
	return ""
