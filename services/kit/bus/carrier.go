package bus

import (
	"net/textproto"

	"github.com/nats-io/nats.go"
)

// headerCarrier is propagation.HeaderCarrier for injecting into a message's header: the same keys
// (canonical MIME keys, as http.Header.Set writes them, so that propagation.HeaderCarrier finds
// them on the receiving side), without canonicalizing the propagators' usual keys again at every
// message, and with the header made only when something is injected.
type headerCarrier struct{ h *nats.Header }

// canonicalKey is textproto.CanonicalMIMEHeaderKey, with the keys of the W3C trace context and
// baggage propagators written out.
func canonicalKey(k string) string {
	switch k {
	case "traceparent":
		return "Traceparent"
	case "tracestate":
		return "Tracestate"
	case "baggage":
		return "Baggage"
	}
	return textproto.CanonicalMIMEHeaderKey(k)
}

func (c *headerCarrier) Get(key string) string {
	if v := (*c.h)[canonicalKey(key)]; len(v) > 0 {
		return v[0]
	}
	return ""
}

func (c *headerCarrier) Set(key, value string) {
	if *c.h == nil {
		*c.h = make(nats.Header, 2)
	}
	(*c.h)[canonicalKey(key)] = []string{value}
}

func (c *headerCarrier) Keys() []string {
	keys := make([]string, 0, len(*c.h))
	for k := range *c.h {
		keys = append(keys, k)
	}
	return keys
}
