class_name SorteioOption
extends RefCounted
## One option of a drawn [SorteioCard] (the deck's [code]opcoes[][/code] entry), typed.
##
## [member effects] and [member actor_effects] are what choosing it changes (the deck's
## [code]efeitos[/code] and [code]efeitos_atores[/code]): meter or actor id -> signed int delta.
## Where the option is shown is drawn with the card (GDD 05 §3.4): [member position] in display
## order and [member side].

## Index into the card's options (the deck's order): what [method SorteioNode.apply_option] takes.
var index: int = 0
## The option's text (the deck's [code]texto[/code]).
var text: String = ""
## Meter id -> int change, e.g. [code]{"saude": 10, "governabilidade": -6}[/code] (efeitos).
var effects: Dictionary = {}
## Actor id -> int change of satisfaction (efeitos_atores).
var actor_effects: Dictionary = {}
## Place in display order (0 = shown first), from the card's option_order.
var position: int = 0
## Where to show it on a two-option card: [constant SIDE_LEFT] (shown first) or
## [constant SIDE_RIGHT]; for a card with one option, SIDE_LEFT; a third option and later ones,
## -1 (show them by [member position]).
var side: int = SIDE_LEFT


## Builds an option from the card's [code]opcoes[index][/code] Dictionary (numbers already ints).
static func from_dictionary(option: Dictionary, option_index: int, shown_at: int) -> SorteioOption:
	var made: SorteioOption = SorteioOption.new()
	made.index = option_index
	made.text = str(option.get("texto", ""))
	made.effects = option.get("efeitos", {})
	made.actor_effects = option.get("efeitos_atores", {})
	made.position = shown_at
	made.side = [SIDE_LEFT, SIDE_RIGHT][shown_at] if shown_at < 2 else -1
	return made


## Readable form for logs: [code]«text» saude +10 governabilidade -6[/code].
func _to_string() -> String:
	var parts: PackedStringArray = ["«%s»" % text]
	for meter: String in effects:
		parts.append("%s %+d" % [meter, int(effects[meter])])
	return " ".join(parts)
