package stats

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	statsv1 "cardroom.dev/proto/gen/cardroom/stats/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// Aggregator turns events into deltas. It is a pure fold: the same events in the same order give
// the same aggregates however they are cut into batches, which is what makes a rebuild equal.
type Aggregator struct {
	Rating RatingParams
	// RecentLimit is how many recent games each player keeps.
	RecentLimit int
	// TableMemory is how long after the newest finish a done table is remembered, to recognise a
	// late republication of its events. The table store forgets finished tables after its retention
	// (24h by default), after which nothing of them can be published again.
	TableMemory time.Duration
	// Options resolves the games' option messages, which a table's config carries in an Any
	// (NewAggregator). The stats service knows no game of its own: its caller names them. Nil, or a
	// type it does not know: the table's options count as "(undecodable)=<type>".
	Options *protoregistry.Types
}

// DefaultAggregator is the aggregation every stats process uses, without the games' options.
var DefaultAggregator = Aggregator{Rating: DefaultRating, RecentLimit: 20, TableMemory: 25 * time.Hour}

// NewAggregator is DefaultAggregator decoding the option messages of the games whose prototypes
// are given (each game's engine.Info.Options; nil ones are skipped).
func NewAggregator(gameOptions ...proto.Message) Aggregator {
	types := new(protoregistry.Types)
	for _, o := range gameOptions {
		if o == nil {
			continue
		}
		mt := o.ProtoReflect().Type()
		if _, err := types.FindMessageByName(mt.Descriptor().FullName()); err == nil {
			continue // two games may share an options type (the test games do)
		}
		// The only failure is a name already registered, excluded above.
		_ = types.RegisterMessage(mt)
	}
	a := DefaultAggregator
	a.Options = types
	return a
}

// Ingest counter names.
const (
	CounterApplied    = "applied"
	CounterIgnored    = "ignored"
	CounterDuplicates = "duplicates"
	CounterRejected   = "rejected"
	rejectedPrefix    = "rejected:"
)

// keys lists the records evs read.
func (a Aggregator) keys(evs []*event) Keys {
	var k Keys
	seenT := map[string]bool{}
	seenP := map[PlayerKey]bool{}
	for _, e := range evs {
		if e.kind != kindCreated && e.kind != kindFinished {
			continue
		}
		id := e.env.GetTableId()
		if !seenT[id] {
			seenT[id] = true
			k.Tables = append(k.Tables, id)
		}
		if e.kind == kindFinished {
			for _, s := range e.finished.GetConfig().GetSeats() {
				p := PlayerKey{Player: s.GetPlayer().GetPlayerId(), Game: e.env.GetGame()}
				if p.Player != "" && !seenP[p] {
					seenP[p] = true
					k.Players = append(k.Players, p)
				}
			}
		}
	}
	return k
}

// fold computes the delta of evs (all after st.Position, in stream order) on st, which holds the
// records keys(evs) named. It changes st's records in place.
func (a Aggregator) fold(st *State, evs []*event, to uint64) *Delta {
	d := &Delta{
		From: st.Position, To: to, HighWater: st.HighWater, Ingest: map[string]int64{}, Games: map[string]*GameDelta{},
		Tables: map[string]*TableRecord{}, Players: map[PlayerKey]*statsv1.PlayerGameRecord{},
		RecentLimit: a.RecentLimit, Board: map[PlayerKey]float64{}, Live: map[PlayerKey]int64{},
	}
	for _, e := range evs {
		switch e.kind {
		case kindRejected:
			d.Ingest[CounterRejected]++
			d.Ingest[rejectedPrefix+e.reason]++
		case kindIgnored:
			d.Ingest[CounterIgnored]++
		case kindCreated:
			a.created(st, d, e)
		case kindFinished:
			a.finishedTable(st, d, e)
		}
	}
	if d.HighWater > st.HighWater && a.TableMemory > 0 {
		d.PruneBefore = d.HighWater - a.TableMemory.Milliseconds()
	}
	for k, v := range d.Ingest {
		if v == 0 {
			delete(d.Ingest, k)
		}
	}
	for k, v := range d.Live {
		if v == 0 {
			delete(d.Live, k)
		}
	}
	return d
}

func (d *Delta) game(g string) *GameDelta {
	gd := d.Games[g]
	if gd == nil {
		gd = newGameDelta()
		d.Games[g] = gd
	}
	return gd
}

func humans(cfg *gamev1.TableConfig) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range cfg.GetSeats() {
		p := s.GetPlayer()
		if p.GetKind() == gamev1.PlayerKind_PLAYER_KIND_HUMAN && p.GetPlayerId() != "" && !seen[p.GetPlayerId()] {
			seen[p.GetPlayerId()] = true
			out = append(out, p.GetPlayerId())
		}
	}
	return out
}

func (a Aggregator) created(st *State, d *Delta, e *event) {
	id, game := e.env.GetTableId(), e.env.GetGame()
	if st.Tables[id] != nil {
		d.Ingest[CounterDuplicates]++ // republished, or it finished first and this came late
		return
	}
	d.Ingest[CounterApplied]++
	rec := &TableRecord{Game: game, Humans: humans(e.created.GetConfig())}
	st.Tables[id], d.Tables[id] = rec, rec
	d.game(game).incr("tables_created", 1)
	d.Live[PlayerKey{Game: game}]++
	for _, h := range rec.Humans {
		d.Live[PlayerKey{Game: game, Player: h}]++
		d.Live[PlayerKey{Player: h}]++
	}
}

func (a Aggregator) finishedTable(st *State, d *Delta, e *event) {
	id, game := e.env.GetTableId(), e.env.GetGame()
	prev := st.Tables[id]
	if prev != nil && prev.Done {
		d.Ingest[CounterDuplicates]++
		return
	}
	d.Ingest[CounterApplied]++
	f := e.finished
	if prev != nil {
		d.Live[PlayerKey{Game: prev.Game}]--
		for _, h := range prev.Humans {
			d.Live[PlayerKey{Game: prev.Game, Player: h}]--
			d.Live[PlayerKey{Player: h}]--
		}
	}
	finMS := f.GetFinishedAt().AsTime().UnixMilli()
	rec := &TableRecord{Game: game, Done: true, Finished: finMS}
	st.Tables[id], d.Tables[id] = rec, rec
	d.HighWater = max(d.HighWater, finMS)

	gd := d.game(game)
	cfg, out := f.GetConfig(), f.GetOutcome()
	seats := cfg.GetSeats()
	n := len(seats)
	results := make([]*gamev1.SeatResult, n)
	for _, r := range out.GetResults() {
		results[r.GetSeat()] = r
	}
	if out.GetAborted() {
		gd.incr("aborted", 1)
	} else {
		gd.incr("finished", 1)
		gd.sample("actions", int64(f.GetActions()))
		gd.sample("duration", f.GetFinishedAt().AsTime().Sub(f.GetStartedAt().AsTime()).Milliseconds())
		gd.incr("players:"+strconv.Itoa(n), 1)
		for i, r := range results {
			seat := "seat:" + strconv.Itoa(n) + ":" + strconv.Itoa(i) + ":"
			gd.incr(seat+"games", 1)
			if r.GetWinner() {
				gd.incr(seat+"wins", 1)
			}
			gd.incr(seat+"ranks", int64(r.GetRank()))
			gd.sample("score", r.GetScore())
		}
		for _, o := range OptionUsage(cfg.GetOptions(), a.Options) {
			gd.incr("opt:"+o, 1)
		}
	}

	// Players: the first seat of each distinct player id counts.
	first := map[string]int{}
	dup := false
	for i, s := range seats {
		p := s.GetPlayer().GetPlayerId()
		if p == "" {
			continue
		}
		if _, ok := first[p]; ok {
			dup = true
			continue
		}
		first[p] = i
	}
	standIn := standInSeats(f, n)
	recs := make([]*statsv1.PlayerGameRecord, n)
	for i, s := range seats {
		p := s.GetPlayer()
		if p.GetPlayerId() == "" || first[p.GetPlayerId()] != i {
			continue
		}
		k := PlayerKey{Player: p.GetPlayerId(), Game: game}
		r := st.Players[k]
		if r == nil {
			r = &statsv1.PlayerGameRecord{Game: game, Rating: &statsv1.Rating{Mu: a.Rating.Mu, Sigma: a.Rating.Sigma, Display: Display(a.Rating.Mu, a.Rating.Sigma)}}
			st.Players[k] = r
		}
		d.Players[k] = r
		recs[i] = r
		r.DisplayName, r.Kind = p.GetDisplayName(), p.GetKind()
		r.LastTableId, r.LastFinishedAt = id, timestamppb.New(f.GetFinishedAt().AsTime())
		if out.GetAborted() {
			r.Aborted++
			continue
		}
		if standIn[i] {
			r.Abandoned++
			continue
		}
		res := results[i]
		r.Games++
		if res.GetWinner() {
			r.Wins++
		}
		r.ScoreSum += res.GetScore()
		r.RankSum += uint64(res.GetRank())
	}
	rated := !out.GetAborted() && !dup && n >= 2
	if rated {
		mu, sigma, rank := make([]float64, n), make([]float64, n), make([]uint32, n)
		for i := range n {
			mu[i], sigma[i], rank[i] = a.Rating.Mu, a.Rating.Sigma, results[i].GetRank()
			if recs[i] != nil {
				mu[i], sigma[i] = recs[i].GetRating().GetMu(), recs[i].GetRating().GetSigma()
			}
		}
		a.Rating.Rate(mu, sigma, rank)
		for i, r := range recs {
			if r == nil || standIn[i] {
				continue
			}
			r.Rating = &statsv1.Rating{Mu: mu[i], Sigma: sigma[i], Display: Display(mu[i], sigma[i]), RatedGames: r.GetRating().GetRatedGames() + 1}
			if r.GetKind() == gamev1.PlayerKind_PLAYER_KIND_HUMAN {
				d.Board[PlayerKey{Player: seats[i].GetPlayer().GetPlayerId(), Game: game}] = r.GetRating().GetDisplay()
			}
		}
	}
	for i, r := range recs {
		if r == nil {
			continue
		}
		rg := &statsv1.RecentGame{
			TableId: id, Game: game, FinishedAt: timestamppb.New(f.GetFinishedAt().AsTime()), Seat: uint32(i),
			PlayerCount: uint32(n), Aborted: out.GetAborted(), Abandoned: standIn[i] && !out.GetAborted(),
		}
		if res := results[i]; res != nil {
			rg.Score, rg.Rank, rg.Winner = res.GetScore(), res.GetRank(), res.GetWinner()
		}
		if rated && !standIn[i] {
			rg.RatingAfter = r.GetRating().GetDisplay()
		}
		d.Recent = append(d.Recent, RecentPush{Player: seats[i].GetPlayer().GetPlayerId(), Game: rg})
	}
}

// standInSeats marks the human seats of a finished table whose moves cardroom's bot mostly played
// for an absent player: more than half of the seat's moves (TableFinished.seat_actions). Such a
// game is not the player's own: it is recorded as abandoned, not in their games, wins, sums or
// rating. The seat still takes part in the other seats' rating update, with its player's rating.
func standInSeats(f *eventsv1.TableFinished, n int) []bool {
	out := make([]bool, n)
	for _, sa := range f.GetSeatActions() {
		if i := int(sa.GetSeat()); i < n && 2*uint64(sa.GetStandIn()) > uint64(sa.GetActions()) {
			out[i] = f.GetConfig().GetSeats()[i].GetPlayer().GetKind() != gamev1.PlayerKind_PLAYER_KIND_BOT
		}
	}
	return out
}

// OptionUsage lists "path=value" for every option a table set away from its default, or
// "(defaults)" when none; "(undecodable)=<type>" when the options are of a type types does not
// resolve. The event export's tables (cmd/cardroom/internal/export) use it too, so that an
// analyst's counts of options are the stats service's.
func OptionUsage(opts *anypb.Any, types *protoregistry.Types) []string {
	if opts == nil || (opts.GetTypeUrl() == "" && len(opts.GetValue()) == 0) {
		return []string{"(defaults)="}
	}
	if types == nil {
		return []string{"(undecodable)=" + string(opts.MessageName())}
	}
	m, err := anypb.UnmarshalNew(opts, proto.UnmarshalOptions{Resolver: types})
	if err != nil {
		return []string{"(undecodable)=" + string(opts.MessageName())}
	}
	var out []string
	flatten(m.ProtoReflect(), "", &out)
	if len(out) == 0 {
		return []string{"(defaults)="}
	}
	return out
}

func flatten(m protoreflect.Message, prefix string, out *[]string) {
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if !m.Has(fd) {
			continue
		}
		path := prefix + string(fd.Name())
		v := m.Get(fd)
		switch {
		case fd.IsMap():
			var kv []string
			v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
				kv = append(kv, k.String()+":"+scalar(fd.MapValue(), mv))
				return true
			})
			sort.Strings(kv)
			*out = append(*out, path+"="+strings.Join(kv, ","))
		case fd.IsList():
			l := v.List()
			vs := make([]string, l.Len())
			for j := range l.Len() {
				vs[j] = scalar(fd, l.Get(j))
			}
			*out = append(*out, path+"="+strings.Join(vs, ","))
		case fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.GroupKind:
			flatten(v.Message(), path+".", out)
		default:
			*out = append(*out, path+"="+scalar(fd, v))
		}
	}
}

func scalar(fd protoreflect.FieldDescriptor, v protoreflect.Value) string {
	switch fd.Kind() {
	case protoreflect.EnumKind:
		if ev := fd.Enum().Values().ByNumber(v.Enum()); ev != nil {
			return string(ev.Name())
		}
		return strconv.Itoa(int(v.Enum()))
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return "{...}"
	case protoreflect.BytesKind:
		return fmt.Sprintf("%x", v.Bytes())
	}
	return v.String()
}
