package app

import (
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func TestRetriesDefault(t *testing.T) {
	for _, c := range []struct {
		url     string
		retries int
		backoff time.Duration
	}{
		{"redis://127.0.0.1:6379/0", 20, 250 * time.Millisecond},
		{"redis://127.0.0.1:6379/0?max_retries=2", 2, 250 * time.Millisecond},
		{"redis://127.0.0.1:6379/0?max_retries=5&max_retry_backoff=1s", 5, time.Second},
	} {
		opt, err := redis.ParseURL(c.url)
		if err != nil {
			t.Fatal(err)
		}
		retriesDefault(opt, c.url)
		if opt.MaxRetries != c.retries || opt.MaxRetryBackoff != c.backoff {
			t.Errorf("%s: %d retries, backoff %v; want %d, %v", c.url, opt.MaxRetries, opt.MaxRetryBackoff, c.retries, c.backoff)
		}
	}
}
