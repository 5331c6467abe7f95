extends "res://tests/lib/engine_test.gd"
## The project's deck (issue 15): with the project setting sorteio/deck set (the deck the
## Sorteio panel checks) and no deck_path, the node plays that deck. Prints DECK <name> <cards>.


func scenario() -> void:
	var sorteio: SorteioNode = autoload("Sorteio") as SorteioNode
	check(sorteio.deck_path == "", "no deck_path", sorteio.deck_path)
	if not check(await sorteio.start_match(5), "start_match"):
		return
	print("DECK %s %d" % [sorteio.deck_info.get("nome", "?"), int(sorteio.deck_info.get("cards", -1))])
