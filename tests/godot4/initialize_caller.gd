extends "res://tests/lib/engine_test.gd"
## A -s script that plays from _initialize (issue 13's QA finding): no frame has run yet and the
## autoloads are not in the scene tree, yet start_match() and advance() work (the node waits on
## the main loop's frames for its bridge).

var in_tree_then: bool = true
var started: Variant = null
var first_card: SorteioCard = null
var errors: PackedStringArray = []


func _initialize() -> void:
	super._initialize()
	var sorteio: SorteioNode = root.get_node_or_null("Sorteio") as SorteioNode
	if sorteio == null:
		return
	in_tree_then = sorteio.is_inside_tree()
	sorteio.error_occurred.connect(
		func(message: String, code: String) -> void: errors.append(code + ": " + message)
	)
	_play(sorteio)


func _play(sorteio: SorteioNode) -> void:
	started = await sorteio.start_match(5)
	first_card = await sorteio.advance()


func scenario() -> void:
	check(autoload("Sorteio") != null, "the autoload exists")
	while first_card == null and errors.is_empty():
		await process_frame
	check(not in_tree_then, "in _initialize the autoload was not in the tree yet")
	check(started == true, "start_match() from _initialize succeeds", str(errors))
	check(first_card != null, "advance() then hands the first card", str(errors))
