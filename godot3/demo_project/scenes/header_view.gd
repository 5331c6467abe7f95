extends VBoxContainer
# Deck, year and slot, and the bridge's status. Reacts to Sorteio's signals only.

const Nodes = preload("res://scenes/nodes.gd")
const Signals = preload("res://scenes/signals.gd")
const Texts = preload("res://scenes/texts.gd")

var _per_turn := 7

onready var _deck: Label = $Deck
onready var _year: Label = $Year
onready var _status: Label = $Status


func _init() -> void:
	Nodes.add_label(self, "Deck", "Sorteio")
	Nodes.add_label(self, "Year", Texts.t("Conectando ao sorteio..."))
	Nodes.add_label(self, "Status")


func _ready() -> void:
	Signals.connect_all(
		Sorteio,
		self,
		{
			"bridge_ready": "_on_bridge_ready",
			"match_started": "_on_match_started",
			"turn_started": "_on_turn_started",
			"card_drawn": "_on_card_drawn",
			"turn_ended": "_on_turn_ended",
			"match_ended": "_on_match_ended",
			"error_occurred": "_on_error_occurred",
		}
	)
	_status.add_color_override("font_color", Color(0.6, 0.65, 0.7))
	if Sorteio.is_bridge_failed():  # it failed before this scene connected
		_on_error_occurred(Sorteio.bridge_error, "bridge_down")


func _on_bridge_ready(kind: String) -> void:
	_status.text = Texts.t("Regras em Python, ponte: %s") % kind


func _on_match_started(match_seed: int, deck: Dictionary, _snapshot: Dictionary) -> void:
	_per_turn = int(deck["cartas_por_turno"])
	var cards := int(deck["cards"])
	var playable := int(deck.get("playable", cards))
	var size := Texts.count(cards, "carta", "cartas")
	if playable != cards:
		size = Texts.t("%s de %s") % [Texts.count(playable, "jogável", "jogáveis"), size]
	_deck.text = Texts.t("Baralho %s (%s), semente %d") % [deck["nome"], size, match_seed]
	_year.text = Texts.t("Ano %d de 4") % 1


func _on_turn_started(year: int, mandatory: Array) -> void:
	var count := Texts.count(mandatory.size(), "obrigatória", "obrigatórias")
	_year.text = Texts.t("Ano %d de 4: %s") % [year, count]


func _on_card_drawn(_card: Dictionary, slot: int, _reason: Dictionary, _order: Array) -> void:
	_year.text = Texts.t("Ano %d de 4, carta %d de %d") % [Sorteio.year, slot, _per_turn]


func _on_turn_ended(year: int, cards: int, short: bool, _meters: Dictionary) -> void:
	var played := Texts.count(cards, "carta", "cartas")
	_year.text = (
		Texts.t("Ano %d encerrado: %s%s")
		% [year, played, Texts.t(" (turno curto)") if short else ""]
	)


func _on_match_ended(_reason: String, ending: Dictionary) -> void:
	_year.text = Texts.ending(ending)


func _on_error_occurred(_message: String, code: String) -> void:
	if code == "bridge_down":  # not "Conectando..." next to the error
		_year.text = Texts.t("Sem conexão com as regras em Python")
	_status.add_color_override("font_color", Color(1.0, 0.45, 0.4))
	_status.text = Texts.t("Erro (%s): veja o cartão") % code  # the message itself is on the card
