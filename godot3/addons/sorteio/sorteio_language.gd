extends Reference
# One language per run (issue 15 "One language"): pt-BR or English, for the addon's own strings
# (the Sorteio panel, the deck importer's Output lines and Inspector summary, the FileSystem
# dock's tooltips) and for the rules' messages (reasons, endings, errors), sent as every
# request's "lang" (docs/protocol.md, "Language").
# The project setting `sorteio/language`: "auto" (default), "pt_BR" or "en"; auto reads
# $SORTEIO_LANG (the variable the Python side reads), else the game's (or the editor's
# process's) locale, OS.get_locale(); English and the C / POSIX locale read as English, any
# other language as pt_BR, the studio's. The Godot 4 addon's SorteioI18n
# (addons/sorteio/i18n/sorteio_i18n.gd) decides the same way and its catalogs use the same
# msgids where a script has a Godot 4 twin
# (godot3/addons/sorteio/i18n/README.md lists the twins).
#
# Catalogs: gettext .po files in i18n/ beside this script. Godot 3.2.3 and 3.6 read a .po with
# load() (their TranslationLoaderPO, no import step: it works headless and in a game that was
# never opened in the editor), so t() reads the language's catalog directly and the addon adds
# nothing to the game's TranslationServer (a game's own catalogs and tr() stay its own).
# A msgid is the pt-BR text, so a string missing from a catalog still reads as Portuguese.

const SETTING_LANGUAGE := "sorteio/language"
const CATALOGS := {
	"pt_BR": "res://addons/sorteio/i18n/pt_BR.po", "en": "res://addons/sorteio/i18n/en.po"
}


static func language() -> String:
	var chosen := "auto"
	if ProjectSettings.has_setting(SETTING_LANGUAGE):
		chosen = str(ProjectSettings.get_setting(SETTING_LANGUAGE))
	if chosen in ["pt_BR", "en"]:
		return chosen
	var locale := OS.get_environment("SORTEIO_LANG")
	if locale == "":
		locale = OS.get_locale()
	return from_locale(locale)


# `locale` (a POSIX locale or a language tag: pt_BR.UTF-8, en-GB) as one of the two languages.
# C / POSIX names no language: English, as Godot falls back to there (and OS.get_locale() is
# "en" when LANG is unset, so both ways of choosing nothing read alike).
static func from_locale(locale: String) -> String:
	var tag := locale.strip_edges().to_lower()
	if tag.begins_with("en") or tag.split(".")[0].split("@")[0] in ["c", "posix"]:
		return "en"
	return "pt_BR"


# The language as the protocol's "lang" field names it: "pt-BR" or "en".
static func protocol_lang() -> String:
	return language().replace("_", "-")


# `message` (a msgid: the pt-BR text) in the run's language; unchanged when the catalog lacks
# it (tests/test_godot3_i18n.py checks every msgid the scripts use is in both catalogs).
static func t(message: String) -> String:
	return translated(message, CATALOGS[language()])


# `message` as the catalog at `catalog_path` (a .po) has it, else unchanged. load() keeps the
# catalog in Godot's resource cache, so each call after the first costs a lookup.
static func translated(message: String, catalog_path: String) -> String:
	if not ResourceLoader.exists(catalog_path):
		return message
	# Untyped: a `Translation` annotation made this script fail to compile in 3.2.3's editor
	# while a plugin was being enabled ("Couldn't fully preload" in every script preloading it).
	var catalog = load(catalog_path)
	var text := str(catalog.get_message(message)) if catalog != null else ""
	return text if text != "" else message
