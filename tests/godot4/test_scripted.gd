extends "res://tests/lib/engine_test.gd"
## The scripted bridge (issue 14's test double). --record=PATH: a real match over the socket
## bridge with Sorteio.record_path = PATH. --replay=PATH: the same match replayed from that file
## by bridge_mode "scripted" (set before the first frame, as a game's test would in its
## project settings or _ready), with no Python; then a drifting test gets script_mismatch, and
## replies scripted in code drive an error path. Prints SEQ <year.slot:id ...> and BRIDGE.

const SEED: int = 6

var sorteio: SorteioNode


func _initialize() -> void:
	super._initialize()
	var node: SorteioNode = root.get_node_or_null("Sorteio") as SorteioNode
	if node != null and arg("replay") != "":
		node.bridge_mode = SorteioNode.BRIDGE_SCRIPTED
		node.scripted_replies = arg("replay")


func scenario() -> void:
	sorteio = autoload("Sorteio") as SorteioNode
	if arg("record") != "":
		sorteio.record_path = arg("record")
	check(await sorteio.start_match(SEED), "start_match", sorteio.last_error)
	print("BRIDGE %s" % sorteio.bridge_kind)
	print("SERVER_PID %d" % sorteio.bridge_process_id())
	var seen: PackedStringArray = []
	var at: int = 0
	while true:
		var card: SorteioCard = await sorteio.advance()
		if card == null:
			break
		seen.append("%d.%d:%s" % [card.year, card.slot, card.id])
		if not await sorteio.choose_side(SIDE_LEFT if at % 3 else SIDE_RIGHT):
			break
		at += 1
	check(sorteio.is_match_over(), "the match reached its end", sorteio.last_error)
	print("SEQ %s" % " ".join(seen))
	print("ENDING %s" % sorteio.ending.get("texto", ""))
	if arg("replay") != "":
		await _mismatch_and_scripted_errors()


func _mismatch_and_scripted_errors() -> void:
	sorteio.print_warnings = false
	sorteio.abandon_match()
	check(sorteio.use_bridge(SorteioScriptedBridge.from_file(arg("replay"))), "use_bridge(a scripted bridge)")
	check(not await sorteio.start_match(SEED + 1) and sorteio.last_error_code == SorteioNode.CODE_SCRIPT_MISMATCH,
		"a call that drifts from the recording is a script_mismatch", sorteio.last_error)
	check(sorteio.last_error.contains("seed"), "naming what differs", sorteio.last_error)
	var scripted: SorteioScriptedBridge = SorteioScriptedBridge.new()
	scripted.add_error("new_match", SorteioNode.CODE_DECK_ERROR, "decks/meu.json: cartas.3.titulo: field required")
	sorteio.use_bridge(scripted)
	check(not await sorteio.start_match(1) and sorteio.last_error_code == SorteioNode.CODE_DECK_ERROR,
		"a scripted refusal reaches the game as error_occurred", sorteio.last_error)
	check(sorteio.last_error.contains("cartas.3.titulo"), "with its message")
	check(not await sorteio.start_turn() and sorteio.last_error_code == SorteioNode.CODE_SCRIPT_MISMATCH,
		"a script that ran out says so", sorteio.last_error)
	check(SorteioScriptedBridge.from_file("res://no/such/recording.json") == null, "from_file on a missing file is null")
