package testenv

import (
	"os/exec"
	"syscall"
)

// killWithParent has cmd killed when the test process dies, so a crashed test leaves no server.
func killWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
