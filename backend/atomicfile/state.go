package atomicfile

import (
	"encoding/json"
	"errors"
	"os"
	"time"
)

// ReadJSON reads the JSON state file at path (at most limit bytes) into
// v. A missing file leaves v as it is and is no error. One that cannot be
// read or parsed, or is not a regular file, is moved aside (MoveAside,
// kept for the person to inspect) so the caller can start afresh: err says
// what went wrong and moved where it went ("" when it could not be moved).
func ReadJSON(path string, limit int64, v any, now time.Time) (moved string, err error) {
	b, err := ReadBounded(path, limit)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err == nil {
		if err = json.Unmarshal(b, v); err == nil {
			return "", nil
		}
	}
	if _, statErr := os.Lstat(path); statErr == nil {
		if dst, mvErr := MoveAside(path, now); mvErr == nil {
			return dst, err
		}
	}
	return "", err
}

// WriteJSON writes v to path as indented JSON with a final newline,
// atomically (WriteFile): the writer every ReadJSON state file has.
func WriteJSON(path string, v any, perm os.FileMode) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return WriteFile(path, append(b, '\n'), perm)
}
