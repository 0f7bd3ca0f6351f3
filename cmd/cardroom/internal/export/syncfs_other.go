//go:build !linux

package export

import "os"

// syncFiles makes files (or directories) durable, one fsync each.
func syncFiles(_ string, files []string) error {
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		err = f.Sync()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}
