extends "res://tests/lib/engine_test.gd"
## A whole match through the Sorteio autoload, played with advance() and choose_side() (sides
## from a seeded RNG), checked from the engine side: signal order, 7 cards a full turn, no card
## repeated, typed cards with int numbers, the node's state updated before each signal, the
## ending. Prints BRIDGE <kind>, SERVER_PID <pid> and MATCH seed=.. reason=.. cards=..
## Arguments: --seed=N (default 7), --deck=PATH (default: the package's default deck).

## Which signal may follow which (a catastrophe ends the match right after option_applied).
const NEXT: Dictionary = {
	"match_started": ["turn_started"],
	"turn_started": ["card_drawn", "turn_ended"],
	"card_drawn": ["option_applied"],
	"option_applied": ["card_drawn", "turn_ended", "match_ended"],
	"turn_ended": ["turn_started", "match_ended"],
	"match_ended": [],
}

var sorteio: SorteioNode
var events: PackedStringArray = []
var stale: PackedStringArray = []
var non_ints: PackedStringArray = []
var cards_by_year: Dictionary = {}
var played: Dictionary = {}
var repeated: PackedStringArray = []
var short_turns: int = 0


func scenario() -> void:
	sorteio = autoload("Sorteio") as SorteioNode
	var seed_value: int = int(arg("seed", "7"))
	sorteio.match_started.connect(_on_match_started)
	sorteio.turn_started.connect(_on_turn_started)
	sorteio.card_drawn.connect(_on_card_drawn)
	sorteio.option_applied.connect(_on_option_applied)
	sorteio.turn_ended.connect(_on_turn_ended)
	sorteio.match_ended.connect(_on_match_ended)
	sorteio.error_occurred.connect(func(message: String, code: String) -> void:
		check(false, "no error_occurred", "%s: %s" % [code, message]))
	if not check(await sorteio.start_match(seed_value, arg("deck", "")), "start_match"):
		return
	print("BRIDGE %s" % sorteio.bridge_kind)
	print("SERVER_PID %d" % sorteio.bridge_process_id())
	var sides: RandomNumberGenerator = RandomNumberGenerator.new()
	sides.seed = seed_value
	var cards: int = 0
	while true:
		var card: SorteioCard = await sorteio.advance()
		if card == null:
			break
		cards += 1
		var side: Side = SIDE_LEFT if sides.randi() % 2 == 0 else SIDE_RIGHT
		var shown: SorteioOption = card.option_on(side)
		if shown == null:  # a card with one option
			shown = card.option_on(SIDE_LEFT)
			side = SIDE_LEFT
		if not await sorteio.choose_side(side):
			check(false, "choose_side %s" % card.id, sorteio.last_error)
			break
		if cards > 40:
			break
	_check_all(cards)
	print("MATCH seed=%d reason=%s cards=%d" % [seed_value, sorteio.ending.get("reason", ""), cards])


func _event(name: String, state_ok: bool) -> void:
	if not events.is_empty():
		var allowed: Array = NEXT.get(events[-1], [])
		if not name in allowed:
			stale.append("%s after %s" % [name, events[-1]])
	events.append(name)
	if not state_ok:
		stale.append("state not updated before %s (phase %s)" % [name, sorteio.phase])


func _on_match_started(_seed: int, deck: Dictionary, snapshot: Dictionary) -> void:
	_ints_only("snapshot", snapshot)
	_ints_only("deck", deck)
	_event("match_started", sorteio.phase == SorteioNode.PHASE_TURN_START and sorteio.deck_info == deck)


func _on_turn_started(year: int, mandatory: Array) -> void:
	cards_by_year[year] = 0
	_ints_only("mandatory", mandatory)
	_event("turn_started", sorteio.year == year and sorteio.phase == SorteioNode.PHASE_DRAWING)


func _on_card_drawn(card: SorteioCard) -> void:
	_ints_only("card", card.data)
	if played.has(card.id):
		repeated.append(card.id)
	played[card.id] = true
	cards_by_year[card.year] = int(cards_by_year.get(card.year, 0)) + 1
	var typed: bool = (
		card.id != ""
		and card.title != ""
		and card.mode_name != ""
		and card.reason != ""
		and card.reason_kind in ["mandatory", "random"]
		and card.slot == cards_by_year[card.year]
		and card.option_order.size() == card.options.size()
		and card.options.size() >= 1
	)
	if not typed:
		stale.append("card not typed: %s" % card)
	_event(
		"card_drawn",
		(
			sorteio.phase == SorteioNode.PHASE_AWAITING_CHOICE
			and sorteio.current_card == card
			and sorteio.year == card.year
			and sorteio.slot == card.slot
		)
	)


func _on_option_applied(card: SorteioCard, option: SorteioOption, meters: Dictionary, actors: Dictionary) -> void:
	_ints_only("meters", meters)
	_ints_only("actors", actors)
	var in_range: bool = true
	for value: int in meters.values():
		in_range = in_range and value >= 0 and value <= 100
	for actor: Dictionary in actors.values():
		in_range = in_range and int(actor["satisfaction"]) >= 0 and int(actor["satisfaction"]) <= 100
	if not in_range:
		stale.append("meters or satisfactions out of 0..100: %s %s" % [meters, actors])
	var same_card: bool = card != null and option != null and card.options[option.index] == option
	_event("option_applied", sorteio.meters == meters and sorteio.current_card == null and same_card)


func _on_turn_ended(year: int, cards: int, short: bool, _meters: Dictionary) -> void:
	if short:
		short_turns += 1
	elif cards != int(sorteio.deck_info["cartas_por_turno"]):
		stale.append("year %d closed with %d cards, not short" % [year, cards])
	if cards != int(cards_by_year.get(year, 0)):
		stale.append("year %d: turn_ended says %d cards, %d drawn" % [year, cards, cards_by_year.get(year, 0)])
	var next_ok: bool = (
		sorteio.phase == SorteioNode.PHASE_ENDED
		or (sorteio.phase == SorteioNode.PHASE_TURN_START and sorteio.year == year + 1)
	)
	_event("turn_ended", next_ok)


func _on_match_ended(reason: String, ending: Dictionary) -> void:
	_ints_only("ending", ending)
	var ok: bool = sorteio.is_match_over() and sorteio.ending == ending
	ok = ok and reason in [SorteioNode.END_CATASTROPHE, SorteioNode.END_OF_MANDATE]
	_event("match_ended", ok)


func _check_all(cards: int) -> void:
	check(events.size() > 0 and events[-1] == "match_ended", "the match ended", str(events.slice(-3)))
	check(stale.is_empty(), "signals in order with the node's state updated before each", "\n".join(stale))
	check(repeated.is_empty(), "no card repeated", str(repeated))
	check(non_ints.is_empty(), "every payload number is an int", ", ".join(non_ints))
	check(cards == played.size(), "every drawn card was handed by advance()", "%d vs %d" % [cards, played.size()])
	var ending: Dictionary = sorteio.ending
	var consistent: bool = int(ending.get("cards_played", -1)) == cards
	if ending.get("reason") == SorteioNode.END_OF_MANDATE:
		consistent = consistent and int(ending["year"]) == 4
	else:
		var zeroed: String = str(ending.get("zeroed", ""))
		consistent = consistent and zeroed != "" and int(sorteio.meters.get(zeroed, -1)) == 0
	check(consistent, "ending consistent", str(ending))
	check(await sorteio.advance() == null, "advance() after the end hands nothing")


func _ints_only(where: String, value: Variant) -> void:
	match typeof(value):
		TYPE_FLOAT:
			non_ints.append(where)
		TYPE_DICTIONARY:
			for key: Variant in value:
				_ints_only("%s.%s" % [where, key], value[key])
		TYPE_ARRAY:
			for item: Variant in value:
				_ints_only(where + "[]", item)
