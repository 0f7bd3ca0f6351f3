package engine

import (
	"strconv"
	"strings"
	"unicode"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Describer puts a game's actions and events into words for people, so that every client (the
// terminal client, the web client, a third party's) shows moves and events without knowing the game.
// Each game writes it once, in its engine package.
//
// Labels are short, lower-case sentences or phrases in English ("play yellow 1 (Ducks)",
// "{seat:2} jumps", "bet on coupon III with green 2, doubled"). A seat is named by SeatRef, never
// by its number alone: the gateway puts the seat's display name in its place (RenderLabel).
type Describer[S, A any] interface {
	// DescribeAction labels an action seat may take at s. The labels of seat's legal actions at s are
	// non-empty and pairwise different, so a person can pick one by its label.
	DescribeAction(s S, seat int, a A) string
	// DescribeEvent labels one of the game's event payloads (or "" for a payload it does not know).
	// It reads the payload only, so the label says nothing its audience may not know.
	DescribeEvent(payload proto.Message) string
}

// seatRefPrefix opens a seat reference in a label; "}" closes it.
const seatRefPrefix = "{seat:"

// SeatRef is how a label names a seat: a token that RenderLabel replaces with the seat's name as
// the reader should see it.
func SeatRef(seat int) string { return seatRefPrefix + strconv.Itoa(seat) + "}" }

// HasSeatRef reports whether label names a seat by a SeatRef, which RenderLabel would replace.
func HasSeatRef(label string) bool { return strings.Contains(label, seatRefPrefix) }

// SeatName says how to call a seat in a rendered label: its player's display name, and whether the
// reader holds it. An empty name leaves the seat's number alone.
type SeatName func(seat int) (name string, you bool)

// RenderLabel replaces every seat reference in label with "seat N (Name)", "seat N (you)" for the
// reader's own seat, or "seat N" when names is nil or knows no name.
func RenderLabel(label string, names SeatName) string {
	i := strings.Index(label, seatRefPrefix)
	if i < 0 {
		return label
	}
	var b strings.Builder
	b.Grow(len(label) + 16)
	for i >= 0 {
		b.WriteString(label[:i])
		rest := label[i+len(seatRefPrefix):]
		end := strings.IndexByte(rest, '}')
		seat, err := strconv.Atoi(rest[:max(end, 0)])
		if end < 0 || err != nil || seat < 0 {
			// Not a reference after all: keep the text as written.
			b.WriteString(seatRefPrefix)
			label = rest
		} else {
			b.WriteString(seatWords(seat, names))
			label = rest[end+1:]
		}
		i = strings.Index(label, seatRefPrefix)
	}
	b.WriteString(label)
	return b.String()
}

func seatWords(seat int, names SeatName) string {
	s := "seat " + strconv.Itoa(seat)
	if names == nil {
		return s
	}
	switch name, you := names(seat); {
	case you:
		return s + " (you)"
	case name != "":
		return s + " (" + name + ")"
	}
	return s
}

// genericLabel is the label of a message whose game has no Describer: the name, in words, of the
// oneof field it sets ("card_played" is "card played"), or else of its type ("TableCreated" is
// "table created").
func genericLabel(m proto.Message) string {
	if m == nil {
		return "event"
	}
	r := m.ProtoReflect()
	var name string
	r.Range(func(fd protoreflect.FieldDescriptor, _ protoreflect.Value) bool {
		if fd.ContainingOneof() != nil {
			name = string(fd.Name())
			return false
		}
		return true
	})
	if name == "" {
		name = string(r.Descriptor().Name())
	}
	return inWords(name)
}

// inWords turns a snake_case or CamelCase name into lower-case words.
func inWords(name string) string {
	var b strings.Builder
	b.Grow(len(name) + 4)
	prevLower := false
	for _, c := range name {
		switch {
		case c == '_':
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			prevLower = false
			continue
		case unicode.IsUpper(c):
			if prevLower {
				b.WriteByte(' ')
			}
			c = unicode.ToLower(c)
			prevLower = false
		default:
			prevLower = true
		}
		b.WriteRune(c)
	}
	return b.String()
}

// dedupe numbers labels that repeat an earlier one ("play", "play (2)", ...), so that generic labels
// still tell the actions apart.
func dedupe(labels []string) {
	seen := make(map[string]int, len(labels))
	for _, l := range labels {
		seen[l]++
	}
	if len(seen) == len(labels) {
		return
	}
	count := make(map[string]int, len(labels))
	for i, l := range labels {
		count[l]++
		if count[l] == 1 {
			continue
		}
		for n := count[l]; ; n++ {
			cand := l + " (" + strconv.Itoa(n) + ")"
			if _, taken := seen[cand]; !taken {
				labels[i], seen[cand] = cand, 1
				break
			}
		}
	}
}
