extends PanelContainer
# The card: mode, title, text, why it was drawn, and its options on the sides the draw gave them
# (GDD 05 §3.4). Clicking an option applies it. Reacts to Sorteio's signals only.
# Layout: the card keeps its width whatever the header says (the left column has a fixed width),
# and each option's text takes the free height of its side, so both buttons sit on one line.

signal continue_requested

const Nodes = preload("res://scenes/nodes.gd")
const Signals = preload("res://scenes/signals.gd")
const Texts = preload("res://scenes/texts.gd")
const WAITING := "Esperando as regras (Python)..."  # i18n

# False in autoplay: the demo's controller goes on by itself.
var show_continue := true

onready var _mode: Label = $Box/Mode
onready var _title: Label = $Box/Title
onready var _text: Label = $Box/Text
onready var _reason_label: Label = $Box/Reason
onready var _options: HBoxContainer = $Box/Options
onready var _outcome: Label = $Box/Outcome
onready var _next: Button = $Box/Next


func _init() -> void:
	size_flags_horizontal = SIZE_EXPAND_FILL
	var box := VBoxContainer.new()
	box.name = "Box"
	box.add_constant_override("separation", 14)
	add_child(box)
	for label_name in ["Mode", "Title", "Text", "Reason"]:
		Nodes.add_label(box, label_name)
	var options := HBoxContainer.new()
	options.name = "Options"
	options.add_constant_override("separation", 16)
	box.add_child(options)
	Nodes.add_label(box, "Outcome")
	var next := Button.new()
	next.name = "Next"
	next.visible = false
	next.text = Texts.t("Começar o próximo ano")
	box.add_child(next)


func _ready() -> void:
	Signals.connect_all(
		Sorteio,
		self,
		{
			"match_started": "_on_match_started",
			"turn_started": "_on_turn_started",
			"card_drawn": "_on_card_drawn",
			"option_applied": "_on_option_applied",
			"turn_ended": "_on_turn_ended",
			"match_ended": "_on_match_ended",
			"state_loaded": "_on_state_loaded",
			"error_occurred": "_on_error_occurred",
		}
	)
	Signals.connect_all(_next, self, {"pressed": "_on_next_pressed"})
	_mode.add_color_override("font_color", Color(0.6, 0.75, 1.0))
	_title.add_color_override("font_color", Color(1.0, 0.9, 0.55))
	_reason_label.add_color_override("font_color", Color(0.7, 0.7, 0.75))
	_title.text = "Sorteio"
	_text.text = Texts.t(WAITING)
	if Sorteio.is_bridge_failed():  # it failed before this scene connected
		_on_error_occurred(Sorteio.bridge_error, "bridge_down")


func _on_match_started(_match_seed: int, _deck: Dictionary, _snapshot: Dictionary) -> void:
	_clear()
	_title.text = Texts.t("Começa o mandato")


func _on_turn_started(year: int, mandatory: Array) -> void:
	_clear()
	_title.text = Texts.t("Ano %d") % year
	var lines := []
	for item in mandatory:
		lines.append("- " + Texts.obligation(item))
	_text.text = (
		Texts.t("Obrigatórias deste ano:\n") + PoolStringArray(lines).join("\n")
		if lines
		else Texts.t("Sem obrigatórias.")
	)


func _on_card_drawn(card: Dictionary, _slot: int, reason: Dictionary, option_order: Array) -> void:
	_clear()
	_mode.text = Texts.mode_line(Sorteio.deck_info, card)
	_title.text = card["titulo"]
	_text.text = card["texto"]
	_reason_label.text = Texts.t("Por que esta carta: ") + Texts.reason(reason)
	var sides := ["Esquerda", "Direita"]
	for position in range(option_order.size()):
		var index: int = option_order[position]
		var side := VBoxContainer.new()
		side.size_flags_horizontal = SIZE_EXPAND_FILL
		var label := Label.new()
		label.autowrap = true
		label.size_flags_vertical = SIZE_EXPAND_FILL  # the taller text sets both sides' height
		label.text = card["opcoes"][index]["texto"]
		var button := Button.new()
		button.text = (
			sides[position]
			if position < sides.size()
			else Texts.t("Opção %d") % (position + 1)
		)
		button.rect_min_size = Vector2(0, 40)
		Signals.connect_all(button, self, {"pressed": "_on_option_pressed"}, [index])
		side.add_child(label)
		side.add_child(button)
		_options.add_child(side)


func _on_option_applied(_card_id: String, option: int, _meters, _actors) -> void:
	for side in _options.get_children():
		side.get_child(1).disabled = true
	_outcome.text = Texts.t("Escolhida a opção %d.") % (option + 1)


func _on_turn_ended(year: int, cards: int, short: bool, _meters: Dictionary) -> void:
	_clear()
	_title.text = Texts.t("Fim do ano %d") % year
	var played := Texts.count(cards, "carta", "cartas")
	_text.text = (
		Texts.t("%s neste ano%s.")
		% [played, Texts.t(" (as elegíveis acabaram)") if short else ""]
	)
	if show_continue and not Sorteio.is_match_over():
		_next.text = Texts.t("Começar o ano %d") % (year + 1)
		_next.visible = true


func _on_match_ended(_reason: String, ending: Dictionary) -> void:
	_clear()
	_title.text = Texts.t("Fim da partida")
	_text.text = Texts.ending(ending)
	if show_continue:
		_next.text = Texts.t("Nova partida")
		_next.visible = true


func _on_state_loaded(_snapshot: Dictionary, pending: Dictionary) -> void:
	_clear()
	if not pending.empty():
		_on_card_drawn(pending["card"], pending["slot"], pending["reason"], pending["option_order"])


# The one place the error's own (English) message is shown; the header and the log only name
# the code. When the rules never answered, the card says so instead of "Esperando...".
func _on_error_occurred(message: String, code: String) -> void:
	if code == "bridge_down":
		_clear()
		_title.text = Texts.t("Sem as regras do sorteio")
		_text.text = Texts.t(
			(
				"O jogo não conseguiu falar com as regras em Python. Confira se SORTEIO_PYTHON "
				+ "(ou a configuração sorteio/python) aponta para um Python com o sorteio instalado."
			)
		)
	_outcome.text = Texts.t("Erro (%s): %s") % [code, message]


func _on_option_pressed(index: int) -> void:
	# A refused choice comes back as error_occurred, which this card shows.
	# warning-ignore:return_value_discarded
	Sorteio.apply_option(index)


func _on_next_pressed() -> void:
	_next.visible = false
	emit_signal("continue_requested")


func _clear() -> void:
	for child in _options.get_children():
		_options.remove_child(child)  # now, so it no longer counts in the layout
		child.queue_free()
	_mode.text = ""
	_text.text = ""
	_reason_label.text = ""
	_outcome.text = ""
	_next.visible = false
