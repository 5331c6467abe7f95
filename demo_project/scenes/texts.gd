extends RefCounted
## Display texts of the demo (pt-BR or English, see [method t]). The sentences about the draw
## (why a card came, each mandatory slot, how the match ended) come made from Python
## ([code]texto[/code], sorteio.wording, in the same language), so the demo, the CLI and the
## editor say the same; here they are only put in sentence form, and the effects of a choice are
## listed with the deck's names.


## [param message] (a msgid: the pt-BR text) in the game's language, from the demo's catalogs
## (res://i18n/pt_BR.po and en.po, listed in the project settings) through Godot's
## TranslationServer, whose locale main.gd sets to the addon's ([method SorteioI18n.language]),
## so the demo and the rules' sentences from Python speak one language.
static func t(message: String) -> String:
	return String(TranslationServer.translate(message))


## "1 carta", "2 cartas": the number with the noun agreeing with it.
static func count(amount: int, singular: String, plural: String) -> String:
	return "%d %s" % [amount, singular if amount == 1 else plural]


## The display name of a meter, actor, level or mode [param id] in the deck summary.
static func name_of(deck: Dictionary, id: String) -> String:
	for group: String in ["medidores", "atores", "niveis", "modos"]:
		for item: Dictionary in deck.get(group, []):
			if str(item.get("id", "")) == id:
				return str(item.get("nome", id))
	return id


## The function ([code]funcao[/code]) of the satisfaction level [param level] in the deck summary.
static func function_of(deck: Dictionary, level: String) -> String:
	for item: Dictionary in deck.get("niveis", []):
		if str(item.get("id", "")) == level:
			return str(item.get("funcao", ""))
	return ""


## "obrigatória: ..." -> "Obrigatória: ..." (the first letter only: names keep their case).
static func sentence(text: String) -> String:
	if text.is_empty():
		return text
	return text.substr(0, 1).to_upper() + text.substr(1)


## Python's sentence for a mandatory slot of the turn.
static func obligation(item: Dictionary) -> String:
	return str(item.get("texto", "%s %s" % [item.get("kind", ""), item.get("target", "")]))


## How the match ended, as one sentence.
static func ending(end: Dictionary) -> String:
	return sentence(str(end.get("texto", end.get("reason", "")))) + "."


## A signed change: "+8", "-6".
static func signed(amount: int) -> String:
	return ("+%d" % amount) if amount > 0 else str(amount)


## What a chosen option moved, by the deck's names: "Caixa +8 · Governabilidade -6 ·
## Banqueiros -15", or that it changed nothing.
static func effects(deck: Dictionary, meters: Dictionary, actors: Dictionary) -> String:
	var parts: PackedStringArray = []
	for id: String in meters:
		parts.append("%s %s" % [name_of(deck, id), signed(int(meters[id]))])
	for id: String in actors:
		parts.append("%s %s" % [name_of(deck, id), signed(int(actors[id]))])
	if parts.is_empty():
		return t("A escolha não mudou nenhum medidor nem ator.")
	return " · ".join(parts)
