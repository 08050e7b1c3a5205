package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/weft-dev/weft/backend/atomicfile"
)

// The file tools (read_file, write_file, list_files) and how they open
// paths. The effect gate (callTool) decides per call how they may:
// beneath the workflow's folder through os.Root when the read needed no
// approval because it is inside that folder (ToolCall.Root), and whether a
// device or FIFO may be opened at all (ToolCall.LiteralPath). Every open
// is without blocking, and what was opened is checked again (fstat)
// before it is used, so a path swapped between the look and the open
// cannot slip through.

// fileSystem is where a file tool opens paths: the host, or an os.Root
// (beneath one folder: no symbolic link, `..` or absolute link leads out).
type fileSystem interface {
	Stat(name string) (fs.FileInfo, error)
	Lstat(name string) (fs.FileInfo, error)
	OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error)
}

type hostFS struct{}

func (hostFS) Stat(name string) (fs.FileInfo, error)  { return os.Stat(name) }
func (hostFS) Lstat(name string) (fs.FileInfo, error) { return os.Lstat(name) }
func (hostFS) OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	return os.OpenFile(name, flag, perm)
}

// place is a call's path argument as its tool opens it.
type place struct {
	tool    string
	name    string // the whole path: for messages and outputs
	fsys    fileSystem
	rel     string // name within fsys
	literal bool   // ToolCall.LiteralPath
	close   func()
}

// refusedError is a file tool's refusal to touch what is at a path; it
// counts as a permission error (not worth retrying).
type refusedError struct{ msg string }

func (e *refusedError) Error() string        { return e.msg }
func (e *refusedError) Is(target error) bool { return target == fs.ErrPermission }

func (pl *place) refuse(format string, a ...any) error {
	return &refusedError{msg: pl.tool + ": " + pl.name + " " + fmt.Sprintf(format, a...)}
}

// locate resolves the path argument p of a call: relative paths start in
// the workflow's folder, and a confined call (c.Root) opens beneath that
// folder only. Call close when done.
func locate(tool string, c ToolCall, p string) (*place, error) {
	pl := &place{tool: tool, name: resolve(c.Dir, p), fsys: hostFS{}, literal: c.LiteralPath, close: func() {}}
	pl.rel = pl.name
	if c.Root == "" {
		return pl, nil
	}
	pl.literal = false // a confined read was approved by no one
	if abs, err := filepath.Abs(pl.name); err == nil {
		pl.name = abs
	}
	rel, ok := within(c.Root, pl.name)
	if !ok {
		return nil, pl.refuse("is outside the workflow's folder %s: a step a model wrote reads there only once a person approves it", c.Root)
	}
	root, err := os.OpenRoot(c.Root)
	if err != nil {
		return nil, fmt.Errorf("%s: the workflow's folder: %w", tool, err)
	}
	pl.fsys, pl.rel, pl.close = root, rel, func() { root.Close() }
	return pl, nil
}

// within is name relative to the folder root, if it is beneath it (as
// written, or beneath the folder's real place when root holds a link).
func within(root, name string) (string, bool) {
	bases := []string{root}
	if real, err := filepath.EvalSymlinks(root); err == nil && real != root {
		bases = append(bases, real)
	}
	for _, base := range bases {
		rel, err := filepath.Rel(base, name)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return rel, true
		}
	}
	return "", false
}

// open opens what is at pl (flag, without blocking) once allow says it may,
// and checks again what was opened. With os.O_CREATE a missing file is
// created with perm.
func (pl *place) open(flag int, perm fs.FileMode, dir bool) (*os.File, fs.FileInfo, error) {
	st, err := pl.fsys.Stat(pl.rel)
	switch {
	case err == nil:
		if err := pl.allow(st, dir); err != nil {
			return nil, nil, err
		}
	case flag&os.O_CREATE == 0 || !errors.Is(err, fs.ErrNotExist):
		return nil, nil, pl.fail(err)
	}
	f, err := pl.fsys.OpenFile(pl.rel, flag|atomicfile.NonBlock, perm)
	if err != nil {
		return nil, nil, pl.fail(err)
	}
	if st, err = f.Stat(); err == nil {
		err = pl.allow(st, dir)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, st, nil
}

// allow says whether a file tool may use what st describes at pl: a
// regular file, or a folder when dir; a device or FIFO only when the step
// names that path itself as written (literal), not a symbolic link to it;
// never a socket.
func (pl *place) allow(st fs.FileInfo, dir bool) error {
	m := st.Mode()
	switch {
	case m.IsDir() && !dir:
		hint := ""
		if pl.tool == "read_file" {
			hint = "; use list_files"
		}
		return argErrorf("%s: %s is a folder%s", pl.tool, pl.name, hint)
	case dir && !m.IsDir():
		return argErrorf("%s: %s is %s, not a folder", pl.tool, pl.name, atomicfile.Describe(m))
	case m.IsDir() || m.IsRegular():
		return nil
	case m&fs.ModeSocket != 0:
		return pl.refuse("is a socket: file tools do not open sockets")
	case !pl.literal:
		return pl.refuse("is %s: a file tool opens one only at a path its step names as written (no template), by a person or in an approved step", atomicfile.Describe(m))
	}
	if l, err := pl.fsys.Lstat(pl.rel); err != nil || !os.SameFile(l, st) {
		return pl.refuse("leads to %s through a symbolic link: a file tool opens one only at the path its step names", atomicfile.Describe(m))
	}
	return nil
}

// fail words an error of opening pl.
func (pl *place) fail(err error) error {
	if _, confined := pl.fsys.(*os.Root); confined && escapes(err) {
		return pl.refuse("leads outside the workflow's folder (through a symbolic link, possibly one made during the run): a step a model wrote reads there only once a person approves it")
	}
	return fmt.Errorf("%s: %w", pl.tool, err)
}

// escapes reports whether err is os.Root's refusal of a path that leads
// outside it (`..`, a symbolic link out, an absolute link).
func escapes(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && pe.Err != nil && pe.Err.Error() == "path escapes from parent"
}

// untilDone runs do, which reads or writes f, and returns when it ends or
// when ctx does: a FIFO without a writer, or a device that never ends,
// stops at the step's timeout and at cancel. Closing f on the way out
// wakes a read or write waiting on the poller; one the system cannot
// interrupt ends on its own later, and its goroutine with it.
func untilDone[T any](ctx context.Context, f *os.File, do func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := do()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		f.Close()
		var zero T
		return zero, ctx.Err()
	}
}

// ---- the tools ----

func readFile(ctx context.Context, c ToolCall) (map[string]any, error) {
	a := args{"read_file", c.Args}
	if err := a.only("path"); err != nil {
		return nil, err
	}
	p, err := a.str("path", true)
	if err != nil {
		return nil, err
	}
	pl, err := locate("read_file", c, p)
	if err != nil {
		return nil, err
	}
	defer pl.close()
	f, st, err := pl.open(os.O_RDONLY, 0, false)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st.Mode().IsRegular() && st.Size() > MaxReadFile {
		return nil, fmt.Errorf("read_file: %s is %d bytes, over the %d MiB limit", pl.name, st.Size(), MaxReadFile>>20)
	}
	// At most one byte over the limit: a file may grow, a device never
	// ends. More is an error, never content cut short handed on as whole.
	const most = MaxReadFile + 1
	var b []byte
	switch {
	case st.Mode().IsRegular():
		buf := bytes.NewBuffer(make([]byte, 0, st.Size()+bytes.MinRead)) // one allocation while the size holds
		_, err = buf.ReadFrom(io.LimitReader(f, most))
		b = buf.Bytes()
	case st.Mode()&fs.ModeNamedPipe != 0:
		b, err = untilDone(ctx, f, func() ([]byte, error) { return readFIFO(f, most) })
	default:
		b, err = untilDone(ctx, f, func() ([]byte, error) { return io.ReadAll(io.LimitReader(f, most)) })
	}
	if err != nil {
		return nil, fmt.Errorf("read_file: reading %s: %w", pl.name, err)
	}
	if len(b) > MaxReadFile {
		return nil, fmt.Errorf("read_file: %s gave more than the %d MiB limit; reading stopped there", pl.name, MaxReadFile>>20)
	}
	return map[string]any{"content": string(b)}, nil
}

func writeFile(ctx context.Context, c ToolCall) (map[string]any, error) {
	a := args{"write_file", c.Args}
	if err := a.only("path", "content", "append"); err != nil {
		return nil, err
	}
	p, err := a.str("path", true)
	if err != nil {
		return nil, err
	}
	var content string
	switch v := c.Args["content"].(type) {
	case nil:
		return nil, argErrorf("write_file: the argument %q is required", "content")
	case string:
		content = v
	default:
		content = toText(v)
	}
	appendMode, err := a.boolean("append")
	if err != nil {
		return nil, err
	}
	pl, err := locate("write_file", c, p)
	if err != nil {
		return nil, err
	}
	defer pl.close()
	if err := ctx.Err(); err != nil {
		return nil, err // do not start a write the user has already cancelled
	}
	out := map[string]any{"path": pl.name, "bytes": len(content)}
	st, err := pl.fsys.Stat(pl.rel)
	switch {
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, pl.fail(err)
	case appendMode || err == nil && !st.Mode().IsRegular():
		// In place. An append is one write at the end (O_APPEND): the
		// file is never read or rewritten, so a crash can leave a partly
		// appended tail at worst, never a lost file (docs/trust.md). A
		// device or FIFO the step names is written, never replaced by a
		// rename, until the step's end. A folder is refused.
		if err != nil {
			if err := os.MkdirAll(filepath.Dir(pl.name), 0o755); err != nil {
				return nil, fmt.Errorf("write_file: %w", err)
			}
		}
		f, st, err := pl.open(os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644, false)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if st.Mode().IsRegular() {
			_, err = f.WriteString(content)
		} else {
			_, err = untilDone(ctx, f, func() (int, error) { return f.WriteString(content) })
		}
		if err == nil {
			err = f.Close()
		}
		if err != nil {
			return nil, fmt.Errorf("write_file: writing %s: %w", pl.name, err)
		}
		return out, nil
	}
	perm := os.FileMode(0o644)
	if st != nil {
		perm = st.Mode().Perm()
	}
	// A whole new file renamed into place: a cancel or a crash leaves the
	// old content or the new, never half.
	if err := atomicfile.WriteFile(pl.name, []byte(content), perm); err != nil {
		return nil, fmt.Errorf("write_file: %w", err)
	}
	return out, nil
}

func listFiles(ctx context.Context, c ToolCall) (map[string]any, error) {
	a := args{"list_files", c.Args}
	if err := a.only("path", "pattern"); err != nil {
		return nil, err
	}
	p, err := a.str("path", true)
	if err != nil {
		return nil, err
	}
	pattern, err := a.str("pattern", false)
	if err != nil {
		return nil, err
	}
	if pattern != "" {
		if _, err := filepath.Match(pattern, ""); err != nil {
			return nil, argErrorf("list_files: bad pattern %q: %v", pattern, err)
		}
	}
	pl, err := locate("list_files", c, p)
	if err != nil {
		return nil, err
	}
	defer pl.close()
	d, _, err := pl.open(os.O_RDONLY, 0, true)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	ents, err := d.ReadDir(-1)
	if err != nil {
		return nil, fmt.Errorf("list_files: %w", err)
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	files := []any{}
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		if pattern != "" {
			if ok, _ := filepath.Match(pattern, e.Name()); !ok {
				continue
			}
		}
		files = append(files, e.Name()) // FIFOs and devices too: listing one opens nothing
	}
	return map[string]any{"files": files, "count": len(files)}, nil
}
