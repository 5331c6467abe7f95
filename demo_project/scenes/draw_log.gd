extends VBoxContainer
# A log of the draw: turns, each card with why it was drawn, the option chosen, the ending.
# Reacts to Sorteio's signals only.

const Texts = preload("res://scenes/texts.gd")

var _card := {}

onready var _lines: RichTextLabel = $Lines


func _ready() -> void:
	Sorteio.connect("turn_started", self, "_on_turn_started")
	Sorteio.connect("card_drawn", self, "_on_card_drawn")
	Sorteio.connect("option_applied", self, "_on_option_applied")
	Sorteio.connect("turn_ended", self, "_on_turn_ended")
	Sorteio.connect("match_ended", self, "_on_match_ended")
	Sorteio.connect("error_occurred", self, "_on_error_occurred")


func _on_turn_started(year: int, mandatory: Array) -> void:
	var count := Texts.count(mandatory.size(), "obrigatória", "obrigatórias")
	_add("[b]Ano %d[/b] (%s)" % [year, count])


func _on_card_drawn(card: Dictionary, slot: int, reason: Dictionary, _order: Array) -> void:
	_card = card
	var why := Texts.reason(Sorteio.deck_info, reason)
	_add("%d. %s [color=#9aa4b0](%s)[/color]" % [slot, card["titulo"], why])


func _on_option_applied(_card_id: String, option: int, _meters, _actors) -> void:
	if _card.has("opcoes"):
		_add("   [color=#8fd08f]-> %s[/color]" % _card["opcoes"][option]["texto"])


func _on_turn_ended(year: int, cards: int, short: bool, _meters: Dictionary) -> void:
	var played := Texts.count(cards, "carta", "cartas")
	_add("Fim do ano %d: %s%s" % [year, played, ", turno curto" if short else ""])


func _on_match_ended(_reason: String, ending: Dictionary) -> void:
	_add("[b]%s[/b]" % Texts.ending(Sorteio.deck_info, ending))


func _on_error_occurred(message: String, code: String) -> void:
	_add("[color=#ff7366]Erro (%s): %s[/color]" % [code, message])


func _add(line: String) -> void:
	_lines.bbcode_enabled = true
	_lines.append_bbcode(line + "\n")
