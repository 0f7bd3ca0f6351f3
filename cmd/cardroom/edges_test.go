package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEdgesNeedNoGame fails when the gateway or the stats module requires a game module, even
// for its tests: presentation belongs to the clients, and workloads of real games to this module.
// Game modules are those under services/ other than the kit and stats.
func TestEdgesNeedNoGame(t *testing.T) {
	mods, err := filepath.Glob("../../services/*/go.mod")
	if err != nil {
		t.Fatal(err)
	}
	var games []string
	for _, m := range mods {
		if dir := filepath.Base(filepath.Dir(m)); dir != "kit" && dir != "stats" {
			games = append(games, "cardroom.dev/services/"+dir)
		}
	}
	if len(games) < 4 {
		t.Fatalf("found game modules %v: the layout changed", games)
	}
	for _, edge := range []string{"../../gateway/go.mod", "../../services/stats/go.mod", "../../client/go.mod"} {
		b, err := os.ReadFile(edge)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			for _, g := range games {
				if f := strings.Fields(line); len(f) > 0 && (f[0] == g || len(f) > 1 && f[0] == "require" && f[1] == g) {
					t.Errorf("%s requires the game module %s", edge, g)
				}
			}
		}
	}
}
