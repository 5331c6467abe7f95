extends PanelContainer
## The card in the middle: its mode, title, text and why it was drawn, then its two options on
## the sides the draw gave them (GDD 06 §3.5), each with a button that never moves: the option
## texts sit in boxes of fixed height above the buttons, so a Reigns-like rhythm finds the left
## and right choices in the same place on every card. After a choice the card says what it moved.
## Between years it lists the year's mandatory cards; at the end, how the mandate went.

## The player picked the option shown on [param side] ([constant SIDE_LEFT] or
## [constant SIDE_RIGHT]).
signal side_chosen(side: Side)
## The player asked to go on (next card, next year, or a new match at the end).
signal continue_requested

const Texts := preload("res://scenes/texts.gd")
const WAITING: String = "Esperando as regras (Python)..."  # i18n
const OPTION_TEXT_HEIGHT: float = 96.0

## False in autoplay: the demo's controller goes on by itself.
var show_continue: bool = true

var _mode: Label = Label.new()
var _title: Label = Label.new()
var _text: Label = Label.new()
var _reason: Label = Label.new()
var _option_texts: Array[Label] = [Label.new(), Label.new()]
var _buttons: Array[Button] = [Button.new(), Button.new()]
var _outcome: Label = Label.new()
var _next: Button = Button.new()


func _ready() -> void:
	var box: VBoxContainer = VBoxContainer.new()
	box.add_theme_constant_override("separation", 10)
	add_child(box)
	for label: Label in [_mode, _title, _text, _reason, _outcome]:
		label.autowrap_mode = TextServer.AUTOWRAP_WORD_SMART
	_mode.add_theme_color_override("font_color", Color(0.6, 0.75, 1.0))
	_title.add_theme_color_override("font_color", Color(1.0, 0.9, 0.55))
	_title.add_theme_font_size_override("font_size", 26)
	_reason.add_theme_color_override("font_color", Color(0.7, 0.7, 0.75))
	_outcome.add_theme_color_override("font_color", Color(0.95, 0.85, 0.6))
	# The body takes the free height and clips: a long text never pushes the buttons down.
	_text.size_flags_vertical = Control.SIZE_EXPAND_FILL
	_text.clip_text = true
	for label: Label in [_mode, _title, _text, _reason]:
		box.add_child(label)
	box.add_child(_options_row())
	# Below the buttons, fixed heights (clipped): nothing under them can move them either.
	_outcome.custom_minimum_size = Vector2(0, 64)
	_outcome.clip_text = true
	box.add_child(_outcome)
	_next.custom_minimum_size = Vector2(0, 40)
	_next.pressed.connect(_on_next_pressed)
	box.add_child(_next)
	_clear()
	_title.text = "Sorteio"
	_text.text = Texts.t(WAITING)


## Shows [param card] awaiting a choice.
func show_card(card: SorteioCard) -> void:
	_clear()
	_mode.text = "%s · %s" % [card.mode_name, card.type]
	_title.text = card.title
	_text.text = card.text
	_reason.text = Texts.t("Por que esta carta: ") + Texts.sentence(card.reason)
	var shown: Array[SorteioOption] = card.shown_options()
	for place: int in range(_buttons.size()):
		var has_option: bool = place < shown.size()
		_option_texts[place].text = shown[place].text if has_option else ""
		_buttons[place].disabled = not has_option


## After a choice: what it moved ([param changes] is the sentence from Texts.effects).
func show_choice(option: SorteioOption, changes: String) -> void:
	for button: Button in _buttons:
		button.disabled = true
	_outcome.text = Texts.t("Você escolheu «%s».\n%s") % [option.text, changes]
	_offer_next(Texts.t("Continuar"))


## The start of a year: its mandatory cards, in draw order (GDD 06 §3.3).
func show_year(year: int, mandatory: Array) -> void:
	_clear()
	_title.text = Texts.t("Ano %d") % year
	var lines: PackedStringArray = []
	for item: Dictionary in mandatory:
		lines.append("• " + Texts.sentence(Texts.obligation(item)))
	_text.text = (
		Texts.t("Obrigatórias deste ano:\n") + "\n".join(lines)
		if not lines.is_empty()
		else Texts.t("Nenhuma carta obrigatória neste ano.")
	)


## The end of the match: how the mandate went.
func show_ending(ending: Dictionary, summary: String) -> void:
	_clear()
	var catastrophe: bool = str(ending.get("reason", "")) == SorteioNode.END_CATASTROPHE
	_title.text = Texts.t("Catástrofe") if catastrophe else Texts.t("Fim do mandato")
	_text.text = Texts.ending(ending) + "\n\n" + summary
	_offer_next("Nova partida")


## A problem the player should read (the rules could not be reached, a refused call).
func show_problem(message: String, code: String) -> void:
	if code == SorteioNode.CODE_BRIDGE_DOWN:
		_clear()
		_title.text = Texts.t("Sem as regras do sorteio")
		_text.text = (
			Texts
			. t(
				(
					"O jogo não conseguiu falar com as regras em Python. Confira se SORTEIO_PYTHON "
					+ "(ou a configuração sorteio/python) aponta para um Python com o sorteio instalado."
				)
			)
		)
	_outcome.text = Texts.t("Erro (%s): %s") % [code, message]


func _options_row() -> HBoxContainer:
	var row: HBoxContainer = HBoxContainer.new()
	row.add_theme_constant_override("separation", 16)
	var names: Array[String] = [Texts.t("◀ Esquerda"), Texts.t("Direita ▶")]
	var sides: Array[Side] = [SIDE_LEFT, SIDE_RIGHT]
	for place: int in range(2):
		var column: VBoxContainer = VBoxContainer.new()
		column.size_flags_horizontal = Control.SIZE_EXPAND_FILL
		column.size_flags_stretch_ratio = 1.0
		var text: Label = _option_texts[place]
		text.autowrap_mode = TextServer.AUTOWRAP_WORD_SMART
		text.custom_minimum_size = Vector2(0, OPTION_TEXT_HEIGHT)
		text.clip_text = true
		text.vertical_alignment = VERTICAL_ALIGNMENT_BOTTOM
		var button: Button = _buttons[place]
		button.text = names[place]
		button.custom_minimum_size = Vector2(0, 44)
		button.pressed.connect(_on_side_pressed.bind(sides[place]))
		column.add_child(text)
		column.add_child(button)
		row.add_child(column)
	return row


func _offer_next(text: String) -> void:
	_next.text = text
	_set_next_shown(show_continue)


func _clear() -> void:
	for label: Label in [_mode, _text, _reason, _outcome]:
		label.text = ""
	for place: int in range(_buttons.size()):
		_option_texts[place].text = ""
		_buttons[place].disabled = true
	_set_next_shown(false)


# Shown or not, the button keeps its place in the layout (transparent and disabled), so the
# option buttons above never move when it comes and goes.
func _set_next_shown(shown: bool) -> void:
	_next.modulate.a = 1.0 if shown else 0.0
	_next.disabled = not shown
	_next.mouse_filter = Control.MOUSE_FILTER_STOP if shown else Control.MOUSE_FILTER_IGNORE


func _on_side_pressed(side: Side) -> void:
	side_chosen.emit(side)


func _on_next_pressed() -> void:
	_set_next_shown(false)
	continue_requested.emit()
