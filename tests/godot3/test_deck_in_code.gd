extends SceneTree
# QA, on Godot 3 (the Godot 4 twin: tests/godot4/test_deck_in_code.gd): a match on a SorteioDeck
# made in code (deck_resource, no path) saves its deck as ""; load_state(save) loads it into that
# deck; a node that never saw it refuses it (rule_error) saying to pass the deck, and
# load_state(save, deck) loads it. GDD 06 §1: a deck with no card is refused with empty_deck
# (README "Rule decisions" 13). Run against an older sorteio serve too (SORTEIO_BRIDGE_FILE, see
# tests/old_server.py): the decks made in code then go as user:// copies, none left after.
# User args: --deck-file=ABSOLUTE deck path, --empty-file=ABSOLUTE path of a deck with no cards.
# Prints "BRIDGE <kind>" and "CHECK ok|FAIL name: detail" lines; quits 0 when every check passed.

const Checks = preload("lib/checks.gd")
const SorteioDeck = preload("res://addons/sorteio/sorteio_deck.gd")
const SorteioNode = preload("res://addons/sorteio/sorteio_node.gd")

var t = Checks.new()


func _init() -> void:
	call_deferred("_run")


func _run() -> void:
	var sorteio: Node = root.get_node("Sorteio")
	# print_warnings stays on (the old server's note is printed once); the second node's is off.
	sorteio.connect("error_occurred", t, "on_error_occurred")
	yield(t.wait_ready(self, sorteio), "completed")
	print("BRIDGE %s" % sorteio.bridge_kind)
	var made: Resource = SorteioDeck.new()
	made.json_text = _read(Checks.arg("deck-file"))
	sorteio.deck_resource = made
	t.check(sorteio.start_match(11), "a match starts on a deck made in code", t.errors)
	sorteio.start_turn()
	var pending := str(sorteio.draw_next_card().get("card_id", ""))
	var saved: Dictionary = sorteio.save_state()
	t.check(saved.get("deck") == "", "its save names no deck (no path)", saved.get("deck"))
	var restored = JSON.parse(JSON.print(saved)).result  # as read back from a file
	t.check(
		sorteio.load_state(restored) and _on_screen(sorteio) == pending,
		"load_state(save) loads into the deck made in code of the last match",
		sorteio.last_error
	)
	_a_new_run(made, restored, pending)
	_empty_deck(sorteio)
	_no_copy_left()
	t.finish(self)


func _a_new_run(made: Resource, restored: Dictionary, pending: String) -> void:
	var fresh: Node = SorteioNode.new()  # a node that never saw the deck
	fresh.print_warnings = false
	root.add_child(fresh)
	t.check(
		(
			not fresh.load_state(restored)
			and fresh.last_error_code == "rule_error"
			and "load_state(save, deck)" in fresh.last_error
		),
		"without the deck the default deck refuses it, saying how to pass it",
		fresh.last_error
	)
	t.check(
		fresh.load_state(restored, made) and _on_screen(fresh) == pending,
		"load_state(save, deck) loads into the SorteioDeck given",
		fresh.last_error
	)
	t.check(
		fresh.save_state().get("deck") == "" and fresh.load_state(restored),
		"the node remembers that deck for the next load",
		fresh.last_error
	)
	t.check(
		not fresh.load_state(restored, 5) and fresh.last_error_code == "bad_request",
		"a deck that is neither a path nor a SorteioDeck is bad_request",
		fresh.last_error
	)
	fresh.stop_bridge()
	fresh.free()


func _empty_deck(sorteio: Node) -> void:
	sorteio.abandon_match()
	var empty: Resource = SorteioDeck.new()
	empty.json_text = _read(Checks.arg("empty-file"))
	sorteio.deck_resource = empty
	t.check(
		(
			not sorteio.start_match(1)
			and sorteio.last_error_code == "empty_deck"
			and "cartas: o baralho não tem cartas" in sorteio.last_error
			and sorteio.phase == ""
		),
		"a deck with no card is refused with empty_deck (GDD 06 §1), no match started",
		"%s: %s" % [sorteio.last_error_code, sorteio.last_error]
	)


func _no_copy_left() -> void:
	var dir := Directory.new()
	var left := []
	if dir.open("user://") == OK:
		dir.list_dir_begin(true)
		var name := dir.get_next()
		while name != "":
			if name.begins_with("sorteio_deck_"):
				left.append(name)
			name = dir.get_next()
	t.check(left.empty(), "no deck copy is left in user://", left)


func _read(path: String) -> String:
	var file := File.new()
	if file.open(path, File.READ) != OK:
		return ""
	var text := file.get_as_text()
	file.close()
	return text


func _on_screen(node: Node) -> String:
	return str(node.current_draw.get("card_id", "(none)"))
