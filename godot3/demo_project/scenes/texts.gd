extends Reference
# Display texts (Portuguese). The sentences about the draw (why a card came, each mandatory
# slot, how the match ended) come made from Python (`texto`, sorteio.wording), so the demo, the
# CLI and the editor say the same thing; here they are only put in sentence form.


static func count(amount: int, singular: String, plural: String) -> String:
	# "1 carta", "2 cartas", "0 cartas": the number with the noun agreeing with it.
	return "%d %s" % [amount, singular if amount == 1 else plural]


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
