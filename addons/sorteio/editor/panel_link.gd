@tool
extends RefCounted
## What the Sorteio panel's tabs share (editor only): the bridge to Python, one request at a
## time; the results of the last actions; the status line; the deck field; the tabs.
##
## The panel ([code]panel.gd[/code]) makes one and hands it to each tab; a tab asks Python
## through [method request], shows the answer, and tells what happened through [method answer]
## and [method set_status].

## An action ended (the panel emits it again as its own [code]action_finished[/code]).
signal action_finished(action: String, ok: bool)

const EditorPython := preload("res://addons/sorteio/editor/editor_python.gd")
const ERROR_COLOR := Color(1.0, 0.45, 0.42)
const WARNING_COLOR := Color(1.0, 0.82, 0.4)
const OK_COLOR := Color(0.5, 0.9, 0.55)

## The editor's bridge to Python (started at the first request).
var bridge: SorteioBridge = null
## action -> the last result Dictionary Python returned.
var results: Dictionary = {}
## The last error message shown.
var last_error: String = ""
## The text the status line shows after its deck and bridge.
var message: String = ""
## The panel: it owns the bridge's frames.
var panel: Control
## The deck field.
var deck_edit: LineEdit
## The status line.
var status: Label
## The tabs: 0 cards, 1 problems, 2 coverage, 3 preview, 4 simulation.
var tabs: TabContainer
var _busy: bool = false


func _init(host: Control, field: LineEdit, line: Label, tab_container: TabContainer) -> void:
	panel = host
	deck_edit = field
	status = line
	tabs = tab_container


## Sends one request and awaits its reply ([method SorteioBridge.request]'s shape); starts
## (or restarts, after a failure) the bridge first. One request at a time, answers in order.
func request(method: String, params: Dictionary) -> Dictionary:
	while _busy:
		await panel.get_tree().process_frame
	_busy = true
	if bridge == null or bridge.has_failed():
		if bridge != null:
			bridge.close()
		set_status(SorteioI18n.t("a iniciar o Python…"))
		bridge = EditorPython.start_bridge(panel)
	while not bridge.is_ready() and not bridge.has_failed():
		bridge.poll()
		await panel.get_tree().process_frame
	var reply: Dictionary
	if bridge.has_failed():
		reply = SorteioBridge.error_reply("bridge_down", bridge.failure())
	else:
		@warning_ignore("redundant_await")  # the base's request is plain; bridges' are coroutines
		reply = await bridge.request(method, params)
	_busy = false
	return reply


## True while a request runs.
func is_busy() -> bool:
	return _busy


## Takes [param reply] of [param action]: true when it is ok (with [param finish], kept in
## [member results] and [signal action_finished] emitted); else the error is shown, kept in
## [member last_error], and the action ends as failed.
func answer(action: String, reply: Dictionary, finish: bool = true) -> bool:
	if reply.get("ok", false):
		if finish:
			results[action] = reply["result"]
			action_finished.emit(action, true)
		return true
	var error: Dictionary = reply.get("error", {})
	last_error = project_paths(str(error.get("message", "?")))
	var said := last_error
	var lines := last_error.split("\n", false)
	if str(error.get("code", "")) == "deck_error" and lines.size() > 1:
		# An invalid deck (one problem a line): how many, the first, and where to see them all.
		said = (
			SorteioI18n.t(
				"o baralho tem %d problema(s); o primeiro: %s (a aba Problemas lista todos)"
			)
			% [lines.size(), lines[0]]
		)
	set_status(SorteioI18n.t("erro (%s): %s") % [error.get("code", "?"), said], ERROR_COLOR)
	action_finished.emit(action, false)
	return false


## [param text] with the project folder's absolute paths written as [code]res://[/code] paths,
## the ones the designer knows (Python is given absolute paths and names them in messages).
static func project_paths(text: String) -> String:
	var root: String = ProjectSettings.globalize_path("res://")
	if not root.ends_with("/"):
		root += "/"
	return text.replace(root, "res://")


## Shows [param text] on the status line after the deck and the bridge in use, in
## [param colour] (transparent: the theme's).
func set_status(text: String, colour: Color = Color(0, 0, 0, 0)) -> void:
	message = text
	var where := "%s · %s" % [_deck_label(), EditorPython.describe(bridge)]
	status.text = where + (" — " + text if text != "" else "")
	if colour.a > 0:
		status.add_theme_color_override("font_color", colour)
	else:
		status.remove_theme_color_override("font_color")


## The deck field as typed ("" means the project's deck, [code]sorteio/deck[/code]).
func deck() -> String:
	var typed := deck_edit.text.strip_edges()
	return typed if typed != "" else EditorPython.project_deck()


## The deck as Python reads it (an absolute path), or null for the built-in deck.
func deck_for_python() -> Variant:
	var path := deck()
	if path == "":
		return null
	return globalize(path)


## [param path] made absolute when it is res:// or user://.
static func globalize(path: String) -> String:
	if path.begins_with("res://") or path.begins_with("user://"):
		return ProjectSettings.globalize_path(path)
	return path


## Closes the bridge (the panel leaves the editor).
func close() -> void:
	if bridge != null:
		bridge.close()
		bridge = null


func _deck_label() -> String:
	var path := deck()
	if path == "":
		return SorteioI18n.t("baralho embutido 'padrao' (o projeto não define sorteio/deck)")
	return SorteioI18n.t("baralho %s") % path
