extends Node
## A small game (not the demo) for the export tests: plays one whole match through its own
## SorteioNode (bridge "auto": in-process when the project holds the Python GDExtension, else
## the socket bridge, which finds the frozen server beside the exported game), picking the left
## side on even slots and the right one on odd slots, with the deck [constant DECK] from the pack
## (the node hands Python a user:// copy of it). Prints "GAME <what>" lines; quits 0 on a
## finished match and 1 otherwise. [code]-- --seed=N[/code] picks the seed, [code]--deck=PATH[/code]
## another deck of the pack (tests/test_killed_game_leaves_nothing.py: a big one).

## The test copies the built-in deck here; the preset's include_filter exports it.
const DECK: String = "res://decks/meu.json"

var _ending: Dictionary = {}


func _ready() -> void:
	_play.call_deferred()


func _play() -> void:
	var node: SorteioNode = SorteioNode.new()
	node.match_ended.connect(_on_match_ended)
	add_child(node)
	if not await node.wait_bridge_ready():
		print("GAME bridge failed: %s" % node.bridge_error)
		get_tree().quit(1)
		return
	print("GAME bridge %s" % node.bridge_kind)
	var seed_value: int = 11
	var deck: String = DECK
	for given: String in OS.get_cmdline_user_args():
		if given.begins_with("--seed="):
			seed_value = int(given.split("=")[1])
		elif given.begins_with("--deck="):
			deck = given.trim_prefix("--deck=")
	if not await node.start_match(seed_value, deck):
		print("GAME start_match failed: %s" % node.last_error)
		get_tree().quit(1)
		return
	var cards: int = 0
	while true:
		var card: SorteioCard = await node.advance()
		if card == null:
			break
		if not await node.choose_side(SIDE_LEFT if card.slot % 2 == 0 else SIDE_RIGHT):
			break
		cards += 1
	if not node.is_match_over():
		print("GAME no ending: %s" % node.last_error)
		get_tree().quit(1)
		return
	print("GAME ending %s after %d cards" % [JSON.stringify(_ending), cards])
	node.stop_bridge()
	get_tree().quit(0)


func _on_match_ended(reason: String, ending: Dictionary) -> void:
	_ending = ending.duplicate()
	_ending["reason"] = reason
	# The autoload by path, not by its global name: this folder is also res://tests of other test
	# projects (tests/godot4_harness.py), whose editors parse it without that autoload.
	var state: Node = get_node("/root/GameState")
	state.set("matches_played", int(state.get("matches_played")) + 1)
