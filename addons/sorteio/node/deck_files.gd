extends RefCounted
## Where Python reads a [SorteioNode]'s deck from: a res:// path, a built-in deck name, a
## [SorteioDeck] resource or a save's deck, turned into the request's deck params: a path Python
## can open, or the deck's text itself when the deck lives inside an exported pack or a resource
## (issue 14: nothing left on the player's disk, even by a game killed mid-request). Only a text
## too big for the bridge's request (the socket's 1 MiB frame) goes as a user:// copy, removed
## once Python read it.

const SocketBridge := preload("res://addons/sorteio/bridges/socket_bridge.gd")
## A deck copy is user://COPY_PREFIX<game pid>_<file name>.
const COPY_PREFIX: String = "sorteio_deck_"
## Bytes of a request left for all but the deck's text (a save's state is a few KiB).
const ROOM_FOR_THE_REST: int = 65536

## Called with (message, code) when a deck cannot be handed to Python: the node's report.
var report: Callable
## Bytes a deck's text may take in one request (-1: no limit, the in-process bridge); the node
## sets it with [method fit] for each bridge it uses.
var text_room: int = -1
# The bridge [method fit] was last given (a WeakRef): whether it takes a deck's text.
var _bridge: WeakRef = null
var _old_server_said: bool = false
var _temporary_files: PackedStringArray = []
# Each path handed to Python -> the deck as the game gave it, for Python's messages.
var _given_names: Dictionary = {}


func _init(reporter: Callable) -> void:
	report = reporter


## Sizes the decks sent as text to what [param bridge] carries in one request.
func fit(bridge: SorteioBridge) -> void:
	var most: int = bridge.max_request_bytes()
	text_room = most - ROOM_FOR_THE_REST if most >= 0 else -1
	_bridge = weakref(bridge)


## [the deck as the game names it, the request's deck params, the [SorteioDeck] when it is one
## made in code (no resource_path: the node keeps it for [method for_load]) else null] for
## [param deck] (a path String or a [SorteioDeck]; "" falls back to [param resource], then
## [param path], then the project setting [code]sorteio/deck[/code]), or [] after reporting the
## problem. The params are [method for_python]'s.
func source(deck: Variant, resource: SorteioDeck, path: String) -> Array:
	var chosen: SorteioDeck = null
	if deck is SorteioDeck:
		chosen = deck
	elif deck is String and deck == "" and resource != null:
		chosen = resource
	elif not deck is String:
		report.call(
			(
				SorteioI18n.t("deck deve ser um caminho (String) ou um SorteioDeck, não %s")
				% type_name(deck)
			),
			SorteioNode.CODE_BAD_REQUEST
		)
		return []
	if chosen != null:
		var in_code: SorteioDeck = chosen if chosen.resource_path == "" else null
		return [chosen.resource_path, _resource_for_python(chosen), in_code]
	if deck == "":
		deck = (
			path if path != "" else str(ProjectSettings.get_setting(SorteioNode.SETTING_DECK, ""))
		)
	var given: String = resolved(deck)
	var params: Variant = for_python(given)
	if params == null:
		return []
	return [given, params, null]


## The deck a save loads into, as [method source] gives it plus a note for a failure
## ([code][name, params, the SorteioDeck made in code or null, note][/code], or [] after
## reporting): [param deck] when given (a path String or a [SorteioDeck]); else the save's own
## deck [param saved]; a save whose deck is "" (the default deck, or a SorteioDeck made in code,
## which has no path to save) loads into [param in_code] (the deck made in code of the node's
## last match), else into [param resource] when it is made in code too, else into the default
## deck, as before: then the note says how to pass a deck made in code ([method in_code_hint]).
func for_load(saved: String, deck: Variant, in_code: SorteioDeck, resource: SorteioDeck) -> Array:
	var note: String = ""
	if typeof(deck) == TYPE_NIL:
		deck = renamed_for_godot4(resolved(saved))  # a Godot 3 save after the guide's rename
		if saved == "" and in_code != null:
			deck = in_code
		elif saved == "" and resource != null and resource.resource_path == "":
			deck = resource
		elif saved == "":
			note = in_code_hint()
	if not deck is String:
		var picked: Array = source(deck, null, "")  # a SorteioDeck, or a wrong type it reports
		return [] if picked.is_empty() else picked + [note]
	var given: String = resolved(deck)
	var params: Variant = for_python(given)
	return [] if params == null else [given, params, null, note]


## Said after a save whose deck is "" failed to load into the default deck: how to load it into
## a deck made in code.
static func in_code_hint() -> String:
	return SorteioI18n.t(
		(
			" (este save não nomeia um arquivo de baralho: se a partida usou um SorteioDeck "
			+ "feito no código, passe-o: load_state(save, deck))"
		)
	)


## [param path] as Godot resolves it: a relative file path ("decks/meu.json") is read from
## res:// (it only worked in the editor's working folder before, and broke once exported).
## Built-in deck names ("padrao") have no "/" and no ".json"; they, absolute, res:// and user://
## paths are kept.
static func resolved(path: String) -> String:
	if path == "" or path.begins_with("res://") or path.begins_with("user://"):
		return path
	if path.is_absolute_path() or (not "/" in path and path.get_extension() != "json"):
		return path
	return "res://" + path.trim_prefix("./")


## A save's deck [param path] as this project has it: a Godot 3 save names its deck
## [code]res://decks/x.json[/code], and "Moving from Godot 3" has the file renamed to
## [code]x.sorteio.json[/code] for the Godot 4 importer; when the old file is gone and the renamed
## one is there, the renamed one (a new save then names it). Any other path is kept.
static func renamed_for_godot4(path: String) -> String:
	if not path.begins_with("res://") or path.get_extension() != "json":
		return path
	if path.ends_with(".sorteio.json") or FileAccess.file_exists(path):
		return path
	var renamed: String = path.get_basename() + ".sorteio.json"
	# In an export the renamed deck may be there only as its imported SorteioDeck.
	if FileAccess.file_exists(renamed) or ResourceLoader.exists(renamed):
		return renamed
	return path


## The deck params of [code]new_match[/code] / [code]load[/code] for [param path]:
## [code]{"deck": absolute path, built-in name or null (the default deck, for "")}[/code], or
## [code]{"deck": path, "deck_text": its JSON}[/code] for a deck Python cannot open (inside the
## pack); null after reporting a res:// deck that is not there.
func for_python(path: String) -> Variant:
	if path == "":
		return {"deck": null}
	if not (path.begins_with("res://") or path.begins_with("user://")):
		return {"deck": path}  # absolute path or a built-in deck name ("padrao", "curto")
	if path.begins_with("user://") or _on_disk(path):  # _on_disk: res:// is a folder (the editor)
		return {"deck": _named(ProjectSettings.globalize_path(path), path)}
	if FileAccess.file_exists(path):
		# Exported: res:// lives inside the pack, which Python cannot open; hand it the text.
		return _carried(FileAccess.get_file_as_string(path), path)
	if ResourceLoader.exists(path):
		# Not exported as a plain file: the imported SorteioDeck carries the text in the pack.
		var imported: SorteioDeck = load(path) as SorteioDeck
		if imported != null:
			return _carried(imported.json_text, path)
	report.call(
		(
			(SorteioI18n.t(
				(
					"nenhum arquivo de baralho em %s (deck_path, "
					+ "start_match ou o baralho do save); um caminho relativo "
					+ "é lido de res://"
				)
			))
			% path
		),
		SorteioNode.CODE_DECK_ERROR
	)
	return null


## [param message] (Python's) naming each deck file handed to Python as the game gave it
## ("res://decks/meu.json"): a user:// copy is gone by then, and an OS path is not what the
## programmer wrote. Python spells a path its OS's way ("\\" on Windows). A deck sent as its
## text is named as given already.
func named_as_given(message: String) -> String:
	for path: String in _given_names:
		var given: String = _given_names[path]
		message = message.replace(path, given).replace(path.replace("/", "\\"), given)
	return message


## Removes the user:// copies made for Python (it has read them once a request returned): the
## node calls it as soon as the request that reads one is answered.
func remove_temporary_files() -> void:
	for path: String in _temporary_files:
		if FileAccess.file_exists(path):
			DirAccess.remove_absolute(ProjectSettings.globalize_path(path))
	_temporary_files.clear()


## How a message names what [param value] is (a deck or a save that is not one).
static func type_name(value: Variant) -> String:
	match typeof(value):
		TYPE_NIL:
			return SorteioI18n.t("null (um arquivo de save vazio ou corrompido?)")
		TYPE_STRING:
			return SorteioI18n.t("texto")
		TYPE_ARRAY:
			return SorteioI18n.t("um Array")
	return SorteioI18n.t("um valor do tipo %s") % type_string(typeof(value))


static func _on_disk(path: String) -> bool:
	# True when the res:// file is a file Python can open: res:// maps to a folder (the editor,
	# a project run from its folder), not to a pack (an export, --main-pack, where the
	# "globalized" path is relative or names nothing).
	var absolute: String = ProjectSettings.globalize_path(path)
	return absolute.is_absolute_path() and FileAccess.file_exists(absolute)


func _resource_for_python(resource: SorteioDeck) -> Dictionary:
	# Its source file while it is on disk (the editor, a run from the project folder), else the
	# text the resource carries. Messages name the resource as the game has it: its path, its
	# source file's, or for one made in code (no path) what it is, never a temporary file.
	var path: String = (
		resource.source_path if resource.source_path != "" else resource.resource_path
	)
	if path.begins_with("res://") and path.get_extension() == "json":
		if _on_disk(path):
			# On disk, not inside a pack.
			var given: String = resource.resource_path if resource.resource_path != "" else path
			return {"deck": _named(ProjectSettings.globalize_path(path), given)}
	var name: String = resource.resource_path if resource.resource_path != "" else path
	if name == "":
		name = made_in_code_name(resource)
	return _carried(resource.json_text, name)


## How messages name a [SorteioDeck] made in code (no resource_path, no source file).
static func made_in_code_name(resource: SorteioDeck) -> String:
	if resource.deck_name != "":
		return SorteioI18n.t("o SorteioDeck '%s' feito no código") % resource.deck_name
	return SorteioI18n.t("um SorteioDeck feito no código")


func _carried(text: String, name: String) -> Dictionary:
	# The deck params for a deck Python cannot open, named [param name] as the game gave it: its
	# text, which leaves nothing on disk; a copy only when the text would not fit the request.
	# An older server ignores deck_text: it gets a copy it can read (_takes_text says so once).
	var fits: bool = text_room < 0 or JSON.stringify(text).to_utf8_buffer().size() <= text_room
	if fits and _takes_text():
		return {"deck": name, "deck_text": text}
	var file_name: String = name.get_file() if name.get_extension() == "json" else "deck.json"
	return {"deck": _named(_copy(text, file_name), name)}


func _named(python_path: String, given: String) -> String:
	# [param python_path], remembered as [param given] for [method named_as_given].
	if given != "":
		_given_names[python_path] = given
	return python_path


func _copy(text: String, file_name: String) -> String:
	# Absolute path of a user:// copy holding [param text] (a deck too big to travel as text),
	# removed once Python read it; if the game is killed before that, its socket server removes
	# it (--game-files: the node starts the bridge first), and the next start removes those left
	# anyway (a joined server removes none: issue 14).
	SocketBridge.clear_stale_port_files(OS.get_user_data_dir(), COPY_PREFIX)
	var copy: String = "user://%s%d_%s" % [COPY_PREFIX, OS.get_process_id(), file_name]
	var target: FileAccess = FileAccess.open(copy, FileAccess.WRITE)
	if target != null:
		target.store_string(text)
		target.close()
		_temporary_files.append(copy)
	return ProjectSettings.globalize_path(copy)


func _takes_text() -> bool:
	# False when the bridge's server predates deck_text (docs/protocol.md "Decks sent as text"):
	# it would ignore the text and look for a file named like the deck. Said once per node (with
	# its print_warnings on).
	var bridge: SorteioBridge = _bridge.get_ref() as SorteioBridge if _bridge != null else null
	if bridge == null or bridge.takes_deck_text():
		return true
	var node: Object = report.get_object()  # the node: its print_warnings, as for deck_updated
	if not _old_server_said and (node == null or node.get("print_warnings") != false):
		_old_server_said = true
		push_warning("sorteio: " + old_server_note())
	return false


## What the node says, once, when its server is older than the decks sent as text.
static func old_server_note() -> String:
	return SorteioI18n.t(
		(
			"o servidor do sorteio é anterior aos baralhos enviados como texto (deck_text): "
			+ "cada baralho que ele não lê do disco vai como uma cópia em user://, apagada "
			+ "depois da leitura; atualize o sorteio desse Python (pip install -U sorteio) "
			+ "para não gravar cópias"
		)
	)
