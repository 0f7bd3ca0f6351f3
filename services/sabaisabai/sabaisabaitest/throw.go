// Package sabaisabaitest holds what tests of sabai-sabai share, through the rules harness
// (services/sabaisabai) or through the gateway (cmd/cardroom).
package sabaisabaitest

import (
	pb "cardroom.dev/proto/gen/cardroom/sabaisabai/v1"
	"cardroom.dev/services/sabaisabai/engine"
	"google.golang.org/protobuf/types/known/anypb"
)

// MatchingThrow is, among the legal actions of seat me, a throw of one card of me's own that me
// knows matches the top of the discard pile in view v, or nil.
func MatchingThrow(legal []*anypb.Any, me uint32, v *pb.View) *anypb.Any {
	top := v.GetDiscardTop()
	if len(top) == 0 {
		return nil
	}
	class := func(c uint32) uint32 { return min(c, engine.Joker) }
	for _, a := range legal {
		m := &pb.Action{}
		if a.UnmarshalTo(m) != nil || m.GetThrow() == nil {
			continue
		}
		th := m.GetThrow()
		if th.GetOwner() == me && len(th.GetSlots()) == 1 && len(th.GetExpectCards()) == 1 && th.GetExpectCards()[0] != 0 &&
			class(th.GetExpectCards()[0]) == class(top[len(top)-1]) {
			return a
		}
	}
	return nil
}
