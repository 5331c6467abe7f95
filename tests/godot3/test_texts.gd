extends SceneTree
# The demo's Portuguese texts agree in number ("1 carta", "2 cartas") and the header shows the
# playable cards.   godot3-server --path godot3/demo_project -s tests/godot3/test_texts.gd

const Checks = preload("lib/checks.gd")
const Texts = preload("res://scenes/texts.gd")

var t = Checks.new()


func _init() -> void:
	t.check(Texts.count(1, "carta", "cartas") == "1 carta", "1 carta")
	t.check(Texts.count(2, "carta", "cartas") == "2 cartas", "2 cartas")
	t.check(Texts.count(0, "obrigatória", "obrigatórias") == "0 obrigatórias", "0 obrigatórias")
	var why := {
		"kind": "random", "candidates": 5, "texto": "sorteada entre 5 elegíveis de modo novo"
	}
	t.check(
		Texts.reason(why) == "Sorteada entre 5 elegíveis de modo novo",
		"the reason is Python's texto, as a sentence",
		Texts.reason(why)
	)
	var end := {
		"reason": "catastrophe", "texto": "catástrofe: Saúde chegou a 0 no ano 1, 1 carta jogada"
	}
	t.check("1 carta jogada." in Texts.ending(end), "1 carta jogada", Texts.ending(end))
	t.check(Texts.ending(end).begins_with("Catástrofe: Saúde"), "ending texto", Texts.ending(end))
	var deck := {"modos": [{"id": "desinformacao", "nome": "Desinformação"}]}
	var line := Texts.mode_line(deck, {"modo": "desinformacao", "tipo": "comum"})
	t.check(line == "Desinformação · comum", "mode by its display name", line)
	var header = load("res://scenes/header_view.tscn").instance()
	root.add_child(header)
	var summary := {"nome": "Padrão", "cards": 101, "playable": 95, "cartas_por_turno": 7}
	header.call("_on_match_started", 3, summary, {})
	var text: String = header.get_node("Deck").text
	t.check(text == "Baralho Padrão (95 jogáveis de 101 cartas), semente 3", "header", text)
	header.call("_on_turn_started", 1, [{}])
	text = header.get_node("Year").text
	t.check(text == "Ano 1 de 4: 1 obrigatória", "header: 1 obrigatória", text)
	header.call("_on_error_occurred", "gone", "bridge_down")
	text = header.get_node("Year").text
	t.check(not "Conectando" in text, "no 'Conectando' next to an error", text)
	# Deck text in the log is text, never BBCode (issue 10: markup in a deck).
	var log_view = load("res://scenes/draw_log.tscn").instance()
	root.add_child(log_view)
	var card := {"titulo": "[b]Título[/b] [color=red]x", "opcoes": [{"texto": "[i]sim[/i]"}]}
	log_view.call("_on_card_drawn", card, 1, {"texto": "sorteada [u]entre[/u] 2"}, [0])
	log_view.call("_on_option_applied", "c", 0, {}, {})
	var shown: String = log_view.call("text")
	t.check("[b]Título[/b] [color=red]x" in shown, "a title's BBCode shows as typed", shown)
	t.check("[i]sim[/i]" in shown and "[u]entre[/u]" in shown, "option and reason too", shown)
	t.finish(self)
