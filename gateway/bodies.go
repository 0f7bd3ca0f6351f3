package gateway

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	"cardroom.dev/services/kit/refusal"
	"connectrpc.com/connect"
	"connectrpc.com/vanguard"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Bodies of the browser protocols (gRPC-Web, Connect binary and JSON) pass through vanguard, which
// reads, decompresses and decodes them before the gateway's handlers see a message. Each of those
// steps is bounded here, so that no body holds more than a few times --max-request-bytes in memory:
//
//   - reading: a request body as sent (compressed or not) is read to browserBufferBytes at most
//     (boundedBodies); past it, resource_exhausted with REQUEST_TOO_LARGE. Vanguard's own buffer
//     limit, which it applies to requests and answers alike, is set far higher
//     (browserAnswerBytes), for the gateway's own answers: a long game's replay with the table
//     after every step is larger than any request may be;
//   - decompressing: gzip is inflated by boundedGzip, which stops at browserBufferBytes and answers
//     invalid_argument with REQUEST_TOO_LARGE (a 500 KB gzip of 500 MB of JSON costs 256 KiB);
//   - decoding: JSON that is not a message of the call's type is invalid_argument with
//     MALFORMED_REQUEST instead of vanguard's unknown; binary bodies pass to gRPC undecoded, whose
//     INTERNAL for a bad one the gateway's service turns into the same (decoding.go), as on
//     native gRPC;
//   - an empty stream is one empty message (emptyStreams);
//   - and then the message itself is over --max-request-bytes or not, as on native gRPC
//     (REQUEST_TOO_LARGE from the gateway's handlers).
//
// Native gRPC bodies are bounded by gRPC's receive limit (recvCeiling), which applies to the
// decompressed message as well: RESOURCE_EXHAUSTED, gRPC's own.

// browserBufferBytes is the most vanguard buffers of one message: four times the gateway's
// request limit (JSON spells a message out at two to four times its binary size), at least 64 KiB.
func browserBufferBytes(maxRequestBytes int) int {
	return max(64<<10, 4*maxRequestBytes)
}

// browserAnswerBytes is the most vanguard buffers of one message, which for requests
// boundedBodies keeps far lower: the largest answer the gateway gives a browser (GetReplay with
// every step's view, some MiB for the longest games).
const browserAnswerBytes = 32 << 20

// browserBodyOptions are the transcoder's options bounding and checking bodies (see above).
func browserBodyOptions(maxRequestBytes int) ([]vanguard.TranscoderOption, vanguard.ServiceOption) {
	limit := browserBufferBytes(maxRequestBytes)
	return []vanguard.TranscoderOption{
		vanguard.WithCompression("gzip",
			func() connect.Compressor { return gzip.NewWriter(io.Discard) },
			func() connect.Decompressor {
				return &boundedGzip{limit: int64(limit), maxRequestBytes: maxRequestBytes}
			}),
		vanguard.WithCodec(func(res vanguard.TypeResolver) vanguard.Codec { return checkedJSON{vanguard.NewJSONCodec(res)} }),
	}, vanguard.WithMaxMessageBufferBytes(browserAnswerBytes)
}

// boundedBodies lets no request body (as sent: compressed or not) over limit bytes reach vanguard:
// one whose Content-Length is over it is refused before it is read, one without a length is read
// to the limit first. The refusal, resource_exhausted with REQUEST_TOO_LARGE, is written in the
// request's protocol (Connect, gRPC-Web or gRPC) by connect's ErrorWriter.
func boundedBodies(h http.Handler, limit int64, maxRequestBytes int) http.Handler {
	ew := connect.NewErrorWriter()
	refuse := func(w http.ResponseWriter, r *http.Request) {
		_ = ew.Write(w, r, connectRefusal(connect.CodeResourceExhausted, &gamev1.RuleViolation{Code: refusal.TooLarge,
			Message: fmt.Sprintf("the request is larger than %d bytes", maxRequestBytes)}))
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Body == nil || r.Body == http.NoBody || !ew.IsSupported(r):
		case r.ContentLength > limit:
			refuse(w, r)
			return
		case r.ContentLength < 0:
			body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
			if int64(len(body)) > limit {
				refuse(w, r)
				return
			}
			if err != nil {
				_ = ew.Write(w, r, connect.NewError(connect.CodeCanceled, fmt.Errorf("reading the request: %w", err)))
				return
			}
			r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		}
		h.ServeHTTP(w, r)
	})
}

// connectRefusal is a refusal as vanguard answers it: the same status code, message and
// RuleViolation detail as the gateway's own refusals over gRPC.
func connectRefusal(code connect.Code, v *gamev1.RuleViolation) error {
	err := connect.NewError(code, errors.New(v.GetMessage()))
	if d, derr := connect.NewErrorDetail(v); derr == nil {
		err.AddDetail(d)
	}
	return err
}

// boundedGzip inflates at most limit bytes of one message; past them its Read fails with
// REQUEST_TOO_LARGE (vanguard's decompression reads until EOF whatever the size otherwise).
type boundedGzip struct {
	gz              gzip.Reader
	limit, n        int64
	maxRequestBytes int
}

func (d *boundedGzip) Reset(r io.Reader) error {
	d.n = 0
	return d.gz.Reset(r)
}

func (d *boundedGzip) Read(p []byte) (int, error) {
	if rest := d.limit + 1 - d.n; int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := d.gz.Read(p)
	d.n += int64(n)
	if d.n > d.limit {
		return n, connectRefusal(connect.CodeInvalidArgument, &gamev1.RuleViolation{Code: refusal.TooLarge,
			Message: fmt.Sprintf("the request is larger than %d bytes (once decompressed)", d.maxRequestBytes)})
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return n, malformed(fmt.Errorf("gzip: %w", err))
	}
	return n, err
}

func (d *boundedGzip) Close() error { return d.gz.Close() }

func malformed(err error) error {
	return connectRefusal(connect.CodeInvalidArgument, &gamev1.RuleViolation{Code: refusal.MalformedBody,
		Message: fmt.Sprintf("the request body is not a message of this call's type: %v", err)})
}

// checkedJSON is vanguard's JSON codec whose decoding errors are the client's (invalid_argument,
// MALFORMED_REQUEST), not vanguard's unknown.
type checkedJSON struct{ *vanguard.JSONCodec }

func (c checkedJSON) Unmarshal(data []byte, msg proto.Message) error {
	if err := c.JSONCodec.Unmarshal(data, msg); err != nil {
		return malformed(err)
	}
	return nil
}

func (c checkedJSON) UnmarshalField(data []byte, msg proto.Message, field protoreflect.FieldDescriptor) error {
	if err := c.JSONCodec.UnmarshalField(data, msg, field); err != nil {
		return malformed(err)
	}
	return nil
}

// emptyStreams reads a Connect or gRPC-Web stream whose body is empty as a stream of one empty
// request message, as Connect reads an empty unary body: the call then refuses it as any empty
// request (Watch: INVALID_ARGUMENT, MISSING_FIELD table_id). gRPC itself would answer INTERNAL
// "cardinality violation", and write that status before any of the gateway's code could
// change it.
func emptyStreams(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ct := r.Header.Get("Content-Type")
		enveloped := strings.HasPrefix(ct, "application/connect+") ||
			strings.HasPrefix(ct, "application/grpc-web") && !strings.HasPrefix(ct, "application/grpc-web-text")
		if r.Method == http.MethodPost && enveloped && r.ContentLength <= 0 {
			br := bufio.NewReaderSize(r.Body, 16)
			if _, err := br.Peek(1); errors.Is(err, io.EOF) {
				empty := []byte{0, 0, 0, 0, 0}
				if strings.HasSuffix(ct, "json") {
					empty = []byte{0, 0, 0, 0, 2, '{', '}'}
				}
				r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(empty)), int64(len(empty))
			} else {
				r.Body = struct {
					io.Reader
					io.Closer
				}{br, r.Body}
			}
		}
		h.ServeHTTP(w, r)
	})
}
