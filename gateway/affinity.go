package gateway

import (
	"cmp"
	"context"
	"math/rand/v2"
	"slices"
	"sync/atomic"

	"google.golang.org/grpc"
	"google.golang.org/grpc/balancer"
	"google.golang.org/grpc/balancer/base"
)

// tableAffinityName is the load-balancing policy that sends every call about one table to one
// replica of the game's rules service, where that table's decoded state is likely cached.
//
// It connects to every resolved address like round_robin. A call whose request names a table goes
// to the READY replica with the highest rendezvous score for (table id, replica address): every
// gateway replica picks the same rules replica for a table, and when a rules replica leaves or
// joins only the tables it scores highest for move. Other calls (DescribeGame, or a request with an
// empty table id) go round-robin over the READY replicas.
const tableAffinityName = "cardroom_table_affinity"

func init() {
	balancer.Register(base.NewBalancerBuilder(tableAffinityName, affinityPickerBuilder{}, base.Config{HealthCheck: true}))
}

// tableScoped is a request about one table: every RulesService request but DescribeGame's.
type tableScoped interface {
	GetTableId() string
}

// tableKey is the context key under which withTableAffinity leaves a call's tableScoped request
// for the picker (which never sees the request itself).
type tableKey struct{}

// withTableAffinity is a unary client interceptor that puts the request into the call's context
// when it names a table. It stores the request as it is (already an interface value), so the call
// costs one context and no copy of the id.
func withTableAffinity(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	if t, ok := req.(tableScoped); ok && t.GetTableId() != "" {
		ctx = context.WithValue(ctx, tableKey{}, t)
	}
	return invoker(ctx, method, req, reply, cc, opts...)
}

// tableIDFrom returns the table id withTableAffinity left in ctx, or "".
func tableIDFrom(ctx context.Context) string {
	if ctx == nil {
		return ""
	}
	if t, ok := ctx.Value(tableKey{}).(tableScoped); ok {
		return t.GetTableId()
	}
	return ""
}

// affinityPickerBuilder builds an affinityPicker over the READY subconns each time that set changes.
type affinityPickerBuilder struct{}

// Build implements base.PickerBuilder.
func (affinityPickerBuilder) Build(info base.PickerBuildInfo) balancer.Picker {
	if len(info.ReadySCs) == 0 {
		return base.NewErrPicker(balancer.ErrNoSubConnAvailable)
	}
	conns := make([]affinityConn, 0, len(info.ReadySCs))
	for sc, sci := range info.ReadySCs {
		addr := sci.Address.Addr
		conns = append(conns, affinityConn{sc: sc, addr: addr, addrHash: fnv1a64(addr)})
	}
	return newAffinityPicker(conns)
}

// affinityConn is one READY subconn with its address and the address's hash, computed once per
// picker rather than per call.
type affinityConn struct {
	sc       balancer.SubConn
	addr     string
	addrHash uint64
}

// affinityPicker picks by table (rendezvous hashing) or, for calls without a table, round-robin.
type affinityPicker struct {
	conns []affinityConn // sorted by address, so ties and the round-robin order are deterministic
	next  atomic.Uint32  // round-robin position
}

// newAffinityPicker returns a picker over conns, which must not be empty.
func newAffinityPicker(conns []affinityConn) *affinityPicker {
	slices.SortFunc(conns, func(a, b affinityConn) int { return cmp.Compare(a.addr, b.addr) })
	p := &affinityPicker{conns: conns}
	// Like round_robin, start at a random position so that gateway replicas do not all begin with
	// the same rules replica.
	p.next.Store(rand.Uint32N(uint32(len(conns))))
	return p
}

// Pick implements balancer.Picker. It does not allocate.
func (p *affinityPicker) Pick(info balancer.PickInfo) (balancer.PickResult, error) {
	if id := tableIDFrom(info.Ctx); id != "" {
		return balancer.PickResult{SubConn: p.conns[p.owner(id)].sc}, nil
	}
	n := p.next.Add(1)
	return balancer.PickResult{SubConn: p.conns[n%uint32(len(p.conns))].sc}, nil
}

// owner returns the index in p.conns of the table's replica: the highest rendezvous score, the
// lowest address on a tie.
func (p *affinityPicker) owner(tableID string) int {
	h := fnv1a64(tableID)
	best, bestScore := 0, rendezvousScore(h, p.conns[0].addrHash)
	for i := 1; i < len(p.conns); i++ {
		if s := rendezvousScore(h, p.conns[i].addrHash); s > bestScore {
			best, bestScore = i, s
		}
	}
	return best
}

// rendezvousScore is the weight of one (table, address) pair: both hashes combined through a
// 64-bit finalizer (splitmix64's), whose avalanche makes each address's order of preference for
// tables independent of the others'.
func rendezvousScore(tableHash, addrHash uint64) uint64 {
	x := tableHash ^ addrHash
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// fnv1a64 is the 64-bit FNV-1a hash of s. It is fixed (unlike hash/maphash's per-process seed), so
// every gateway process maps a table to the same replica.
func fnv1a64(s string) uint64 {
	const (
		offset = 14695981039346656037
		prime  = 1099511628211
	)
	h := uint64(offset)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= prime
	}
	return h
}
