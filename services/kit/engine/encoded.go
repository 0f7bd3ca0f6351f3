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

// maxCachedActions bounds an engine's cache of encoded actions: past it the cache starts again
// (a game whose actions carry a counter, such as sabai-sabai's turn, fills it with actions that
// never come back).
const maxCachedActions = 1 << 15

// actionCache keeps the encoding of every action an engine listed, so that a list built at every
// commit (the live update's, and the answers that carry legal actions) costs a lookup per action
// instead of a message built, sized and encoded: the same actions come back turn after turn. An
// action's encoding depends on the action alone (EncodeAction's contract).
type actionCache[A comparable] struct {
	mu   sync.RWMutex
	m    map[A]EncodedAction
	urls map[string]string // type URL by message name: one string per action type
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
	if len(c.m)+missed > maxCachedActions {
		clear(c.m)
	}
	for i, a := range acts {
		if out[i].TypeURL != "" {
			continue
		}
		if e, ok := c.m[a]; ok {
			out[i] = e
			continue
		}
		m := enc(a)
		b, err := proto.Marshal(m)
		if err != nil {
			return nil, fmt.Errorf("encode action: %w", err)
		}
		name := string(m.ProtoReflect().Descriptor().FullName())
		url, ok := c.urls[name]
		if !ok {
			url = "type.googleapis.com/" + name
			c.urls[name] = url
		}
		out[i] = EncodedAction{TypeURL: url, Value: b}
		c.m[a] = out[i]
	}
	return out, nil
}
