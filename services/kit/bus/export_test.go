package bus

import (
	"context"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// SetWatchTimeout sets how long Watch waits for the server's confirmation, until the returned
// function restores it.
func SetWatchTimeout(d time.Duration) (restore func()) {
	old := watchTimeout
	watchTimeout = d
	return func() { watchTimeout = old }
}

// PublicDurable is the consumer ConsumePublic reads, for tests of its configuration.
func (b *Bus) PublicDurable(ctx context.Context, opt DurableOptions) (jetstream.Consumer, error) {
	return b.publicDurable(ctx, opt)
}

// ConsumerInfo is consumerInfo.
var ConsumerInfo = consumerInfo
