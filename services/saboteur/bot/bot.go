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
			if v.SeatInfo[a.Target].Nuggets > v.SeatInfo[best.Target].Nuggets {
				best = a
			}
		}
		return best
	}
	me := int(v.Viewer)
	p := &lazyPlanner{v: v}
	if v.Role == pb.Role_ROLE_SABOTEUR {
		return saboteur(v, me, p, legal, r)
	}
	return digger(v, me, p, legal, r)
}

// knownSaboteur reports whether the viewer knows seat to be a saboteur.
func knownSaboteur(v *pb.View, seat int) bool {
	return v.SeatInfo[seat].Role == pb.Role_ROLE_SABOTEUR
}

func friend(v *pb.View, me, seat int) bool {
	if seat == me {
		return true
	}
	role := v.SeatInfo[seat].Role
	return role != pb.Role_ROLE_UNSPECIFIED && role != pb.Role_ROLE_SABOTEUR
}

func digger(v *pb.View, me int, p *lazyPlanner, legal []engine.Action, r *rand.Rand) engine.Action {
	var (
		best      engine.Action
		bestScore = -1 << 30
	)
	consider := func(a engine.Action, score int) {
		if score > bestScore {
			best, bestScore = a, score
		}
	}
	geologist := v.Role == pb.Role_ROLE_GEOLOGIST
	goldKnown := goldSeen(v)
	for _, a := range legal {
		switch a.Kind {
		case engine.KindPlace:
			front := p.front()
			after := p.get().After(a.Card, a.Rot, int(a.X), int(a.Y))
			if after < front {
				consider(a, 1000+100*(front-after)-after)
			} else if geologist && engine.HasCrystal(a.Card) && after < 1<<20 {
				consider(a, 600)
			}
		case engine.KindPlay:
			t := int(a.Target)
			switch c := a.Card; {
			case isRepair(c) || c == card(pb.Card_CARD_FREE_AT_LAST):
				if t == me {
					consider(a, 2000)
				} else if friend(v, me, t) {
					consider(a, 500)
				} else if !knownSaboteur(v, t) {
					consider(a, 200)
				}
			case c == card(pb.Card_CARD_MAP):
				if !goldKnown {
					consider(a, 700-abs(int(a.Y)))
				}
			case c == card(pb.Card_CARD_THEFT):
				consider(a, 400)
			case isBreak(c) || c == card(pb.Card_CARD_TRAPPED):
				if knownSaboteur(v, t) {
					consider(a, 800)
				}
			case c == card(pb.Card_CARD_INSPECTION):
				consider(a, 150+r.IntN(10))
			case c == card(pb.Card_CARD_HANDS_OFF):
				if !friend(v, me, t) {
					consider(a, 300)
				}
			}
		case engine.KindRemove:
			if a.InFront != card(pb.Card_CARD_THEFT) {
				consider(a, 900)
			}
		case engine.KindDiscard:
			consider(a, discardValue(a, false)-100*int(a.N-1))
		}
	}
	if bestScore == -1<<30 {
		return legal[r.IntN(len(legal))]
	}
	return best
}

func saboteur(v *pb.View, me int, p *lazyPlanner, legal []engine.Action, r *rand.Rand) engine.Action {
	var (
		best      engine.Action
		bestScore = -1 << 30
	)
	consider := func(a engine.Action, score int) {
		if score > bestScore {
			best, bestScore = a, score
		}
	}
	for _, a := range legal {
		switch a.Kind {
		case engine.KindPlace:
			_, dead := engine.Shape(a.Card, a.Rot)
			front := p.front()
			after := p.get().After(a.Card, a.Rot, int(a.X), int(a.Y))
			d := p.get().Dist(int(a.X), int(a.Y))
			switch {
			case dead && d <= front+1:
				consider(a, 900-10*d)
			case after > front+1 && d <= front+1:
				consider(a, 700-10*d)
			}
		case engine.KindPlay:
			t := int(a.Target)
			switch c := a.Card; {
			case (isRepair(c) || c == card(pb.Card_CARD_FREE_AT_LAST)) && t == me:
				consider(a, 950)
			case isBreak(c) || c == card(pb.Card_CARD_TRAPPED):
				if t != me && !knownSaboteur(v, t) {
					consider(a, 800+r.IntN(20))
				}
			case c == card(pb.Card_CARD_ROCKFALL):
				front := p.front()
				d := p.get().Dist(int(a.X), int(a.Y))
				if d <= front+1 {
					consider(a, 850-10*d)
				}
			case c == card(pb.Card_CARD_THEFT):
				consider(a, 400)
			}
		case engine.KindDiscard:
			consider(a, discardValue(a, true)-100*int(a.N-1))
		}
	}
	if bestScore == -1<<30 {
		return legal[r.IntN(len(legal))]
	}
	return best
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

// lazyPlanner builds the planner only when a decision needs the board.
type lazyPlanner struct {
	v      *pb.View
	p      *engine.Planner
	frontD int
}

func (l *lazyPlanner) get() *engine.Planner {
	if l.p == nil {
		l.p = engine.NewPlanner(l.v)
		l.frontD = l.p.Front()
	}
	return l.p
}

func (l *lazyPlanner) front() int {
	l.get()
	return l.frontD
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
