extends Node
# A small game (not the demo) for the Godot 3 export test (tests/test_export.py): plays one
# whole match through the Sorteio autoload, option slot % options, prints "GAME <what>" lines,
# quits 0 on a finished match and 1 otherwise. `-- --seed=N` picks the seed. The deck comes from
# the pack (the test copies the built-in deck to DECK; the preset's include_filter exports it),
# so the node hands Python a user:// copy of it. `--deck=PATH`: another deck of the pack
# (tests/test_killed_game_leaves_nothing.py: a big one).

const DECK := "res://decks/meu.json"


func _ready() -> void:
	call_deferred("_play")


func _play() -> void:
	var seed_value := 11
	var deck := DECK
	for given in OS.get_cmdline_args():
		if given.begins_with("--seed="):
			seed_value = int(given.split("=")[1])
		elif given.begins_with("--deck="):
			deck = given.trim_prefix("--deck=")
	if Sorteio.is_bridge_failed():
		print("GAME bridge failed: %s" % Sorteio.bridge_error)
		get_tree().quit(1)
		return
	if not Sorteio.is_bridge_ready():
		yield(Sorteio, "bridge_ready")
	if not Sorteio.start_match(seed_value, deck):
		print("GAME start_match failed: %s" % Sorteio.bridge_error)
		get_tree().quit(1)
		return
	print("GAME bridge %s" % Sorteio.bridge_kind)
	var cards := 0
	while not Sorteio.is_match_over():
		if not Sorteio.start_turn():
			break
		while not Sorteio.is_match_over():
			var draw: Dictionary = Sorteio.draw_next_card()
			if draw.empty():
				break
			var option: int = int(draw["slot"]) % draw["card"]["opcoes"].size()
			if not Sorteio.apply_option(option):
				break
			cards += 1
	if not Sorteio.is_match_over():
		print("GAME no ending")
		get_tree().quit(1)
		return
	print("GAME ending %s after %d cards" % [to_json(Sorteio.ending), cards])
	Sorteio.stop_bridge()
	get_tree().quit(0)
