// Package tsgen writes the TypeScript the desktop frontend calls Go with:
// an interface for every Go type its bindings take or return, shaped as
// encoding/json writes it, and a typed function per bound method. The
// frontend's types come from here, so they cannot drift from the Go ones.
//
// Wails generates bindings too, but as classes with a convertValues
// method (a plain JSON object is not one, so every call needed a cast),
// with `any` for time.Time and without a named string type's values; these
// are plain interfaces, string unions and `T | null` where Go writes null.
//
// Types are read by reflection; the Go source of the module's packages
// adds what reflection cannot see: doc comments, parameter names and the
// constants of a named string type (its values, written as a union).
package tsgen

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Config says what reflection cannot.
type Config struct {
	// As are Go types whose JSON is the TypeScript type given, written
	// as is (time.Time: "string", json.RawMessage: "unknown").
	As map[reflect.Type]string
	// Custom are the types with their own MarshalJSON, and how their JSON
	// differs from their fields'. Any other type with a MarshalJSON is an
	// error: its fields may not say what it writes.
	Custom map[reflect.Type]Custom
	// Module is the Go module path and Dir its directory: the source of
	// its packages is read for doc comments, parameter names and
	// constants. Types outside it get neither.
	Module, Dir string
	// Namespace is the TypeScript namespace of the receiver's package
	// (its package name when empty).
	Namespace string
	// Types are declared besides those the methods take and return: the
	// payloads of the events the Go side emits.
	Types []reflect.Type
}

// Custom is the JSON of a type with its own MarshalJSON: its fields', plus
// Extra members and, when Open, any other member (the type keeps unknown
// keys and writes them back). NotNull are the members it never writes as
// null (an empty list for a nil one).
type Custom struct {
	Open    bool
	Extra   []Field
	NotNull []string
}

// Field is a member a MarshalJSON adds.
type Field struct {
	Name     string
	Type     reflect.Type
	Optional bool
	Doc      string
}

var (
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
	errorType     = reflect.TypeFor[error]()
)

// gen is one Generate call's state.
type gen struct {
	cfg     Config
	src     *sources
	decls   map[reflect.Type]string // named type → its declaration
	ns      map[reflect.Type]string // named type → its namespace
	pkgOf   map[string]string       // namespace → Go package path
	pending []reflect.Type
}

// Generate writes the TypeScript for the exported methods of recv (a
// pointer to the struct Wails binds): the types they take and return, and
// a function per method calling window.go.<namespace>.<type>.<method>.
func Generate(recv reflect.Type, cfg Config) ([]byte, error) {
	if recv.Kind() != reflect.Pointer || recv.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("tsgen: the receiver must be a pointer to a struct, not %s", recv)
	}
	g := &gen{cfg: cfg, src: newSources(cfg.Module, cfg.Dir), decls: map[reflect.Type]string{}, ns: map[reflect.Type]string{}, pkgOf: map[string]string{}}
	self, err := g.namespace(recv.Elem())
	if err != nil {
		return nil, err
	}
	if cfg.Namespace != "" {
		self = cfg.Namespace
	}
	var funcs bytes.Buffer
	for i := range recv.NumMethod() {
		m := recv.Method(i)
		f, err := g.method(recv.Elem(), m)
		if err != nil {
			return nil, fmt.Errorf("tsgen: %s.%s: %w", recv.Elem().Name(), m.Name, err)
		}
		funcs.WriteString(f)
	}
	for _, t := range cfg.Types {
		if _, err := g.ts(t); err != nil {
			return nil, fmt.Errorf("tsgen: %s: %w", t, err)
		}
	}
	for len(g.pending) > 0 {
		t := g.pending[0]
		g.pending = g.pending[1:]
		d, err := g.declare(t)
		if err != nil {
			return nil, fmt.Errorf("tsgen: %s: %w", t, err)
		}
		g.decls[t] = d
	}

	var out bytes.Buffer
	out.WriteString("// Generated from the Go types by backend/tsgen (make types). DO NOT EDIT.\n\n")
	byNS := map[string][]reflect.Type{}
	for t := range g.decls {
		byNS[g.ns[t]] = append(byNS[g.ns[t]], t)
	}
	names := make([]string, 0, len(byNS))
	for n := range byNS {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		ts := byNS[n]
		sort.Slice(ts, func(i, j int) bool { return ts[i].Name() < ts[j].Name() })
		fmt.Fprintf(&out, "export namespace %s {\n", n)
		for i, t := range ts {
			if i > 0 {
				out.WriteString("\n")
			}
			out.WriteString(g.decls[t])
		}
		out.WriteString("}\n\n")
	}
	fmt.Fprintf(&out, `// The bound methods, as Wails exposes them on window.go; a Go error
// rejects the promise with its text.
// Their results are JSON of the Go types above: any, typed by each function.
type Binding = (...args: unknown[]) => Promise<any>;
declare global {
  interface Window {
    go: { %s: { %s: Record<string, Binding> } };
  }
}
const bound = (method: string): Binding => window.go.%s.%s[method];
`, self, recv.Elem().Name(), self, recv.Elem().Name())
	out.Write(funcs.Bytes())
	return out.Bytes(), nil
}

// method is the function for one bound method.
func (g *gen) method(recv reflect.Type, m reflect.Method) (string, error) {
	ft := m.Type
	names := g.src.params(recv, m.Name)
	var params, args []string
	for i := 1; i < ft.NumIn(); i++ { // 0 is the receiver
		if ft.IsVariadic() && i == ft.NumIn()-1 {
			return "", fmt.Errorf("variadic methods cannot be bound")
		}
		name := fmt.Sprintf("arg%d", i)
		if i-1 < len(names) && names[i-1] != "" && names[i-1] != "_" {
			name = names[i-1]
		}
		ts, err := g.ts(ft.In(i))
		if err != nil {
			return "", fmt.Errorf("parameter %s: %w", name, err)
		}
		params = append(params, name+": "+ts)
		args = append(args, name)
	}
	result := "void"
	switch {
	case ft.NumOut() > 2:
		return "", fmt.Errorf("more than two results")
	case ft.NumOut() == 2 && ft.Out(1) != errorType:
		return "", fmt.Errorf("a second result that is not an error")
	case ft.NumOut() == 1 && ft.Out(0) == errorType:
	case ft.NumOut() >= 1:
		ts, err := g.ts(ft.Out(0))
		if err != nil {
			return "", fmt.Errorf("result: %w", err)
		}
		result = ts
	}
	var b strings.Builder
	b.WriteString("\n")
	b.WriteString(jsdoc("", g.src.doc(recv, m.Name)))
	fmt.Fprintf(&b, "export function %s(%s): Promise<%s> {\n  return bound(%s)(%s);\n}\n",
		m.Name, strings.Join(params, ", "), result, tsString(m.Name), strings.Join(args, ", "))
	return b.String(), nil
}

// ts is the TypeScript type of a value of t as encoding/json writes it.
func (g *gen) ts(t reflect.Type) (string, error) {
	if as, ok := g.cfg.As[t]; ok {
		return as, nil
	}
	if t.Kind() == reflect.Pointer {
		elem, err := g.ts(t.Elem())
		if err != nil {
			return "", err
		}
		return orNull(elem), nil
	}
	if _, ok := g.cfg.Custom[t]; ok {
		return g.ref(t)
	}
	if t.Implements(jsonMarshaler) || reflect.PointerTo(t).Implements(jsonMarshaler) {
		return "", fmt.Errorf("%s has its own MarshalJSON: say what it writes (Config.As or Config.Custom)", t)
	}
	if t.Implements(textMarshaler) || reflect.PointerTo(t).Implements(textMarshaler) {
		return "string", nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return "boolean", nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return "number", nil
	case reflect.String:
		if t.Name() != "" && t.PkgPath() != "" && len(g.src.consts(t)) > 0 {
			return g.ref(t)
		}
		return "string", nil
	case reflect.Interface:
		return "unknown", nil
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 && !t.Elem().Implements(jsonMarshaler) && !t.Elem().Implements(textMarshaler) {
			if t.Kind() == reflect.Array {
				return "number[]", nil
			}
			return "string | null", nil // base64; nil is null
		}
		elem, err := g.ts(t.Elem())
		if err != nil {
			return "", err
		}
		if strings.Contains(elem, "|") {
			elem = "(" + elem + ")"
		}
		if t.Kind() == reflect.Array {
			return elem + "[]", nil
		}
		return orNull(elem + "[]"), nil
	case reflect.Map:
		k := t.Key()
		switch {
		case k.Kind() == reflect.String, k.Implements(textMarshaler), isInt(k):
		default:
			return "", fmt.Errorf("map key %s is not a string, an integer or a TextMarshaler", k)
		}
		elem, err := g.ts(t.Elem())
		if err != nil {
			return "", err
		}
		return orNull("Record<string, " + elem + ">"), nil
	case reflect.Struct:
		if t.Name() == "" {
			return g.object(t, Custom{}, "")
		}
		return g.ref(t)
	}
	return "", fmt.Errorf("%s (%s) has no JSON form", t, t.Kind())
}

func isInt(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true
	}
	return false
}

// orNull is t or null; null | null is null.
func orNull(t string) string {
	if strings.HasSuffix(t, " | null") {
		return t
	}
	return t + " | null"
}

// ref names the named type t, to be declared in its namespace.
func (g *gen) ref(t reflect.Type) (string, error) {
	if strings.ContainsAny(t.Name(), "[]") {
		return "", fmt.Errorf("%s: generic types are not supported", t)
	}
	ns, err := g.namespace(t)
	if err != nil {
		return "", err
	}
	if _, ok := g.decls[t]; !ok {
		g.decls[t] = "" // declared once the pending queue reaches it
		g.pending = append(g.pending, t)
	}
	return ns + "." + t.Name(), nil
}

// namespace is the TypeScript namespace of t's package: its Go name.
func (g *gen) namespace(t reflect.Type) (string, error) {
	if ns, ok := g.ns[t]; ok {
		return ns, nil
	}
	ns := g.src.pkgName(t.PkgPath())
	if ns == "" {
		return "", fmt.Errorf("%s has no package", t)
	}
	if other, ok := g.pkgOf[ns]; ok && other != t.PkgPath() {
		return "", fmt.Errorf("packages %s and %s are both named %s", other, t.PkgPath(), ns)
	}
	g.pkgOf[ns] = t.PkgPath()
	g.ns[t] = ns
	return ns, nil
}

// declare is the declaration of the named type t.
func (g *gen) declare(t reflect.Type) (string, error) {
	doc := jsdoc("  ", g.src.doc(t, ""))
	if t.Kind() == reflect.String {
		vals := g.src.consts(t)
		quoted := make([]string, len(vals))
		for i, v := range vals {
			quoted[i] = tsString(v)
		}
		return fmt.Sprintf("%s  export type %s = %s;\n", doc, t.Name(), strings.Join(quoted, " | ")), nil
	}
	if t.Kind() != reflect.Struct {
		return "", fmt.Errorf("only structs and string types are declared, not %s", t.Kind())
	}
	body, err := g.object(t, g.cfg.Custom[t], "  ")
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s  export interface %s %s\n", doc, t.Name(), body), nil
}

// member is one JSON member of a struct.
type member struct {
	name     string
	typ      reflect.Type
	optional bool // omitempty or omitzero: absent when empty
	quoted   bool // ,string: a number or bool written as a string
	doc      string
	depth    int
	tagged   bool
}

// object is the TypeScript object type of the struct t, its lines
// indented by indent plus two spaces; on one line, without docs, when
// indent is "" (an anonymous struct).
func (g *gen) object(t reflect.Type, c Custom, indent string) (string, error) {
	ms, err := g.members(t, 0)
	if err != nil {
		return "", err
	}
	for _, f := range c.Extra {
		ms = append(ms, member{name: f.Name, typ: f.Type, optional: f.Optional, doc: f.Doc})
	}
	var lines []string
	for _, m := range ms {
		ts := "string"
		if !m.quoted {
			if ts, err = g.ts(m.typ); err != nil {
				return "", fmt.Errorf("%s: %w", m.name, err)
			}
		}
		opt := ""
		if slices.Contains(c.NotNull, m.name) {
			ts = strings.TrimSuffix(ts, " | null")
		}
		if m.optional {
			opt = "?"
			// An empty value is left out, so a nil one never shows.
			ts = strings.TrimSuffix(ts, " | null")
		}
		line := fmt.Sprintf("%s%s: %s;", tsKey(m.name), opt, ts)
		if indent != "" {
			line = jsdoc(indent+"  ", m.doc) + indent + "  " + line + "\n"
		}
		lines = append(lines, line)
	}
	if c.Open {
		lines = append(lines, fmt.Sprintf("%s  /** members this version does not know, kept as they are */\n%s  [extra: string]: unknown;\n", indent, indent))
	}
	if indent == "" {
		return "{ " + strings.Join(lines, " ") + " }", nil
	}
	return "{\n" + strings.Join(lines, "") + indent + "}", nil
}

// members lists t's JSON members as encoding/json does: embedded structs'
// members promoted, the shallowest of a name kept (a tagged one among
// equals), equals without a tag both dropped.
func (g *gen) members(t reflect.Type, depth int) ([]member, error) {
	var all []member
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		ft := f.Type
		if f.Anonymous && name == "" {
			ptr := ft.Kind() == reflect.Pointer
			if ptr {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				if _, custom := g.cfg.Custom[ft]; custom || ft.Implements(jsonMarshaler) {
					return nil, fmt.Errorf("embedded %s has its own MarshalJSON", ft)
				}
				sub, err := g.members(ft, depth+1)
				if err != nil {
					return nil, err
				}
				for i := range sub {
					sub[i].optional = sub[i].optional || ptr // a nil one writes none of them
				}
				all = append(all, sub...)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		m := member{name: f.Name, typ: f.Type, depth: depth, tagged: name != "", doc: g.src.doc(t, f.Name)}
		if name != "" {
			m.name = name
		}
		for o := range strings.SplitSeq(opts, ",") {
			switch o {
			case "omitempty", "omitzero":
				m.optional = true
			case "string":
				switch f.Type.Kind() {
				case reflect.Bool, reflect.String, reflect.Float32, reflect.Float64:
					m.quoted = true
				default:
					m.quoted = isInt(f.Type)
				}
			}
		}
		all = append(all, m)
	}
	if depth > 0 {
		return all, nil
	}
	// Resolve names that several fields give, as encoding/json does.
	var out []member
	for _, m := range all {
		keep, ok := m, true
		for _, o := range all {
			if o.name != m.name || o == m {
				continue
			}
			switch {
			case o.depth < m.depth, o.depth == m.depth && o.tagged && !m.tagged:
				ok = false
			case o.depth == m.depth && o.tagged == m.tagged:
				ok = false
			}
		}
		if ok && !slices.ContainsFunc(out, func(x member) bool { return x.name == keep.name }) {
			out = append(out, keep)
		}
	}
	return out, nil
}

// tsKey is name as an object key: bare when it is an identifier.
func tsKey(name string) string {
	for i, r := range name {
		if !(r == '_' || r == '$' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return tsString(name)
		}
	}
	if name == "" {
		return "''"
	}
	return name
}

// tsString is s as a TypeScript string literal.
func tsString(s string) string {
	q := strconv.Quote(s) // a JSON-compatible escape of everything that matters here
	return "'" + strings.ReplaceAll(strings.ReplaceAll(q[1:len(q)-1], `\"`, `"`), "'", `\'`) + "'"
}

// jsdoc is a Go doc comment as a JSDoc one, each line indented.
func jsdoc(indent, doc string) string {
	doc = strings.TrimSpace(strings.ReplaceAll(doc, "*/", "*\\/"))
	if doc == "" {
		return ""
	}
	lines := strings.Split(doc, "\n")
	if len(lines) == 1 {
		return indent + "/** " + lines[0] + " */\n"
	}
	var b strings.Builder
	b.WriteString(indent + "/**\n")
	for _, l := range lines {
		b.WriteString(strings.TrimRight(indent+" * "+l, " ") + "\n")
	}
	b.WriteString(indent + " */\n")
	return b.String()
}
