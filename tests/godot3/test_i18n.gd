extends SceneTree
# Engine test (issue 15 "One language"): one language per run on the Godot 3 line. Run in a copy
# of the demo whose setting sorteio/language is "auto", with SORTEIO_LANG naming the language:
# the addon's strings (Language.t: the panel's, the importer's), the demo's (Texts.t, the
# header, the card) and Python's own message over the socket bridge all come in it.
#   godot3-server --path DEMO_COPY -s tests/godot3/test_i18n.gd -- --lang=en --validate=Validate
#     --meters=Meters --year="Year 1 of 4: 1 mandatory" --no-match="<Python's message>"
# Prints "CHECK ok|FAIL name: detail" lines; quits 0 when every check passed.

const Checks = preload("lib/checks.gd")
const Language = preload("res://addons/sorteio/sorteio_language.gd")
const Texts = preload("res://scenes/texts.gd")
const SorteioPanel = preload("res://addons/sorteio/editor/panel.gd")

var t = Checks.new()
var expected := {}


func _init() -> void:
	var args := Array(OS.get_cmdline_args())
	for arg in args.slice(args.find("--") + 1, args.size() - 1):
		var pair: PoolStringArray = arg.trim_prefix("--").split("=", true, 1)
		expected[pair[0]] = pair[1] if pair.size() > 1 else ""
	call_deferred("_run")


func _run() -> void:
	t.check(Language.language() == expected["lang"], "the run's language", Language.language())
	var lang: String = expected["lang"].replace("_", "-")
	t.check(Language.protocol_lang() == lang, "the protocol's lang", Language.protocol_lang())
	# C / POSIX (LANG=C) names no language: English, as Godot's own fallback (issue 14).
	var locales := {
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
	var read := {}
	for locale in locales:
		read[locale] = Language.from_locale(locale)
	t.check(read.hash() == locales.hash(), "C and POSIX read as English", read)
	t.check(
		Language.t("Validar") == expected["validate"], "the addon's string", Language.t("Validar")
	)
	t.check(Language.t("no such msgid") == "no such msgid", "a missing msgid stays as it is")
	var panel = SorteioPanel.new()  # the panel's buttons and tab titles, built in the language
	var buttons := []
	for node in panel.get_child(0).get_children():
		if node is Button:
			buttons.append(node.text)
	t.check(expected["validate"] in buttons, "the panel's Validate button", buttons)
	panel.free()
	t.check(Texts.t("Medidores") == expected["meters"], "the demo's string", Texts.t("Medidores"))
	var header = load("res://scenes/header_view.tscn").instance()
	root.add_child(header)
	header.call("_on_turn_started", 1, [{}])
	var text: String = header.get_node("Year").text
	t.check(text == expected["year"], "the demo's header in the language", text)
	var sorteio: Node = root.get_node("Sorteio")
	sorteio.connect("error_occurred", t, "on_error_occurred")
	yield(t.wait_ready(self, sorteio), "completed")
	t.errors.clear()
	sorteio.draw_next_card()  # before any match: Python refuses, in the run's language
	var said: String = t.errors[0][0] if not t.errors.empty() else ""
	t.check(expected["no-match"] in said, "Python's message in the language", t.errors)
	t.finish(self)
