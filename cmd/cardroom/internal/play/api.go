package play

import (
	eventsv1 "cardroom.dev/proto/gen/cardroom/events/v1"
	gatewayv1 "cardroom.dev/proto/gen/cardroom/gateway/v1"
)

// The parts of the gateway's API that carry words and identity, in one place.

// legalLabels are the words the gateway puts beside a list's moves (none: the client words them).
func legalLabels(l *gatewayv1.LegalActions) []string { return l.GetLabels() }

// eventLabel is the words the gateway puts on an event ("": the client words it).
func eventLabel(e *eventsv1.Event) string { return e.GetLabel() }

// defaultName is the name of a new player who gives none.
const defaultName = "player"

// signInRequest signs in as name with the device credential: the same credential is the same
// player, run after run.
func signInRequest(name string, c Credential) *gatewayv1.SignInRequest {
	return &gatewayv1.SignInRequest{DisplayName: name, Credential: &gatewayv1.SignInRequest_Device{
		Device: &gatewayv1.DeviceCredential{DeviceId: c.DeviceID, Secret: c.Secret}}}
}
