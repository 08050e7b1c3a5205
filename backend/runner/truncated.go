package runner

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"github.com/weft-dev/weft/backend/expression"
)

// Caps never hand on cut data as whole. A tool that keeps only the first
// part of a value (a command's output, a response body, a model's answer
// cut at its output limit) keeps only real data in it, with no note
// appended, and marks the field in its outputs (expression.TruncatedField:
// field → why). The mark travels with the outputs, through the run log
// and the Temporal engine's history; the one lookup of a field
// (expression.Field, Whole: templates and conditions alike) refuses to
// read a marked value, so a download cut at 1 MiB is never written to a
// file as if it were the download. The run log and run data show the
// value with its mark.

// markCut records that out[field] holds only the first part of a value.
func markCut(out map[string]any, field, why string) {
	marks, _ := out[expression.TruncatedField].(map[string]any)
	if marks == nil {
		marks = map[string]any{}
		out[expression.TruncatedField] = marks
	}
	marks[field] = why
}

// Why each cap cuts, and what to do instead.
var (
	whyHTTPBody = fmt.Sprintf("http_request keeps at most %d MiB of a response body and this one is longer; give the step save_to (a file the whole body is saved to) and pass that file on", MaxHTTPBody>>20)
	whyAnswer   = `the model stopped at its output limit (finish_reason "length"), so its answer is cut off; ask for a shorter answer, or raise the model's output limit`
)

func whyCommandOutput(stream string) string {
	return fmt.Sprintf("run_command keeps at most %d MiB of a command's %s and this one wrote more; write it to a file in the command (… > out.txt) and pass the file on, or cut it down there (head, grep)", MaxCommandOutput>>20, stream)
}

// wholeRunes drops an incomplete UTF-8 sequence a cut left at the end of
// b, so a cut value holds only what was received, never a broken
// character (which JSON would turn into U+FFFD).
func wholeRunes(b []byte) []byte {
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			break
		}
	}
	return b
}

// cappedBuffer keeps the first max bytes written to it and counts the
// rest.
type cappedBuffer struct {
	buf     bytes.Buffer
	max     int
	dropped int64
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	room := c.max - c.buf.Len()
	if room >= len(p) {
		return c.buf.Write(p)
	}
	if room > 0 {
		c.buf.Write(p[:room])
	}
	c.dropped += int64(len(p) - max(room, 0))
	return len(p), nil
}

// String is what was kept: real data only.
func (c *cappedBuffer) String() string {
	if c.dropped > 0 {
		return string(wholeRunes(c.buf.Bytes()))
	}
	return c.buf.String()
}

// mark marks out[field] as cut when the buffer dropped anything.
func (c *cappedBuffer) mark(out map[string]any, field string) {
	if c.dropped > 0 {
		markCut(out, field, whyCommandOutput(field))
	}
}
