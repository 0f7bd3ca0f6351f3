package engine

// ActionAppender is what a game may add to Game so that the harness lists legal actions without
// building them as messages: at every commit the rules service sends the gateways every seat's
// legal actions, encoded and labelled (some 250 of them at a Sponsio betting turn), and a message,
// its sizing and marshalling, and a label string per action were a tenth of the service's CPU.
// A game without it is listed through EncodeAction and DescribeAction instead.
//
// Both methods must append exactly what the Game's own methods give, and nothing may depend on
// the bytes already in b: enginetest.CheckAppender checks a game's states against EncodeAction
// and DescribeAction.
type ActionAppender[S, A any] interface {
	// AppendAction appends EncodeAction(a) in the wire format, the bytes proto.Marshal writes for
	// it. The message is of the type Info().Action names.
	AppendAction(b []byte, a A) []byte
	// AppendLabel appends DescribeAction(s, seat, a).
	AppendLabel(b []byte, s S, seat int, a A) []byte
}

// LegalAppender is a State whose game is an ActionAppender (Erase makes it so).
type LegalAppender interface {
	// AppendLegal appends to b, for each of seat's legal actions in LegalLabelled's order, the
	// action's message in the wire format (of the type Info().Action names) and then its label; it
	// appends to ends the offset in b where each of them ends, two per action.
	AppendLegal(seat int, b []byte, ends []int) ([]byte, []int)
}

// appendingBound is a bound state of an ActionAppender game.
type appendingBound[S, A any] struct {
	bound[S, A]
}

var _ LegalAppender = (*appendingBound[int, int])(nil)

func (b *appendingBound[S, A]) AppendLegal(seat int, buf []byte, ends []int) ([]byte, []int) {
	for _, a := range b.g.Legal(b.s, seat, nil) {
		buf = b.app.AppendAction(buf, a)
		ends = append(ends, len(buf))
		buf = b.app.AppendLabel(buf, b.s, seat, a)
		ends = append(ends, len(buf))
	}
	return buf, ends
}
