package workflow

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strings"
	"unsafe"

	"github.com/google/uuid"
	"github.com/tidwall/gjson"

	"github.com/weft-dev/weft/backend/canonpath"
)

// Extra keeps JSON fields this version does not know, so a save never drops
// what a newer Weft (or a hand edit) put there.
type Extra map[string]json.RawMessage

// NewID returns a fresh node or workflow id.
func NewID() string { return uuid.NewString() }

// fileIDSpace is the UUID name space of the ids FileID derives (fixed:
// changing it would change every derived id, and lose their runs).
var fileIDSpace = uuid.MustParse("6701dcec-6894-4fa4-9210-f204645b07c0")

// FileID is the id of the workflow file at path when the file has none: a
// name-based UUID (version 5) of its canonical path (canonpath.Of), so
// every load of the file, by any door, gives its runs, versions and chats
// the same id until Weft writes the id into the file. "" (no file) gets a
// fresh id.
func FileID(path string) string {
	c := canonpath.Of(path)
	if c == "" {
		return NewID()
	}
	return uuid.NewSHA1(fileIDSpace, []byte(c)).String()
}

// knownFields lists the JSON names of a struct's tagged fields.
func knownFields(t reflect.Type) map[string]bool {
	m := map[string]bool{}
	for i := 0; i < t.NumField(); i++ {
		tag := t.Field(i).Tag.Get("json")
		name := strings.Split(tag, ",")[0]
		if name != "" && name != "-" {
			m[name] = true
		}
	}
	return m
}

var (
	workflowFields = knownFields(reflect.TypeOf(Workflow{}))
	nodeFields     = knownFields(reflect.TypeOf(Node{}))
	paramsFields   = knownFields(reflect.TypeOf(Params{}))
	edgeFields     = knownFields(reflect.TypeOf(Edge{}))
	noteFields     = knownFields(reflect.TypeOf(Note{}))
	groupFields    = knownFields(reflect.TypeOf(Group{}))
)

// splitExtra returns the fields of obj not in known; nil when there are
// none. It scans the keys without decoding the values (gjson): every node
// and its params pass through here on load.
//
// Callers have decoded data with encoding/json already, so it is valid.
func splitExtra(data []byte, known map[string]bool) (Extra, error) {
	obj := gjson.ParseBytes(data)
	if !obj.IsObject() {
		return nil, fmt.Errorf("expected a JSON object")
	}
	var extra Extra
	obj.ForEach(func(k, v gjson.Result) bool {
		key := k.String()
		if !known[key] {
			if extra == nil {
				extra = Extra{}
			}
			extra[key] = json.RawMessage(v.Raw)
		}
		return true
	})
	return extra, nil
}

// joinExtra appends extra fields to an encoded object, in sorted order so
// saves are deterministic.
func joinExtra(obj []byte, extra Extra) ([]byte, error) {
	if len(extra) == 0 {
		return obj, nil
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b bytes.Buffer
	b.Write(obj[:len(obj)-1])
	for _, k := range keys {
		if len(obj) > 2 || b.Len() > 1 {
			b.WriteByte(',')
		}
		// As valid UTF-8 first: encoding/json would write a bad byte as
		// the escape \ufffd, and the next save the character itself.
		kb, _ := encode(strings.ToValidUTF8(k, "\uFFFD"))
		b.Write(kb)
		b.WriteByte(':')
		b.Write(extra[k])
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

type rawParams Params

func (p *Params) UnmarshalJSON(data []byte) error {
	var r rawParams
	if err := json.Unmarshal(data, &r); err != nil {
		return err
	}
	extra, err := splitExtra(data, paramsFields)
	if err != nil {
		return err
	}
	*p = Params(r)
	p.Extra = extra
	return nil
}

func (p Params) MarshalJSON() ([]byte, error) {
	b, err := encode(rawParams(p))
	if err != nil {
		return nil, err
	}
	return joinExtra(b, p.Extra)
}

type rawNode Node

func (n *Node) UnmarshalJSON(data []byte) error {
	var r rawNode
	if err := json.Unmarshal(data, &r); err != nil {
		return err
	}
	extra, err := splitExtra(data, nodeFields)
	if err != nil {
		return err
	}
	*n = Node(r)
	n.Extra = extra
	return nil
}

func (n Node) MarshalJSON() ([]byte, error) {
	b, err := encode(rawNode(n))
	if err != nil {
		return nil, err
	}
	return joinExtra(b, n.Extra)
}

type rawEdge Edge

func (e *Edge) UnmarshalJSON(data []byte) error {
	var r rawEdge
	if err := json.Unmarshal(data, &r); err != nil {
		return err
	}
	extra, err := splitExtra(data, edgeFields)
	if err != nil {
		return err
	}
	*e = Edge(r)
	e.Extra = extra
	return nil
}

func (e Edge) MarshalJSON() ([]byte, error) {
	b, err := encode(rawEdge(e))
	if err != nil {
		return nil, err
	}
	return joinExtra(b, e.Extra)
}

// decodeKeeping decodes data into v (a raw type without the methods) and
// returns the fields known does not name, to keep.
func decodeKeeping(data []byte, v any, known map[string]bool) (Extra, error) {
	if err := json.Unmarshal(data, v); err != nil {
		return nil, err
	}
	return splitExtra(data, known)
}

// encodeKeeping encodes v and appends the kept fields.
func encodeKeeping(v any, extra Extra) ([]byte, error) {
	b, err := encode(v)
	if err != nil {
		return nil, err
	}
	return joinExtra(b, extra)
}

type rawNote Note

func (n *Note) UnmarshalJSON(data []byte) error {
	var r rawNote
	extra, err := decodeKeeping(data, &r, noteFields)
	if err != nil {
		return err
	}
	*n = Note(r)
	n.Extra = extra
	return nil
}

func (n Note) MarshalJSON() ([]byte, error) { return encodeKeeping(rawNote(n), n.Extra) }

type rawGroup Group

func (g *Group) UnmarshalJSON(data []byte) error {
	var r rawGroup
	extra, err := decodeKeeping(data, &r, groupFields)
	if err != nil {
		return err
	}
	*g = Group(r)
	g.Extra = extra
	return nil
}

func (g Group) MarshalJSON() ([]byte, error) {
	if g.Nodes == nil {
		g.Nodes = []string{}
	}
	return encodeKeeping(rawGroup(g), g.Extra)
}

// UnmarshalJSON accepts a bare string ("IfTrue") as well as the object form,
// since hand-written files use both.
func (o *EdgeOutput) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err == nil {
		o.Type = OutputType(s)
		o.Name = ""
		return nil
	}
	type raw EdgeOutput
	var r raw
	if err := json.Unmarshal(data, &r); err != nil {
		return err
	}
	*o = EdgeOutput(r)
	return nil
}

type rawWorkflow Workflow

func (w *Workflow) UnmarshalJSON(data []byte) error {
	var r rawWorkflow
	if err := json.Unmarshal(data, &r); err != nil {
		return err
	}
	extra, err := splitExtra(data, workflowFields)
	if err != nil {
		return err
	}
	*w = Workflow(r)
	w.Extra = extra
	return nil
}

func (w Workflow) MarshalJSON() ([]byte, error) {
	if w.Nodes == nil {
		w.Nodes = []Node{}
	}
	if w.Edges == nil {
		w.Edges = []Edge{}
	}
	b, err := encode(rawWorkflow(w))
	if err != nil {
		return nil, err
	}
	return joinExtra(b, w.Extra)
}

// ParseError says what is wrong with a workflow document and where.
type ParseError struct {
	Path   string // JSON path of the offending value, e.g. nodes[2].params
	Line   int    // 1-based; 0 when unknown
	Column int
	Msg    string
}

func (e *ParseError) Error() string {
	var b strings.Builder
	if e.Line > 0 {
		fmt.Fprintf(&b, "line %d, column %d: ", e.Line, e.Column)
	}
	if e.Path != "" {
		b.WriteString(e.Path + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// LineCol converts a byte offset into a 1-based line and column.
func LineCol(data []byte, offset int64) (int, int) {
	if offset > int64(len(data)) {
		offset = int64(len(data))
	}
	if offset < 0 {
		offset = 0
	}
	line, col := 1, 1
	for _, c := range data[:offset] {
		if c == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}

// Parse decodes a weft/v1 document that is no file's (a sample, a
// proposal, a copy): without an id it gets a fresh one. It is strict
// about what would lose or misread data (bad JSON, wrong types, wrong
// format tag, missing nodes or edges) and tolerant about the rest
// (defaults, derived keys). Warnings describe the defaults it filled in.
func Parse(data []byte) (*Workflow, []string, error) { return ParseFile("", data) }

// ParseFile is Parse of data read from the workflow file at path: without
// an id the document gets the file's (FileID). Every reading of a workflow
// file goes through here (Load, or this with the bytes read), so one file
// has one id whichever door ran or opened it.
func ParseFile(path string, data []byte) (*Workflow, []string, error) {
	w, warnings, err := parse(data)
	if err != nil {
		return nil, nil, err
	}
	if w.ID == "" {
		w.ID = FileID(path)
	}
	return w, warnings, nil
}

// parse decodes a document (Parse) and leaves a missing id empty.
func parse(data []byte) (*Workflow, []string, error) {
	var top map[string]json.RawMessage
	if gjson.ValidBytes(data) {
		// The common case, a valid file: one fast scan for the top level,
		// over the file's bytes seen as a string without a copy (gjson's
		// byte functions copy what they return: the whole file again for
		// "nodes"). Nothing kept after Parse returns points into it: the
		// fast path copies every string it stores (fastString, fastOther)
		// and every raw value becomes a new json.RawMessage.
		if root := gjson.Parse(unsafe.String(unsafe.SliceData(data), len(data))); len(data) > 0 && root.IsObject() {
			top = map[string]json.RawMessage{}
			items := map[string]gjson.Result{}
			root.ForEach(func(k, v gjson.Result) bool {
				key := strings.Clone(k.String()) // may be kept, in Extra
				if itemFields[key] {
					items[key] = v
					top[key] = json.RawMessage(v.Raw[:1]) // for parseTop's checks
				} else {
					top[key] = json.RawMessage(v.Raw)
				}
				return true
			})
			return parseTop(data, top, items)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&top); err != nil {
		var typ *json.UnmarshalTypeError
		if errors.As(err, &typ) {
			line, col := LineCol(data, max(typ.Offset-1, 0))
			return nil, nil, &ParseError{Line: line, Column: col, Msg: "expected a JSON object, got " + typ.Value}
		}
		return nil, nil, jsonError(data, err, "")
	}
	if dec.More() {
		line, col := LineCol(data, dec.InputOffset())
		return nil, nil, &ParseError{Line: line, Column: col, Msg: "unexpected data after the workflow object"}
	}
	if top == nil {
		return nil, nil, &ParseError{Line: 1, Column: 1, Msg: "expected a JSON object, got null"}
	}
	items := map[string]gjson.Result{}
	for k := range itemFields {
		items[k] = gjson.GetBytes(data, k)
	}
	return parseTop(data, top, items)
}

// itemFields are the top-level arrays decoded item by item (decodeItems),
// so a wrong value is reported with its index and position in the file.
var itemFields = map[string]bool{"nodes": true, "edges": true, "notes": true, "groups": true}

// parseTop decodes a document whose top level is read into top, and whose
// nodes and edges arrays are items (offsets relative to data).
func parseTop(data []byte, top map[string]json.RawMessage, items map[string]gjson.Result) (*Workflow, []string, error) {
	rawFormat, ok := top["format"]
	if !ok {
		return nil, nil, &ParseError{Path: "format", Msg: fmt.Sprintf("missing; expected %q", Format)}
	}
	var format string
	if err := json.Unmarshal(rawFormat, &format); err != nil || format != Format {
		return nil, nil, &ParseError{Path: "format", Msg: fmt.Sprintf("got %s; expected %q", strings.TrimSpace(string(rawFormat)), Format)}
	}
	for _, f := range []string{"nodes", "edges"} {
		v, ok := top[f]
		if !ok {
			return nil, nil, &ParseError{Path: f, Msg: "missing; a workflow needs a \"" + f + "\" array (it may be empty)"}
		}
		if t := bytes.TrimSpace(v); len(t) == 0 || t[0] != '[' {
			return nil, nil, &ParseError{Path: f, Msg: "must be an array"}
		}
	}
	// One pass: the top-level fields, then nodes and edges one by one into
	// the workflow, so a wrong value is reported with its index and its
	// real position in the file (and the file is decoded once).
	var w Workflow
	w.Format = format
	for k, v := range top {
		switch k {
		case "format", "nodes", "edges", "notes", "groups":
		default:
			if !workflowFields[k] {
				if w.Extra == nil {
					w.Extra = Extra{}
				}
				w.Extra[k] = v
				continue
			}
			if err := decodeTopField(&w, k, v); err != nil {
				return nil, nil, jsonError(data, err, k)
			}
		}
	}
	var err error
	if w.Nodes, err = decodeItems[Node](data, items["nodes"], "nodes"); err != nil {
		return nil, nil, err
	}
	if w.Edges, err = decodeItems[Edge](data, items["edges"], "edges"); err != nil {
		return nil, nil, err
	}
	if w.Notes, err = decodeOptionalItems[Note](data, top, items, "notes"); err != nil {
		return nil, nil, err
	}
	if w.Groups, err = decodeOptionalItems[Group](data, top, items, "groups"); err != nil {
		return nil, nil, err
	}
	warnings := w.normalize()
	return &w, warnings, nil
}

// normalize fills defaults a hand-written file may leave out.
func (w *Workflow) normalize() []string {
	var warnings []string
	for i := range w.Nodes {
		n := &w.Nodes[i]
		if n.ID == "" {
			n.ID = NewID()
			warnings = append(warnings, fmt.Sprintf("nodes[%d]: no id; assigned %s", i, n.ID))
		}
		if n.Type == TypeLoop && n.Params.MaxIterations == nil {
			m := DefaultMaxIterations
			n.Params.MaxIterations = &m
		}
	}
	warnings = append(warnings, w.migrateReferenceRoots()...)
	for _, id := range w.FillKeys() {
		n := w.NodeByID(id)
		warnings = append(warnings, fmt.Sprintf("node '%s': no key; derived %q", n.Label(), n.Key))
	}
	return append(warnings, w.markLegacyReplan()...)
}

// jsonError turns an encoding/json error into a ParseError with position.
func jsonError(data []byte, err error, path string) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		// Offset is just past the offending byte.
		line, col := LineCol(data, max(syn.Offset-1, 0))
		return &ParseError{Path: path, Line: line, Column: col, Msg: "invalid JSON: " + syn.Error()}
	case errors.As(err, &typ):
		line, col := LineCol(data, typ.Offset)
		p := typ.Field
		if p == "" {
			p = path
		}
		return &ParseError{Path: p, Line: line, Column: col,
			Msg: fmt.Sprintf("expected %s, got JSON %s", typ.Type.String(), typ.Value)}
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		line, col := LineCol(data, int64(len(data)))
		return &ParseError{Path: path, Line: line, Column: col, Msg: "invalid JSON: unexpected end of input"}
	}
	return &ParseError{Path: path, Msg: err.Error()}
}

// encode is json.Marshal without HTML escaping: a workflow file shows
// `&&`, `<` and `>` as written (a diff of a command is readable), not as
// \u0026, \u003c and \u003e. Approval fingerprints hash a re-encoded
// value (approval.Fingerprint), so they do not depend on this.
func encode(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Marshal encodes a workflow as indented JSON with a trailing newline.
func Marshal(w *Workflow) ([]byte, error) {
	if w.Format == "" {
		w.Format = Format
	}
	b, err := encode(w)
	if err != nil {
		return nil, fmt.Errorf("encode workflow: %w", err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return nil, fmt.Errorf("indent workflow: %w", err)
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// valueOffsets maps each key of a JSON object to the offset where its value
// starts.
func valueOffsets(obj []byte) map[string]int64 {
	out := map[string]int64{}
	dec := json.NewDecoder(bytes.NewReader(obj))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return out
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return out
		}
		key, _ := t.(string)
		off := dec.InputOffset()
		for off < int64(len(obj)) && (obj[off] == ':' || obj[off] == ' ' || obj[off] == '\t' || obj[off] == '\n' || obj[off] == '\r') {
			off++
		}
		out[key] = off
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return out
		}
	}
	return out
}

// decodeTopField decodes one known top-level field other than format,
// nodes and edges.
func decodeTopField(w *Workflow, k string, v json.RawMessage) error {
	switch k {
	case "id":
		return json.Unmarshal(v, &w.ID)
	case "name":
		return json.Unmarshal(v, &w.Name)
	case "goal":
		return json.Unmarshal(v, &w.Goal)
	case "done_when":
		return json.Unmarshal(v, &w.DoneWhen)
	case "pinned":
		return json.Unmarshal(v, &w.Pinned)
	case "inputs":
		w.Inputs = append(json.RawMessage(nil), v...) // v may point into the file's bytes
		return nil
	}
	// A field added to Workflow without a case here: decode through the
	// struct, so it is never dropped.
	var one Workflow
	if err := json.Unmarshal([]byte(`{"`+k+`":`+string(v)+`}`), (*rawWorkflow)(&one)); err != nil {
		return err
	}
	src, dst := reflect.ValueOf(one), reflect.ValueOf(w).Elem()
	for i := 0; i < src.NumField(); i++ {
		if strings.Split(src.Type().Field(i).Tag.Get("json"), ",")[0] == k {
			dst.Field(i).Set(src.Field(i))
		}
	}
	return nil
}

// decodeItems decodes each element of the array field (nodes or edges) and
// reports the first wrong value as field[i].path at its line and column.
func decodeItems[T any](data []byte, arr gjson.Result, field string) ([]T, error) {
	out := make([]T, 0, 16)
	var err error
	i := 0
	arr.ForEach(func(_, v gjson.Result) bool {
		var item T
		if fastItem(v, &item) {
			out = append(out, item)
			i++
			return true
		}
		item = *new(T)
		if e := json.Unmarshal([]byte(v.Raw), &item); e != nil {
			err = itemError(data, e, field, i, int64(v.Index), []byte(v.Raw))
			return false
		}
		out = append(out, item)
		i++
		return true
	})
	return out, err
}

// decodeOptionalItems is decodeItems for an array the document may leave
// out (or set to null): nil then, so a file without it saves without it.
func decodeOptionalItems[T any](data []byte, top map[string]json.RawMessage, items map[string]gjson.Result, field string) ([]T, error) {
	// top holds the value, or (the fast path) its first byte: the
	// document is valid JSON here, so "n" is null.
	t := bytes.TrimSpace(top[field])
	if len(t) == 0 || t[0] == 'n' {
		return nil, nil
	}
	if t[0] != '[' {
		return nil, &ParseError{Path: field, Msg: "must be an array"}
	}
	out, err := decodeItems[T](data, items[field], field)
	if err != nil || len(out) == 0 {
		return nil, err
	}
	return out, nil
}

// itemError turns the error of element i (starting at elemStart in data)
// into a ParseError with its path, line and column.
func itemError(data []byte, err error, field string, i int, elemStart int64, raw []byte) error {
	path := fmt.Sprintf("%s[%d]", field, i)
	var typ *json.UnmarshalTypeError
	if !errors.As(err, &typ) {
		return &ParseError{Path: path, Msg: err.Error()}
	}
	off := elemStart + typ.Offset
	// Params and edge outputs decode themselves, so their offsets are
	// relative to their own value.
	first := strings.SplitN(typ.Field, ".", 2)[0]
	if first == "params" || first == "output" {
		if vo, ok := valueOffsets(raw)[first]; ok {
			off = elemStart + vo + typ.Offset
		}
	}
	line, col := LineCol(data, max(off-1, 0))
	if typ.Field != "" {
		path += "." + typ.Field
	}
	return &ParseError{Path: path, Line: line, Column: col,
		Msg: fmt.Sprintf("expected %s, got JSON %s", friendlyType(typ.Type.String()), typ.Value)}
}

func friendlyType(t string) string {
	switch {
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "*int"):
		return "a whole number"
	case strings.HasPrefix(t, "float"):
		return "a number"
	case t == "string", strings.HasSuffix(t, "NodeType"), strings.HasSuffix(t, "OutputType"):
		return "a string"
	case t == "bool", t == "*bool":
		return "true or false"
	case strings.HasPrefix(t, "[]"):
		return "an array"
	}
	return "an object"
}
