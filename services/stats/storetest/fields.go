package storetest

import (
	"fmt"
	"strings"

	sabaisabaiv1 "cardroom.dev/proto/gen/cardroom/sabaisabai/v1"
	sapotagemv1 "cardroom.dev/proto/gen/cardroom/sapotagem/v1"
	"google.golang.org/protobuf/proto"
)

// fmtFields writes the generated option messages' non-default fields as "name=value" words.
func fmtFields(m proto.Message) string {
	var b strings.Builder
	switch o := m.(type) {
	case *sapotagemv1.Options:
		if o.UnderArrest {
			b.WriteString(" under_arrest=true")
		}
		if o.FrogsOnDuty {
			b.WriteString(" frogs_on_duty=true")
		}
	case *sabaisabaiv1.Options:
		if o.PeekAtStart != 0 {
			fmt.Fprintf(&b, " peek_at_start=%d", o.PeekAtStart)
		}
		if o.Rounds != 0 {
			fmt.Fprintf(&b, " rounds=%d", o.Rounds)
		}
	default:
		panic(fmt.Sprintf("options %T", m))
	}
	return b.String()
}
