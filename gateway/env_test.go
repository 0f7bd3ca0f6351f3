package gateway_test

import (
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// The harness (Env, Client, Watcher) is package gatewaytest, shared with the end-to-end tests of the
// four games (cmd/cardroom); the tests dot-import it. These are the test game's own helpers.

func action(a string) *anypb.Any {
	m, _ := anypb.New(wrapperspb.String(a))
	return m
}

func rounds(n uint32) *anypb.Any {
	m, _ := anypb.New(wrapperspb.UInt32(n))
	return m
}

func first(a []*anypb.Any) *anypb.Any { return a[0] }
