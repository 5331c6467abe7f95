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
	var text := "Sorteada entre %d cartas de modo novo" % int(why.get("candidates", 0))
	if why.get("mode_relaxed", false):
		text = (
			"Sorteada entre %d cartas (sem modo novo: regra de modo relaxada)"
			% int(why.get("candidates", 0))
		)
	var replaced = why.get("replaces")
	if replaced != null:
		text += "; no lugar de: " + obligation(deck, replaced)
	return text


static func ending(deck: Dictionary, end: Dictionary) -> String:
	var text: String = ENDINGS.get(end["reason"], str(end["reason"]))
	if end.get("zeroed") != null:
		text += ": %s chegou a 0" % name_of(deck, str(end["zeroed"]))
	text += " no ano %d, %d cartas jogadas" % [int(end["year"]), int(end["cards_played"])]
	if end.get("short", false):
		text += " (as cartas acabaram: partida curta)"
	return text + "."
