package rules

import (
	"bytes"
	"sync"

	gamev1 "cardroom.dev/proto/gen/cardroom/game/v1"
	"google.golang.org/protobuf/proto"
)

// configCache keeps decoded table configurations: a table's configuration never changes, and
// decoding it on every action would cost more than the rest of the read. Entries are checked
// against the stored bytes, so a table id reused after expiry never sees a stale configuration.
// Callers must not modify the returned message.
type configCache struct {
	mu sync.Mutex
	m  map[string]cachedConfig
}

type cachedConfig struct {
	raw []byte
	cfg *gamev1.TableConfig
}

// maxCachedConfigs bounds the cache; past it the cache starts over (tables in play refill it).
const maxCachedConfigs = 16384

func (c *configCache) get(id string, raw []byte) (*gamev1.TableConfig, error) {
	c.mu.Lock()
	e, ok := c.m[id]
	c.mu.Unlock()
	if ok && bytes.Equal(e.raw, raw) {
		return e.cfg, nil
	}
	cfg := &gamev1.TableConfig{}
	if err := proto.Unmarshal(raw, cfg); err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxCachedConfigs {
		c.m = make(map[string]cachedConfig)
	}
	c.m[id] = cachedConfig{raw: bytes.Clone(raw), cfg: cfg}
	c.mu.Unlock()
	return cfg, nil
}
