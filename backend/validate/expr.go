package validate

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/builtin"
	"github.com/expr-lang/expr/checker"
	"github.com/expr-lang/expr/conf"
	"github.com/expr-lang/expr/file"

	"github.com/weft-dev/weft/backend/expression"
	"github.com/weft-dev/weft/backend/render"
	"github.com/weft-dev/weft/backend/workflow"
)

// MaxConditionLength caps a condition's length in characters, so a pasted
// blob cannot stall validation: the bound of every expression
// (expression.CheckBounds).
const MaxConditionLength = expression.MaxLength

// ConditionError says why a condition does not compile.
type ConditionError struct {
	Message string `json:"message"`
	Line    int    `json:"line"`   // 1-based; 0 when the error has no position
	Column  int    `json:"column"` // 1-based, in characters; 0 when unknown
}

func (e *ConditionError) Error() string {
	switch {
	case e.Line > 1:
		return fmt.Sprintf("%s (line %d, column %d)", e.Message, e.Line, e.Column)
	case e.Column > 0:
		return fmt.Sprintf("%s (column %d)", e.Message, e.Column)
	}
	return e.Message
}

// CheckCondition reports whether expr compiles as a condition: an
// expr-lang expression that can yield a boolean. It runs the same check as
// Validate, without a typed environment (node outputs are not known before a
// run), so it catches syntax errors and type errors among literals and
// builtins, not misspelled output fields. The error is a *ConditionError.
func CheckCondition(expr string) error {
	_, err := compileCondition(newExprConfig(), expr)
	return err
}

// reservedWord reports whether k cannot name a node because expr reads it
// as an operator or literal, so `not.stdout` would never parse.
func reservedWord(k string) bool { return workflow.ReservedKey(k) }

var builtinNames = func() map[string]bool {
	m := map[string]bool{}
	for _, f := range builtin.Builtins {
		m[f.Name] = true
	}
	return m
}()

// newExprConfig returns the checking configuration: no environment (any
// identifier is allowed, typed unknown), boolean-compatible result. A config
// is not safe for concurrent use, so each worker makes its own.
func newExprConfig() *conf.Config {
	c := conf.CreateNew()
	c.MaxNodes = expression.MaxNodes
	c.Expect = reflect.Bool
	c.ExpectAny = true
	return c
}

// compiled is what Validate keeps of a condition that compiles: the names
// the expression reads from its environment.
type compiled struct {
	idents []string
}

// compileCondition parses and type-checks expr. This is the front end of
// expr.Compile; the remaining steps (optimising, emitting bytecode) cannot
// reject a checked tree, and skipping them makes the check about four times
// faster, which matters for workflows with tens of thousands of conditions.
func compileCondition(cfg *conf.Config, expr string) (res compiled, err error) {
	if strings.TrimSpace(expr) == "" {
		return res, &ConditionError{Message: "the condition is empty"}
	}
	if err := expression.CheckBounds(expr); err != nil {
		return res, &ConditionError{Message: err.Error()}
	}
	defer func() {
		// A checker bug must not take the app down with it.
		if r := recover(); r != nil {
			res, err = compiled{}, &ConditionError{Message: fmt.Sprintf("the condition could not be checked: %v", r)}
		}
	}()
	tree, err := checker.ParseCheck(expr, cfg)
	if err != nil && tree != nil {
		// A node key may share a builtin's name (a node keyed "count"): at
		// run time the node's outputs shadow the builtin, so check again
		// with those builtins turned off.
		if shadow := shadowedBuiltins(tree.Node); len(shadow) > 0 {
			c2 := newExprConfig()
			for _, name := range shadow {
				delete(c2.Builtins, name)
			}
			tree, err = checker.ParseCheck(expr, c2)
		}
	}
	if err != nil {
		return res, conditionError(err, expr)
	}
	// What cannot fit the run's bounds whatever the data (package
	// expression) is refused now rather than at run time.
	if why := expression.Unbounded(tree.Node); why != "" {
		return res, &ConditionError{Message: why}
	}
	return compiled{idents: rootIdents(tree.Node)}, nil
}

func conditionError(err error, expr string) *ConditionError {
	var fe *file.Error
	if errors.As(err, &fe) {
		line, col := fe.Line, fe.Column+1
		if line == 0 {
			col = 0
		}
		return &ConditionError{Message: inWords(fe.Message, expr, line, col), Line: line, Column: col}
	}
	msg := err.Error()
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return &ConditionError{Message: msg}
}

// identVisitor collects identifiers and let-bound names.
type identVisitor struct {
	idents   []string
	declared map[string]bool
}

func (v *identVisitor) Visit(n *ast.Node) {
	switch t := (*n).(type) {
	case *ast.IdentifierNode:
		v.idents = append(v.idents, t.Value)
	case *ast.VariableDeclaratorNode:
		if v.declared == nil {
			v.declared = map[string]bool{}
		}
		v.declared[t.Name] = true
	}
}

// shadowedBuiltins lists identifiers that name builtins; the parser only
// makes a builtin call out of `name(...)`, so these are used as variables.
func shadowedBuiltins(root ast.Node) []string {
	var v identVisitor
	ast.Walk(&root, &v)
	var out []string
	for _, id := range v.idents {
		if builtinNames[id] && !v.declared[id] {
			out = append(out, id)
		}
	}
	return out
}

// rootIdents returns the distinct names an expression reads from its
// environment: identifiers not bound by `let`, excluding $env. Member
// properties (`check.exit_code`) are string nodes, and predicate pointers
// (#, .field) are pointer nodes, so neither shows up here. Identifiers that
// still resolved to builtins were turned into builtin nodes by the checker.
func rootIdents(root ast.Node) []string {
	var v identVisitor
	ast.Walk(&root, &v)
	var out []string
	for _, id := range v.idents {
		if id == "$env" || v.declared[id] {
			continue
		}
		dup := false
		for _, o := range out {
			if o == id {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, id)
		}
	}
	return out
}

// templateRoots returns the keys named by {{key…}} placeholders in s, in
// order of first appearance. A placeholder that does not start with an
// identifier ({{.Names}} in a docker --format string, say) is not ours and
// is ignored.
func templateRoots(s string, out []string) []string {
	for {
		i := strings.Index(s, "{{")
		if i < 0 {
			return out
		}
		s = s[i+2:]
		j := 0
		for j < len(s) && isBlank(s[j]) {
			j++
		}
		j = skipRaw(s, j)
		k := j
		for k < len(s) && isIdentByte(s[k], k == j) {
			k++
		}
		// {{secrets.NAME}} is a reference to the credentials store, not
		// to a node (secrets is a reserved key): checkSecrets judges it.
		if k > j && s[j:k] != render.SecretsRoot {
			id := s[j:k]
			seen := false
			for _, o := range out {
				if o == id {
					seen = true
					break
				}
			}
			if !seen {
				out = append(out, id)
			}
		}
	}
}

// skipRaw returns where the expression of a {{raw expr}} placeholder
// starting at j begins: past the word raw and its whitespace, when an
// identifier follows (quote.Placeholder's rule); else j. {{raw.stdout}}
// and {{ raw }} read a step whose key is raw.
func skipRaw(s string, j int) int {
	if !strings.HasPrefix(s[j:], "raw") {
		return j
	}
	k := j + 3
	for k < len(s) && isBlank(s[k]) {
		k++
	}
	if k == j+3 || k == len(s) || !isIdentByte(s[k], true) {
		return j
	}
	return k
}

// isBlank is ASCII white space, which the runner trims around a
// placeholder's expression.
func isBlank(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

func isIdentByte(c byte, first bool) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || !first && c >= '0' && c <= '9'
}

// shaper computes shape keys, reusing its buffers.
type shaper struct {
	b    strings.Builder
	kept []string
}

// shapeKey returns a key that two conditions share when they differ only in
// the names of the variables they read, and those names in order of first
// appearance. The key is the text itself with each such name replaced by a
// placeholder; everything else is kept byte for byte. A name is replaced
// only where it cannot matter to parsing or type checking without an
// environment: an identifier outside string literals that is not a
// keyword, builtin, literal or $env, does not follow "." or "#" (member,
// pointer) and does not precede "(" or ":" (call, map key). Not replacing
// is always safe, so the scanner only needs to be exact about where string
// literals start and end, which it does the way expr's lexer does. The same
// name always gets the same placeholder, so `let` bindings keep their
// meaning. ok is false for a text with a comment (which could hide the "."
// before a member) and when a name is both replaced and kept (`v(v.x)`),
// which could not be mapped back.
func (s *shaper) shapeKey(expr string) (key string, names []string, ok bool) {
	s.b.Reset()
	s.kept = s.kept[:0]
	i := 0
	for i < len(expr) {
		c := expr[i]
		switch {
		case c == '\'' || c == '"':
			j := skipQuoted(expr, i)
			s.b.WriteString(expr[i:j])
			i = j
		case c == '`':
			j := len(expr)
			if k := strings.IndexByte(expr[i+1:], '`'); k >= 0 {
				j = i + 1 + k + 1
			}
			s.b.WriteString(expr[i:j])
			i = j
		case c == '/' && (strings.HasPrefix(expr[i:], "//") || strings.HasPrefix(expr[i:], "/*")):
			// A comment could hide the "." before a member name from
			// replaceableWord; comments are rare, so just do not share.
			return "", nil, false
		case c >= '0' && c <= '9':
			j := i
			for j < len(expr) && (isWordByte(expr, j) || expr[j] == '.') {
				j += wordRuneLen(expr, j)
			}
			s.b.WriteString(expr[i:j])
			i = j
		case isWordStart(expr, i):
			j := i
			for j < len(expr) && isWordByte(expr, j) {
				j += wordRuneLen(expr, j)
			}
			word := expr[i:j]
			if (word == "b" || word == "B") && j < len(expr) && (expr[j] == '\'' || expr[j] == '"') {
				k := skipQuoted(expr, j) // a bytes literal
				s.b.WriteString(expr[i:k])
				i = k
				continue
			}
			if replaceableWord(expr, i, j) {
				p := slices.Index(names, word)
				if p < 0 {
					p = len(names)
					names = append(names, word)
				}
				s.b.WriteString("\x00")
				s.b.WriteString(strconv.Itoa(p))
				s.b.WriteString("\x00")
			} else {
				s.kept = append(s.kept, word)
				s.b.WriteString(word)
			}
			i = j
		default:
			s.b.WriteByte(c)
			i++
		}
	}
	for _, n := range names {
		if slices.Contains(s.kept, n) {
			return "", nil, false
		}
	}
	return s.b.String(), names, true
}

// skipQuoted returns the index just past the string literal starting with
// the quote at i (or the end of the text if it is not closed); a backslash
// escapes the next byte, as in expr's lexer.
func skipQuoted(s string, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case q:
			return j + 1
		}
	}
	return len(s)
}

// isWordStart reports whether an identifier starts at s[i]: like expr's
// lexer, any letter or digit other than an ASCII digit (which starts a
// number), '_' or '$'.
func isWordStart(s string, i int) bool {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r) && (r < '0' || r > '9')
}

func isWordByte(s string, i int) bool {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

func wordRuneLen(s string, i int) int {
	_, n := utf8.DecodeRuneInString(s[i:])
	return n
}

var keywords = map[string]bool{
	"not": true, "in": true, "and": true, "or": true, "matches": true, "contains": true,
	"startsWith": true, "endsWith": true, "let": true, "if": true, "else": true,
	"true": true, "false": true, "nil": true, "$env": true,
}

// replaceableWord reports whether the identifier expr[i:j] is a variable
// name that may be swapped for a placeholder (see shapeKey).
func replaceableWord(expr string, i, j int) bool {
	w := expr[i:j]
	if keywords[w] || builtinNames[w] || strings.HasPrefix(w, "$") {
		return false
	}
	p := i - 1
	for p >= 0 && (expr[p] == ' ' || expr[p] == '\t' || expr[p] == '\n' || expr[p] == '\r') {
		p--
	}
	if p >= 0 && (expr[p] == '.' || expr[p] == '#') {
		return false
	}
	n := j
	for n < len(expr) && (expr[n] == ' ' || expr[n] == '\t' || expr[n] == '\n' || expr[n] == '\r') {
		n++
	}
	if n < len(expr) && (expr[n] == '(' || expr[n] == ':') {
		return false
	}
	return true
}

var (
	unexpectedToken = regexp.MustCompile(`^unexpected token (\w+)(?:\("(.*)"\))?$`)
	mismatchedTypes = regexp.MustCompile(`^invalid operation: (\S+) \(mismatched types (.+) and (.+)\)$`)
)

// inWords says what expr-lang's parser error means for the person who
// typed the condition (`unexpected token Operator("=")` is a lone "=" where
// a comparison needs "=="); the column stays in the error, so the message
// does not repeat it. An error it does not know is returned as it is.
func inWords(msg, expr string, line, col int) string {
	at := func(c int) string { // the text from column c (1-based) on that line
		lines := strings.Split(expr, "\n")
		if line < 1 || line > len(lines) {
			return ""
		}
		r := []rune(lines[line-1])
		if c < 1 || c > len(r) {
			return ""
		}
		return string(r[c-1:])
	}
	if m := mismatchedTypes.FindStringSubmatch(msg); m != nil {
		verb := "combine"
		switch m[1] {
		case "==", "!=", "<", ">", "<=", ">=":
			verb = "compare"
		}
		return fmt.Sprintf("%q cannot %s %s with %s", m[1], verb, typeWords(m[2]), typeWords(m[3]))
	}
	if msg == "literal not terminated" {
		return "a quoted text is never closed: add its closing quote"
	}
	m := unexpectedToken.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	kind, tok := m[1], m[2]
	rest := at(col)
	before := strings.TrimRight(string([]rune(expr)[:max(0, min(len([]rune(expr)), col-1))]), " ")
	switch {
	case kind == "EOF":
		if open := strings.Count(expr, "(") - strings.Count(expr, ")"); open > 0 {
			return "a \"(\" is never closed: add \")\""
		}
		if strings.Count(expr, "[")-strings.Count(expr, "]") > 0 {
			return "a \"[\" is never closed: add \"]\""
		}
		return "the condition ends too early: something is missing after " + strconv.Quote(lastWord(expr))
	case kind == "Operator" && tok == "=" && strings.HasSuffix(before, "=="):
		return "\"===\" is JavaScript: write \"==\" (and \"!=\" for \"!==\")"
	case kind == "Operator" && tok == "=" && strings.HasPrefix(rest, "=>"):
		return "\"=>\" is not a comparison: write \">=\" for \"at least\""
	case kind == "Operator" && (tok == "=" && strings.HasSuffix(before, "!") || tok == "!" && strings.HasPrefix(strings.ReplaceAll(rest, " ", ""), "!=")):
		return "\"! =\" has a space in it: write \"!=\""
	case kind == "Operator" && tok == "=":
		return "a single \"=\" cannot compare: write \"==\" (\"x == 1\")"
	case kind == "Operator" && tok == ">" && strings.HasSuffix(before, "<"):
		return "\"<>\" is not an operator here: write \"!=\" for \"not equal\""
	case kind == "Bracket" && (tok == ")" || tok == "]" || tok == "}"):
		return fmt.Sprintf("%q closes nothing: remove it or add its opening bracket", tok)
	case kind == "Identifier":
		return fmt.Sprintf("unexpected word %q: join conditions with \"&&\" or \"||\" (or \"and\", \"or\")", tok)
	case tok != "":
		return fmt.Sprintf("unexpected %q here", tok)
	}
	return msg
}

// lastWord is the last token-ish word of s, for messages.
func lastWord(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexAny(s, " \t\n"); i >= 0 {
		return s[i+1:]
	}
	return s
}

func typeWords(t string) string {
	switch {
	case t == "string":
		return "text"
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "float"), strings.HasPrefix(t, "uint"):
		return "a number"
	case t == "bool":
		return "true/false"
	case strings.HasPrefix(t, "[]"):
		return "a list (a field read with \"..\"?)"
	case strings.HasPrefix(t, "map"):
		return "an object"
	}
	return t
}
