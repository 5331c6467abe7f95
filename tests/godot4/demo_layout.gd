extends "res://tests/lib/engine_test.gd"
## The Godot 4 demo played card by card: the left and right buttons stay where they are on every
## card (issue 15: a Reigns-like rhythm must find them in the same place), what a choice moved is
## shown, and the end screen says how the mandate went. With --shots=DIR (under a display), also
## saves start.png, choice.png, mid.png and end.png there.
##   godot4 --path demo_project -s res://tests/demo_layout.gd -- --seed=33 [--shots=/abs/dir]


func scenario() -> void:
	var sorteio: SorteioNode = autoload("Sorteio") as SorteioNode
	var shots: String = arg("shots")
	change_scene_to_file("res://main.tscn")
	var drawn: Array = await wait_for(sorteio.card_drawn, 60.0)
	if drawn.is_empty():
		return
	var main: Control = current_scene as Control
	var view: PanelContainer = main.get("_card_view")
	var buttons: Array = view.get("_buttons")
	var first: Array[Rect2] = []
	var moved: int = 0
	var cards: int = 0
	while true:
		cards += 1
		await wait_frames(2)
		var rects: Array[Rect2] = []
		for button: Button in buttons:
			rects.append(button.get_global_rect())
		if first.is_empty():
			first = rects
			await _shot(shots, "start")
		elif rects != first:
			moved += 1
			print("card %d: buttons at %s, first at %s" % [cards, rects, first])
		var side: Side = SIDE_LEFT if cards % 2 == 0 else SIDE_RIGHT
		await sorteio.choose_side(side)
		await wait_frames(2)
		if cards == 1:
			var outcome: Label = view.get("_outcome")
			check(outcome.text.contains("Você escolheu"), "the choice and its effects are shown",
				outcome.text)
			await _shot(shots, "choice")
		if cards == 14:
			await _shot(shots, "mid")
		if sorteio.is_match_over() or await sorteio.advance() == null:
			break
	check(cards >= 7, "a match played card by card", "%d cards" % cards)
	check(moved == 0, "the option buttons never move", "%d of %d cards moved them" % [moved, cards])
	await wait_frames(2)
	var text: Label = view.get("_text")
	check(text.text.ends_with(".") or text.text.contains("Cartas jogadas"),
		"the end screen says how the mandate went", text.text)
	await _shot(shots, "end")


func _shot(folder: String, name: String) -> void:
	if folder == "" or DisplayServer.get_name() == "headless":
		return
	await RenderingServer.frame_post_draw
	var image: Image = root.get_texture().get_image()
	check(image.save_png(folder.path_join(name + ".png")) == OK, "picture %s saved" % name)
