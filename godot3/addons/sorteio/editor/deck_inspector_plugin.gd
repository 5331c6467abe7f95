tool
extends EditorInspectorPlugin
# What a SorteioDeck's import found, read-only, at the top of the Inspector: valid or not (in
# red when not, with every problem: card id, field, message) and which file to edit. Godot 3
# has no read-only property, and an imported resource cannot be saved, so the deck's fields are
# stored, not exported (sorteio_deck.gd): typing in them lost the edit (issue 15).

const DeckResource = preload("res://addons/sorteio/sorteio_deck.gd")
const SUMMARY_NAME := "SorteioDeckSummary"
const Language = preload("res://addons/sorteio/sorteio_language.gd")
const ERROR_COLOR := Color(1.0, 0.47, 0.42)
const VALID_COLOR := Color(0.45, 0.85, 0.5)


func can_handle(object: Object) -> bool:
	return object is DeckResource


func parse_begin(object: Object) -> void:
	var label := Label.new()
	label.name = SUMMARY_NAME
	label.autowrap = true
	label.text = summary(object)
	label.add_color_override("font_color", VALID_COLOR if object.valid else ERROR_COLOR)
	add_custom_control(label)


static func summary(deck: Resource) -> String:
	# The text shown: one line of verdict, one per problem, then where to edit the deck.
	var lines := []
	var file: String = deck.source_path if deck.source_path != "" else deck.resource_path
	if deck.valid:
		lines.append(Language.t("Baralho Sorteio '%s': válido") % deck.deck_name)
	elif deck.problems.empty():
		lines.append(Language.t('%s não é um baralho Sorteio (sem "cartas")') % file)
	else:
		lines.append(Language.t("Baralho INVÁLIDO: %s não é válido") % file)
	for row in deck.problems:
		var card: String = (
			Language.t("carta '%s': ") % row["card_id"]
			if row["card_id"] != null
			else ""
		)
		var severity := Language.t("erro") if row["severity"] == "error" else Language.t("aviso")
		lines.append("%s: %s%s: %s" % [severity, card, row["field"], row["message"]])
	lines.append(
		Language.t("Importado de %s: edite esse arquivo (ou confira-o no painel Sorteio).") % file
	)
	return PoolStringArray(lines).join("\n")
