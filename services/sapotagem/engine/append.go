package engine

import (
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/kit/engine/pbappend"
	"google.golang.org/protobuf/encoding/protowire"
)

var _ engine.ActionAppender[*State, Action] = Game{}

// Field numbers of cardroom.sapotagem.v1.Action and the messages in it (TestAppender checks the
// bytes against proto.Marshal).
const (
	fieldJump        protowire.Number = 1
	fieldPlay        protowire.Number = 2
	fieldPick        protowire.Number = 3
	fieldDecline     protowire.Number = 4
	fieldChooseTrump protowire.Number = 5

	fieldJumpAreaCard protowire.Number = 1
	fieldJumpBomb     protowire.Number = 2
	fieldJumpFugitive protowire.Number = 3

	fieldPlayCard   protowire.Number = 1
	fieldPlayTarget protowire.Number = 2

	fieldPickCard          protowire.Number = 1
	fieldChooseTrumpColour protowire.Number = 1

	fieldCardColour  protowire.Number = 1
	fieldCardRank    protowire.Number = 2
	fieldCardFaction protowire.Number = 3
)

// AppendAction implements engine.ActionAppender: EncodeAction's message, written directly.
func (Game) AppendAction(b []byte, a Action) []byte {
	var at int
	switch a.Kind {
	case KindJump:
		b, at = pbappend.Open(b, fieldJump)
		b = appendCardField(b, fieldJumpAreaCard, a.Card)
		b = appendCardField(b, fieldJumpBomb, a.Bomb)
		b = appendCardField(b, fieldJumpFugitive, a.Fugitive)
	case KindPlay:
		b, at = pbappend.Open(b, fieldPlay)
		b = appendCardField(b, fieldPlayCard, a.Card)
		if a.Target >= 0 {
			// An optional field: present when set, zero included.
			b = pbappend.Present(b, fieldPlayTarget, uint64(a.Target))
		}
	case KindPick:
		b, at = pbappend.Open(b, fieldPick)
		b = appendCardField(b, fieldPickCard, a.Card)
	case KindDecline:
		return pbappend.Empty(b, fieldDecline)
	case KindChooseTrump:
		b, at = pbappend.Open(b, fieldChooseTrump)
		b = pbappend.Uint(b, fieldChooseTrumpColour, uint64(colourPB(a.Card)))
	default:
		return b // an Action with nothing set
	}
	return pbappend.Close(b, at)
}

// appendCardField appends card c as field n, as cardPB makes it (nothing for -1).
func appendCardField(b []byte, n protowire.Number, c int8) []byte {
	if c < 0 {
		return b
	}
	b, at := pbappend.Open(b, n)
	b = pbappend.Uint(b, fieldCardColour, uint64(colourOf(c)+1))
	b = pbappend.Uint(b, fieldCardRank, uint64(rankOf(c)))
	b = pbappend.Uint(b, fieldCardFaction, uint64(factionOf(c)+1))
	return pbappend.Close(b, at)
}
