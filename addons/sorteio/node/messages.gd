extends RefCounted
## What [SorteioNode] says when a call is misused: what is wrong, and what to call instead.

const _DECK_FILES := preload("res://addons/sorteio/node/deck_files.gd")


## choose_side with no card on the table, in [param phase] ([param ending] when it ended):
## what is wrong, and the call that puts a card there.
static func no_card(phase: String, ending: Dictionary) -> String:
	match phase:
		SorteioNode.PHASE_NONE:
			return SorteioI18n.t(
				(
					"nenhuma carta espera escolha (não há partida em jogo): "
					+ "start_match() ou load_state() primeiro, depois "
					+ "advance() entrega a primeira carta"
				)
			)
		SorteioNode.PHASE_ENDED:
			return (
				SorteioI18n.t(
					(
						"nenhuma carta espera escolha (a partida acabou: %s): "
						+ "start_match() começa outra"
					)
				)
				% str(ending.get("reason", "ended"))
			)
	return (
		SorteioI18n.t(
			(
				"nenhuma carta espera escolha (fase '%s'): advance() "
				+ "primeiro; ele entrega a próxima carta"
			)
		)
		% phase
	)


## choose_side on a [param side] that [param card] has no option on.
static func no_option_on(card: SorteioCard, side: int) -> String:
	return (
		SorteioI18n.t("a carta %s não tem opção no lado %d (ela tem %d opção(ões))")
		% [card.id, side, card.options.size()]
	)


## "" for a Dictionary shaped like a save (Python checks the rest), else what is wrong with
## [param state] (a value load_state() got: null from a corrupt file, text...) and what to pass.
static func not_a_save(given: Variant) -> String:
	if not given is Dictionary:
		return (
			SorteioI18n.t("load_state precisa do Dictionary que save_state() devolveu, não %s")
			% _DECK_FILES.type_name(given)
		)
	var state: Dictionary = given
	if state.is_empty():
		return SorteioI18n.t(
			(
				"load_state recebeu um Dictionary vazio, não um save "
				+ "(um arquivo de save vazio ou não escrito?): passe o "
				+ "que save_state() devolveu, ou esse Dictionary lido de "
				+ "volta do seu arquivo JSON"
			)
		)
	if state.has("cartas") or state.has("medidores"):
		return SorteioI18n.t(
			(
				"load_state recebeu um baralho, não um save: dê um "
				+ "baralho a start_match(); load_state recebe o que "
				+ "save_state() devolveu"
			)
		)
	var missing: PackedStringArray = []
	for key: String in ["format", "engine"]:
		if not state.has(key):
			missing.append(key)
	if missing.is_empty():
		return ""
	return (
		SorteioI18n.t(
			(
				"load_state recebeu um Dictionary que não é um save "
				+ "(sem %s; ele tem %s): passe o que save_state() "
				+ "devolveu, ou esse Dictionary lido de volta do seu "
				+ "arquivo JSON"
			)
		)
		% [SorteioI18n.t(" ou ").join(missing), ", ".join(PackedStringArray(state.keys()))]
	)


## start_match while a match is in play (year [param year], [param phase]).
static func match_in_progress(year: int, phase: String) -> String:
	return (
		SorteioI18n.t(
			(
				"uma partida está em andamento (ano %d, fase '%s'): "
				+ "chame abandon_match() antes de start_match(), ou "
				+ "load_state() para substituí-la"
			)
		)
		% [year, phase]
	)


## A negative seed other than -1 (only -1 means "pick one").
static func bad_seed(chosen: int) -> String:
	return (
		SorteioI18n.t("a semente deve ser -1 (qualquer) ou de 0 a 2147483647, " + "não %d") % chosen
	)


## A call about a match lost with its bridge ([param bridge_error]: why the bridge failed).
static func match_lost(bridge_error: String) -> String:
	return (
		SorteioI18n.t(
			(
				"a partida se perdeu com a sua ponte (%s): "
				+ "start_bridge() se ela caiu, depois load_state() de um "
				+ "save ou start_match()"
			)
		)
		% bridge_error
	)


## A node that can wait for no frame: outside any tree, and the main loop is no SceneTree.
static func no_frames() -> String:
	return SorteioI18n.t(
		(
			"o nó não pode esperar a ponte: ele não está em nenhuma "
			+ "árvore de cena e o laço principal não é uma SceneTree; "
			+ "adicione-o à árvore antes (await process_frame uma vez)"
		)
	)


## The one warning a save loaded into an updated deck prints: Python's [param changes].
static func deck_updated(changes: PackedStringArray) -> String:
	return SorteioI18n.t("o save foi carregado num baralho atualizado: %s") % "; ".join(changes)
