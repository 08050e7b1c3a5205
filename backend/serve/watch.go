package serve

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/weft-dev/weft/backend/service"
	"github.com/weft-dev/weft/backend/trigger"
)

// watch is one file trigger: a glob beneath its workflow's folder, looked
// at every Poll. A file starts a run once it is new or changed and has
// stayed the same for one look (a file being copied in is not read half
// written); what it handled is remembered across restarts, by path, size
// and modification time.
type watch struct {
	base
	mu sync.Mutex
	// self counts, by path relative to the folder, the files the
	// workflow's own runs going now name as what they write (write_file's
	// path, http_request's save_to): those never start it.
	self map[string]int
	// last is each match's stamp at the previous look.
	last map[string]string
}

// Watch looks at the watched folders until ctx ends.
func (s *Server) Watch(ctx context.Context) {
	if len(s.watches) == 0 {
		return
	}
	t := time.NewTicker(s.cfg.Poll)
	defer t.Stop()
	for {
		for _, w := range s.watches {
			w.scan(ctx)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Scan looks at every watched folder once (tests; Watch does it on a
// timer).
func (s *Server) Scan(ctx context.Context) {
	for _, w := range s.watches {
		w.scan(ctx)
	}
}

// stamp names one state of a file.
func stamp(rel string, fi os.FileInfo) string {
	return fmt.Sprintf("file:%s@%d@%d", rel, fi.Size(), fi.ModTime().UnixNano())
}

// matches are the regular files the glob matches now, by path relative
// to the folder, with their stamps; nothing in .weft/, no links.
func (w *watch) matches() map[string]string {
	out := map[string]string{}
	found, _ := filepath.Glob(filepath.Join(w.e.dir, filepath.FromSlash(w.t.Glob)))
	for _, p := range found {
		rel, err := filepath.Rel(w.e.dir, p)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		rel = filepath.ToSlash(rel)
		if slices.Contains(strings.Split(rel, "/"), weftDir) {
			continue
		}
		fi, err := os.Lstat(p)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		out[rel] = stamp(rel, fi)
	}
	return out
}

const weftDir = ".weft"

func (w *watch) scan(ctx context.Context) {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := w.s.cfg.Now()
	cur := w.matches()
	prev := w.last
	w.last = cur
	for rel, st := range cur {
		if w.seen.Has(st, now) || prev[rel] != st {
			continue // handled, or still changing: the next look decides
		}
		if w.self[rel] > 0 {
			_ = w.seen.Claim([]string{st}, now) // the workflow's own file
			continue
		}
		if err := w.lim.Take(now); err != nil {
			w.s.cfg.Log.Info("file waits for the trigger's limits", "file", rel, "why", err)
			continue
		}
		if err := w.seen.Claim([]string{st}, now); err != nil {
			w.lim.Done()
			continue
		}
		values, _ := fillFile(&w.base, rel)
		var mine []string
		res, err := w.start(ctx, values, func(ev service.Event) { w.hear(ev, &mine) })
		switch {
		case err != nil:
			_ = w.seen.Release([]string{st}, now) // tried again at the next look
			w.s.cfg.Log.Warn("file trigger could not start a run", "file", rel, "workflow", w.e.path, "err", err)
		case !res.Started:
			// Kept as handled: the same file would be refused again.
			w.s.cfg.Log.Warn("file trigger's run did not start", "file", rel, "workflow", w.e.path, "why", res.Error)
		default:
			w.s.cfg.Log.Info("file started a run", "file", rel, "workflow", w.e.path, "run_id", res.RunID)
		}
	}
}

// hear follows a run of the workflow: a file its steps write is its own
// while it goes, and remembered as handled (in the state it is left in)
// when it ends.
func (w *watch) hear(ev service.Event, mine *[]string) {
	switch {
	case ev.Run != nil && ev.Run.Arguments != nil:
		tool := ev.Run.Tool // an AI step's call names its tool; a Tool step's attempt, its node
		if n := w.e.w.NodeByID(ev.Run.NodeID); tool == "" && n != nil {
			tool = n.Params.Tool
		}
		key := map[string]string{"write_file": "path", "http_request": "save_to"}[tool]
		p, _ := ev.Run.Arguments[key].(string)
		if key == "" || p == "" {
			return
		}
		if filepath.IsAbs(p) {
			rel, err := filepath.Rel(w.e.dir, p)
			if err != nil {
				return
			}
			p = rel
		}
		p = filepath.ToSlash(filepath.Clean(p))
		w.mu.Lock()
		w.self[p]++
		w.mu.Unlock()
		*mine = append(*mine, p)
	case ev.Kind == service.KindFinished:
		w.mu.Lock()
		defer w.mu.Unlock()
		now := w.s.cfg.Now()
		cur := w.matches()
		for _, p := range *mine {
			if st, ok := cur[p]; ok {
				_ = w.seen.Claim([]string{st}, now)
				w.last[p] = st
			}
			if w.self[p]--; w.self[p] <= 0 {
				delete(w.self, p)
			}
		}
	}
}

// fillFile is the values a file gives the workflow's inputs.
func fillFile(b *base, rel string) (map[string]any, error) {
	return trigger.Fill(&b.t, b.e.schema, nil, rel)
}
