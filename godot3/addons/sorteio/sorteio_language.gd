extends Reference
# One language per run (issue 15 "One language"): the language the rules' messages come in
# (reasons, endings, errors), sent as every request's "lang" (docs/protocol.md, "Language").
# The project setting `sorteio/language`: "auto" (default), "pt_BR" or "en"; auto reads
# $SORTEIO_LANG (the variable the Python side reads), else the game's locale (OS.get_locale());
# any language other than English reads as pt_BR, the studio's. The Godot 4 addon's
# SorteioI18n decides the same way; this Godot 3 line translates no string of its own (the
# demo's texts are Portuguese: its project sets pt_BR).

const SETTING_LANGUAGE := "sorteio/language"


static func language() -> String:
	var chosen := "auto"
	if ProjectSettings.has_setting(SETTING_LANGUAGE):
		chosen = str(ProjectSettings.get_setting(SETTING_LANGUAGE))
	if chosen in ["pt_BR", "en"]:
		return chosen
	var locale := OS.get_environment("SORTEIO_LANG")
	if locale == "":
		locale = OS.get_locale()
	return "en" if locale.strip_edges().to_lower().begins_with("en") else "pt_BR"


# The language as the protocol's "lang" field names it: "pt-BR" or "en".
static func protocol_lang() -> String:
	return language().replace("_", "-")
