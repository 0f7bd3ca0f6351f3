package main

import "cardroom.dev/services/kit/engine"

// engines are the games this binary serves, in port order.
func engines() []engine.Engine {
	return []engine.Engine{}
}
