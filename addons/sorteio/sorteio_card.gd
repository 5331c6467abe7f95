class_name SorteioCard
extends RefCounted
## A drawn card, typed: what [signal SorteioNode.card_drawn] hands the game.
##
## Built by the node from the bridge's draw (docs/protocol.md, [code]draw[/code]); every number is
## an int. The card's own fields keep the deck's meaning (GDD 06): [member title] is
## [code]titulo[/code], [member text] is [code]texto[/code], [member mode] is [code]modo[/code]
## with its display name [member mode_name] from the deck's [code]modos[/code]. Why it came is
## [member reason], the designers' sentence made by Python's [code]sorteio.wording[/code] (show it
## as it is). [member options] are in the deck's order; [member option_order] is the display
## order drawn with the card (GDD 05 §3.4), so [method option_on] gives the option to show on a
## side and [method SorteioNode.choose_side] applies it.

## Card id (the deck's [code]id[/code]), e.g. "sau-02".
var id: String = ""
## The card's title (titulo).
var title: String = ""
## The card's text (texto); "" when the deck has none.
var text: String = ""
## Mode id (modo), e.g. "saude".
var mode: String = ""
## The mode's display name (the deck's modos[].nome; the id when the deck names none).
var mode_name: String = ""
## Card type (tipo): "comum", "ator" or "impeachment".
var type: String = ""
## The actor an actor card belongs to (ator), "" for other cards.
var actor: String = ""
## The options in the deck's order (index = [member SorteioOption.index]).
var options: Array[SorteioOption] = []
## Option indexes in display order: show options[option_order[0]] first (left).
var option_order: Array[int] = []
## Why the card was drawn, the sentence to show (reason.texto), e.g.
## "obrigatória: medidor baixo: Saúde (a opção «...» sobe Saúde)".
var reason: String = ""
## "mandatory" (GDD 06 §5: emergency, attack, low meter) or "random" (§4).
var reason_kind: String = ""
## The whole reason as the protocol gives it (kind, obligation, target, candidates, ...).
var reason_details: Dictionary = {}
## The year (turn) the card was drawn in, 1-4.
var year: int = 0
## Its slot in the turn, 1-7 (cartas_por_turno).
var slot: int = 0
## The card as in the deck (Portuguese field names), for fields this class does not name.
var data: Dictionary = {}


## Builds the card from a draw Dictionary of the protocol (numbers already ints) and the deck's
## mode names (mode id -> name).
static func from_draw(draw: Dictionary, mode_names: Dictionary) -> SorteioCard:
	var card: SorteioCard = SorteioCard.new()
	var fields: Dictionary = draw.get("card", {})
	card.data = fields
	card.id = str(fields.get("id", draw.get("card_id", "")))
	card.title = str(fields.get("titulo", ""))
	card.text = _text(fields.get("texto"))
	card.mode = str(fields.get("modo", ""))
	card.mode_name = str(mode_names.get(card.mode, card.mode))
	card.type = str(fields.get("tipo", ""))
	card.actor = _text(fields.get("ator"))
	card.year = int(draw.get("year", 0))
	card.slot = int(draw.get("slot", 0))
	var details: Dictionary = draw.get("reason", {})
	card.reason_details = details
	card.reason = str(details.get("texto", ""))
	card.reason_kind = str(details.get("kind", ""))
	for index: Variant in draw.get("option_order", []):
		card.option_order.append(int(index))
	var listed: Array = fields.get("opcoes", [])
	for index: int in listed.size():
		var shown_at: int = card.option_order.find(index)
		card.options.append(SorteioOption.from_dictionary(listed[index], index, shown_at))
	return card


## The option shown on [param side]: [constant SIDE_LEFT] or [constant SIDE_TOP] is the first in
## display order, [constant SIDE_RIGHT] or [constant SIDE_BOTTOM] the second (Godot's [enum Side]).
## null when the card has no option there (a one-option card has only the first).
func option_on(side: Side) -> SorteioOption:
	var shown_at: int = position_of_side(side)
	if shown_at < 0 or shown_at >= option_order.size():
		return null
	return options[option_order[shown_at]]


## The options in display order (the first is shown left or on top).
func shown_options() -> Array[SorteioOption]:
	var shown: Array[SorteioOption] = []
	for index: int in option_order:
		shown.append(options[index])
	return shown


## True when the card was drawn as mandatory (GDD 06 §5).
func is_mandatory() -> bool:
	return reason_kind == "mandatory"


## Display position of [param side] (0 for left/top, 1 for right/bottom).
static func position_of_side(side: Side) -> int:
	match side:
		SIDE_LEFT, SIDE_TOP:
			return 0
		SIDE_RIGHT, SIDE_BOTTOM:
			return 1
	return -1


func _to_string() -> String:
	return "%d.%d %s «%s» (%s)" % [year, slot, id, title, reason]


static func _text(value: Variant) -> String:
	return "" if value == null else str(value)
