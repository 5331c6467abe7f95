extends Reference
# What SorteioNode (sorteio_node.gd) says about decks and saves: a deck named as the game gave
# it, a SorteioDeck made in code, a save that is not one, and the notes of the QA fixes (a save
# of a deck made in code, an older sorteio serve). Static, kept apart so the node stays within
# gdlint's 1000 lines. Godot 4's twins: addons/sorteio/node/deck_files.gd and messages.gd.

const Language = preload("res://addons/sorteio/sorteio_language.gd")


static func named_as_given(message: String, python_path, given: String) -> String:
	# Python's message naming the deck as the game gave it ("res://decks/meu.json"): a user://
	# copy is gone by then, and an OS path is not what the programmer wrote. Python spells the
	# path its OS's way ("\\" on Windows).
	if typeof(python_path) != TYPE_STRING or python_path in ["", given] or given == "":
		return message
	return message.replace(python_path, given).replace(python_path.replace("/", "\\"), given)


static func resource_name(resource: Resource) -> String:
	# How messages name a SorteioDeck: its path, or what it is when it was made in code.
	if resource.resource_path != "":
		return resource.resource_path
	if str(resource.get("deck_name")) != "":
		return "the SorteioDeck '%s' made in code" % resource.get("deck_name")
	return "a SorteioDeck made in code"


static func type_name(value) -> String:
	match typeof(value):
		TYPE_NIL:
			return "null (an empty or corrupt save file?)"
		TYPE_STRING:
			return "text"
		TYPE_ARRAY:
			return "an Array"
	return "a value of Variant type %d" % typeof(value)


static func in_code_hint() -> String:
	# Said after a save of deck "" failed in the default deck (Godot 4's twin: deck_files.gd).
	return Language.t(
		(
			" (este save não nomeia um arquivo de baralho: se a partida usou um SorteioDeck "
			+ "feito no código, passe-o: load_state(save, deck))"
		)
	)


static func old_server_note() -> String:
	return Language.t(
		(
			"o servidor do sorteio é anterior aos baralhos enviados como texto (deck_text): "
			+ "cada baralho que ele não lê do disco vai como uma cópia em user://, apagada "
			+ "depois da leitura; atualize o sorteio desse Python (pip install -U sorteio) "
			+ "para não gravar cópias"
		)
	)
