package engine

import (
	"fmt"
	"sync"

	"google.golang.org/protobuf/proto"
)

// EncodedAction is an action as the wire carries it inside a google.protobuf.Any: the type URL and
// the encoded message. Both are shared (an engine keeps them for every table) and must not be
// changed.
type EncodedAction struct {
	TypeURL string
	Value   []byte
}

// maxCachedActions bounds each of an engine's two generations of encoded actions. When the newer
// fills it becomes the older and the older is dropped: the actions listed again and again (a
// betting turn's, a hand's cards) stay, found in the older and moved to the newer, while those
// that never come back (sabai-sabai's actions carry the turn; Sponsio's card changes and
// Saboteur's placements are many) leave.
const maxCachedActions = 1 << 15

// actionCache keeps the encoding of the actions an engine listed, so that a list built at every
// commit (the live update's, and the answers that carry legal actions) costs a lookup per action
// instead of a message built, sized and encoded: the same actions come back turn after turn. An
// action's encoding depends on the action alone (EncodeAction's contract).
type actionCache[A comparable] struct {
	mu   sync.RWMutex
	m    map[A]EncodedAction // the newer generation
	old  map[A]EncodedAction // the older
	urls map[string]string   // type URL by message name: one string per action type
}

func newActionCache[A comparable]() *actionCache[A] {
	return &actionCache[A]{m: map[A]EncodedAction{}, urls: map[string]string{}}
}

// encode returns the encodings of acts, in order.
func (c *actionCache[A]) encode(acts []A, enc func(A) proto.Message) ([]EncodedAction, error) {
	out := make([]EncodedAction, len(acts))
	missed := 0
	c.mu.RLock()
	for i, a := range acts {
		e, ok := c.m[a]
		if !ok {
			missed++
			continue
		}
		out[i] = e
	}
	c.mu.RUnlock()
	if missed == 0 {
		return out, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, a := range acts {
		if out[i].TypeURL != "" {
			continue
		}
		e, ok := c.m[a]
		if !ok {
			if e, ok = c.old[a]; !ok {
				var err error
				if e, err = c.encodeOne(a, enc); err != nil {
					return nil, err
				}
			}
			if len(c.m) >= maxCachedActions {
				c.old, c.m = c.m, make(map[A]EncodedAction, maxCachedActions)
			}
			c.m[a] = e
		}
		out[i] = e
	}
	return out, nil
}

// encodeOne encodes a; c.mu is held.
func (c *actionCache[A]) encodeOne(a A, enc func(A) proto.Message) (EncodedAction, error) {
	m := enc(a)
	b, err := proto.Marshal(m)
	if err != nil {
		return EncodedAction{}, fmt.Errorf("encode action: %w", err)
	}
	name := string(m.ProtoReflect().Descriptor().FullName())
	url, ok := c.urls[name]
	if !ok {
		url = "type.googleapis.com/" + name
		c.urls[name] = url
	}
	return EncodedAction{TypeURL: url, Value: b}, nil
}
