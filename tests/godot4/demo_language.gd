extends "res://tests/lib/engine_test.gd"
## The Godot 4 demo in the run's language (issue 15): its own labels come from its catalogs in
## the language the addon chose. tests/test_godot4_i18n.py passes what they should read:
## --lang=pt_BR|en, --why=the reason's prefix, --meters=the meters' heading.


func scenario() -> void:
	var sorteio: SorteioNode = autoload("Sorteio") as SorteioNode
	change_scene_to_file("res://main.tscn")
	var drawn: Array = await wait_for(sorteio.card_drawn, 60.0)
	if drawn.is_empty():
		return
	await wait_frames(2)
	check(SorteioI18n.language() == arg("lang"), "the demo's language", SorteioI18n.language())
	check(TranslationServer.get_locale() == arg("lang"), "the game's locale follows it")
	var main: Control = current_scene as Control
	var view: PanelContainer = main.get("_card_view")
	var reason: Label = view.get("_reason")
	check(reason.text.begins_with(arg("why")), "the card's reason heading", reason.text)
	var headings: Array[String] = []
	for label: Node in main.find_children("*", "Label", true, false):
		headings.append((label as Label).text)
	check(arg("meters") in headings, "the meters' heading", str(headings.slice(0, 12)))
