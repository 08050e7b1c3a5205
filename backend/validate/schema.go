package validate

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/weft-dev/weft/backend/quote"
	"github.com/weft-dev/weft/backend/render"
)

// Added with issue 24 (MCP as a first-class catalog): a literal argument
// of an MCP step that its tool's input schema does not allow (its JSON
// type, enum or const, or a limit such as minimum or pattern), and an
// argument the schema does not name where it takes no others
// (additionalProperties false). Problem.Path is the argument's JSON pointer.
const (
	CodeBadArgument     = "bad_argument"
	CodeUnknownArgument = "unknown_argument"
)

// Bounds of one step's schema check: a schema (or arguments) nested
// deeper, or a schema whose anyOf branches multiply, is checked as far as
// the bounds go and no further, never at a cost the file chose.
const (
	maxArgDepth    = 32    // nesting of arguments followed
	maxArgVisits   = 20000 // schema applications per step
	maxArgProblems = 20    // problems per step
)

// argProblem is one argument its schema does not allow.
type argProblem struct {
	code string
	path argPath
	msg  string // what is wrong, after "the argument PATH "
}

// argPath is where an argument sits: object keys and array indexes.
type argPath []any

// String is the path in Weft's words: options.depth, items[2].name.
func (p argPath) String() string {
	var b strings.Builder
	for _, s := range p {
		switch s := s.(type) {
		case int:
			fmt.Fprintf(&b, "[%d]", s)
		case string:
			if b.Len() > 0 && isIdent(s) {
				b.WriteByte('.')
			}
			if isIdent(s) {
				b.WriteString(s)
			} else {
				fmt.Fprintf(&b, "[%s]", strconv.Quote(s))
			}
		}
	}
	return b.String()
}

// Pointer is the path as a JSON pointer (RFC 6901): /options/depth.
func (p argPath) Pointer() string {
	var b strings.Builder
	for _, s := range p {
		b.WriteByte('/')
		switch s := s.(type) {
		case int:
			b.WriteString(strconv.Itoa(s))
		case string:
			b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(s))
		}
	}
	return b.String()
}

func (p argPath) with(s any) argPath { return append(p[:len(p):len(p)], s) }

func isIdent(s string) bool {
	for k := 0; k < len(s); k++ {
		if !isIdentByte(s[k], k == 0) && (k == 0 || s[k] != '-') {
			return false
		}
	}
	return s != ""
}

// argSchema is one tool's parsed input schema, with what checking it
// compiles kept for the next step that calls the tool.
type argSchema struct {
	root    *jsonschema.Schema
	leaf    map[*jsonschema.Schema]*jsonschema.Resolved // nil: nothing to check
	pattern map[string]*regexp.Regexp
}

// parseArgSchema parses a tool's input schema; nil when there is none or
// it is not a schema (the server's mistake: nothing is checked then).
func parseArgSchema(raw json.RawMessage) *argSchema {
	if len(raw) == 0 {
		return nil
	}
	var s jsonschema.Schema
	if json.Unmarshal(raw, &s) != nil {
		return nil
	}
	return &argSchema{root: &s, leaf: map[*jsonschema.Schema]*jsonschema.Resolved{}, pattern: map[string]*regexp.Regexp{}}
}

// checkArgs checks a step's arguments against the schema. Its top-level
// required arguments are checkArguments' (missing_argument, for every
// tool); nested ones are reported here.
func (a *argSchema) checkArgs(args map[string]any) []argProblem {
	c := &argCheck{s: a}
	var v any = args
	if args == nil {
		v = map[string]any{}
	}
	c.check(v, a.root, nil, 0)
	return c.probs
}

type argCheck struct {
	s      *argSchema
	visits int
	probs  []argProblem
	full   bool // maxArgProblems reached
}

func (c *argCheck) add(code string, path argPath, format string, args ...any) {
	if len(c.probs) >= maxArgProblems {
		c.full = true
		return
	}
	c.probs = append(c.probs, argProblem{code: code, path: path, msg: fmt.Sprintf(format, args...)})
}

// check applies schema s to the value v at path.
func (c *argCheck) check(v any, s *jsonschema.Schema, path argPath, depth int) {
	c.visits++
	if s == nil || c.full || c.visits > maxArgVisits || depth > maxArgDepth {
		return
	}
	tmpl := templateKind(v)
	if tmpl == wholeTemplate {
		return // any type: only the run knows it
	}
	if isFalseSchema(s) {
		c.add(CodeBadArgument, path, "is not allowed by the tool's schema")
		return
	}
	if s.Ref != "" {
		if t := c.ref(s.Ref); t != nil {
			c.check(v, t, path, depth+1)
		}
	}
	kind := jsonKind(v)
	if tmpl == partTemplate {
		kind = "string" // text around a placeholder renders to text
	}
	if types := schemaTypes(s); len(types) > 0 && !typeAllows(types, kind) {
		c.add(CodeBadArgument, path, "must be %s, not %s", wantTypes(types), given(v, tmpl))
		return
	}
	if tmpl == noTemplate {
		if len(s.Enum) > 0 && !inEnum(v, s.Enum) {
			c.add(CodeBadArgument, path, "must be one of %s, not %s", showList(s.Enum), given(v, tmpl))
			return
		}
		if s.Const != nil && !jsonEqual(v, *s.Const) {
			c.add(CodeBadArgument, path, "must be %s, not %s", showJSON(*s.Const), given(v, tmpl))
			return
		}
		if msg := c.leafCheck(v, s); msg != "" {
			c.add(CodeBadArgument, path, "%s", msg)
			return
		}
	}
	for _, sub := range s.AllOf {
		c.check(v, sub, path, depth+1)
	}
	if alts := append(append([]*jsonschema.Schema(nil), s.AnyOf...), s.OneOf...); len(alts) > 0 && !c.anyMatches(v, alts, path, depth) {
		c.add(CodeBadArgument, path, "matches none of the forms the tool takes (%s), not %s", describeAlts(alts), given(v, tmpl))
		return
	}
	switch v := v.(type) {
	case map[string]any:
		c.object(v, s, path, depth)
	case []any:
		c.array(v, s, path, depth)
	}
}

// anyMatches reports whether v passes one of alts, checked quietly (their
// visits still count). oneOf is read as anyOf: whether a template's value
// would match two forms is not known before the run.
func (c *argCheck) anyMatches(v any, alts []*jsonschema.Schema, path argPath, depth int) bool {
	for _, alt := range alts {
		q := &argCheck{s: c.s, visits: c.visits}
		q.check(v, alt, path, depth+1)
		c.visits = q.visits
		if len(q.probs) == 0 {
			return true
		}
	}
	return false
}

func (c *argCheck) object(v map[string]any, s *jsonschema.Schema, path argPath, depth int) {
	if depth > 0 { // the top level's are missing_argument, for every tool
		for _, name := range s.Required {
			if v[name] == nil {
				c.add(CodeMissingArgument, path.with(name), "is required by the tool's schema")
			}
		}
	}
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if sub, ok := s.Properties[k]; ok {
			val := v[k]
			if depth == 0 && sub.Type != "" { // the run coerces these (render.CoerceArg)
				switch templateKind(val) {
				case partTemplate:
					if sub.Type != "string" {
						continue // "{{n.x}}5" may well be a number
					}
				case noTemplate:
					val = render.CoerceArg(val, sub.Type)
				}
			}
			c.check(val, sub, path.with(k), depth+1)
			continue
		}
		matched := false
		for pat, sub := range s.PatternProperties {
			if re := c.regexp(pat); re != nil && re.MatchString(k) {
				matched = true
				c.check(v[k], sub, path.with(k), depth+1)
			}
		}
		switch {
		case matched || s.AdditionalProperties == nil:
		case isFalseSchema(s.AdditionalProperties):
			c.add(CodeUnknownArgument, path.with(k), "is not one the tool takes%s", takes(s))
		default:
			c.check(v[k], s.AdditionalProperties, path.with(k), depth+1)
		}
	}
}

func (c *argCheck) array(v []any, s *jsonschema.Schema, path argPath, depth int) {
	prefix := s.PrefixItems
	if len(prefix) == 0 {
		prefix = s.ItemsArray // draft 7's items: [...]
	}
	rest := s.Items
	if len(s.ItemsArray) > 0 && len(s.PrefixItems) == 0 {
		rest = s.AdditionalItems
	}
	for i, it := range v {
		if c.full || c.visits > maxArgVisits {
			return
		}
		if i < len(prefix) {
			c.check(it, prefix[i], path.with(i), depth+1)
		} else if rest != nil {
			c.check(it, rest, path.with(i), depth+1)
		}
	}
}

// ref resolves a $ref within the tool's schema (#, #/$defs/…,
// #/definitions/… or a pointer through properties and items); nil for one
// elsewhere. A chain of refs is followed by check, one level at a time,
// so a loop of them ends at maxArgDepth.
func (c *argCheck) ref(ref string) *jsonschema.Schema {
	p, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil
	}
	s := c.s.root
	if p == "" {
		return s
	}
	segs := strings.Split(strings.TrimPrefix(p, "/"), "/")
	unescape := strings.NewReplacer("~1", "/", "~0", "~")
	for k := 0; k < len(segs) && s != nil; k++ {
		var m map[string]*jsonschema.Schema
		switch unescape.Replace(segs[k]) {
		case "$defs":
			m = s.Defs
		case "definitions":
			m = s.Definitions
		case "properties":
			m = s.Properties
		case "items":
			s = s.Items
			continue
		case "additionalProperties":
			s = s.AdditionalProperties
			continue
		default:
			return nil
		}
		k++
		if k == len(segs) {
			return nil
		}
		s = m[unescape.Replace(segs[k])]
	}
	return s
}

// leafCheck applies a scalar's limits (minimum, maximum, multipleOf,
// minLength, maxLength, pattern) with the JSON Schema library, and says
// what is wrong, or "".
func (c *argCheck) leafCheck(v any, s *jsonschema.Schema) string {
	switch v.(type) {
	case map[string]any, []any:
		return ""
	}
	rs, seen := c.s.leaf[s]
	if !seen {
		if s.MultipleOf != nil || s.Minimum != nil || s.Maximum != nil || s.ExclusiveMinimum != nil ||
			s.ExclusiveMaximum != nil || s.MinLength != nil || s.MaxLength != nil || s.Pattern != "" {
			leaf := &jsonschema.Schema{MultipleOf: s.MultipleOf, Minimum: s.Minimum, Maximum: s.Maximum,
				ExclusiveMinimum: s.ExclusiveMinimum, ExclusiveMaximum: s.ExclusiveMaximum,
				MinLength: s.MinLength, MaxLength: s.MaxLength, Pattern: s.Pattern}
			rs, _ = leaf.Resolve(nil) // a bad pattern leaves it unchecked
		}
		c.s.leaf[s] = rs
	}
	if rs == nil {
		return ""
	}
	err := rs.Validate(jsonValue(v))
	if err == nil {
		return ""
	}
	return "breaks a limit of the tool's schema: " + innermostError(err)
}

// innermostError is the library's message without the "validating …:"
// frames that wrap it.
func innermostError(err error) string {
	for {
		u := errors.Unwrap(err)
		if u == nil {
			break
		}
		err = u
	}
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 && strings.HasPrefix(msg, "validating") {
		msg = msg[i+2:]
	}
	return msg
}

func (c *argCheck) regexp(pat string) *regexp.Regexp {
	re, seen := c.s.pattern[pat]
	if !seen {
		re, _ = regexp.Compile(pat)
		c.s.pattern[pat] = re
	}
	return re
}

// ---- values ----

type tmplKind uint8

const (
	noTemplate    tmplKind = iota
	wholeTemplate          // exactly one placeholder: its value keeps its type
	partTemplate           // text and placeholders: a string
)

// templateKind tells whether a value is filled in at run time, as
// render.String renders it. A whole {{secrets.NAME}} is a string.
func templateKind(v any) tmplKind {
	s, ok := v.(string)
	if !ok || !strings.Contains(s, "{{") || !strings.Contains(s, "}}") {
		return noTemplate
	}
	if strings.HasPrefix(s, "{{") && strings.Index(s[2:], "}}") == len(s)-4 {
		expr, _ := quote.Placeholder(s[2 : len(s)-2])
		if render.Root(expr) == render.SecretsRoot {
			return partTemplate
		}
		return wholeTemplate
	}
	return partTemplate
}

func isFalseSchema(s *jsonschema.Schema) bool {
	return s.Not != nil && isTrueSchema(s.Not) && len(s.Types)+len(s.Type) == 0 && s.Ref == ""
}

func isTrueSchema(s *jsonschema.Schema) bool {
	return s.Ref == "" && s.Type == "" && len(s.Types) == 0 && s.Not == nil && len(s.Enum) == 0 && s.Const == nil &&
		len(s.AnyOf)+len(s.AllOf)+len(s.OneOf) == 0 && len(s.Properties) == 0 && s.Items == nil
}

func schemaTypes(s *jsonschema.Schema) []string {
	if s.Type != "" {
		return []string{s.Type}
	}
	return s.Types
}

// jsonKind is a value's JSON type; a whole number is an "integer".
func jsonKind(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case float64:
		if t == math.Trunc(t) && !math.IsInf(t, 0) {
			return "integer"
		}
		return "number"
	case float32, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, json.Number:
		if f, ok := jsonValue(v).(float64); ok && f != math.Trunc(f) {
			return "number"
		}
		return "integer"
	}
	return "object"
}

func typeAllows(types []string, kind string) bool {
	for _, t := range types {
		if t == kind || t == "number" && kind == "integer" {
			return true
		}
	}
	return false
}

// jsonValue is v as encoding/json decodes it (numbers as float64), for
// the library and for comparisons.
func jsonValue(v any) any {
	switch v.(type) {
	case nil, bool, string, float64, map[string]any, []any:
		return v
	}
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if json.Unmarshal(b, &out) != nil {
		return v
	}
	return out
}

func jsonEqual(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}

func inEnum(v any, enum []any) bool {
	for _, e := range enum {
		if jsonEqual(v, e) {
			return true
		}
	}
	return false
}

// ---- words ----

func wantTypes(types []string) string {
	words := make([]string, len(types))
	for i, t := range types {
		words[i] = article(t)
	}
	if len(words) == 1 {
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

func article(t string) string {
	switch t {
	case "null":
		return "null"
	case "integer", "object", "array":
		return "an " + t
	}
	return "a " + t
}

// given names a value for a message: the string "deep", the number 1.5.
func given(v any, tmpl tmplKind) string {
	if tmpl == partTemplate {
		return "text with a placeholder in it (always a string)"
	}
	switch t := jsonValue(v).(type) {
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(t)
	case string:
		return "the string " + cutShow(strconv.Quote(t))
	case float64:
		return "the number " + strconv.FormatFloat(t, 'g', -1, 64)
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	}
	return fmt.Sprint(v)
}

func cutShow(s string) string {
	const max = 60
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

func showJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return cutShow(string(b))
}

func showList(vs []any) string {
	const max = 8
	parts := make([]string, 0, max+1)
	for i, v := range vs {
		if i == max {
			parts = append(parts, fmt.Sprintf("%d more", len(vs)-max))
			break
		}
		parts = append(parts, showJSON(v))
	}
	return strings.Join(parts, ", ")
}

func describeAlts(alts []*jsonschema.Schema) string {
	var parts []string
	for _, a := range alts {
		switch {
		case len(schemaTypes(a)) > 0:
			parts = append(parts, wantTypes(schemaTypes(a)))
		case a.Const != nil:
			parts = append(parts, showJSON(*a.Const))
		case len(a.Enum) > 0:
			parts = append(parts, "one of "+showList(a.Enum))
		default:
			parts = append(parts, "a value of another form")
		}
	}
	return strings.Join(parts, "; ")
}

// takes lists the names a schema does take: " (it takes 'a', 'b')".
func takes(s *jsonschema.Schema) string {
	if len(s.Properties) == 0 {
		return " (it takes none here)"
	}
	names := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		names = append(names, k)
	}
	sort.Strings(names)
	if len(names) > 12 {
		return " (it takes " + quoteJoin(names[:12]) + fmt.Sprintf(" and %d more)", len(names)-12)
	}
	return " (it takes " + quoteJoin(names) + ")"
}
