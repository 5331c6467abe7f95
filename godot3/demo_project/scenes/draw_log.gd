extends VBoxContainer
# A log of the draw: turns, each card with why it was drawn, the option chosen, the ending.
# Reacts to Sorteio's signals only. Deck text (titles, options) is added as plain text, never as
# BBCode: a title with "[b]" in it shows as typed.

const Nodes = preload("res://scenes/nodes.gd")
const Signals = preload("res://scenes/signals.gd")
const Texts = preload("res://scenes/texts.gd")
const HEADING := Color(1.0, 1.0, 1.0)
const WHY := Color(0.6, 0.64, 0.69)
const CHOSEN := Color(0.56, 0.82, 0.56)
const ERROR := Color(1.0, 0.45, 0.4)
const PLAIN := Color(0.88, 0.88, 0.88)

var _card := {}

onready var _lines: RichTextLabel = $Lines


func _init() -> void:
	rect_min_size = Vector2(340, 0)
	Nodes.add_label(self, "Title", Texts.t("Registro do sorteio"), false)
	var lines := RichTextLabel.new()
	lines.name = "Lines"
	lines.size_flags_vertical = SIZE_EXPAND_FILL
	lines.scroll_following = true
	add_child(lines)


func _ready() -> void:
	Signals.connect_all(
		Sorteio,
		self,
		{
			"turn_started": "_on_turn_started",
			"card_drawn": "_on_card_drawn",
			"option_applied": "_on_option_applied",
			"turn_ended": "_on_turn_ended",
			"match_ended": "_on_match_ended",
			"error_occurred": "_on_error_occurred",
		}
	)


func _on_turn_started(year: int, mandatory: Array) -> void:
	var count := Texts.count(mandatory.size(), "obrigatória", "obrigatórias")
	_add([[Texts.t("Ano %d") % year, HEADING], [" (%s)" % count, PLAIN]])


func _on_card_drawn(card: Dictionary, slot: int, reason: Dictionary, _order: Array) -> void:
	_card = card
	_add([["%d. %s " % [slot, card["titulo"]], PLAIN], ["(%s)" % Texts.reason(reason, false), WHY]])


func _on_option_applied(_card_id: String, option: int, _meters, _actors) -> void:
	if _card.has("opcoes"):
		_add([["   -> %s" % _card["opcoes"][option]["texto"], CHOSEN]])


func _on_turn_ended(year: int, cards: int, short: bool, _meters: Dictionary) -> void:
	var played := Texts.count(cards, "carta", "cartas")
	var text := (
		Texts.t("Fim do ano %d: %s%s")
		% [year, played, Texts.t(", turno curto") if short else ""]
	)
	_add([[text, PLAIN]])


func _on_match_ended(_reason: String, ending: Dictionary) -> void:
	_add([[Texts.ending(ending), HEADING]])


func _on_error_occurred(_message: String, code: String) -> void:
	_add([[Texts.t("Erro (%s): veja o cartão") % code, ERROR]])  # the message itself is on the card


# One line from [text, color] parts, each added as text (add_text parses no BBCode).
func _add(parts: Array) -> void:
	for part in parts:
		_lines.push_color(part[1])
		_lines.add_text(part[0])
		_lines.pop()
	_lines.newline()


# The log as plain text (for tests).
func text() -> String:
	return _lines.text
