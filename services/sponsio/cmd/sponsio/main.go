// Command sponsio is the sponsio rules service (cardroom.rules.v1.RulesService) for the distributed mode;
// settings as in docs/operations.md.
package main

import (
	"cardroom.dev/services/kit/app"
	"cardroom.dev/services/sponsio"
)

func main() { app.RulesMain(sponsio.Engine()) }
