package main

import (
	"bufio"
	"encoding/json"
	"io"
	"sync"
	"time"
)

// A record is one timed fact about one table, written as a JSON line by -record for
// `drive recovery` (and anyone else) to read. Times are the wall clock in Unix nanoseconds, the
// clock scripts/chaos stamps its faults with.
type record struct {
	T     int64  `json:"t"`
	Table int    `json:"table"`          // the table's number in this run (0, 1, ...)
	Kind  string `json:"kind"`           // see the kinds below
	Game  string `json:"game,omitempty"` // begin
	ID    string `json:"id,omitempty"`   // table id, once known (finished)
	Call  string `json:"call,omitempty"` // retry, call: the RPC
	Code  string `json:"code,omitempty"` // retry, call, broken: the gRPC code
	// Sent is when the call's first attempt was sent (call).
	Sent    int64  `json:"sent,omitempty"`
	Version uint64 `json:"version,omitempty"` // call (Act answered OK): the table's version after it; event
	Seq     uint64 `json:"seq,omitempty"`     // event; resumed: the sequence resumed after
	Gateway string `json:"gateway,omitempty"` // retry, broken, resumed: the gateway concerned
	Err     string `json:"err,omitempty"`     // end: why the table failed
}

// Kinds of record.
const (
	kindBegin    = "begin"    // the table's first call is about to be sent
	kindRetry    = "retry"    // one attempt of a call failed and is repeated
	kindCall     = "call"     // a call's final answer, after its retries
	kindEvent    = "event"    // an event received on the table's Watch stream
	kindBroken   = "broken"   // the Watch stream ended with an error before the table finished
	kindResumed  = "resumed"  // a new Watch stream is open after a broken one
	kindFinished = "finished" // TableFinished received
	kindEnd      = "end"      // the table is done (replay checked) or failed (err)
)

// recorder writes records as JSON lines; a nil recorder drops them.
type recorder struct {
	mu  sync.Mutex
	w   *bufio.Writer
	enc *json.Encoder
	err error
}

func newRecorder(w io.Writer) *recorder {
	bw := bufio.NewWriterSize(w, 64<<10)
	return &recorder{w: bw, enc: json.NewEncoder(bw)}
}

func (r *recorder) add(rec record) {
	if r == nil {
		return
	}
	if rec.T == 0 {
		rec.T = time.Now().UnixNano()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err == nil {
		r.err = r.enc.Encode(rec)
	}
}

// flush writes what is buffered and reports the first error.
func (r *recorder) flush() error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err == nil {
		r.err = r.w.Flush()
	}
	return r.err
}
