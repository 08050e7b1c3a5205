package planner

import (
	"context"
	"fmt"
	"strings"
)

// FindObject searches a reply the way the alignment stage reads it (every
// top-level value, any depth, inside JSON strings, YAML) for the object
// whose keys best name fields of schema ("patch", …, the synonym table's
// schemas): most keys that align, and at least half of its keys. It
// returns the object as JSON and where it was, for the warning that says
// so; ok is false when no object aligns. The search is bounded like the
// stage's.
func FindObject(ctx context.Context, text, schema string) (js, where string, ok bool) {
	b := newAlignBudget(ctx)
	var best *vnode
	bestScore, bestWhere := 0, ""
	var walk func(n *vnode, path string, depth int)
	walk = func(n *vnode, path string, depth int) {
		if n == nil || depth > maxAlignDepth || !b.spend() {
			return
		}
		switch n.kind {
		case vStr:
			if d := n.deref(b, depth, false); d != n {
				walk(d, path+" (a JSON string)", depth+1)
			}
		case vArr:
			for i, k := range n.kids {
				walk(k, fmt.Sprintf("%s[%d]", path, i), depth+1)
			}
		case vObj:
			score := 0
			for _, k := range n.keys {
				if f, _ := AlignKey(k, schema); f != "" {
					score++
				}
			}
			if score > bestScore && 2*score >= len(n.keys) {
				best, bestScore, bestWhere = n, score, path
			}
			for i, k := range n.kids {
				walk(k, joinPath(path, n.keys[i]), depth+1)
			}
		}
	}
	for i, v := range readValues(text, b) {
		walk(v, fmt.Sprintf("value %d", i+1), 0)
	}
	if best == nil {
		return "", "", false
	}
	return string(best.appendJSON(nil)), strings.TrimPrefix(bestWhere, "value 1."), true
}
