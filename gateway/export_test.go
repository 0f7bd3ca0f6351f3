package gateway

// WithFault returns o with a fault hook: after each step of a table's start ("matched": the
// matcher claimed the tickets; "recorded": the start is recorded with its seats; "created": the
// rules service created the table; "dealt": the lobby records it dealt) the replica asks it, and
// stops there, as if it died, when it answers true.
func WithFault(o Options, fault func(table, step string) bool) Options {
	o.fault = fault
	return o
}
