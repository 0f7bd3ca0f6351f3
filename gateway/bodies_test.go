package gateway_test

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	. "cardroom.dev/gateway/gatewaytest"
	"cardroom.dev/services/kit/refusal"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/metadata"
)

// heapBound is how much the gateway's heap may grow while it refuses one oversized body: a few
// times the 256 KiB it buffers at most, plus the test's own work. Without the bounds every attack
// below grows it by its whole decompressed or plain size (64-128 MiB).
const heapBound = 24 << 20

// heapPeak measures the heap in use (runtime.MemStats.HeapInuse, after a collection) before fn,
// its peak while fn runs (sampled every few milliseconds) and after it, and fails when the peak
// is more than heapBound above the start.
func heapPeak(t *testing.T, attack string, fn func()) {
	t.Helper()
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.HeapInuse
	var (
		mu   sync.Mutex
		peak = before
		stop = make(chan struct{})
		done = make(chan struct{})
	)
	go func() {
		defer close(done)
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		var s runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				runtime.ReadMemStats(&s)
				mu.Lock()
				peak = max(peak, s.HeapInuse)
				mu.Unlock()
			}
		}
	}()
	fn()
	close(stop)
	<-done
	runtime.GC()
	runtime.ReadMemStats(&ms)
	t.Logf("%s: heap in use %.1f MiB before, %.1f MiB at the peak, %.1f MiB after", attack, mib(before), mib(peak), mib(ms.HeapInuse))
	if peak > before+heapBound {
		t.Errorf("%s: the heap grew by %.1f MiB, over the bound of %.0f MiB", attack, mib(peak-before), mib(heapBound))
	}
}

func mib(n uint64) float64 { return float64(n) / (1 << 20) }

// gzipped is a gzip of head, then n bytes 'a' (whole MiBs), then tail, made in milliseconds: one
// deflate block of a MiB of 'a's, flushed to a byte boundary, is repeated (its back-references
// reach only 'a's wherever it stands). The trailer's checksum is wrong, which only a reader that
// inflates everything would notice, at the end.
func gzipped(t *testing.T, head string, n int, tail string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	chunk := bytes.Repeat([]byte{'a'}, 1<<20)
	_, _ = io.WriteString(zw, head)
	_, _ = zw.Write(chunk)
	_ = zw.Flush()
	from := buf.Len()
	_, _ = zw.Write(chunk)
	_ = zw.Flush()
	block := bytes.Clone(buf.Bytes()[from:])
	for range n>>20 - 2 {
		buf.Write(block)
	}
	_, _ = io.WriteString(zw, tail)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// signInProtoHead is the start of a SignInRequest whose display_name (field 1) is n bytes long.
func signInProtoHead(n int) string {
	return string(binary.AppendUvarint([]byte{1<<3 | 2}, uint64(n)))
}

// connectError is a Connect error body's code and first RuleViolation code.
func connectError(t *testing.T, body []byte) (string, string) {
	t.Helper()
	var e struct {
		Code    string `json:"code"`
		Details []struct {
			Type  string `json:"type"`
			Debug struct {
				Code string `json:"code"`
			} `json:"debug"`
		} `json:"details"`
	}
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("not a Connect error: %q", body)
	}
	for _, d := range e.Details {
		if d.Type == "cardroom.game.v1.RuleViolation" {
			return e.Code, d.Debug.Code
		}
	}
	return e.Code, ""
}

// endlessReader is n bytes: head, then 'a's (never held in memory at once).
type endlessReader struct {
	head string
	n    int
}

func (r *endlessReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, io.EOF
	}
	k := 0
	if r.head != "" {
		k = copy(p, r.head)
		r.head = r.head[k:]
	}
	for k < len(p) && k < r.n {
		p[k] = 'a'
		k++
	}
	r.n -= k
	return k, nil
}

// TestBodiesBoundedOnEveryProtocol: the attacks of issue #36 on SignIn (no session needed), each
// refused with the process's heap growing by at most heapBound: a gzip bomb over Connect JSON,
// Connect binary and gRPC-Web (the decompression stops at the limit: INVALID_ARGUMENT
// REQUEST_TOO_LARGE), a huge plain JSON body with and without a length (refused at 256 KiB as sent,
// before vanguard buffers it: resource_exhausted), and a gzip bomb over native gRPC (gRPC's receive limit
// applies to the decompressed message: RESOURCE_EXHAUSTED).
func TestBodiesBoundedOnEveryProtocol(t *testing.T) {
	e := NewEnv(t, EnvOptions{})
	addr := serveBrowsers(t, e)
	url := "http://" + addr + svcPath + "SignIn"
	// 200 MiB once decompressed, 200 KB compressed: under the 256 KiB a body may be as sent,
	// so that the decompression is what must stop it.
	const inflated = 200 << 20
	post := func(contentType string, header map[string]string, body io.Reader, length int64) (*http.Response, []byte) {
		t.Helper()
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, body)
		if err != nil {
			t.Fatal(err)
		}
		req.ContentLength = length
		req.Header.Set("Content-Type", contentType)
		req.Header.Set("Connect-Protocol-Version", "1")
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, b
	}

	t.Run("connect json gzip bomb", func(t *testing.T) {
		bomb := gzipped(t, `{"displayName":"`, inflated, `"}`)
		heapPeak(t, "Connect JSON, gzip of 200 MiB", func() {
			resp, body := post("application/json", map[string]string{"Content-Encoding": "gzip"}, bytes.NewReader(bomb), int64(len(bomb)))
			if c, v := connectError(t, body); resp.StatusCode != http.StatusBadRequest || c != "invalid_argument" || v != refusal.TooLarge {
				t.Errorf("%d %s %s: %s", resp.StatusCode, c, v, body)
			}
		})
	})
	t.Run("connect proto gzip bomb", func(t *testing.T) {
		bomb := gzipped(t, signInProtoHead(inflated), inflated, "")
		heapPeak(t, "Connect binary, gzip of 200 MiB", func() {
			resp, body := post("application/proto", map[string]string{"Content-Encoding": "gzip"}, bytes.NewReader(bomb), int64(len(bomb)))
			if c, v := connectError(t, body); resp.StatusCode != http.StatusBadRequest || c != "invalid_argument" || v != refusal.TooLarge {
				t.Errorf("%d %s %s: %s", resp.StatusCode, c, v, body)
			}
		})
	})
	t.Run("grpc-web gzip bomb", func(t *testing.T) {
		bomb := gzipped(t, signInProtoHead(inflated), inflated, "")
		frame := append([]byte{1}, binary.BigEndian.AppendUint32(nil, uint32(len(bomb)))...)
		frame = append(frame, bomb...)
		heapPeak(t, "gRPC-Web, gzip of 200 MiB", func() {
			resp, body := post("application/grpc-web+proto", map[string]string{"Grpc-Encoding": "gzip", "X-Grpc-Web": "1"}, bytes.NewReader(frame), int64(len(frame)))
			code := resp.Header.Get("Grpc-Status")
			if code == "" {
				code = grpcWebTrailer(body, "grpc-status")
			}
			if code != "3" && code != "8" {
				t.Errorf("gRPC-Web gzip bomb: grpc-status %q (%d): %q", code, resp.StatusCode, body)
			}
		})
	})
	for _, length := range []int64{-1, 200 << 20} {
		name := map[bool]string{true: "without a length", false: "with its length"}[length < 0]
		t.Run("plain json "+name, func(t *testing.T) {
			heapPeak(t, "Connect JSON, 200 MiB plain "+name, func() {
				resp, body := post("application/json", nil, &endlessReader{head: `{"displayName":"`, n: 200 << 20}, length)
				if c, _ := connectError(t, body); resp.StatusCode != http.StatusTooManyRequests || c != "resource_exhausted" {
					t.Errorf("%d %s: %s", resp.StatusCode, c, body)
				}
			})
		})
	}
	t.Run("native grpc gzip bomb", func(t *testing.T) {
		bomb := gzipped(t, signInProtoHead(inflated), inflated, "")
		frame := append([]byte{1}, binary.BigEndian.AppendUint32(nil, uint32(len(bomb)))...)
		frame = append(frame, bomb...)
		var h2cOnly http.Protocols
		h2cOnly.SetUnencryptedHTTP2(true)
		h2c := &http.Client{Transport: &http.Transport{Protocols: &h2cOnly}}
		heapPeak(t, "native gRPC, gzip of 200 MiB", func() {
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, url, bytes.NewReader(frame))
			req.Header.Set("Content-Type", "application/grpc")
			req.Header.Set("Grpc-Encoding", "gzip")
			req.Header.Set("Te", "trailers")
			resp, err := h2c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			code := resp.Trailer.Get("Grpc-Status")
			if code == "" {
				code = resp.Header.Get("Grpc-Status")
			}
			if code != strconv.Itoa(int(codes.ResourceExhausted)) {
				t.Errorf("native gRPC gzip bomb: grpc-status %q %q", code, resp.Trailer.Get("Grpc-Message")+resp.Header.Get("Grpc-Message"))
			}
		})
	})
}

// grpcWebTrailer is the value of key in a gRPC-Web body's trailer frame (flag 0x80).
func grpcWebTrailer(body []byte, key string) string {
	for len(body) >= 5 {
		n := int(binary.BigEndian.Uint32(body[1:5]))
		if 5+n > len(body) {
			break
		}
		if body[0]&0x80 != 0 {
			for line := range strings.SplitSeq(string(body[5:5+n]), "\r\n") {
				if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(strings.TrimSpace(k), key) {
					return strings.TrimSpace(v)
				}
			}
		}
		body = body[5+n:]
	}
	return ""
}

// TestMalformedBodiesAreInvalidArgument: a body that is no message (bad JSON, bad protobuf) or a
// stream without its request message is the client's mistake: invalid_argument with
// MALFORMED_REQUEST, not unknown or internal.
func TestMalformedBodiesAreInvalidArgument(t *testing.T) {
	e := NewEnv(t, EnvOptions{})
	addr := serveBrowsers(t, e)
	base := "http://" + addr + svcPath
	token := e.SignIn(0, "Ann").Token
	post := poster(t, base, token)
	for _, tc := range []struct{ name, contentType, body string }{
		{"bad json", "application/json", `{"displayName": "Ann"`},
		{"json of another shape", "application/json", `{"displayName": 12}`},
	} {
		resp, body := post("SignIn", tc.contentType, []byte(tc.body))
		if c, v := connectError(t, body); resp.StatusCode != http.StatusBadRequest || c != "invalid_argument" || v != refusal.MalformedBody {
			t.Errorf("%s: %d %s %s: %s", tc.name, resp.StatusCode, c, v, body)
		}
	}
	// A server stream (Watch) whose message is bad JSON, and one whose body carries no message
	// (read as the empty message, which names no table): the error comes in the stream's end
	// message.
	for _, tc := range []struct {
		name, contentType string
		body              []byte
		want              string
	}{
		{"bad json in the stream", "application/connect+json", append([]byte{0, 0, 0, 0, 5}, "{oops"...), refusal.MalformedBody},
		{"empty json stream", "application/connect+json", nil, refusal.MissingField},
		{"empty binary stream", "application/connect+proto", nil, refusal.MissingField},
	} {
		resp, b := post("Watch", tc.contentType, tc.body)
		end := connectEnd(t, b)
		if c, v := connectError(t, end); resp.StatusCode != http.StatusOK || c != "invalid_argument" || v != tc.want {
			t.Errorf("%s: %d %s %s: %q", tc.name, resp.StatusCode, c, v, b)
		}
	}
}

// poster posts a body to a method under base as a browser would (Connect's headers, the player's
// token) and returns the answer and its body.
func poster(t *testing.T, base, token string) func(method, contentType string, body []byte) (*http.Response, []byte) {
	return func(method, contentType string, body []byte) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, base+method, bytes.NewReader(body))
		req.Header.Set("Authorization", bearer(token))
		req.Header.Set("Content-Type", contentType)
		req.Header.Set("Connect-Protocol-Version", "1")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, b
	}
}

// connectEnd is the error of a Connect streaming response's end message ({"error": ...}).
func connectEnd(t *testing.T, body []byte) []byte {
	t.Helper()
	for len(body) >= 5 {
		n := int(binary.BigEndian.Uint32(body[1:5]))
		if 5+n > len(body) {
			break
		}
		if body[0]&0x02 != 0 {
			var end struct {
				Error json.RawMessage `json:"error"`
			}
			if err := json.Unmarshal(body[5:5+n], &end); err != nil {
				t.Fatalf("end message %q: %v", body[5:5+n], err)
			}
			return end.Error
		}
		body = body[5+n:]
	}
	t.Fatalf("no end message in %q", body)
	return nil
}

// rawCodec sends and receives bytes as they are, under protobuf's name: a client that sends what
// it likes.
type rawCodec struct{}

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(v.([]byte))}, nil
}
func (rawCodec) Unmarshal(d mem.BufferSlice, v any) error {
	*(v.(*[]byte)) = d.Materialize()
	return nil
}
func (rawCodec) Name() string { return "proto" }

// TestBadProtobufIsInvalidArgument: bytes that are no protobuf message, sent as a call's binary
// request over native gRPC (a unary call and a stream's message), Connect and gRPC-Web, are
// invalid_argument with MALFORMED_REQUEST, as bad JSON is, not gRPC's INTERNAL.
func TestBadProtobufIsInvalidArgument(t *testing.T) {
	e := NewEnv(t, EnvOptions{})
	addr := serveBrowsers(t, e)
	token := e.SignIn(0, "Ann").Token
	garbage := []byte{0xff, 0xff, 0xff, 0x01, 'g', 'a', 'r', 'b'}

	cc := DialRaw(t, e.Addrs[0])
	ctx := metadata.AppendToOutgoingContext(t.Context(), "authorization", bearer(token))
	var out []byte
	err := cc.Invoke(ctx, svcPath+"SignIn", garbage, &out, grpc.ForceCodecV2(rawCodec{}))
	wantCode(t, err, codes.InvalidArgument, refusal.MalformedBody) // native gRPC, a unary call
	st, err := cc.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true}, svcPath+"Watch", grpc.ForceCodecV2(rawCodec{}))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SendMsg(garbage); err != nil {
		t.Fatal(err)
	}
	_ = st.CloseSend()
	err = st.RecvMsg(&out)
	wantCode(t, err, codes.InvalidArgument, refusal.MalformedBody) // native gRPC, a stream's message

	post := poster(t, "http://"+addr+svcPath, token)
	resp, body := post("SignIn", "application/proto", garbage)
	if c, v := connectError(t, body); resp.StatusCode != http.StatusBadRequest || c != "invalid_argument" || v != refusal.MalformedBody {
		t.Errorf("Connect, a unary call: %d %s %s: %s", resp.StatusCode, c, v, body)
	}
	framed := append([]byte{0, 0, 0, 0, byte(len(garbage))}, garbage...)
	resp, body = post("Watch", "application/connect+proto", framed)
	if c, v := connectError(t, connectEnd(t, body)); c != "invalid_argument" || v != refusal.MalformedBody {
		t.Errorf("Connect, a stream's message: %d %s %s: %q", resp.StatusCode, c, v, body)
	}
	resp, body = post("SignIn", "application/grpc-web+proto", framed)
	got := cmp.Or(resp.Header.Get("Grpc-Status"), grpcWebTrailer(body, "grpc-status"))
	if got != fmt.Sprint(int(codes.InvalidArgument)) {
		t.Errorf("gRPC-Web: grpc-status %q (%s), want %d", got, cmp.Or(resp.Header.Get("Grpc-Message"), grpcWebTrailer(body, "grpc-message")), codes.InvalidArgument)
	}
}
