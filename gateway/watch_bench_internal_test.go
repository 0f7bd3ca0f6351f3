package gateway

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"cardroom.dev/gateway/lobby"
	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"cardroom.dev/services/kit/app"
	"cardroom.dev/services/kit/bus"
	"cardroom.dev/services/kit/engine/enginetest"
	"go.opentelemetry.io/otel"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/timestamppb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// fanoutSeats is how many seats watch the benchmark's table.
const fanoutSeats = 4

// fanoutUpdate is the k-th (from 1) live update of the benchmark's table, encoded: three events at
// version k (public, private to the seat that moved, public; two of the labels name seats), and
// twenty legal actions for the next seat to move.
func fanoutUpdate(tb testing.TB, k uint64) []byte {
	mover, next := int(k%fanoutSeats), int((k+1)%fanoutSeats)
	at := timestamppb.New(time.Date(2026, 12, 2, 11, 0, 0, int(k), time.UTC))
	u := &rulesv1.TableUpdate{TableId: "t", Version: k}
	for i, l := range []string{
		fmt.Sprintf("{seat:%d} plays yellow %d (Ducks)", mover, k%9),
		"you draw blue 4 (Owls)",
		fmt.Sprintf("{seat:%d} is to play", next),
	} {
		payload, err := anypb.New(wrapperspb.String(l))
		if err != nil {
			tb.Fatal(err)
		}
		vis := &eventsv1.Visibility{Audience: &eventsv1.Visibility_Public{Public: true}}
		if i == 1 {
			vis.Audience = &eventsv1.Visibility_Seat{Seat: uint32(mover)}
		}
		u.Events = append(u.Events, &eventsv1.Event{TableId: "t", Game: "g", Sequence: 3*(k-1) + uint64(i) + 1, Version: k,
			Visibility: vis, Time: at, Payload: payload, Label: l})
	}
	sa := &rulesv1.SeatActions{Seat: uint32(next)}
	for a := range 20 {
		act, err := anypb.New(wrapperspb.Int64(int64(a)))
		if err != nil {
			tb.Fatal(err)
		}
		sa.Actions = append(sa.Actions, act)
		l := fmt.Sprintf("play yellow %d (Ducks)", a)
		if a%4 == 0 {
			l = fmt.Sprintf("give yellow %d to {seat:%d}", a, mover)
		}
		sa.Labels = append(sa.Labels, l)
	}
	u.Legal = []*rulesv1.SeatActions{sa}
	data, err := proto.Marshal(u)
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// countingStream is a Watch stream that encodes what it is sent with the gateway's codec (as gRPC
// would) and keeps, from the bytes, the newest event sequence and legal-actions version it carried.
type countingStream struct {
	grpc.ServerStream
	ctx      context.Context
	seq      atomic.Uint64
	list     atomic.Uint64
	messages atomic.Int64
	wake     chan struct{}
}

func newCountingStream(ctx context.Context) *countingStream {
	return &countingStream{ctx: ctx, wake: make(chan struct{}, 1)}
}

func (s *countingStream) Context() context.Context { return s.ctx }

func (s *countingStream) Send(m *gatewayv1.WatchResponse) error { return s.SendMsg(m) }

func (s *countingStream) SendMsg(m any) error {
	data, err := app.Codec.Marshal(m)
	if err != nil {
		return err
	}
	defer data.Free()
	if len(data) != 1 {
		return fmt.Errorf("encoded in %d buffers", len(data))
	}
	seq, list, err := watchResponseMarks(data[0].ReadOnlyData())
	if err != nil {
		return err
	}
	s.messages.Add(1)
	if seq > s.seq.Load() {
		s.seq.Store(seq)
	}
	if list > s.list.Load() {
		s.list.Store(list)
	}
	select {
	case s.wake <- struct{}{}:
	default:
	}
	return nil
}

// watchResponseMarks reads from an encoded WatchResponse its newest event sequence and its legal
// actions' version (0: none), without decoding the rest.
func watchResponseMarks(b []byte) (seq, list uint64, err error) {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 || typ != protowire.BytesType {
			return 0, 0, fmt.Errorf("malformed response")
		}
		v, m := protowire.ConsumeBytes(b[n:])
		if m < 0 {
			return 0, 0, fmt.Errorf("malformed response")
		}
		b = b[n+m:]
		want := protowire.Number(3) // Event.sequence
		if num == 2 {
			want = 1 // LegalActions.version
		}
		for len(v) > 0 {
			fn, ft, k := protowire.ConsumeTag(v)
			if k < 0 {
				return 0, 0, fmt.Errorf("malformed field")
			}
			v = v[k:]
			if fn == want && ft == protowire.VarintType {
				x, k := protowire.ConsumeVarint(v)
				if k < 0 {
					return 0, 0, fmt.Errorf("malformed field")
				}
				if num == 2 {
					list = x
				} else {
					seq = max(seq, x)
				}
				v = v[k:]
				continue
			}
			k = protowire.ConsumeFieldValue(fn, ft, v)
			if k < 0 {
				return 0, 0, fmt.Errorf("malformed field")
			}
			v = v[k:]
		}
	}
	return seq, list, nil
}

// BenchmarkHubFanout measures one table's hub on this gateway: each op is one live update handed
// to the hub (as the bus feed does) and sent on to the four seats' Watch streams with legal
// actions, each encoded by the gateway's gRPC codec (no network). It is the gateway's own work per
// update, apart from gRPC's transport. cpu-ns/op is the process's CPU time per update.
func BenchmarkHubFanout(b *testing.B) {
	for _, batch := range []bool{false, true} {
		b.Run(fmt.Sprint("batch=", batch), func(b *testing.B) {
			updates := make([][]byte, 512)
			for i := range updates {
				updates[i] = fanoutUpdate(b, uint64(i+1))
			}
			names := &lobby.Table{}
			for i := range fanoutSeats {
				names.Seats = append(names.Seats, lobby.Player{ID: fmt.Sprint("p", i), Name: fmt.Sprint("Player ", i)})
			}
			var (
				h       *hub
				hs      *hubs
				streams []*countingStream
				done    chan error
				cancel  context.CancelFunc = func() {}
				i       int
			)
			var messages int64
			// stop ends the streams of the table and counts their messages.
			stop := func() {
				if streams == nil {
					return
				}
				cancel()
				for range streams {
					<-done
				}
				for _, st := range streams {
					messages += st.messages.Load()
				}
				streams = nil
			}
			// start opens a fresh table: a hub holds its table's events, so the benchmark moves
			// to a new one every len(updates) updates.
			start := func() {
				s := &Server{metrics: newMetrics(), opt: Options{Now: time.Now}}
				hs = &hubs{s: s, m: map[string]*hub{}, tracer: otel.Tracer("bench")}
				h = newHub(s, "t", &logOnly{})
				close(h.ready)
				hs.m["t"] = h
				var ctx context.Context
				ctx, cancel = context.WithCancel(b.Context())
				streams = make([]*countingStream, fanoutSeats)
				done = make(chan error, fanoutSeats)
				for seat := range streams {
					streams[seat] = newCountingStream(ctx)
					go func() {
						done <- streamHub(ctx, h, seat, seatNames(names, seat), &gatewayv1.WatchRequest{TableId: "t", IncludeLegalActions: true, Batch: batch}, streams[seat])
					}()
				}
				i = 0
			}
			b.ReportAllocs()
			n := 0
			// The process's CPU time while the timer runs: on a loaded machine the time an update
			// waits for a core says little, the CPU it costs is what the change is about.
			var cpu time.Duration
			seg := enginetest.CPUTime()
			for b.Loop() {
				if streams == nil || i == len(updates) {
					cpu += enginetest.CPUTime() - seg
					b.StopTimer()
					stop()
					start()
					b.StartTimer()
					seg = enginetest.CPUTime()
				}
				k := uint64(i + 1)
				hs.deliver(bus.Update{Table: "t", Data: updates[i], Context: b.Context()})
				for seat, st := range streams {
					// Every seat sees the update's last event; the next to move gets its list, the
					// one that moved an empty list.
					wantList := seat == int((k+1)%fanoutSeats) || (k > 1 && seat == int(k%fanoutSeats))
					for st.seq.Load() < 3*k || (wantList && st.list.Load() < k) {
						select {
						case <-st.wake:
						case err := <-done:
							b.Fatalf("a stream ended: %v", err)
						}
					}
				}
				i++
				n++
			}
			cpu += enginetest.CPUTime() - seg
			b.StopTimer()
			stop()
			b.ReportMetric(float64(messages)/float64(n), "messages/op")
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(n), "cpu-ns/op")
		})
	}
}
