package main

import (
	"cardroom.dev/services/kit/engine"
	"cardroom.dev/services/sabaisabai"
	"cardroom.dev/services/saboteur"
	"cardroom.dev/services/sapotagem"
	"cardroom.dev/services/sponsio"
)

// engines are the games this binary serves, in port order.
func engines() []engine.Engine {
	return []engine.Engine{
		sabaisabai.Engine(),
		saboteur.Engine(),
		sapotagem.Engine(),
		sponsio.Engine(),
	}
}
