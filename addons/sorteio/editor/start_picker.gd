@tool
extends HBoxContainer
## Where the Sorteio panel's Prévia and Simulação start from (editor only): the match start, a
## saved match (Prévia only), a designer's situation file, or the shipped sample of GDD 06 §4
## ("Ano 3, Dignidade 8, Latifundiários Furiosos, Caixa 25": Python's [code]secao4[/code];
## docs/protocol.md [code]preview[/code] / [code]simulate_start[/code] [code]situation[/code]).
## Python reads and checks the file; a bad one's problems are shown one row each.

const Ui := preload("res://addons/sorteio/editor/panel_ui.gd")
const Link := preload("res://addons/sorteio/editor/panel_link.gd")
## The starts: [id, label]; [code]state[/code] only where a saved match can be continued.
const STARTS: Array[Array] = [
	["start", "o início da partida"],  # i18n
	["state", "uma partida salva"],  # i18n
	["situation", "um arquivo de situação"],  # i18n
	["secao4", "o exemplo do §4 (Ano 3, Dignidade 8…)"],  # i18n
]

var _menu: OptionButton
var _path: LineEdit
var _browse: Button
var _ids: Array[String] = []
var _dialog: EditorFileDialog


## [param with_state]: offer "a saved match" too.
func _init(link: Link, with_state: bool) -> void:
	name = SorteioI18n.t("início")
	add_child(Ui.label(SorteioI18n.t("Começar de:")))
	_menu = OptionButton.new()
	for entry: Array in STARTS:
		if entry[0] != "state" or with_state:
			_ids.append(entry[0])
			_menu.add_item(SorteioI18n.t(entry[1]))
	_menu.item_selected.connect(func(_i: int) -> void: _update())
	add_child(_menu)
	_path = LineEdit.new()
	_path.size_flags_horizontal = SIZE_EXPAND_FILL
	add_child(_path)
	_dialog = Ui.file_dialog(
		link.panel,
		["*.json ; " + SorteioI18n.t("Partida salva ou situação")],
		EditorFileDialog.FILE_MODE_OPEN_FILE,
		func(path: String) -> void: _path.text = path
	)
	_dialog.access = EditorFileDialog.ACCESS_FILESYSTEM
	_browse = Ui.button("…", func() -> void: _dialog.popup_file_dialog())
	add_child(_browse)
	_update()


## Chooses the start [param what] (start, state, situation, secao4) with [param path] for a
## saved match or a situation file.
func choose(what: String, path: String = "") -> void:
	var index := _ids.find(what)
	if index >= 0:
		_menu.select(index)
	if path != "":
		_path.text = path
	_update()


## The chosen start's id (start, state, situation, secao4).
func kind() -> String:
	return _ids[_menu.selected]


## The request's parameters for the chosen start: {} (the match start), {state: path} or
## {situation: path or "secao4"}.
func params() -> Dictionary:
	var path := Link.globalize(_path.text.strip_edges())
	match kind():
		"state":
			return {"state": path} if path != "" else {}
		"situation":
			return {"situation": path}
		"secao4":
			return {"situation": "secao4"}
	return {}


## Where the run starts, in words for the status line.
func describe() -> String:
	match kind():
		"state":
			return SorteioI18n.t("da partida salva %s") % _path.text.strip_edges()
		"situation":
			return SorteioI18n.t("da situação %s") % _path.text.strip_edges()
		"secao4":
			return SorteioI18n.t("do exemplo do §4 (secao4)")
	return SorteioI18n.t("do início da partida")


## Shows a bad situation file's problems in [param shown], one row each (file, field, what is
## wrong: Python's message has a line per problem, [code]file: field: message[/code]); false
## when [param reply] is not about the situation file (nothing shown).
func show_problems(shown: Tree, reply: Dictionary) -> bool:
	var error: Dictionary = reply.get("error", {})
	if kind() != "situation" or error.get("code", "") != "rule_error":
		return false
	var root := Ui.reset(
		shown,
		[
			SorteioI18n.t("arquivo de situação"),
			SorteioI18n.t("campo"),
			SorteioI18n.t("o que está errado")
		]
	)
	for line: String in str(error.get("message", "")).split("\n", false):
		var parts := line.split(": ", true, 2)
		while parts.size() < 3:
			parts.insert(1, "")
		Ui.line(shown, root, [parts[0], parts[1], parts[2]], true)
	return true


func _update() -> void:
	var needs_path := kind() in ["state", "situation"]
	_path.editable = needs_path
	_browse.disabled = not needs_path
	_path.placeholder_text = (
		SorteioI18n.t("caminho do arquivo (.json)")
		if needs_path
		else SorteioI18n.t("(nenhum arquivo)")
	)
