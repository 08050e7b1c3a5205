package runner

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/weft-dev/weft/backend/atomicfile"
)

// A process killed while appending to a line-per-record log (events.jsonl,
// retry.log) can leave its last line cut off. Readers skip such a line;
// before anything is appended the cut-off line is removed, so the next
// record starts on a line of its own and every line of the file parses
// (`jq` works on it again).

// tornChunk is how much of the file's end is read at a time while looking
// for the last newline: memory stays bounded whatever the line length.
const tornChunk = 64 << 10

// openAppend opens a log for appending, creating it private, and first
// cuts off a torn last line.
func openAppend(path string) (*os.File, error) {
	f, _, err := atomicfile.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_APPEND, runFileMode)
	if err != nil {
		return nil, err
	}
	if _, err := cutTornTail(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("repair %s: %w", path, err)
	}
	return f, nil
}

// RepairLog cuts a torn last line off the log at path (one a killed
// writer left without its newline) and returns how many bytes it removed.
// Call it only on a log no process is writing: a live writer's last line
// may be incomplete for a moment.
func RepairLog(path string) (int64, error) {
	f, _, err := atomicfile.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n, err := cutTornTail(f)
	if err != nil {
		return n, fmt.Errorf("repair %s: %w", path, err)
	}
	return n, nil
}

// cutTornTail truncates f after its last newline (to empty when it has
// none) and returns the number of bytes removed.
func cutTornTail(f *os.File) (int64, error) {
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	size := st.Size()
	if size == 0 {
		return 0, nil
	}
	buf := make([]byte, min(int64(tornChunk), size))
	end := size
	for end > 0 {
		start := max(end-int64(len(buf)), 0)
		chunk := buf[:end-start]
		if _, err := f.ReadAt(chunk, start); err != nil && err != io.EOF {
			return 0, err
		}
		if i := bytes.LastIndexByte(chunk, '\n'); i >= 0 {
			keep := start + int64(i) + 1
			if keep == size {
				return 0, nil // ends with a complete line
			}
			return size - keep, f.Truncate(keep)
		}
		end = start
	}
	return size, f.Truncate(0) // one torn line and nothing else
}
