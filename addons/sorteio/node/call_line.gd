extends RefCounted
## The line [SorteioNode]'s calls wait in: one call at a time, in the order they were made.
##
## A call takes a ticket ([method take], awaited) before it talks to the bridge and gives it
## back ([method leave]) once its caller has its result; the next ticket is served in a later
## step, so a match played from signal handlers never nests one call inside another's stack.

## A call finished: the next one in line may run.
signal passed

var _next: int = 0
var _serving: int = 0


## Awaits this call's turn and returns its ticket, for [method leave].
func take() -> int:
	var ticket: int = _next
	_next += 1
	while ticket != _serving:
		await passed
	return ticket


## Ends the turn of [param ticket]: the next call in line runs (deferred).
func leave(ticket: int) -> void:
	if ticket != _serving:
		return
	_serving += 1
	if _next > _serving:
		# Deferred: the next call runs after this one's caller got its result, and a match
		# played from signal handlers never nests one call inside another's stack.
		passed.emit.call_deferred()
