package bus

import "time"

// SetWatchTimeout sets how long Watch waits for the server's confirmation, until the returned
// function restores it.
func SetWatchTimeout(d time.Duration) (restore func()) {
	old := watchTimeout
	watchTimeout = d
	return func() { watchTimeout = old }
}
