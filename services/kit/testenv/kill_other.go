//go:build !linux

package testenv

import "os/exec"

// killWithParent does nothing here: only Linux kills children with their parent.
func killWithParent(*exec.Cmd) {}
