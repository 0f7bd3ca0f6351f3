module cardroom.dev/gateway

go 1.26.7

require (
	cardroom.dev/services/kit v0.0.0
	github.com/redis/go-redis/v9 v9.23.0
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
)

replace (
	cardroom.dev/proto => ../proto
	cardroom.dev/services/kit => ../services/kit
)
