module cardroom.dev/services/stats

go 1.26.7

require (
	cardroom.dev/proto v0.0.0
	cardroom.dev/services/kit v0.0.0
)

replace (
	cardroom.dev/proto => ../../proto
	cardroom.dev/services/kit => ../kit
)
