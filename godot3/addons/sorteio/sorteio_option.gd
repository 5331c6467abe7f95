class_name SorteioOption
extends Reference
# One option of a drawn SorteioCard (the deck's opcoes[] entry), typed: the same names and
# meanings as the Godot 4 addon's SorteioOption.
#
# effects and actor_effects are what choosing it changes (the deck's efeitos and
# efeitos_atores): meter or actor id -> signed int delta. Where the option is shown is drawn
# with the card (GDD 05 §3.4): position in display order and side.

# Godot 4's Side values (Godot 3's MARGIN_LEFT / MARGIN_RIGHT): a game moving to Godot 4 keeps
# comparing option.side with SIDE_LEFT / SIDE_RIGHT.
const SIDE_LEFT := 0
const SIDE_RIGHT := 2

# Index into the card's options (the deck's order): what SorteioNode.apply_option takes.
var index := 0
# The option's text (the deck's texto).
var text := ""
# Meter id -> int change, e.g. {"saude": 10, "governabilidade": -6} (efeitos).
var effects := {}
# Actor id -> int change of satisfaction (efeitos_atores).
var actor_effects := {}
# Place in display order (0 = shown first), from the card's option_order.
var position := 0
# Where to show it on a two-option card: SIDE_LEFT (shown first) or SIDE_RIGHT; a card with one
# option: SIDE_LEFT; a third option and later ones: -1 (show them by position).
var side := SIDE_LEFT


# Builds an option from the card's opcoes[option_index] Dictionary; numbers are made ints
# (Godot 3's JSON reads every number as a float).
static func from_dictionary(option: Dictionary, option_index: int, shown_at: int) -> Reference:
	var made = load("res://addons/sorteio/sorteio_option.gd").new()
	made.index = option_index
	made.text = str(option.get("texto", ""))
	made.effects = _int_values(option.get("efeitos", {}))
	made.actor_effects = _int_values(option.get("efeitos_atores", {}))
	made.position = shown_at
	made.side = [SIDE_LEFT, SIDE_RIGHT][shown_at] if shown_at >= 0 and shown_at < 2 else -1
	return made


# Readable form for logs: «text» saude +10 governabilidade -6.
func _to_string() -> String:
	var parts := ["«%s»" % text]
	for meter in effects:
		parts.append("%s %+d" % [meter, int(effects[meter])])
	return PoolStringArray(parts).join(" ")


static func _int_values(values) -> Dictionary:
	var out := {}
	if typeof(values) != TYPE_DICTIONARY:
		return out
	for key in values:
		out[key] = int(values[key])
	return out
