@tool
extends RefCounted
## The panel's result tables as CSV (Exportar (CSV): problems, coverage, preview, sweep, per
## card), written for the spreadsheet of the run's language (issue 15). In a pt-BR run, what a
## Brazilian Excel opens with a double click as columns of numbers: UTF-8 with a BOM (without
## it Excel reads accents as Windows-1252), [code];[/code] between cells (Excel pt-BR's list
## separator: a [code],[/code] file opens as one column) and decimal commas in the cells that
## are numbers ([code]12,5%[/code], [code]+1,20[/code], an interval [code]+0,40 a +2,10[/code]),
## CRLF line ends: the same dialect as [code]sorteio sheet export[/code]'s CSV
## (python/sorteio/sheets/csvfile.py). In an English run: [code],[/code], decimal points, no
## BOM, LF. Text cells (ids, messages, field paths such as [code]cartas.3.modo[/code]) are
## never changed. Formatting only: no rule lives here.

## A cell that is one number (sign, decimals, percent) or an interval of two (the panel writes
## them "x a y", "x to y" or "x–y").
const NUMBER := "[+-]?\\d+(?:\\.\\d+)?%?"
const NUMERIC := "^" + NUMBER + "(?:\\s*–\\s*" + NUMBER + "| a " + NUMBER + "| to " + NUMBER + ")?$"


## The CSV text of [param titles] and [param rows] (arrays of cell texts) in the dialect of
## [param language] ([code]"pt_BR"[/code] or [code]"en"[/code]; see the script's doc).
static func text(titles: Array, rows: Array, language: String) -> String:
	var brazil := language == "pt_BR"
	var numeric := RegEx.create_from_string(NUMERIC)
	var lines: PackedStringArray = [_line(titles, brazil, null)]
	for cells: Array in rows:
		lines.append(_line(cells, brazil, numeric))
	var end := "\r\n" if brazil else "\n"
	return ("\ufeff" if brazil else "") + end.join(lines) + end


## Writes [method text] to [param path] (UTF-8); the file's open error, or OK.
static func write(path: String, titles: Array, rows: Array, language: String) -> Error:
	var file := FileAccess.open(path, FileAccess.WRITE)
	if file == null:
		return FileAccess.get_open_error()
	file.store_buffer(text(titles, rows, language).to_utf8_buffer())
	file.close()
	return OK


static func _line(cells: Array, brazil: bool, numeric: RegEx) -> String:
	var separator := ";" if brazil else ","
	var out := PackedStringArray()
	for value: Variant in cells:
		var cell := str(value)
		if brazil and numeric != null and numeric.search(cell.strip_edges()) != null:
			cell = cell.replace(".", ",")
		if (
			cell.contains(separator)
			or cell.contains('"')
			or cell.contains("\n")
			or cell.contains("\r")
		):
			cell = '"' + cell.replace('"', '""') + '"'
		out.append(cell)
	return separator.join(out)
