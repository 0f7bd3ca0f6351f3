package play

import (
	sabaisabaiv1 "cardroom.dev/proto/gen/cardroom/sabaisabai/v1"
	saboteurv1 "cardroom.dev/proto/gen/cardroom/saboteur/v1"
	sapotagemv1 "cardroom.dev/proto/gen/cardroom/sapotagem/v1"
	sponsiov1 "cardroom.dev/proto/gen/cardroom/sponsio/v1"
	sabaisabai "cardroom.dev/services/sabaisabai/engine"
	saboteur "cardroom.dev/services/saboteur/engine"
	sapotagem "cardroom.dev/services/sapotagem/engine"
	sponsio "cardroom.dev/services/sponsio/engine"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// viewRenderers draw the views of the games this binary knows as their engines render them for
// people (Saboteur's board as a picture, hands as cards); any other view is shown in its text form.
var viewRenderers = map[protoreflect.FullName]func(proto.Message) string{
	"cardroom.sabaisabai.v1.View": func(m proto.Message) string { return sabaisabai.Render(m.(*sabaisabaiv1.View)) },
	"cardroom.saboteur.v1.View":   func(m proto.Message) string { return saboteur.Render(m.(*saboteurv1.View)) },
	"cardroom.sapotagem.v1.View":  func(m proto.Message) string { return sapotagem.Render(m.(*sapotagemv1.View)) },
	"cardroom.sponsio.v1.View":    func(m proto.Message) string { return sponsio.Render(m.(*sponsiov1.View)) },
}
