package engine

import (
	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	pb "cardroom.dev/proto/gen/cardroom/sabaisabai/v1"
	"cardroom.dev/services/kit/engine"
)

// score reveals every row, gives the victory points and deals the next round or ends the game.
func (s *State) score(evs *[]engine.Event) {
	ended := &pb.RoundEnded{Round: uint32(s.round), Results: make([]*pb.SeatRound, 0, s.n)}
	points := make([]int, s.n)
	ass := -1
	// Every seat's result, and every seat's cards, in one allocation each.
	results := make([]pb.SeatRound, s.n)
	total := 0
	for _, row := range s.rows {
		total += len(row)
	}
	all := make([]uint32, 0, total)
	for seat := range s.n {
		r := &results[seat]
		r.Seat = uint32(seat)
		jokers, cards := 0, 0
		start := len(all)
		for _, id := range s.rows[seat] {
			if id == noCard {
				continue
			}
			n := number(id)
			cards++
			if n == Joker {
				jokers++
			}
			if id == assID {
				ass = int(seat)
				r.AssJoker = true
			}
			points[seat] += Points(n)
			all = append(all, uint32(n))
		}
		if cards > 0 {
			r.Cards = all[start:len(all):len(all)]
		}
		r.CardPoints = int32(points[seat])
		s.ended[seat] = int16(points[seat])
		if r.AssJoker {
			s.ended[seat] += assCost
		}
		if cards == 4 && jokers == 4 {
			s.hall = int8(seat)
		}
		ended.Results = append(ended.Results, r)
	}
	best := 1 << 30
	for seat := range int(s.n) {
		if seat != ass && points[seat] < best {
			best = points[seat]
		}
	}
	for seat, r := range ended.Results {
		switch {
		case seat == ass:
			r.VictoryPointChange = -1
		case points[seat] == best:
			r.VictoryPointChange = 1
		}
		s.vp[seat] += r.VictoryPointChange
		r.VictoryPoints = s.vp[seat]
	}
	if s.hall >= 0 {
		h := uint32(s.hall)
		ended.HallOfFame = &h
	}
	emit(evs, engine.Public, &pb.Event{Kind: &pb.Event_RoundEnded{RoundEnded: ended}})
	if s.hall >= 0 || s.final() {
		s.ph = phaseOver
		s.noseOpen = false
		g := &pb.GameEnded{}
		for _, w := range s.winners() {
			g.Winners = append(g.Winners, uint32(w))
		}
		g.HallOfFame = ended.HallOfFame
		emit(evs, engine.Public, &pb.Event{Kind: &pb.Event_GameEnded{GameEnded: g}})
		return
	}
	s.deal(evs)
}

func (s *State) winners() []int {
	if s.hall >= 0 {
		return []int{int(s.hall)}
	}
	best := s.vp[0]
	for _, v := range s.vp {
		best = max(best, v)
	}
	var w []int
	for seat, v := range s.vp {
		if v == best {
			w = append(w, seat)
		}
	}
	return w
}

func (s *State) outcome() *gamev1.Outcome {
	win := s.winners()
	o := &gamev1.Outcome{Results: make([]*gamev1.SeatResult, 0, s.n)}
	rs := make([]gamev1.SeatResult, s.n) // one allocation for every seat's result
	for seat := range int(s.n) {
		rank := uint32(1)
		for other := range int(s.n) {
			if better(s, other, seat) {
				rank++
			}
		}
		r := &rs[seat]
		r.Seat, r.Score, r.Rank, r.Winner = uint32(seat), int64(s.vp[seat]), rank, contains(win, seat)
		o.Results = append(o.Results, r)
	}
	o.Summary = summary(s, win)
	return o
}

func better(s *State, a, b int) bool {
	if s.hall >= 0 {
		if a == int(s.hall) {
			return b != a
		}
		if b == int(s.hall) {
			return false
		}
	}
	return s.vp[a] > s.vp[b]
}

func contains(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
