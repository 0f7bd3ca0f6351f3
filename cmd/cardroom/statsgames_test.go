package main

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	sabaisabaiv1 "cardroom.dev/proto/gen/cardroom/sabaisabai/v1"
	saboteurv1 "cardroom.dev/proto/gen/cardroom/saboteur/v1"
	sapotagemv1 "cardroom.dev/proto/gen/cardroom/sapotagem/v1"
	sponsiov1 "cardroom.dev/proto/gen/cardroom/sponsio/v1"
	sabaisabai "cardroom.dev/services/sabaisabai/engine"
	saboteur "cardroom.dev/services/saboteur/engine"
	sapotagem "cardroom.dev/services/sapotagem/engine"
	sponsio "cardroom.dev/services/sponsio/engine"
	"cardroom.dev/services/stats"
	"cardroom.dev/services/stats/storetest"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
)

// The stats module's own tests run on the kit's test game, so that the module needs no game
// module; these run the same checks on workloads of the four games (their real events, outcomes,
// scores and options).

// TestStatsOfTheGames aggregates a workload of the four games in batches, some delivered twice,
// into a memory store, and checks every figure and every call of the StatsService.
func TestStatsOfTheGames(t *testing.T) {
	t.Run("Store", func(t *testing.T) {
		storetest.CheckWorkload(t, stats.NewMemory(), gamesPool.NewWorkload(7, storetest.WorkloadOptions{Games: 1500, Players: 120, Faults: true}))
	})
	t.Run("Service", func(t *testing.T) {
		storetest.RunService(t, gamesPool.NewWorkload(3, storetest.WorkloadOptions{Games: 400, Players: 60, Faults: true}))
	})
}

// gamesPool are the four games, in a fixed order (the pool draws among them), each with how a
// table of it draws its options.
var gamesPool = storetest.NewPool(
	storetest.NewGame[*sapotagem.State, sapotagem.Action](sapotagem.Game{}, func(r *rand.Rand, n int) (proto.Message, []string) {
		if r.IntN(2) == 0 {
			return nil, nil
		}
		variants := (&sapotagemv1.Options{}).ProtoReflect().Descriptor().Fields().Len()
		for {
			var on []int
			for v := 1; v <= variants; v++ {
				if r.IntN(6) == 0 {
					on = append(on, v)
				}
			}
			var set uint32
			for _, v := range on {
				set |= 1 << v
			}
			if len(on) == 0 || sapotagem.CheckOptions(n, set) != nil {
				continue
			}
			keys := make([]string, len(on))
			for i, v := range on {
				keys[i] = sapotagem.VariantName(v) + "=true"
			}
			return sapotagem.OptionsOf(on...), keys
		}
	}),
	storetest.NewGame[*sponsio.State, sponsio.Action](sponsio.Game{}, func(r *rand.Rand, n int) (proto.Message, []string) {
		if n != 3 || r.IntN(2) == 0 {
			return nil, nil
		}
		c := sponsiov1.Colour(1 + r.IntN(4))
		return &sponsiov1.Options{RemovedColour: c}, []string{"removed_colour=" + c.String()}
	}),
	storetest.NewGame[*sabaisabai.State, sabaisabai.Action](sabaisabai.Game{}, func(r *rand.Rand, n int) (proto.Message, []string) {
		if r.IntN(3) == 0 {
			return nil, nil
		}
		o, keys := &sabaisabaiv1.Options{}, []string(nil)
		if r.IntN(2) == 0 {
			o.PeekAtStart = uint32(1 + r.IntN(4))
			keys = append(keys, fmt.Sprint("peek_at_start=", o.PeekAtStart))
		}
		if r.IntN(4) > 0 {
			o.Rounds = uint32(1 + r.IntN(3))
			keys = append(keys, fmt.Sprint("rounds=", o.Rounds))
		}
		if r.IntN(4) == 0 {
			o.ThrowForOthers = proto.Bool(false)
			keys = append(keys, "throw_for_others=false")
		}
		if r.IntN(4) == 0 {
			s := 1 + r.IntN(5)
			o.NoseDeadline = durationpb.New(time.Duration(s) * time.Second)
			keys = append(keys, fmt.Sprint("nose_deadline.seconds=", s))
		}
		if len(keys) == 0 {
			return nil, nil
		}
		return o, keys
	}),
	storetest.NewGame[*saboteur.State, saboteur.Action](saboteur.Game{}, func(r *rand.Rand, n int) (proto.Message, []string) {
		if n < 3 || n > 10 || r.IntN(3) > 0 {
			return nil, nil // saboteur2, the default, is the only mode for 2, 11 and 12 players
		}
		o := &saboteurv1.Options{Mode: saboteurv1.Mode_MODE_CLASSIC}
		keys := []string{"mode=MODE_CLASSIC"}
		if r.IntN(2) == 0 {
			o.ClassicDiscardTwoToRepair = true
			keys = append(keys, "classic_discard_two_to_repair=true")
		}
		return o, keys
	}),
)
