@tool
extends Control
## A horizontal bar chart of figures Python computed (the panel never computes them): one
## labelled bar per entry, its value written beside it, lengths scaled to the largest value
## for drawing only; negative values draw left of a zero line. Editor only.

const BAR_COLOR := Color(0.35, 0.5, 0.84)
const ROW_HEIGHT := 20.0
const LABEL_WIDTH := 190.0

## The chart's title, drawn on top.
var title: String = ""
## printf format of a value label.
var value_format: String = "%.2f"
var _labels: Array[String] = []
var _values: Array[float] = []


## Replaces the data: [param labels] and [param values] of the same size.
func set_data(new_title: String, labels: Array, values: Array) -> void:
	title = new_title
	_labels.assign(labels.map(func(v: Variant) -> String: return str(v)))
	_values.assign(values.map(func(v: Variant) -> float: return float(v)))
	custom_minimum_size = Vector2(280, ROW_HEIGHT * (_values.size() + 1.5))
	queue_redraw()


## Number of bars drawn.
func bar_count() -> int:
	return _values.size()


## The bars' labels, top to bottom.
func bar_labels() -> Array[String]:
	return _labels.duplicate()


## The chart as an image (what the editor's viewport shows of it), for a PNG export; null
## when nothing is drawn (a headless editor has no viewport texture).
func to_image() -> Image:
	if DisplayServer.get_name() == "headless" or not is_visible_in_tree():
		return null
	var image := get_viewport().get_texture().get_image()
	if image == null:
		return null
	var rect := Rect2i(get_global_rect()).intersection(Rect2i(Vector2i.ZERO, image.get_size()))
	if rect.has_area():
		return image.get_region(rect)
	return null


func _draw() -> void:
	var font := get_theme_font("font", "Label")
	var size_px := get_theme_font_size("font_size", "Label")
	var text_color := get_theme_color("font_color", "Label")
	draw_string(
		font,
		Vector2(4, font.get_ascent(size_px) + 2),
		title,
		HORIZONTAL_ALIGNMENT_LEFT,
		size.x - 8,
		size_px,
		text_color
	)
	var highest := 0.0
	var lowest := 0.0
	for value in _values:
		highest = maxf(highest, value)
		lowest = minf(lowest, value)
	var span := highest - lowest
	if span <= 0.0:
		span = 1.0
	var width := maxf(size.x - LABEL_WIDTH - 70.0, 10.0)
	var zero := LABEL_WIDTH + width * (-lowest / span)
	for i in _values.size():
		var y := ROW_HEIGHT * (i + 1.2)
		var length := width * _values[i] / span
		var baseline := y + font.get_ascent(size_px)
		draw_string(
			font,
			Vector2(4, baseline),
			_labels[i],
			HORIZONTAL_ALIGNMENT_LEFT,
			LABEL_WIDTH - 8,
			size_px,
			text_color,
			TextServer.JUSTIFICATION_NONE
		)
		var left := minf(zero, zero + length)
		draw_rect(Rect2(left, y + 3, maxf(absf(length), 1.0), ROW_HEIGHT - 6), BAR_COLOR)
		draw_string(
			font,
			Vector2(maxf(zero, zero + length) + 4, baseline),
			value_format % _values[i],
			HORIZONTAL_ALIGNMENT_LEFT,
			-1,
			size_px,
			text_color
		)
