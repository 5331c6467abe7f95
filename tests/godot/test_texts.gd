extends SceneTree
# The demo's Portuguese texts agree in number ("1 carta", "2 cartas") and the header shows the
# playable cards.   godot3-server --path demo_project -s tests/godot/test_texts.gd

const Texts = preload("res://scenes/texts.gd")

var failures := 0


func _init() -> void:
	_check(Texts.count(1, "carta", "cartas") == "1 carta", "1 carta")
	_check(Texts.count(2, "carta", "cartas") == "2 cartas", "2 cartas")
	_check(Texts.count(0, "obrigatória", "obrigatórias") == "0 obrigatórias", "0 obrigatórias")
	var one := Texts.reason({}, {"kind": "random", "candidates": 1, "replaces": null})
	_check(not "1 cartas" in one and not "1 elegíveis" in one, "one candidate, singular", one)
	var many := Texts.reason({}, {"kind": "random", "candidates": 5, "replaces": null})
	_check("entre 5 cartas" in many, "five candidates, plural", many)
	var end := {"reason": "catastrophe", "year": 1, "cards_played": 1, "zeroed": null}
	_check("1 carta jogada." in Texts.ending({}, end), "1 carta jogada", Texts.ending({}, end))
	var header = load("res://scenes/header_view.tscn").instance()
	root.add_child(header)
	var deck := {"nome": "Padrão", "cards": 101, "playable": 95, "cartas_por_turno": 7}
	header.call("_on_match_started", 3, deck, {})
	var text: String = header.get_node("Deck").text
	_check(text == "Baralho Padrão (95 jogáveis de 101 cartas), semente 3", "header", text)
	header.call("_on_turn_started", 1, [{}])
	text = header.get_node("Year").text
	_check(text == "Ano 1 de 4: 1 obrigatória", "header: 1 obrigatória", text)
	header.call("_on_error_occurred", "gone", "bridge_down")
	text = header.get_node("Year").text
	_check(not "Conectando" in text, "no 'Conectando' next to an error", text)
	print("GODOT-TEST %s" % ("passed" if failures == 0 else "failed"))
	quit(0 if failures == 0 else 1)


func _check(ok: bool, name: String, detail = "") -> void:
	if not ok:
		failures += 1
	print(
		"CHECK %s %s%s" % ["ok" if ok else "FAIL", name, ": " + str(detail) if str(detail) else ""]
	)
