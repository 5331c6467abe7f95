extends VBoxContainer
## The actors (GDD 07): satisfaction and mood (level), coloured by the function their level calls
## for ([code]ataque[/code] is the Furious level whose attack card is mandatory, GDD 06 §3.3.2).
## Reacts to Sorteio's signals only.

const Texts := preload("res://scenes/texts.gd")
const MOOD_COLOURS: Dictionary = {
	"ataque": Color(1.0, 0.35, 0.3),
	"pressao": Color(1.0, 0.7, 0.25),
	"exigencia": Color(0.85, 0.85, 0.85),
	"apoio": Color(0.55, 0.85, 0.55),
	"favor": Color(0.45, 0.75, 1.0),
}

var _deck: Dictionary = {}
var _rows: GridContainer = GridContainer.new()
var _labels: Dictionary = {}


func _ready() -> void:
	var title: Label = Label.new()
	title.text = Texts.t("Atores")
	title.add_theme_color_override("font_color", Color(0.6, 0.75, 1.0))
	add_child(title)
	_rows.columns = 3
	add_child(_rows)
	Sorteio.match_started.connect(_on_match_started)
	Sorteio.option_applied.connect(_on_option_applied)
	Sorteio.state_loaded.connect(_on_state_loaded)


func _on_match_started(_match_seed: int, deck: Dictionary, snapshot: Dictionary) -> void:
	_build(deck)
	_show(snapshot.get("actors", {}))


func _on_state_loaded(snapshot: Dictionary, _pending: SorteioCard) -> void:
	_build(Sorteio.deck_info)
	_show(snapshot.get("actors", {}))


func _on_option_applied(
	_card: SorteioCard, _option: SorteioOption, _meters: Dictionary, actors: Dictionary
) -> void:
	_show(actors)


func _build(deck: Dictionary) -> void:
	_deck = deck
	for child: Node in _rows.get_children():
		_rows.remove_child(child)
		child.queue_free()
	_labels.clear()
	for actor: Dictionary in deck.get("atores", []):
		var row: Array[Label] = []
		for width: int in [170, 34, 110]:
			var label: Label = Label.new()
			label.custom_minimum_size = Vector2(width, 0)
			label.clip_text = true
			_rows.add_child(label)
			row.append(label)
		row[0].text = str(actor["nome"])
		row[1].horizontal_alignment = HORIZONTAL_ALIGNMENT_RIGHT
		_labels[actor["id"]] = row


func _show(actors: Dictionary) -> void:
	for id: String in actors:
		if not _labels.has(id):
			continue
		var state: Dictionary = actors[id]
		var row: Array[Label] = []
		row.assign(_labels[id])
		var level: String = str(state.get("level", ""))
		row[1].text = str(int(state.get("satisfaction", 0)))
		row[2].text = Texts.name_of(_deck, level)
		var colour: Color = MOOD_COLOURS.get(
			Texts.function_of(_deck, level), Color(0.85, 0.85, 0.85)
		)
		row[2].add_theme_color_override("font_color", colour)
