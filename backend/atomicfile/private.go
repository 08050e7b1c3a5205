package atomicfile

import (
	"fmt"
	"os"
)

// PrivateDir makes dir, and any missing parent, readable only by the
// user (0700), and tightens dir itself if it exists with a looser mode:
// folders of Weft's own data that hold workflows, chats or secrets.
// Existing parents are left as they are.
func PrivateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create directory %s: %w", dir, err)
	}
	st, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is %s, not a folder", dir, Describe(st.Mode()))
	}
	if st.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, st.Mode().Perm()&0o700); err != nil {
			return fmt.Errorf("make %s private: %w", dir, err)
		}
	}
	return nil
}
