package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestEdgesNeedNoGame fails when a package of the gateway, of the stats service or of the Go
// client library can reach a game's package, through any chain of imports (go list -deps; the
// packages' tests aside): presentation belongs to the clients, the games' rules to their rules
// services, and workloads of real games to this module. A game's packages are those of its module (services/<game>/...) and
// its contract (proto/gen/cardroom/<game>/...). The stats service's main names the games whose
// options it counts, so it may reach their contracts, never their modules.
//
// gateway/loadgen still encodes sabai-sabai's options and actions itself and is left out until it
// becomes a client without game imports.
func TestEdgesNeedNoGame(t *testing.T) {
	mods, err := filepath.Glob("../../services/*/go.mod")
	if err != nil {
		t.Fatal(err)
	}
	var games []string
	for _, m := range mods {
		if dir := filepath.Base(filepath.Dir(m)); dir != "kit" && dir != "stats" {
			games = append(games, dir)
		}
	}
	if len(games) < 4 {
		t.Fatalf("found game modules %v: the layout changed", games)
	}
	// exempt are edge packages that may reach a game's contract (not its module), and why.
	exempt := map[string]string{
		"cardroom.dev/services/stats/cmd/stats": "names the games whose options the stats service counts",
	}
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Deps}} {{.}}{{end}}", "cardroom.dev/gateway/...", "cardroom.dev/services/stats/...", "cardroom.dev/client/...")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	edges := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkgs := strings.Fields(line)
		edge, deps := pkgs[0], pkgs[1:]
		edges++
		if edge == "cardroom.dev/gateway/loadgen" {
			continue
		}
		for _, dep := range deps {
			for _, g := range games {
				module := dep == "cardroom.dev/services/"+g || strings.HasPrefix(dep, "cardroom.dev/services/"+g+"/")
				contract := strings.HasPrefix(dep, "cardroom.dev/proto/gen/cardroom/"+g+"/")
				if module || contract && exempt[edge] == "" {
					t.Errorf("%s reaches %s, a package of the game %s", edge, dep, g)
				}
			}
		}
	}
	if edges < 10 {
		t.Fatalf("go list named %d packages of the gateway, stats and the client: the layout changed", edges)
	}
}
