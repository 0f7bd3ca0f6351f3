package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestHelp: asking any command for help prints its help once, on standard output, and exits with
// status 0; a bad flag still exits with 2.
func TestHelp(t *testing.T) {
	cases := []struct {
		args []string
		want string // a line of the help
	}{
		{[]string{"--help"}, "cardroom serve [settings]"},
		{[]string{"-h"}, "cardroom serve [settings]"},
		{[]string{"help"}, "cardroom serve [settings]"},
		{[]string{"serve", "--help"}, "--listen"},
		{[]string{"serve", "-h"}, "--listen"},
		{[]string{"serve", "--log-level", "warn", "-help"}, "--listen"},
		{[]string{"play", "--help"}, "--addr host:port"},
		{[]string{"play", "sapotagem", "--help"}, "--addr host:port"},
		{[]string{"bench", "--help"}, "--tables N"},
		{[]string{"stats", "--help"}, "cardroom stats rebuild"},
		{[]string{"stats", "rebuild", "--help"}, "--nats-url"},
		{[]string{"events", "--help"}, "cardroom events export --dir DIR"},
		{[]string{"events", "export", "--help"}, "--nats-url"},
		{[]string{"events", "export", "--dir", "x", "-h"}, "--skip-lost"},
	}
	for _, tc := range cases {
		var out, errOut bytes.Buffer
		code := run(t.Context(), tc.args, &out, &errOut)
		if code != 0 || errOut.Len() != 0 {
			t.Errorf("%v: exit %d, stderr %q", tc.args, code, errOut.String())
		}
		if n := strings.Count(out.String(), "usage:"); n != 1 || !strings.Contains(out.String(), tc.want) {
			t.Errorf("%v: the help is printed %d times or lacks %q:\n%s", tc.args, n, tc.want, out.String())
		}
	}
	for _, args := range [][]string{{"serve", "--no-such-flag"}, {"bench", "--no-such-flag"}, {"stats", "rebuild", "--no-such-flag"}, {"events", "export", "--dir", "x", "--no-such-flag"}} {
		var out, errOut bytes.Buffer
		if code := run(t.Context(), args, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "no-such-flag") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut.String())
		}
	}
}
