package gateway

import (
	"unicode/utf8"

	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	rulesv1 "cardroom.dev/proto/gen/cardroom/rules/v1"
	"cardroom.dev/services/kit/rules/wire"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
)

// decodeUpdate decodes a live update (cardroom.rules.v1.TableUpdate) as proto.Unmarshal does, but
// each seat's legal actions in a handful of allocations instead of three or four per action: a
// betting turn of Sponsio lists some 250, and every update of a table is decoded once per gateway.
// The actions' values share data, which must not change afterwards; the type URLs and labels share
// one string per seat. Anything the fast path does not expect (unknown fields, invalid UTF-8, a
// malformed message) is left to proto.Unmarshal, which decides.
func decodeUpdate(data []byte) (*rulesv1.TableUpdate, error) {
	u := &rulesv1.TableUpdate{}
	if decodeUpdateFast(data, u) {
		return u, nil
	}
	u = &rulesv1.TableUpdate{}
	if err := proto.Unmarshal(data, u); err != nil {
		return nil, err
	}
	return u, nil
}

func decodeUpdateFast(b []byte, u *rulesv1.TableUpdate) bool {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return false
		}
		b = b[n:]
		switch {
		case typ == protowire.BytesType && (num == wire.UpdateTableID || num == wire.UpdateEvents || num == wire.UpdateLegal):
			v, m := protowire.ConsumeBytes(b)
			if m < 0 {
				return false
			}
			b = b[m:]
			switch num {
			case wire.UpdateTableID:
				if !utf8.Valid(v) {
					return false
				}
				u.TableId = string(v)
			case wire.UpdateEvents:
				e := &eventsv1.Event{}
				if proto.Unmarshal(v, e) != nil {
					return false
				}
				u.Events = append(u.Events, e)
			case wire.UpdateLegal:
				sa := decodeSeatActions(v)
				if sa == nil {
					return false
				}
				u.Legal = append(u.Legal, sa)
			}
		case typ == protowire.VarintType && (num == wire.UpdateVersion || num == wire.UpdateOmitted):
			v, m := protowire.ConsumeVarint(b)
			if m < 0 {
				return false
			}
			b = b[m:]
			if num == wire.UpdateVersion {
				u.Version = v
			} else {
				u.LegalOmitted = v != 0
			}
		default:
			return false
		}
	}
	return true
}

// decodeSeatActions decodes one cardroom.rules.v1.SeatActions (nil: not as expected). It counts
// first, then fills one slice of Any and one of labels.
func decodeSeatActions(v []byte) *rulesv1.SeatActions {
	sa := &rulesv1.SeatActions{}
	acts, labels := 0, 0
	for b := v; len(b) > 0; {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil
		}
		b = b[n:]
		switch {
		case num == wire.SeatActionsSeat && typ == protowire.VarintType:
			s, m := protowire.ConsumeVarint(b)
			if m < 0 {
				return nil
			}
			b = b[m:]
			sa.Seat = uint32(s)
		case (num == wire.SeatActionsActions || num == wire.SeatActionsLabels) && typ == protowire.BytesType:
			x, m := protowire.ConsumeBytes(b)
			if m < 0 {
				return nil
			}
			b = b[m:]
			if num == wire.SeatActionsActions {
				acts++
			} else {
				if !utf8.Valid(x) {
					return nil
				}
				labels++
			}
		default:
			return nil
		}
	}
	// Offsets into v are offsets into all.
	all := string(v)
	anys := make([]anypb.Any, acts)
	if acts > 0 {
		sa.Actions = make([]*anypb.Any, acts)
	}
	if labels > 0 {
		sa.Labels = make([]string, 0, labels)
	}
	i := 0
	for b := v; len(b) > 0; {
		num, typ, n := protowire.ConsumeTag(b)
		b = b[n:]
		if typ == protowire.VarintType {
			_, m := protowire.ConsumeVarint(b)
			b = b[m:]
			continue
		}
		x, m := protowire.ConsumeBytes(b)
		at := len(v) - len(b) + (m - len(x)) // x's offset in v
		b = b[m:]
		if num == wire.SeatActionsLabels {
			sa.Labels = append(sa.Labels, all[at:at+len(x)])
			continue
		}
		a := &anys[i]
		if !decodeAny(x, all[at:at+len(x)], a) {
			return nil
		}
		sa.Actions[i] = a
		i++
	}
	return sa
}

// decodeAny decodes a google.protobuf.Any from x (s: the same bytes as a string, which the type
// URL shares; the value shares x).
func decodeAny(x []byte, s string, a *anypb.Any) bool {
	for off := 0; off < len(x); {
		num, typ, n := protowire.ConsumeTag(x[off:])
		if n < 0 || typ != protowire.BytesType || (num != wire.AnyTypeURL && num != wire.AnyValue) {
			return false
		}
		off += n
		v, m := protowire.ConsumeBytes(x[off:])
		if m < 0 {
			return false
		}
		start := off + m - len(v)
		off += m
		if num == wire.AnyTypeURL {
			if !utf8.Valid(v) {
				return false
			}
			a.TypeUrl = s[start : start+len(v)]
		} else {
			a.Value = x[start : start+len(v) : start+len(v)]
		}
	}
	return true
}
