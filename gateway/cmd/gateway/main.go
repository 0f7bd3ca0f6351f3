// Command gateway serves cardroom's public API in the distributed mode (see docs/operations.md).
package main

import "cardroom.dev/gateway"

func main() { gateway.Main() }
