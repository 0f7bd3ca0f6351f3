package store

import (
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/redis/go-redis/v9"
)

// Unavailable reports whether err says that the store cannot serve right now — Redis down,
// restarting or still loading its data, the connection cut, the pool exhausted — rather than that
// the request was wrong. Services answer such errors UNAVAILABLE, which clients retry (with the
// same action id, so nothing is applied twice).
func Unavailable(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, ErrUnconfirmed) {
		return true
	}
	var op *net.OpError
	var ne net.Error
	switch {
	case errors.As(err, &op),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, redis.ErrPoolTimeout):
		return true
	case errors.As(err, &ne) && ne.Timeout():
		return true
	}
	var re redis.Error
	if errors.As(err, &re) {
		msg := re.Error()
		for _, p := range []string{"LOADING", "MASTERDOWN", "READONLY", "TRYAGAIN", "CLUSTERDOWN", "BUSY"} {
			if strings.HasPrefix(msg, p) {
				return true
			}
		}
	}
	return false
}
