package engine

import (
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"
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

// AppendSeatRef appends SeatRef(seat) to b, for labels written without strings (ActionAppender).
func AppendSeatRef(b []byte, seat int) []byte {
	return append(strconv.AppendInt(append(b, seatRefPrefix...), int64(seat), 10), '}')
}

// HasSeatRef reports whether label names a seat by a SeatRef, which RenderLabel would replace.
func HasSeatRef(label string) bool { return strings.Contains(label, seatRefPrefix) }

// SeatName says how to call a seat in a rendered label: its player's display name, and whether the
// reader holds it. An empty name leaves the seat's number alone.
type SeatName func(seat int) (name string, you bool)

// RenderLabel replaces every seat reference in label with "seat N (Name)", "seat N (you)" for the
// reader's own seat, or "seat N" when names is nil or knows no name. N counts from 1, as people
// count seats: the API's seat 0 is "seat 1".
func RenderLabel(label string, names SeatName) string {
	if !HasSeatRef(label) {
		return label
	}
	return string(AppendLabel(make([]byte, 0, len(label)+16), label, names))
}

// AppendLabel appends label rendered as RenderLabel renders it to b: a stream that writes labels
// for a reader renders them into its own buffer, without allocating.
func AppendLabel(b []byte, label string, names SeatName) []byte {
	for {
		i := strings.Index(label, seatRefPrefix)
		if i < 0 {
			return append(b, label...)
		}
		b = append(b, label[:i]...)
		rest := label[i+len(seatRefPrefix):]
		end := strings.IndexByte(rest, '}')
		seat, ok := refSeat(rest[:max(end, 0)])
		if end < 0 || !ok {
			// Not a reference after all: keep the text as written.
			b = append(b, seatRefPrefix...)
			label = rest
			continue
		}
		b = appendSeatWords(b, seat, names)
		label = rest[end+1:]
	}
}

// refSeat reads the seat number of a reference as strconv.Atoi does (a sign allowed, negative
// numbers refused by the caller), without its error's allocation for text that is not a number.
func refSeat(s string) (int, bool) {
	digits := strings.TrimPrefix(s, "+")
	if digits == "" || len(digits) > 9 {
		n, err := strconv.Atoi(s)
		return n, err == nil && n >= 0
	}
	n := 0
	for i := range len(digits) {
		c := digits[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

func appendSeatWords(b []byte, seat int, names SeatName) []byte {
	// People count seats from 1: seat 0 of the API is "seat 1" in words.
	b = append(b, "seat "...)
	b = strconv.AppendInt(b, int64(seat)+1, 10)
	if names == nil {
		return b
	}
	switch name, you := names(seat); {
	case you:
		b = append(b, " (you)"...)
	case name != "":
		b = append(b, " ("...)
		b = append(b, name...)
		b = append(b, ')')
	}
	return b
}

// AndList joins phrases as a label says them: "a", "a and b", "a, b and c" ("" for none).
func AndList(xs []string) string {
	switch len(xs) {
	case 0:
		return ""
	case 1:
		return xs[0]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}

// SeatList names seats as a label does: "{seat:0}, {seat:2} and {seat:3}".
func SeatList(seats []uint32) string {
	refs := make([]string, len(seats))
	for i, p := range seats {
		refs[i] = SeatRef(int(p))
	}
	return AndList(refs)
}
