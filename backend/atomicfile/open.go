package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// NonBlock is O_NONBLOCK where the system has one (0 elsewhere). Added to
// the flags of an open, it makes opening a FIFO return at once instead of
// waiting for a process at its other end; a regular file reads as usual.
const NonBlock = nonBlock

// Describe names the kind of file m is, for messages: "a regular file",
// "a folder", "a FIFO", "a device", "a socket", "a symbolic link".
func Describe(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO (named pipe)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "not a regular file"
}

// NotRegularError is a path where a regular file is expected that holds
// something else: a FIFO, a device, a socket or a folder.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file: Weft does not read it", e.Path, Describe(e.Mode))
}

// OpenFile is os.OpenFile for the files Weft keeps: it opens path only if
// it is a regular file (through symbolic links; or missing, with
// os.O_CREATE), else it returns a *NotRegularError. A FIFO, device or
// socket put where a file is expected is refused before it is opened, and
// the open does not block (NonBlock) in case one was swapped in after that
// look, which the check of what was opened then refuses. So a state file
// can never hang Weft or feed it without end.
func OpenFile(path string, flag int, perm fs.FileMode) (*os.File, fs.FileInfo, error) {
	st, err := os.Stat(path)
	switch {
	case err == nil && !st.Mode().IsRegular():
		return nil, nil, &NotRegularError{Path: path, Mode: st.Mode()}
	case err != nil && (flag&os.O_CREATE == 0 || !errors.Is(err, fs.ErrNotExist)):
		return nil, nil, err
	}
	f, err := os.OpenFile(path, flag|NonBlock, perm)
	if err != nil {
		return nil, nil, err
	}
	if st, err = f.Stat(); err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, &NotRegularError{Path: path, Mode: st.Mode()}
	}
	return f, st, nil
}

// ReadBounded reads a whole regular file (OpenFile) unless it is larger
// than limit bytes, so a wrong or hostile file cannot exhaust memory or
// hang the reader.
func ReadBounded(path string, limit int64) ([]byte, error) {
	f, st, err := OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st.Size() > limit {
		return nil, fmt.Errorf("%s: %d bytes is over the %d byte limit", path, st.Size(), limit)
	}
	// Read at most limit+1 bytes: the file may grow after the Stat.
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: over the %d byte limit", path, limit)
	}
	return data, nil
}
