// Package bot holds Saboteur's computer players: a role-aware bot and a random one. They decide only
// from the seat's view and its legal actions.
package bot

import (
	"math/rand/v2"

	pb "cardroom.dev/proto/gen/cardroom/saboteur/v1"
	kit "cardroom.dev/services/kit/engine"
	"cardroom.dev/services/saboteur/engine"
	"google.golang.org/protobuf/proto"
)

// Random plays a uniformly random legal action.
type Random = kit.RandomBot[engine.Action]

// RoleAware plays its role: gold diggers (and the boss, profiteer and geologists) extend the
// reachable tunnel toward the goals, mend tools and look at goals with maps; saboteurs block the
// leading edge with dead ends, break others' tools and bring down the most advanced card. A gold
// digger's doors are always its own colour (the rules refuse the other), so its team's routes stay
// open to it.
type RoleAware struct{}

var _ kit.Bot[engine.Action] = RoleAware{}

func card(c pb.Card) uint8 { return uint8(c) }

// Choose implements kit.Bot.
func (RoleAware) Choose(view proto.Message, legal []engine.Action, r *rand.Rand) engine.Action {
	v, _ := view.(*pb.View)
	if v == nil {
		return legal[r.IntN(len(legal))]
	}
	in := seatInfo{me: int(v.Viewer), role: v.Role, goldKnown: goldSeen(v), v: v}
	for i, si := range v.SeatInfo {
		if i < engine.MaxSeats {
			in.known[i], in.nuggets[i] = si.Role, int(si.Nuggets)
		}
	}
	return in.choose(legal, r)
}

// seatInfo is what the role-aware bot reads of a seat's position: its view, or (in the search's
// playouts) the same facts read from a world without building the view.
type seatInfo struct {
	me        int
	role      pb.Role
	known     [engine.MaxSeats]pb.Role // the roles me knows (its own, those it inspected)
	nuggets   [engine.MaxSeats]int
	goldKnown bool
	v         *pb.View      // the view, or
	s         *engine.State // the world
	p         *engine.Planner
	frontD    int
}

// stateInfo is seat's seatInfo in world s.
func stateInfo(s *engine.State, seat int) seatInfo {
	in := seatInfo{me: seat, role: s.Knows(seat, seat), goldKnown: s.GoldKnown(seat), s: s}
	for i := range s.Seats() {
		in.known[i], in.nuggets[i] = s.Knows(seat, i), s.NuggetsOf(i)
	}
	return in
}

// planner builds the planner only when a decision needs the board.
func (in *seatInfo) planner() *engine.Planner {
	if in.p == nil {
		if in.v != nil {
			in.p = engine.NewPlanner(in.v)
		} else {
			in.p = in.s.PlannerFor(in.me)
		}
		in.frontD = in.p.Front()
	}
	return in.p
}

func (in *seatInfo) front() int {
	in.planner()
	return in.frontD
}

// noScore marks an action the bot does not consider.
const noScore = -1 << 30

// choose returns the legal action of highest score (the first of equals), or a random one when the
// bot considers none.
func (in *seatInfo) choose(legal []engine.Action, r *rand.Rand) engine.Action {
	switch legal[0].Kind {
	case engine.KindPick:
		best := legal[0]
		for _, a := range legal {
			if a.Target > best.Target {
				best = a
			}
		}
		return best
	case engine.KindSteal:
		best := legal[0]
		for _, a := range legal {
			if in.nuggets[a.Target] > in.nuggets[best.Target] {
				best = a
			}
		}
		return best
	}
	var best engine.Action
	bestScore := noScore
	for _, a := range legal {
		if sc := in.score(a, r); sc > bestScore {
			best, bestScore = a, sc
		}
	}
	if bestScore == noScore {
		return legal[r.IntN(len(legal))]
	}
	return best
}

// score is the bot's score of a play-phase action (noScore: not considered). r adds the bot's
// small random preferences; nil leaves them out.
func (in *seatInfo) score(a engine.Action, r *rand.Rand) int {
	if in.role == pb.Role_ROLE_SABOTEUR {
		return in.saboteur(a, r)
	}
	return in.digger(a, r)
}

func noise(r *rand.Rand, n int) int {
	if r == nil {
		return 0
	}
	return r.IntN(n)
}

// knownSaboteur reports whether the seat is known to be a saboteur.
func (in *seatInfo) knownSaboteur(seat int) bool {
	return in.known[seat] == pb.Role_ROLE_SABOTEUR
}

func (in *seatInfo) friend(seat int) bool {
	if seat == in.me {
		return true
	}
	role := in.known[seat]
	return role != pb.Role_ROLE_UNSPECIFIED && role != pb.Role_ROLE_SABOTEUR
}

func (in *seatInfo) digger(a engine.Action, r *rand.Rand) int {
	me := in.me
	switch a.Kind {
	case engine.KindPlace:
		front := in.front()
		after := in.planner().After(a.Card, a.Rot, int(a.X), int(a.Y))
		if after < front {
			return 1000 + 100*(front-after) - after
		} else if in.role == pb.Role_ROLE_GEOLOGIST && engine.HasCrystal(a.Card) && after < 1<<20 {
			return 600
		}
	case engine.KindPlay:
		t := int(a.Target)
		switch c := a.Card; {
		case isRepair(c) || c == card(pb.Card_CARD_FREE_AT_LAST):
			if t == me {
				return 2000
			} else if in.friend(t) {
				return 500
			} else if !in.knownSaboteur(t) {
				return 200
			}
		case c == card(pb.Card_CARD_MAP):
			if !in.goldKnown {
				return 700 - abs(int(a.Y))
			}
		case c == card(pb.Card_CARD_THEFT):
			return 400
		case isBreak(c) || c == card(pb.Card_CARD_TRAPPED):
			if in.knownSaboteur(t) {
				return 800
			}
		case c == card(pb.Card_CARD_INSPECTION):
			return 150 + noise(r, 10)
		case c == card(pb.Card_CARD_HANDS_OFF):
			if !in.friend(t) {
				return 300
			}
		}
	case engine.KindRemove:
		if a.InFront != card(pb.Card_CARD_THEFT) {
			return 900
		}
	case engine.KindDiscard:
		return discardValue(a, false) - 100*int(a.N-1)
	}
	return noScore
}

func (in *seatInfo) saboteur(a engine.Action, r *rand.Rand) int {
	me := in.me
	switch a.Kind {
	case engine.KindPlace:
		_, dead := engine.Shape(a.Card, a.Rot)
		front := in.front()
		after := in.planner().After(a.Card, a.Rot, int(a.X), int(a.Y))
		d := in.planner().Dist(int(a.X), int(a.Y))
		switch {
		case dead && d <= front+1:
			return 900 - 10*d
		case after > front+1 && d <= front+1:
			return 700 - 10*d
		}
	case engine.KindPlay:
		t := int(a.Target)
		switch c := a.Card; {
		case (isRepair(c) || c == card(pb.Card_CARD_FREE_AT_LAST)) && t == me:
			return 950
		case isBreak(c) || c == card(pb.Card_CARD_TRAPPED):
			if t != me && !in.knownSaboteur(t) {
				return 800 + noise(r, 20)
			}
		case c == card(pb.Card_CARD_ROCKFALL):
			front := in.front()
			d := in.planner().Dist(int(a.X), int(a.Y))
			if d <= front+1 {
				return 850 - 10*d
			}
		case c == card(pb.Card_CARD_THEFT):
			return 400
		}
	case engine.KindDiscard:
		return discardValue(a, true) - 100*int(a.N-1)
	}
	return noScore
}

// discardValue scores discarding a single card: diggers shed dead ends and tool-breakers, saboteurs
// shed the cards that would help the diggers most.
func discardValue(a engine.Action, saboteur bool) int {
	c := a.Cards[0]
	open, dead := engine.Shape(c, false)
	help := 0
	if engine.IsPath(c) && !dead {
		help = bits(open)
	}
	if saboteur {
		return 10 * help
	}
	switch {
	case dead:
		return 60
	case isBreak(c):
		return 40
	case engine.IsPath(c):
		return 10 - help
	}
	return 5
}

func bits(m uint8) int {
	n := 0
	for ; m != 0; m &= m - 1 {
		n++
	}
	return n
}

func isRepair(c uint8) bool {
	return c >= card(pb.Card_CARD_REPAIR_PICK) && c <= card(pb.Card_CARD_REPAIR_LANTERN_CART)
}

func isBreak(c uint8) bool {
	return c >= card(pb.Card_CARD_BREAK_PICK) && c <= card(pb.Card_CARD_BREAK_CART)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// goldSeen reports whether the viewer knows where the gold is.
func goldSeen(v *pb.View) bool {
	for _, bc := range v.Board {
		if bc.Card == pb.Card_CARD_GOAL_GOLD {
			return true
		}
	}
	return false
}
