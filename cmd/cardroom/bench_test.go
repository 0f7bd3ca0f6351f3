package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"cardroom.dev/gateway/loadgen"
)

// TestBench runs `cardroom bench` against `cardroom serve` (embedded NATS, memory store): every
// game is played through the gateway with no error, and --rate paces the actions.
func TestBench(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	ready := make(chan map[string]string, 1)
	done := make(chan int, 1)
	go func() {
		done <- serve(ctx, []string{"--listen", "127.0.0.1:0", "--metrics-listen", "", "--log-level", "warn", "--rate-limit", "0"},
			func(string) string { return "" }, &bytes.Buffer{}, &bytes.Buffer{}, ready)
	}()
	var front string
	select {
	case addrs := <-ready:
		front = addrs["front"]
	case code := <-done:
		t.Fatalf("serve exited with %d", code)
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not start")
	}

	bench := func(t *testing.T, args ...string) loadgen.Report {
		t.Helper()
		var out, errs bytes.Buffer
		code := run(ctx, append([]string{"bench", "--addr", front, "--json", "--progress=false"}, args...), &out, &errs)
		var rep loadgen.Report
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
			t.Fatalf("bench exited with %d, output %q (%v), stderr %s", code, out.String(), err, errs.String())
		}
		if code != 0 || rep.Errors != 0 {
			t.Fatalf("bench exited with %d, %d errors: %v", code, rep.Errors, rep.FirstErrors)
		}
		return rep
	}

	t.Run("unpaced", func(t *testing.T) {
		profile := filepath.Join(t.TempDir(), "bench.pprof")
		rep := bench(t, "--tables", "8", "--duration", "3s", "--cpuprofile", profile)
		// --cpuprofile wrote a profile: gzipped protobuf, as runtime/pprof writes it.
		if f, err := os.Open(profile); err != nil {
			t.Error(err)
		} else {
			zr, err := gzip.NewReader(f)
			if err == nil {
				var n int64
				n, err = io.Copy(io.Discard, zr)
				if err == nil && n == 0 {
					err = errors.New("empty")
				}
			}
			if err != nil {
				t.Errorf("cpu profile: %v", err)
			}
			f.Close()
		}
		if len(rep.Games) != len(engines()) {
			t.Errorf("played %v, want every one of the %d games", rep.Games, len(engines()))
		}
		if rep.Actions == 0 || rep.ActionsPerSecond <= 0 || rep.Act.Count != int(rep.Actions) {
			t.Errorf("actions %d (%.0f/s), %d act latencies", rep.Actions, rep.ActionsPerSecond, rep.Act.Count)
		}
		if rep.TableActions < rep.Actions {
			t.Errorf("the tables reached %d versions in all, fewer than the %d actions applied", rep.TableActions, rep.Actions)
		}
		// Every move is taken from a list the seat's stream brought: no seat waits long enough to
		// ask for one.
		if rep.TablesStarted < 8 || rep.Events == 0 || rep.LegalsPushed < rep.Actions || rep.Legal.Count != 0 {
			t.Errorf("%d tables started, %d events, %d legal lists pushed for %d actions, %d listing calls",
				rep.TablesStarted, rep.Events, rep.LegalsPushed, rep.Actions, rep.Legal.Count)
		}
		if rep.Act.P50 <= 0 || rep.Act.P50 > rep.Act.P99 || rep.Act.P99 > rep.Act.Max {
			t.Errorf("act latency percentiles out of order: %+v", rep.Act)
		}
		if rep.CPU.BenchSeconds <= 0 || rep.CPU.BenchMicrosPerAction <= 0 {
			t.Errorf("cpu: %+v", rep.CPU)
		}
	})
	t.Run("paced", func(t *testing.T) {
		const rate, seconds = 40, 2
		rep := bench(t, "--tables", "4", "--games", "sapotagem", "--seats", "3", "--duration", "2s", "--rate", "40")
		// A burst of a tenth of a second is allowed on top of the rate.
		if limit := int64(rate*seconds + rate/10 + 1); rep.Actions == 0 || rep.Actions+rep.Refused > limit {
			t.Errorf("%d actions and %d refusals in %d s at %d/s: want between 1 and %d", rep.Actions, rep.Refused, seconds, rate, limit)
		}
		if rep.Games["sapotagem"] != 3 || len(rep.Games) != 1 {
			t.Errorf("games %v, want sapotagem with 3 seats", rep.Games)
		}
	})
	t.Run("bad flags", func(t *testing.T) {
		var out, errs bytes.Buffer
		if code := run(ctx, []string{"bench", "--addr", front, "--games", "chess", "--duration", "1s"}, &out, &errs); code != 1 || !bytes.Contains(errs.Bytes(), []byte(`unknown game "chess"`)) {
			t.Errorf("unknown game: exit %d, stderr %q", code, errs.String())
		}
		if code := run(ctx, []string{"bench", "--tables", "x"}, &out, &errs); code != 2 {
			t.Errorf("bad --tables: exit %d", code)
		}
	})
}
