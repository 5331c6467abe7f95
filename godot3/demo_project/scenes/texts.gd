extends Reference
# Display texts, in the run's language (issue 15 "One language"): t() reads the demo's catalog
# i18n/<language>.po (msgid: the pt-BR text; the same msgids as the Godot 4 demo's
# demo_project/i18n/ where both show the same text) in the language the addon chose
# (sorteio_language.gd: the setting sorteio/language, auto = $SORTEIO_LANG, else the locale),
# the one the rules' sentences come in too. The sentences about the draw (why a card came, each
# mandatory slot, how the match ended) come made from Python (`texto`, sorteio.wording), so the
# demo, the CLI and the editor say the same thing; here they are only put in sentence form.

const Language = preload("res://addons/sorteio/sorteio_language.gd")


# `message` (a msgid: the pt-BR text) in the run's language; unchanged when the catalog lacks it.
static func t(message: String) -> String:
	return Language.translated(message, "res://i18n/%s.po" % Language.language())


static func count(amount: int, singular: String, plural: String) -> String:
	# "1 carta", "2 cartas", "0 cartas": the number with the noun agreeing with it (both msgids).
	return "%d %s" % [amount, t(singular) if amount == 1 else t(plural)]


static func name_of(deck: Dictionary, id: String) -> String:
	for group in ["medidores", "atores", "niveis", "modos"]:
		for item in deck.get(group, []):
			if item["id"] == id:
				return item["nome"]
	return id


static func sentence(text: String) -> String:
	# "obrigatória: ..." -> "Obrigatória: ..." (the first letter only: names keep their case).
	if text.empty():
		return text
	return text.substr(0, 1).to_upper() + text.substr(1, text.length() - 1)


static func reason(why: Dictionary, as_sentence := true) -> String:
	var text := str(why.get("texto", why.get("kind", "")))
	return sentence(text) if as_sentence else text


static func obligation(item: Dictionary) -> String:
	return str(item.get("texto", "%s %s" % [item.get("kind", ""), item.get("target", "")]))


static func ending(end: Dictionary) -> String:
	return sentence(str(end.get("texto", end.get("reason", "")))) + "."


static func mode_line(deck: Dictionary, card: Dictionary) -> String:
	# "Desinformação · comum": the mode by its display name (the deck's modos), then the type.
	return "%s · %s" % [name_of(deck, str(card["modo"])), card["tipo"]]
