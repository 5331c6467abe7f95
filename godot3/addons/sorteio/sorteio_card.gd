class_name SorteioCard
extends Reference
# A drawn card, typed: what SorteioNode's typed_card_drawn signal and current_card hand the
# game, with the same names and meanings as the Godot 4 addon's SorteioCard.
#
# Built by the node from the bridge's draw (docs/protocol.md, "draw"); every number is an int.
# The card's own fields keep the deck's meaning (GDD 06): title is titulo, text is texto, mode is
# modo with its display name mode_name from the deck's modos. Why it came is reason, the
# designers' sentence made by Python's sorteio.wording (show it as it is). options are in the
# deck's order; option_order is the display order drawn with the card (GDD 05 §3.4), so
# option_on(side) gives the option to show on a side and SorteioNode.choose_side applies it.

const SorteioOptionScript = preload("res://addons/sorteio/sorteio_option.gd")
# Godot 4's Side values, which are Godot 3's MARGIN_* values.
const SIDE_LEFT := 0
const SIDE_TOP := 1
const SIDE_RIGHT := 2
const SIDE_BOTTOM := 3

# Card id (the deck's id), e.g. "sau-02".
var id := ""
# The card's title (titulo).
var title := ""
# The card's text (texto); "" when the deck has none.
var text := ""
# Mode id (modo), e.g. "saude".
var mode := ""
# The mode's display name (the deck's modos[].nome; the id when the deck names none).
var mode_name := ""
# Card type (tipo): "comum", "ator" or "impeachment".
var type := ""
# The actor an actor card belongs to (ator), "" for other cards.
var actor := ""
# The options (SorteioOption) in the deck's order (array index = option.index).
var options := []
# Option indexes (int) in display order: show options[option_order[0]] first (left).
var option_order := []
# Why the card was drawn, the sentence to show (reason.texto).
var reason := ""
# "mandatory" (GDD 06 §5: emergency, attack, low meter) or "random" (§4).
var reason_kind := ""
# The whole reason as the protocol gives it (kind, obligation, target, candidates, ...).
var reason_details := {}
# The year (turn) the card was drawn in, 1-4.
var year := 0
# Its slot in the turn, 1-7 (cartas_por_turno).
var slot := 0
# The card as in the deck (Portuguese field names), for fields this class does not name.
var data := {}


# Builds the card from a draw Dictionary of the protocol and the deck's mode names
# (mode id -> name). `year` is the draw's year (the snapshot's, when the draw has none).
static func from_draw(draw: Dictionary, mode_names: Dictionary, year_drawn: int) -> Reference:
	var card = load("res://addons/sorteio/sorteio_card.gd").new()
	var fields: Dictionary = draw.get("card", {})
	card.data = fields
	card.id = str(fields.get("id", draw.get("card_id", "")))
	card.title = str(fields.get("titulo", ""))
	card.text = _text(fields.get("texto"))
	card.mode = str(fields.get("modo", ""))
	card.mode_name = str(mode_names.get(card.mode, card.mode))
	card.type = str(fields.get("tipo", ""))
	card.actor = _text(fields.get("ator"))
	card.year = int(draw.get("year", year_drawn))
	card.slot = int(draw.get("slot", 0))
	var details: Dictionary = draw.get("reason", {})
	card.reason_details = details
	card.reason = str(details.get("texto", ""))
	card.reason_kind = str(details.get("kind", ""))
	for index in draw.get("option_order", []):
		card.option_order.append(int(index))
	var listed: Array = fields.get("opcoes", [])
	for index in range(listed.size()):
		var shown_at: int = card.option_order.find(index)
		card.options.append(SorteioOptionScript.from_dictionary(listed[index], index, shown_at))
	return card


# The option shown on `side`: SIDE_LEFT or SIDE_TOP (Godot 3: MARGIN_LEFT, MARGIN_TOP) is the
# first in display order, SIDE_RIGHT or SIDE_BOTTOM the second. null when the card has no option
# there (a one-option card has only the first).
func option_on(side: int) -> Reference:
	var shown_at := position_of_side(side)
	if shown_at < 0 or shown_at >= option_order.size():
		return null
	return options[option_order[shown_at]]


# The options in display order (the first is shown left or on top).
func shown_options() -> Array:
	var shown := []
	for index in option_order:
		shown.append(options[index])
	return shown


# True when the card was drawn as mandatory (GDD 06 §5).
func is_mandatory() -> bool:
	return reason_kind == "mandatory"


# Display position of `side` (0 for left/top, 1 for right/bottom, -1 for anything else).
static func position_of_side(side: int) -> int:
	match side:
		SIDE_LEFT, SIDE_TOP:
			return 0
		SIDE_RIGHT, SIDE_BOTTOM:
			return 1
	return -1


func _to_string() -> String:
	return "%d.%d %s «%s» (%s)" % [year, slot, id, title, reason]


static func _text(value) -> String:
	return "" if value == null else str(value)
