extends Reference
# Connects signals and says which one failed: connect() returns an Error that the demo must not
# drop unread (an unused return is a GDScript warning, and the demo has none).


static func connect_all(
	source: Object, target: Object, methods: Dictionary, binds := [], flags := 0
) -> void:
	# Connects each signal of `source` named in `methods` to target.<method>; a failure is
	# pushed as an error naming the signal and the method.
	for signal_name in methods:
		var error := source.connect(signal_name, target, methods[signal_name], binds, flags)
		if error != OK:
			var method: String = methods[signal_name]
			push_error("demo: cannot connect %s to %s (error %d)" % [signal_name, method, error])
