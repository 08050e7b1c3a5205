package planner

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"
)

// The alignment stage's value tree: a reply read leniently into plain
// values, whatever it was written in (JSON, JSON inside a JSON string,
// block YAML, key=value text), so that the search in align.go can look
// at every part of it the same way.

type vkind uint8

const (
	vNull vkind = iota
	vBool
	vNum
	vStr
	vArr
	vObj
)

// vnode is one value. Objects keep their keys in order.
type vnode struct {
	kind vkind
	s    string   // a scalar's text (a number's literal, "true"/"false")
	keys []string // an object's keys
	kids []*vnode // an object's values, an array's items
	// via says how text became this value when it was not JSON text of
	// the reply itself ("a JSON string", "YAML", "key=value text").
	via string
	// inner caches what a string value parsed to (nil: not yet tried or
	// nothing; tried tells which).
	inner *vnode
	tried bool
}

// Bounds of the search. The stage runs only on replies the decoder could
// not read, but it reads a model's text, so no input may make it slow or
// big: every value it builds or visits is counted.
const (
	maxAlignNodes      = 200_000 // values built and visited, in all
	maxAlignDepth      = 48      // nesting, strings parsed counted
	maxAlignCandidates = 16      // interpretations scored
	maxAlignValues     = 1000    // top-level values (or calls) of one reply
	maxAlignStringJSON = 1 << 20 // longest string parsed as JSON/YAML
	alignTimeBudget    = 250 * time.Millisecond
)

// alignBudget counts what the stage may still do.
type alignBudget struct {
	ctx      context.Context
	nodes    int
	deadline time.Time
	out      bool // ran out: the search stopped early
	// repairs are what the JSON repair changed in the values read, so
	// that a reading says so like the first reading does (a few).
	repairs []Warning
}

func newAlignBudget(ctx context.Context) *alignBudget {
	d := time.Now().Add(alignTimeBudget)
	if cd, ok := ctx.Deadline(); ok && cd.Before(d) {
		d = cd
	}
	return &alignBudget{ctx: ctx, nodes: maxAlignNodes, deadline: d}
}

// spend takes one unit; false once the budget is gone.
func (b *alignBudget) spend() bool {
	if b.out {
		return false
	}
	b.nodes--
	if b.nodes < 0 {
		b.out = true
		return false
	}
	if b.nodes&255 == 0 && (time.Now().After(b.deadline) || b.ctx.Err() != nil) {
		b.out = true
		return false
	}
	return true
}

// note keeps what a repair changed in a value read (a few).
func (b *alignBudget) note(w Warning) {
	if len(b.repairs) < 6 && !slices.Contains(b.repairs, w) {
		b.repairs = append(b.repairs, w)
	}
}

// fromGJSON builds the tree of a parsed JSON value; nil when the budget
// runs out.
func fromGJSON(r gjson.Result, b *alignBudget, depth int) *vnode {
	if !b.spend() || depth > maxAlignDepth {
		b.out = b.out || depth > maxAlignDepth
		return nil
	}
	if r.IsObject() || r.IsArray() {
		n := &vnode{kind: vArr}
		if r.IsObject() {
			n.kind = vObj
		}
		ok := true
		r.ForEach(func(k, v gjson.Result) bool {
			kid := fromGJSON(v, b, depth+1)
			if kid == nil {
				ok = false
				return false
			}
			if n.kind == vObj {
				n.keys = append(n.keys, k.String())
			}
			n.kids = append(n.kids, kid)
			return true
		})
		if !ok {
			return nil
		}
		return n
	}
	switch r.Type {
	case gjson.String:
		return &vnode{kind: vStr, s: r.Str}
	case gjson.Number:
		return &vnode{kind: vNum, s: r.Raw}
	case gjson.True:
		return &vnode{kind: vBool, s: "true"}
	case gjson.False:
		return &vnode{kind: vBool, s: "false"}
	}
	return &vnode{kind: vNull}
}

// maxStringLayers bounds how many times a value may have been
// JSON-encoded into a string and still be read.
const maxStringLayers = 4

// jsonInString returns the value the text s holds when s is JSON text
// itself, through up to maxStringLayers encodings: `{"a": 1}`, or
// `"{\"a\": 1}"` (a plan or arguments JSON-encoded once more); layers
// counts the encodings undone. ok is false when s holds no JSON object or
// array.
func jsonInString(s string) (v gjson.Result, layers int, ok bool) {
	for layers = 0; layers <= maxStringLayers; layers++ {
		t := strings.TrimSpace(s)
		if !gjson.Valid(t) {
			return gjson.Result{}, 0, false
		}
		r := gjson.Parse(t)
		if r.IsObject() || r.IsArray() {
			return r, layers, true
		}
		if r.Type != gjson.String {
			return gjson.Result{}, 0, false
		}
		s = r.Str
	}
	return gjson.Result{}, 0, false
}

// parseJSONish reads text as JSON, repaired when it must be; nil when it
// is not JSON at all. Text that is a JSON string holding JSON is read
// through its layers.
func parseJSONish(s string, b *alignBudget, depth int) *vnode {
	s = strings.TrimSpace(s)
	if s != "" && s[0] == '"' {
		if r, _, ok := jsonInString(s); ok {
			return fromGJSON(r, b, depth)
		}
		return nil
	}
	if s == "" || (s[0] != '{' && s[0] != '[') {
		return nil
	}
	fixed, ws, err := RepairJSON(s)
	if err != nil {
		return nil
	}
	for _, w := range ws {
		b.note(w)
	}
	r := gjson.Parse(fixed)
	if !r.IsObject() && !r.IsArray() {
		return nil
	}
	return fromGJSON(r, b, depth)
}

// deref returns what a string value holds when it is a JSON object or
// array (or, for structure, YAML or key=value text when allowText), else
// the value itself.
func (n *vnode) deref(b *alignBudget, depth int, allowText bool) *vnode {
	if n == nil || n.kind != vStr {
		return n
	}
	if !n.tried {
		n.tried = true
		if len(n.s) <= maxAlignStringJSON {
			s := strings.TrimSpace(stripFence(n.s))
			if p := parseJSONish(s, b, depth+1); p != nil {
				p.via = "a JSON string"
				n.inner = p
			} else if allowText {
				if p := parseYAMLish(s, b, depth+1); p != nil {
					n.inner = p
				} else if p := parseKV(s); p != nil {
					n.inner = p
				}
			}
		}
	}
	if n.inner != nil && (allowText || n.inner.via == "a JSON string") {
		return n.inner
	}
	return n
}

// stripFence drops a code fence around s, if any.
func stripFence(s string) string {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "```") {
		return s
	}
	t = t[3:]
	if i := strings.IndexByte(t, '\n'); i >= 0 {
		t = t[i+1:]
	} else {
		return s
	}
	if j := strings.LastIndex(t, "```"); j >= 0 {
		t = t[:j]
	}
	return t
}

// get returns the value under a key whose normalized form is n.
func (n *vnode) get(key string) *vnode {
	if n == nil || n.kind != vObj {
		return nil
	}
	for i, k := range n.keys {
		if normEq(key, k) {
			return n.kids[i]
		}
	}
	return nil
}

// set replaces or adds a key.
func (n *vnode) set(key string, v *vnode) {
	for i, k := range n.keys {
		if k == key {
			n.kids[i] = v
			return
		}
	}
	n.keys = append(n.keys, key)
	n.kids = append(n.kids, v)
}

// text renders a scalar as a string ("" for containers and null).
func (n *vnode) text() string {
	if n == nil || n.kind == vObj || n.kind == vArr || n.kind == vNull {
		return ""
	}
	return n.s
}

func strNode(s string) *vnode { return &vnode{kind: vStr, s: s} }

// appendJSON writes the tree as JSON.
func (n *vnode) appendJSON(buf []byte) []byte {
	switch n.kind {
	case vNull:
		return append(buf, "null"...)
	case vBool, vNum:
		return append(buf, n.s...)
	case vStr:
		q, _ := json.Marshal(n.s)
		return append(buf, q...)
	case vArr:
		buf = append(buf, '[')
		for i, k := range n.kids {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = k.appendJSON(buf)
		}
		return append(buf, ']')
	}
	buf = append(buf, '{')
	for i, k := range n.keys {
		if i > 0 {
			buf = append(buf, ',')
		}
		q, _ := json.Marshal(k)
		buf = append(buf, q...)
		buf = append(buf, ':')
		buf = n.kids[i].appendJSON(buf)
	}
	return append(buf, '}')
}

// scalarNode reads a YAML or key=value scalar: quoted text, a number, a
// boolean, null, or a JSON object/array written inline.
func scalarNode(s string, b *alignBudget, depth int) *vnode {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"') {
		if u, err := strconv.Unquote(s); err == nil {
			return strNode(u)
		}
	}
	if len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'' {
		return strNode(strings.ReplaceAll(s[1:len(s)-1], "''", "'"))
	}
	switch strings.ToLower(s) {
	case "true", "yes":
		return &vnode{kind: vBool, s: "true"}
	case "false", "no":
		return &vnode{kind: vBool, s: "false"}
	case "null", "~", "none", "":
		return &vnode{kind: vNull}
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil && gjson.Valid(s) {
		return &vnode{kind: vNum, s: s}
	}
	if p := parseJSONish(s, b, depth); p != nil {
		return p
	}
	return strNode(s)
}

// yline is one meaningful line of block YAML.
type yline struct {
	indent int
	text   string
}

// parseYAMLish reads the block YAML models write instead of JSON:
// mappings, "- " lists, scalars, inline JSON values and "|"/">" blocks.
// Anything else (prose) is nil: at least two "key: value" lines or list
// items, and every line read, or nothing.
func parseYAMLish(s string, b *alignBudget, depth int) *vnode {
	var lines []yline
	for _, raw := range strings.Split(s, "\n") {
		raw = strings.TrimRight(raw, " \t\r")
		t := strings.TrimLeft(raw, " ")
		if t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "```") || t == "---" {
			continue
		}
		if strings.ContainsRune(raw[:len(raw)-len(t)], '\t') {
			return nil
		}
		lines = append(lines, yline{indent: len(raw) - len(t), text: t})
		if len(lines) > maxAlignNodes/16 {
			return nil
		}
	}
	if len(lines) < 2 {
		return nil
	}
	y := &yamlReader{lines: lines, b: b}
	n := y.block(0, lines[0].indent, depth)
	if n == nil || y.bad || y.i != len(lines) || (n.kind != vObj && n.kind != vArr) {
		return nil
	}
	n.via = "YAML"
	return n
}

type yamlReader struct {
	lines []yline
	i     int
	b     *alignBudget
	bad   bool
}

// block reads the list or mapping whose lines start at indent.
func (y *yamlReader) block(start, indent, depth int) *vnode {
	if depth > maxAlignDepth || !y.b.spend() {
		y.bad = true
		return nil
	}
	y.i = start
	if y.i >= len(y.lines) {
		return nil
	}
	if strings.HasPrefix(y.lines[y.i].text, "- ") || y.lines[y.i].text == "-" {
		n := &vnode{kind: vArr}
		for y.i < len(y.lines) && y.lines[y.i].indent == indent && (strings.HasPrefix(y.lines[y.i].text, "- ") || y.lines[y.i].text == "-") {
			rest := strings.TrimSpace(strings.TrimPrefix(y.lines[y.i].text, "-"))
			if rest == "" {
				if y.i+1 < len(y.lines) && y.lines[y.i+1].indent > indent {
					n.kids = append(n.kids, y.block(y.i+1, y.lines[y.i+1].indent, depth+1))
				} else {
					n.kids = append(n.kids, &vnode{kind: vNull})
					y.i++
				}
				continue
			}
			if _, _, ok := yamlKey(rest); ok {
				// "- key: value" opens a mapping at the item's indent.
				y.lines[y.i] = yline{indent: indent + 2, text: rest}
				n.kids = append(n.kids, y.block(y.i, indent+2, depth+1))
				continue
			}
			n.kids = append(n.kids, scalarNode(rest, y.b, depth+1))
			y.i++
		}
		if y.bad {
			return nil
		}
		return n
	}
	n := &vnode{kind: vObj}
	for y.i < len(y.lines) && y.lines[y.i].indent == indent {
		k, v, ok := yamlKey(y.lines[y.i].text)
		if !ok {
			y.bad = true
			return nil
		}
		y.i++
		var kid *vnode
		switch {
		case v == "|" || v == ">" || v == "|-" || v == ">-":
			var parts []string
			for y.i < len(y.lines) && y.lines[y.i].indent > indent {
				parts = append(parts, y.lines[y.i].text)
				y.i++
			}
			sep := "\n"
			if v[0] == '>' {
				sep = " "
			}
			kid = strNode(strings.Join(parts, sep))
		case v == "":
			if y.i < len(y.lines) && (y.lines[y.i].indent > indent ||
				y.lines[y.i].indent == indent && strings.HasPrefix(y.lines[y.i].text, "- ")) {
				kid = y.block(y.i, y.lines[y.i].indent, depth+1)
			} else {
				kid = &vnode{kind: vNull}
			}
		default:
			kid = scalarNode(v, y.b, depth+1)
		}
		if y.bad || kid == nil {
			y.bad = true
			return nil
		}
		n.keys = append(n.keys, k)
		n.kids = append(n.kids, kid)
	}
	return n
}

// yamlKey splits "key: value" (a bare or quoted key).
func yamlKey(t string) (string, string, bool) {
	if strings.HasPrefix(t, `"`) || strings.HasPrefix(t, `'`) {
		q := t[0]
		end := strings.IndexByte(t[1:], q)
		if end < 0 || !strings.HasPrefix(t[end+2:], ":") {
			return "", "", false
		}
		return t[1 : end+1], strings.TrimSpace(t[end+3:]), true
	}
	i := strings.Index(t, ":")
	if i <= 0 || (i+1 < len(t) && t[i+1] != ' ') {
		return "", "", false
	}
	k := t[:i]
	for j := 0; j < len(k); j++ {
		if !isIdentByte(k[j]) && k[j] != '-' && k[j] != '.' && k[j] != ' ' {
			return "", "", false
		}
	}
	return strings.TrimSpace(k), strings.TrimSpace(t[i+1:]), true
}

// parseKV reads "path=notes.txt, mode=append" (or "k: v; k2: v2"): the
// arguments some models write as text. Every part must be a pair.
func parseKV(s string) *vnode {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 4096 {
		return nil
	}
	var parts []string
	switch {
	case strings.Contains(s, "\n"):
		parts = strings.Split(s, "\n")
	case strings.Contains(s, ";"):
		parts = strings.Split(s, ";")
	case strings.Contains(s, "&") && !strings.Contains(s, " "):
		parts = strings.Split(s, "&")
	default:
		parts = strings.Split(s, ",")
	}
	n := &vnode{kind: vObj, via: "key=value text"}
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		i := strings.IndexAny(p, "=:")
		if i <= 0 {
			return nil
		}
		k := strings.TrimSpace(p[:i])
		for j := 0; j < len(k); j++ {
			if !isIdentByte(k[j]) {
				return nil
			}
		}
		v := strings.TrimSpace(p[i+1:])
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		}
		n.keys = append(n.keys, k)
		n.kids = append(n.kids, strNode(v))
	}
	if len(n.keys) == 0 {
		return nil
	}
	return n
}
