@tool
class_name SorteioI18n
extends RefCounted
## One language per run for the addon (issue 15 "One language"): pt-BR or English.
##
## The addon's own strings go through Godot's translation system: the catalogs
## [code]addons/sorteio/i18n/pt_BR.po[/code] and [code]en.po[/code] are loaded into a
## translation domain of their own ([constant DOMAIN], Godot 4.4+), so the addon neither adds
## to the editor's catalogs nor depends on the game's, and [method t] reads them in the
## language [method language] chose. A msgid is the pt-BR text (the studio's language and
## the addon's original wording), so an untranslated string still reads as Portuguese.
## The same language goes to Python in every request's [code]"lang"[/code]
## ([method protocol_lang]), so the rules' messages (reasons, errors) come in it too.
## No rule of the GDD lives here.

## Project setting read by the node and the panel: [code]auto[/code], [code]pt_BR[/code] or
## [code]en[/code]. [code]auto[/code]: [code]$SORTEIO_LANG[/code] (the variable the Python
## side reads), else the editor's language in the editor or the game's locale in a game,
## else pt_BR.
const SETTING_LANGUAGE := "sorteio/language"
## The values [constant SETTING_LANGUAGE] takes.
const CHOICES: Array[String] = ["auto", "pt_BR", "en"]
## The translation domain holding the addon's catalogs.
const DOMAIN := &"sorteio"
## The addon's catalogs: pt_BR first, then en.
const CATALOGS: Array[String] = [
	"res://addons/sorteio/i18n/pt_BR.po", "res://addons/sorteio/i18n/en.po"
]


## The run's language: [code]"pt_BR"[/code] or [code]"en"[/code] (see [constant SETTING_LANGUAGE]).
static func language() -> String:
	var chosen := str(ProjectSettings.get_setting(SETTING_LANGUAGE, "auto"))
	if chosen in ["pt_BR", "en"]:
		return chosen
	var locale := OS.get_environment("SORTEIO_LANG")
	if locale == "":
		locale = TranslationServer.get_tool_locale() if Engine.is_editor_hint() else OS.get_locale()
	return from_locale(locale)


## [param locale] (a POSIX locale or a language tag: [code]pt_BR.UTF-8[/code], [code]en-GB[/code])
## as one of the two languages: English for English and for the C / POSIX locale, which names no
## language (Godot falls back to English there, and [method OS.get_locale] is "en" when LANG is
## unset, so both ways of choosing nothing read alike); any other language reads as pt_BR.
static func from_locale(locale: String) -> String:
	var tag: String = locale.strip_edges().to_lower()
	if tag.begins_with("en") or tag.get_slice(".", 0).get_slice("@", 0) in ["c", "posix"]:
		return "en"
	return "pt_BR"


## The language as the protocol's [code]"lang"[/code] field names it: "pt-BR" or "en".
static func protocol_lang() -> String:
	return language().replace("_", "-")


## [param message] (a msgid: the pt-BR text) in the run's language. A message missing from the
## catalog comes back unchanged (tests/test_godot4_i18n.py checks every msgid used is in both).
## Godot 4.4+ reads it through the addon's translation domain; before 4.4 (no domains; the
## socket bridge runs on 4.2) straight from the language's catalog.
static func t(message: String) -> String:
	var chosen := language()
	if ClassDB.class_exists(&"TranslationDomain"):
		# Called by name: a typed TranslationDomain would not compile on 4.2 and 4.3.
		var domain: Object = TranslationServer.call(&"get_or_add_domain", DOMAIN)
		var loaded: Array = domain.call(&"get_translations")
		if loaded.is_empty():
			for path: String in CATALOGS:
				var catalog: Translation = load(path)
				if catalog != null:
					domain.call(&"add_translation", catalog)
		domain.call(&"set_locale_override", chosen)
		return str(domain.call(&"translate", message))
	var own: Translation = load(CATALOGS[0] if chosen == "pt_BR" else CATALOGS[1])
	var text := str(own.get_message(message)) if own != null else ""
	return text if text != "" else message


## Registers [constant SETTING_LANGUAGE] in the project settings (the editor plugin calls it), so
## it shows under Sorteio with its three choices.
static func register_setting() -> void:
	if not ProjectSettings.has_setting(SETTING_LANGUAGE):
		ProjectSettings.set_setting(SETTING_LANGUAGE, "auto")
	ProjectSettings.set_initial_value(SETTING_LANGUAGE, "auto")
	ProjectSettings.add_property_info(
		{
			"name": SETTING_LANGUAGE,
			"type": TYPE_STRING,
			"hint": PROPERTY_HINT_ENUM,
			"hint_string": ",".join(CHOICES)
		}
	)
