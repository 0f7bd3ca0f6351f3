package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/redis/go-redis/v9"
)

type redisErr string

func (e redisErr) Error() string { return string(e) }
func (redisErr) RedisError()     {}

func TestUnavailable(t *testing.T) {
	for err, want := range map[error]bool{
		nil:                            false,
		errors.New("bad state"):        false,
		redis.Nil:                      false,
		context.Canceled:               false,
		io.EOF:                         true,
		fmt.Errorf("load: %w", io.EOF): true,
		&net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}:                      true,
		fmt.Errorf("commit: %w", syscall.ECONNRESET):                             true,
		redis.ErrPoolTimeout:                                                     true,
		fmt.Errorf("load: %w", redisErr("LOADING Redis is loading the dataset")): true,
		redisErr("ERR unknown command"):                                          false,
		redisErr("NOSCRIPT No matching script"):                                  false,
		fmt.Errorf("commit table: %w: 0 of 1 replicas in 1s", ErrUnconfirmed):    true,
	} {
		if got := Unavailable(err); got != want {
			t.Errorf("Unavailable(%v) = %v, want %v", err, got, want)
		}
	}
}
