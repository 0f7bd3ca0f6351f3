module cardroom.dev/services/sapotagem

go 1.26.7

require (
	cardroom.dev/proto v0.0.0
	cardroom.dev/services/kit v0.0.0
	google.golang.org/protobuf v1.36.12
)

replace (
	cardroom.dev/proto => ../../proto
	cardroom.dev/services/kit => ../kit
)
