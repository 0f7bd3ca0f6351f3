//go:build unix

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// docBlock is one ```sh block of docs/api.md and the output shown under it.
type docBlock struct {
	line   int      // where the block starts in the page
	script string   // the commands, as written
	want   []string // the lines of the output block right under it (none when there is none)
}

// parseDocBlocks reads the ```sh blocks of a Markdown page in order. An output block (```json or
// ```text) right under one, with nothing but blank lines between, is what its commands print.
func parseDocBlocks(page string) []docBlock {
	var blocks []docBlock
	lines := strings.Split(page, "\n")
	lastEnd := -1 // the line after the last ```sh block's closing fence
	for i := 0; i < len(lines); i++ {
		fence, ok := strings.CutPrefix(lines[i], "```")
		if !ok {
			continue
		}
		lang := strings.Fields(fence + " x")[0]
		var body []string
		start := i
		for i++; i < len(lines) && !strings.HasPrefix(lines[i], "```"); i++ {
			body = append(body, lines[i])
		}
		switch {
		case lang == "sh":
			blocks = append(blocks, docBlock{line: start + 1, script: strings.Join(body, "\n")})
			lastEnd = i + 1
		case (lang == "json" || lang == "text") && lastEnd >= 0 && strings.TrimSpace(strings.Join(lines[lastEnd:start], "")) == "":
			blocks[len(blocks)-1].want = body
		}
		if lang != "sh" {
			lastEnd = -1
		}
	}
	return blocks
}

// wantLine is a line of a shown output as a pattern: … stands for anything, and the line's
// indentation and trailing comma do not count.
func wantLine(s string) (*regexp.Regexp, bool) {
	s = strings.TrimSuffix(strings.TrimSpace(s), ",")
	if s == "" || s == "…" {
		return nil, false
	}
	parts := strings.Split(s, "…")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile("^" + strings.Join(parts, ".*") + "$"), true
}

// missingLine is the first line of want that the output lacks, the lines of want being looked
// for in order (each after the previous one's match); "" when none is missing.
func missingLine(want []string, output string) string {
	got := strings.Split(output, "\n")
	at := 0
	for _, w := range want {
		re, ok := wantLine(w)
		if !ok {
			continue
		}
		found := false
		for ; at < len(got); at++ {
			if re.MatchString(strings.TrimSuffix(strings.TrimSpace(got[at]), ",")) {
				found, at = true, at+1
				break
			}
		}
		if !found {
			return strings.TrimSpace(w)
		}
	}
	return ""
}

func TestParseDocBlocks(t *testing.T) {
	page := "# t\n\n```sh\necho a\n```\n\n```text\na\n```\n\nprose\n\n```sh\necho b\n```\n\nprose\n\n```json\n{}\n```\n"
	b := parseDocBlocks(page)
	if len(b) != 2 || b[0].script != "echo a" || len(b[0].want) != 1 || b[0].want[0] != "a" || b[1].script != "echo b" || b[1].want != nil {
		t.Fatalf("parsed %+v", b)
	}
	want := []string{"{", `  "tableId": "t-…",`, "  …", `  "state": "TABLE_STATE_OPEN"`, "}"}
	out := "{\n  \"tableId\": \"t-abc\",\n  \"inviteCode\": \"X\",\n  \"state\": \"TABLE_STATE_OPEN\"\n}\n"
	if m := missingLine(want, out); m != "" {
		t.Fatalf("%q is missing from %q", m, out)
	}
	if m := missingLine(want, strings.Replace(out, "OPEN", "PLAYING", 1)); m != `"state": "TABLE_STATE_OPEN"` {
		t.Fatalf("a changed line is reported missing as %q", m)
	}
	if m := missingLine([]string{`"b"`, `"a"`}, "\"a\"\n\"b\"\n"); m != `"a"` {
		t.Fatalf("lines out of order are reported missing as %q", m)
	}
}

// TestAPIDoc runs the walkthrough of docs/api.md as a reader would: its ```sh blocks in order, in
// one bash session from the repository root (so shell variables carry from step to step), against
// `cardroom serve` on a free port with grpcurl pinned in tools/go.mod. A block fails the test when
// a command in it fails (with errexit and pipefail; a block whose shown output is a refusal, with
// a line "ERROR:", may end with an error) or when its output lacks a line of the output block shown
// under it. The server runs with a 2 s absence grace (30 s by default) so that the bots finish the
// game the page leaves to them soon.
func TestAPIDoc(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("docs/api.md is run with bash, and there is no bash on this machine")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(root, "docs", "api.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := parseDocBlocks(string(page))
	var all strings.Builder
	for _, b := range blocks {
		all.WriteString(b.script + "\n")
	}
	for _, m := range []string{"SignIn", "RefreshSession", "ListGames", "EnqueueTicket", "WatchTicket", "CreateTable",
		"JoinTable", "LeaveTable", "AddBots", "StartTable", "Watch", "GetView", "ListLegalActions", "Act", "GetReplay"} {
		if !regexp.MustCompile(`\$GW/` + m + `\b`).MatchString(all.String()) {
			t.Errorf("no command of docs/api.md calls %s", m)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	// The page's first step builds grpcurl the same way; building it here first keeps a slow build
	// out of the steps and makes its failure plain.
	if out, err := exec.Command(filepath.Join(root, "tools", "gotool"), "-path", "grpcurl").CombinedOutput(); err != nil {
		t.Fatalf("building the pinned grpcurl: %v\n%s", err, out)
	}

	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	serveCtx, stop := context.WithCancel(ctx)
	ready := make(chan map[string]string, 1)
	done := make(chan int, 1)
	var serveOut, serveErr bytes.Buffer
	go func() {
		done <- serve(serveCtx, []string{"--listen", "127.0.0.1:0", "--metrics-listen", "", "--log-level", "error",
			"--absence-grace", "2s"}, func(string) string { return "" }, &serveOut, &serveErr, ready)
	}()
	var front string
	select {
	case addrs := <-ready:
		front = addrs["front"]
	case code := <-done:
		t.Fatalf("serve exited with %d: %s", code, serveErr.String())
	case <-ctx.Done():
		t.Fatal("serve did not start")
	}
	defer func() {
		stop()
		if code := <-done; code != 0 {
			t.Errorf("serve stopped with %d", code)
		}
	}()

	// The session: each block between markers, errexit on unless its output shows a refusal.
	var script strings.Builder
	script.WriteString("shopt -s expand_aliases\nset -o pipefail\n")
	for i, b := range blocks {
		errexit := "-e"
		if strings.Contains("\n"+strings.Join(b.want, "\n")+"\n", "\nERROR:\n") {
			errexit = "+e"
		}
		fmt.Fprintf(&script, "echo '@@block %d@@'\nset %s\n%s\nset +e\necho '@@end %d@@'\n", i, errexit, b.script, i)
	}
	tmp := t.TempDir()
	scriptFile := filepath.Join(tmp, "api.sh")
	if err := os.WriteFile(scriptFile, []byte(script.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, bash, scriptFile)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CARDROOM="+front, "TMPDIR="+tmp)
	// The output goes to a file, not a pipe: a step that failed may leave a background grpcurl
	// behind holding it, and the session is over all the same. Its process group ends with it.
	outFile, err := os.Create(filepath.Join(tmp, "api.out"))
	if err != nil {
		t.Fatal(err)
	}
	defer outFile.Close()
	cmd.Stdout, cmd.Stderr = outFile, outFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	start := time.Now()
	runErr := cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	t.Logf("ran %d blocks of docs/api.md in %v", len(blocks), time.Since(start).Round(time.Millisecond))
	out, err := os.ReadFile(outFile.Name())
	if err != nil {
		t.Fatal(err)
	}

	// Each block's output, by its markers.
	text := string(out)
	for i, b := range blocks {
		begin := fmt.Sprintf("@@block %d@@\n", i)
		end := fmt.Sprintf("@@end %d@@\n", i)
		from := strings.Index(text, begin)
		if from < 0 {
			t.Fatalf("docs/api.md line %d: the block did not run (session: %v)\n%s", b.line, runErr, text)
		}
		got := text[from+len(begin):]
		to := strings.Index(got, end)
		if to < 0 {
			t.Fatalf("docs/api.md line %d: the block failed (session: %v):\n%s\n--- it printed:\n%s", b.line, runErr, b.script, got)
		}
		got = got[:to]
		if m := missingLine(b.want, got); m != "" {
			t.Fatalf("docs/api.md line %d: the output lacks %q:\n%s\n--- it printed:\n%s", b.line, m, b.script, got)
		}
	}
	if runErr != nil {
		t.Fatalf("the session ended with %v:\n%s", runErr, text)
	}
}
