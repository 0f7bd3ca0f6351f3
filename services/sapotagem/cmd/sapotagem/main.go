// Command sapotagem is the sapotagem rules service (cardroom.rules.v1.RulesService) for the distributed mode;
// settings as in docs/operations.md.
package main

import (
	"cardroom.dev/services/kit/app"
	"cardroom.dev/services/sapotagem"
)

func main() { app.RulesMain(sapotagem.Engine()) }
