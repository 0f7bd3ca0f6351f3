package play

import (
	"strings"

	"cardroom.dev/client"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
)

// moves is what the client knows of its seat's legal moves: the newest list its stream brought,
// and the newest table version it has seen (from an event, a list or the answer to its own move).
// A list older than that version is dropped: the table has moved past it, and the stream brings
// the next one if the seat still may act.
type moves struct {
	seen    uint64
	version uint64
	actions []*anypb.Any    // nil: none to play
	decoded []proto.Message // the actions, decoded (nil where the type is unknown)
	labels  []string        // the actions in words
}

// saw notes that the table reached version v.
func (m *moves) saw(v uint64) {
	m.seen = max(m.seen, v)
	if m.actions != nil && m.version < m.seen {
		m.clear()
	}
}

func (m *moves) clear() { m.actions, m.decoded, m.labels = nil, nil, nil }

// offer keeps the list (actions at version, labels beside them, or none) unless the table has
// moved past it or a newer list is held; true when it changed the moves held. An empty list (the
// seat no longer may act) forgets the one held.
func (m *moves) offer(version uint64, actions []*anypb.Any, labels []string) bool {
	if version < m.seen || (m.actions != nil && version < m.version) {
		return false
	}
	m.seen = version
	if len(actions) == 0 {
		had := m.actions != nil
		m.clear()
		return had
	}
	if m.actions != nil && m.version == version && sameActions(m.actions, actions) {
		return false
	}
	m.version = version
	m.actions = actions
	m.decoded = make([]proto.Message, len(actions))
	m.labels = make([]string, len(actions))
	for i, a := range actions {
		if d, err := a.UnmarshalNew(); err == nil {
			m.decoded[i] = d
		}
		if i < len(labels) && labels[i] != "" {
			m.labels[i] = labels[i]
		} else {
			m.labels[i] = textOf(a)
		}
	}
	return true
}

func sameActions(a, b []*anypb.Any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !proto.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// offerChoices offers a list the Watch stream brought, with the words the gateway puts beside its
// moves (none: the client words them).
func (m *moves) offerChoices(c client.Choices) bool {
	return m.offer(c.Version, c.Actions, c.Labels)
}

// entry is one line of the move menu: a move (index into the list) or a group of moves chosen in
// a second step.
type entry struct {
	words string
	index int    // the move's index, or -1 for a group
	group string // the group's key
}

// menu is the move menu: the list's moves, grouped by the game at the first step (Sponsio's card to
// open, Saboteur's card to place), and the group chosen, if any.
type menu struct {
	group  string // "": the first step
	cursor int
	typed  string // digits typed so far
	hidden bool   // the player put the list away ("m" shows it again)
}

// entries are the lines of the menu at its step. A group of one move is that move.
func (mn *menu) entries(g game, m *moves) []entry {
	if m.actions == nil {
		return nil
	}
	keys := make([]string, len(m.actions))
	groupWords := map[string]string{}
	count := map[string]int{}
	for i, d := range m.decoded {
		if g == nil || d == nil {
			continue
		}
		k, w := g.group(d)
		keys[i] = k
		if k != "" {
			count[k]++
			if _, ok := groupWords[k]; !ok {
				groupWords[k] = w
			}
		}
	}
	var es []entry
	if mn.group != "" {
		for i, k := range keys {
			if k == mn.group {
				es = append(es, entry{words: stepWords(m.labels[i], k), index: i})
			}
		}
		return es
	}
	shown := map[string]bool{}
	for i, k := range keys {
		switch {
		case k == "" || count[k] == 1:
			es = append(es, entry{words: m.labels[i], index: i})
		case !shown[k]:
			shown[k] = true
			es = append(es, entry{words: groupWords[k], index: -1, group: k})
		}
	}
	return es
}

// scope are the moves on offer at the menu's step, decoded (for marking them on the table).
func (mn *menu) scope(g game, m *moves) []proto.Message {
	var out []proto.Message
	for i, d := range m.decoded {
		if d == nil {
			continue
		}
		if mn.group != "" {
			if k, _ := g.group(d); k != mn.group {
				continue
			}
		}
		out = append(out, m.decoded[i])
	}
	return out
}

// follow keeps the menu sensible for a new list: the group chosen stays while it still has moves,
// and the cursor stays on the same words when they are still there.
func (mn *menu) follow(g game, m *moves, before string) {
	mn.typed = ""
	if mn.group != "" {
		found := false
		for _, e := range mn.entries(g, m) {
			found = found || e.index >= 0
		}
		if !found {
			mn.group = ""
		}
	}
	es := mn.entries(g, m)
	mn.cursor = min(mn.cursor, max(len(es)-1, 0))
	for i, e := range es {
		if e.words == before {
			mn.cursor = i
		}
	}
}

// stepWords are a move's words at the second step: what its group's words ("open green 9") already
// said is left out ("bet on coupon IV"), when the move's words begin with them.
func stepWords(label, group string) string {
	if len(label) <= len(group) || !strings.EqualFold(label[:len(group)], group) {
		return label
	}
	rest := strings.TrimLeft(label[len(group):], " ,:;")
	if rest == "" || label[len(group)] != ' ' && label[len(group)] != ',' && label[len(group)] != ':' {
		return label
	}
	return rest
}
