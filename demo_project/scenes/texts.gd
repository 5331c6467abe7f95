extends Reference
# Display texts (Portuguese) for what the draw reports. Words only: no rule is decided here.

const OBLIGATIONS := {
	"emergency": "emergência de %s",
	"actor": "ataque de %s",
	"meter": "%s abaixo do limite",
}
const ENDINGS := {
	"catastrophe": "Catástrofe",
	"end_of_mandate": "Fim do mandato",
}


static func count(amount: int, singular: String, plural: String) -> String:
	# "1 carta", "2 cartas", "0 cartas": the number with the noun agreeing with it.
	return "%d %s" % [amount, singular if amount == 1 else plural]


static func name_of(deck: Dictionary, id: String) -> String:
	for group in ["medidores", "atores", "niveis"]:
		for item in deck.get(group, []):
			if item["id"] == id:
				return item["nome"]
	return id


static func obligation(deck: Dictionary, item: Dictionary) -> String:
	var kind: String = item.get("obligation", item.get("kind", ""))
	var pattern: String = OBLIGATIONS.get(kind, kind + " %s")
	return pattern % name_of(deck, str(item.get("target", "")))


static func reason(deck: Dictionary, why: Dictionary) -> String:
	if why.get("kind") == "mandatory":
		return "Obrigatória: " + obligation(deck, why)
	var candidates := int(why.get("candidates", 0))
	var among := count(candidates, "carta", "cartas")
	var text := (
		"Sorteada entre %s de modo novo" % among
		if candidates != 1
		else "A única carta elegível de modo novo"
	)
	if why.get("mode_relaxed", false):
		text = (
			"Sorteada entre %s (sem modo novo: regra de modo relaxada)" % among
			if candidates != 1
			else "A única carta elegível (sem modo novo: regra de modo relaxada)"
		)
	var replaced = why.get("replaces")
	if replaced != null:
		text += "; no lugar de: " + obligation(deck, replaced)
	return text


static func ending(deck: Dictionary, end: Dictionary) -> String:
	var text: String = ENDINGS.get(end["reason"], str(end["reason"]))
	if end.get("zeroed") != null:
		text += ": %s chegou a 0" % name_of(deck, str(end["zeroed"]))
	var played := int(end["cards_played"])
	text += " no ano %d, %s" % [int(end["year"]), count(played, "carta jogada", "cartas jogadas")]
	if end.get("short", false):
		text += " (as cartas acabaram: partida curta)"
	return text + "."
