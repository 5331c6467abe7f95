extends "res://tests/lib/engine_test.gd"
## One language per run (issue 15): the addon's own strings (SorteioI18n, the .po catalogs),
## the panel's card table and the rules' messages from Python (the node's requests carry "lang")
## come in the language the run chose. The Python side (tests/test_godot4_i18n.py) passes what
## each should read: --lang=pt_BR|en, --validate=the panel's button text, --cards and --title=
## the card table's tab and a column title, --no-match=Python's message for a draw before any
## match, computed by Python's own handler in that language; --misuse= and --drifted= the start
## of a message the node and the scripted bridge make in GDScript.


func scenario() -> void:
	var sorteio := autoload("Sorteio") as SorteioNode
	sorteio.print_warnings = false  # the provoked error is checked here, not printed
	check(SorteioI18n.language() == arg("lang"), "the run's language", SorteioI18n.language())
	check(
		SorteioI18n.protocol_lang() == arg("lang").replace("_", "-"),
		"the protocol's lang",
		SorteioI18n.protocol_lang()
	)
	# C / POSIX (LANG=C) names no language: English, as Godot's own fallback (issue 14).
	var locales: Dictionary = {
		"C": "en",
		"POSIX": "en",
		"C.UTF-8": "en",
		"c": "en",
		"en_US.UTF-8": "en",
		"pt_BR.UTF-8": "pt_BR",
		"fr_FR": "pt_BR",
		"ca_ES": "pt_BR",
		"": "pt_BR"
	}
	var read: Dictionary = {}
	for locale: String in locales:
		read[locale] = SorteioI18n.from_locale(locale)
	check(read == locales, "C and POSIX read as English, other languages as pt_BR", str(read))
	check(
		SorteioI18n.t("Validar") == arg("validate"),
		"the addon's own string in the language",
		SorteioI18n.t("Validar")
	)
	# The panel's card table builds its controls when made (the whole panel needs the editor:
	# its file dialogs are EditorFileDialogs).
	var table_script: GDScript = load("res://addons/sorteio/editor/card_table.gd")
	var table: Control = table_script.new()
	var titles: Array[String] = []
	var tree := table.find_children("*", "Tree", true, false)[0] as Tree
	for column: int in tree.columns:
		titles.append(tree.get_column_title(column))
	check(
		String(table.name) == arg("cards") and arg("title") in titles,
		"the card table in the language",
		"%s %s" % [table.name, titles]
	)
	table.free()
	var messages: Array[String] = []
	sorteio.error_occurred.connect(
		func(message: String, _code: String) -> void: messages.append(message)
	)
	await wait_for(sorteio.bridge_ready, 30.0, "bridge_ready")
	check(await sorteio.draw_next_card() == null, "a draw before a match fails")
	check(
		messages.size() == 1 and messages[0] == arg("no-match"),
		"Python's message in the language",
		str(messages)
	)
	# The node's own words (made in GDScript, not by Python) follow the language too.
	check(not await sorteio.choose_side(SIDE_LEFT), "a choice before a match fails")
	check(
		messages.size() == 2 and messages[1].begins_with(arg("misuse")),
		"the node's own message in the language",
		str(messages)
	)
	check(
		SorteioScriptedBridge.drifted().begins_with(arg("drifted")),
		"the scripted bridge's advice in the language",
		SorteioScriptedBridge.drifted()
	)
