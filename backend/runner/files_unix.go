//go:build unix

package runner

import (
	"os"
	"syscall"
)

// readFIFO reads a named pipe as cat does: it waits for a writer, then
// reads until the last writer closes it, at most limit bytes. (Opened
// without blocking, a plain read would end at once while no writer has
// opened the pipe yet.) Closing f stops the wait.
func readFIFO(f *os.File, limit int64) ([]byte, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	var out []byte
	buf := make([]byte, 64<<10)
	waited := false
	for int64(len(out)) < limit {
		var n int
		var rerr error
		err := rc.Read(func(fd uintptr) bool {
			for {
				n, rerr = syscall.Read(int(fd), buf[:min(int64(len(buf)), limit-int64(len(out)))])
				if rerr != syscall.EINTR {
					break
				}
			}
			switch {
			case rerr == syscall.EAGAIN:
				return false // a writer, no data yet: wait on the poller
			case n == 0 && rerr == nil && len(out) == 0 && !waited:
				waited = true
				return false // no writer yet: wait until one writes or hangs up
			}
			return true
		})
		if err == nil {
			err = rerr
		}
		if err != nil {
			return out, err
		}
		if n <= 0 {
			return out, nil
		}
		out = append(out, buf[:n]...)
	}
	return out, nil
}

// subdirCount is how many folders the folder st describes holds, read from
// its link count (its own "." and its parent's entry, plus each
// subfolder's ".."), without listing it; ok is false where the file system
// does not keep that count (it reports 1: btrfs, overlayfs, ext4 past
// 65,000).
func subdirCount(st os.FileInfo) (n int, ok bool) {
	s, isStat := st.Sys().(*syscall.Stat_t)
	if !isStat || s.Nlink < 2 {
		return 0, false
	}
	return int(s.Nlink) - 2, true
}
