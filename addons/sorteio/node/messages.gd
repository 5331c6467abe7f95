extends RefCounted
## What [SorteioNode] says when a call is misused: what is wrong, and what to call instead.


## choose_side with no card on the table, in [param phase] ([param ending] when it ended):
## what is wrong, and the call that puts a card there.
static func no_card(phase: String, ending: Dictionary) -> String:
	match phase:
		SorteioNode.PHASE_NONE:
			return (
				"no card awaits a choice (no match is in play): start_match() or load_state() "
				+ "first, then advance() hands the first card"
			)
		SorteioNode.PHASE_ENDED:
			return (
				(
					"no card awaits a choice (the match is over: %s): start_match() begins a "
					+ "new one"
				)
				% str(ending.get("reason", "ended"))
			)
	return "no card awaits a choice (phase '%s'): advance() first; it hands the next card" % phase


## "" for a Dictionary shaped like a save (Python checks the rest), else what is wrong with
## [param state] and what to pass instead.
static func not_a_save(state: Dictionary) -> String:
	if state.is_empty():
		return (
			"load_state got an empty Dictionary, not a save (an empty or unwritten save file?): "
			+ "pass what save_state() returned, or that Dictionary read back from its JSON file"
		)
	if state.has("cartas") or state.has("medidores"):
		return (
			"load_state got a deck, not a save: give a deck to start_match(); load_state takes "
			+ "what save_state() returned"
		)
	var missing: PackedStringArray = []
	for key: String in ["format", "engine"]:
		if not state.has(key):
			missing.append(key)
	if missing.is_empty():
		return ""
	return (
		(
			"load_state got a Dictionary that is not a save (no %s; it has %s): pass what "
			+ "save_state() returned, or that Dictionary read back from its JSON file"
		)
		% [" or ".join(missing), ", ".join(PackedStringArray(state.keys()))]
	)
