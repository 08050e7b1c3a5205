package planner

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/kaptinlin/jsonrepair"
	"github.com/tidwall/gjson"
	"github.com/weft-dev/weft/backend/workflow"
)

// RepairJSON returns s unchanged when it is valid JSON. Otherwise it repairs
// it locally (trailing and missing commas, comments, single quotes, unquoted
// keys, Python literals, unclosed brackets of a cut-off reply, …) and warns
// with the strict parse error and the kinds of fixes made. When the repair
// fails the StageError carries the line and column of the strict error.
func RepairJSON(s string) (string, []Warning, error) {
	out, ws, _, err := repairJSON(s)
	return out, ws, err
}

// repairJSON is RepairJSON that also says whether the repair closed what
// the text left open at its end (brackets, a string) as a cut-off reply
// leaves it, rather than a missing closing quote.
func repairJSON(s string) (string, []Warning, bool, error) {
	if validJSON(s) {
		return s, nil, false, nil
	}
	line, col, msg := strictError(s)
	near := nearLine(s, line)
	// The linear repair knows exactly what it fixed; what it cannot do
	// goes to the library (whose cost grows with the square of the size,
	// hence the cap), and the kinds of fixes are then read off the input.
	repaired, fixes, ok := fastRepair(s)
	if ok && fixes.count[fixUnclosedString] > 0 && missingQuote(s) && len(s) <= maxLibraryRepair {
		// The string runs to the end, but what follows its opening quote
		// holds a line break or ends with the brackets still open: a
		// missing closing quote, not a cut-off reply. The library ends
		// the string where it should (before the brackets, at the line
		// end) instead of swallowing them.
		if lib, err := safeRepair(s); err == nil && validJSON(lib) {
			repaired = lib
			fixes = lexJSONish(s)
			fixes.count[fixUnclosedString] = 0
			fixes.count[fixUnclosed] = 0 // closed by the quote
			fixes.note(fixMissingQuote, 0)
		}
	}
	if (!ok || !validJSON(repaired)) && len(s) > maxLibraryRepair {
		// Too large for the library: the linear pass, guessing more.
		repaired, fixes, ok = linearRepair(s, true)
	}
	if !ok || !validJSON(repaired) {
		if len(s) > maxLibraryRepair {
			return "", nil, false, &StageError{Stage: StageRepair, Line: line, Column: col, Near: near, Msg: fmt.Sprintf(
				"invalid JSON: %s (the reply is too large, %d KB, for a full local repair)", msg, len(s)>>10)}
		}
		var rerr error
		repaired, rerr = safeRepair(s)
		if rerr == nil && !validJSON(repaired) {
			rerr = errors.New("the repaired text is still not valid JSON")
		}
		if rerr != nil {
			return "", nil, false, &StageError{Stage: StageRepair, Line: line, Column: col, Near: near,
				Msg: fmt.Sprintf("invalid JSON: %s (local repair failed: %v)", msg, rerr)}
		}
		fixes = lexJSONish(s)
	}
	kinds := fixes.describe(s)
	if kinds == "" {
		kinds = "other syntax errors"
	}
	w := Warning{Stage: StageRepair, Message: fmt.Sprintf(
		"the JSON did not parse (line %d, column %d: %s); repaired locally: %s", line, col, msg, kinds)}
	return repaired, []Warning{w}, fixes.count[fixUnclosed] > 0 || fixes.count[fixUnclosedString] > 0, nil
}

// maxLibraryRepair bounds the input of the repair library, whose time
// grows with the square of the input (about 0.1 s at 64 KB).
const maxLibraryRepair = 64 << 10

// validJSON reports whether s is JSON per RFC 8259. gjson's validator is
// as strict as encoding/json's and three times faster; FuzzParseOutput
// checks that the two agree.
func validJSON(s string) bool { return gjson.Valid(s) }

// safeRepair runs the repair library, turning a panic into an error.
func safeRepair(s string) (out string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("repair panicked: %v", r)
		}
	}()
	return jsonrepair.Repair(s)
}

// strictError parses s with encoding/json and returns where and why it
// fails: 1-based line and column of the offending character.
func strictError(s string) (int, int, string) {
	// Into a RawMessage: the same strict scan and error, without
	// building the value (twice as fast on a large reply).
	var v json.RawMessage
	err := json.Unmarshal([]byte(s), &v)
	if err == nil {
		return 0, 0, ""
	}
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		off := syn.Offset
		msg := syn.Error()
		if strings.Contains(msg, "unexpected end") {
			off = int64(len(s))
		} else if off > 0 {
			off-- // Offset is just past the offending byte
		}
		line, col := workflow.LineCol([]byte(s), off)
		return line, col, msg
	}
	line, col := workflow.LineCol([]byte(s), int64(len(s)))
	return line, col, err.Error()
}

// maxNear bounds the quote of the line a JSON error is on.
const maxNear = 160

// nearLine is the text of the 1-based line of s, cut to maxNear bytes:
// what a re-ask quotes of the reply, which it does not send back whole.
func nearLine(s string, line int) string {
	for i := 1; i < line; i++ {
		nl := strings.IndexByte(s, '\n')
		if nl < 0 {
			return ""
		}
		s = s[nl+1:]
	}
	if nl := strings.IndexByte(s, '\n'); nl >= 0 {
		s = s[:nl]
	}
	if len(s) > maxNear {
		s = strings.ToValidUTF8(s[:maxNear], "") + "…"
	}
	return s
}

// Repair kinds, in the order warnings list them.
const (
	fixComment = iota
	fixSingleQuote
	fixPython
	fixLiteral
	fixUnquotedKey
	fixUnquotedValue
	fixTrailingComma
	fixMissingComma
	fixExtraComma
	fixMissingColon
	fixMissingValue
	fixControlChar
	fixBadEscape
	fixEllipsis
	fixExtraClose
	fixMismatched
	fixUnclosedString
	fixUnclosed
	fixMissingQuote
	fixTripleQuote
	fixInnerQuote
	fixNumber
	fixSpace
	fixJSONP
	fixConcat
	fixStray
	fixSmartQuote
	fixMarkdownEscape
	fixLiteralEscape
	numFixes
)

var fixNames = [numFixes]string{
	fixComment:        "comments removed",
	fixSingleQuote:    "single quotes turned into double quotes",
	fixPython:         "Python literals (None/True/False) turned into null/true/false",
	fixLiteral:        "non-JSON literals (NaN/undefined/Infinity) replaced",
	fixUnquotedKey:    "unquoted keys quoted",
	fixUnquotedValue:  "unquoted string values quoted",
	fixTrailingComma:  "trailing commas removed",
	fixMissingComma:   "missing commas inserted",
	fixExtraComma:     "doubled commas removed",
	fixMissingColon:   "missing colons inserted",
	fixMissingValue:   "missing values filled with null",
	fixControlChar:    "raw line breaks or control characters in strings escaped",
	fixBadEscape:      "backslashes that escape nothing doubled (\\' read as ')",
	fixEllipsis:       "\"...\" placeholders removed",
	fixExtraClose:     "extra closing brackets removed",
	fixMismatched:     "mismatched closing brackets fixed",
	fixUnclosedString: "an unterminated string closed (the reply looks cut off)",
	fixUnclosed:       "missing closing brackets added (the reply looks cut off)",
	fixMissingQuote:   "a missing closing quote added before the closing brackets or line end",
	fixTripleQuote:    "Python triple-quoted strings read as JSON strings",
	fixInnerQuote:     "quotes inside strings escaped",
	fixNumber:         "malformed numbers completed (2. → 2.0, .5 → 0.5) or quoted (0.0.1, 0789)",
	fixSpace:          "non-breaking or zero-width spaces outside strings read as spaces",
	fixJSONP:          "a JSONP wrapper callback(…) removed",
	fixConcat:         "strings joined with + concatenated",
	fixStray:          "stray characters dropped",
	fixSmartQuote:     "typographic quotes (“…”) read as quotes",
	fixMarkdownEscape: "Markdown backslash escapes of brackets (\\{ \\[) outside strings removed",
	fixLiteralEscape:  "written \\n, \\t sequences outside strings read as white space",
}

// missingQuote reports whether the text's last, unterminated string looks
// like it lost its closing quote rather than being cut off: the rest of
// the text after its opening quote holds a line break, or ends with a
// closing bracket.
func missingQuote(s string) bool {
	open := lastOpenQuote(s)
	if open < 0 {
		return false
	}
	rest := s[open+1:]
	trimmed := strings.TrimRight(rest, " \t\r\n")
	return strings.ContainsAny(strings.TrimRight(rest, " \t\r"), "\n") || strings.HasSuffix(trimmed, "}") || strings.HasSuffix(trimmed, "]")
}

// lastOpenQuote is the offset of the double quote that opens a string
// still open at the end of s, or -1.
func lastOpenQuote(s string) int {
	open := -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if open >= 0 {
				i++
			}
		case '"':
			if open >= 0 {
				open = -1
			} else {
				open = i
			}
		}
	}
	return open
}

// lexFrame is one open bracket.
type lexFrame struct {
	kind  byte   // '{' or '['
	key   string // the key it is the value of, "" in arrays and at the top
	items int    // values started directly inside
}

// lexResult is what lexJSONish saw: the first offset and count of each
// kind of defect, and the brackets open at the end.
type lexResult struct {
	first    [numFixes]int
	count    [numFixes]int
	stack    []lexFrame
	inString bool // the text ends inside a string
	last     int  // the class of the last token (tokComma: a value was promised)
	// elided names the list ("steps", "nodes", "edges") in which a
	// "..." stands for items, when one does.
	elided string
}

func (r *lexResult) note(kind, off int) {
	if r.count[kind] == 0 {
		r.first[kind] = off
	}
	r.count[kind]++
}

// describe lists the kinds found, with the position of the first of each.
func (r *lexResult) describe(s string) string {
	var parts []string
	for k := 0; k < numFixes; k++ {
		if r.count[k] == 0 {
			continue
		}
		line, col := workflow.LineCol([]byte(s), int64(r.first[k]))
		p := fmt.Sprintf("%s (line %d, column %d", fixNames[k], line, col)
		if r.count[k] > 1 {
			p += fmt.Sprintf("; %d places", r.count[k])
		}
		parts = append(parts, p+")")
	}
	return strings.Join(parts, "; ")
}

// Token classes for lexJSONish.
const (
	tokNone  = iota
	tokOpen  // { or [
	tokValue // a complete value (string, literal, number, closed bracket)
	tokComma
	tokColon
)

// lexJSONish scans JSON-like text the way a lenient reader would and notes
// the defects a repair will fix. It is a heuristic for messages; the repair
// itself is the library's.
func lexJSONish(s string) *lexResult {
	r := &lexResult{}
	prev := tokNone
	lastKey := ""
	valueStart := func(off int) {
		if n := len(r.stack); n > 0 {
			if prev == tokValue {
				r.note(fixMissingComma, off)
			}
			top := &r.stack[n-1]
			if top.kind == '[' || prev == tokColon {
				top.items++
			}
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		case c == '/' && i+1 < len(s) && (s[i+1] == '/' || s[i+1] == '*'):
			r.note(fixComment, i)
			if s[i+1] == '/' {
				for i < len(s) && s[i] != '\n' {
					i++
				}
			} else if k := strings.Index(s[i+2:], "*/"); k >= 0 {
				i += k + 3
			} else {
				i = len(s)
			}
		case c == '"' || c == '\'':
			if c == '\'' {
				r.note(fixSingleQuote, i)
			}
			isKey := len(r.stack) > 0 && r.stack[len(r.stack)-1].kind == '{' && prev != tokColon
			if !isKey {
				valueStart(i)
			} else if prev == tokValue {
				r.note(fixMissingComma, i)
			}
			j := i + 1
			closed := false
			for ; j < len(s); j++ {
				d := s[j]
				if d == '\\' {
					j++
					continue
				}
				if d == c {
					closed = true
					break
				}
				if d < 0x20 {
					r.note(fixControlChar, j)
				}
			}
			if !closed {
				r.note(fixUnclosedString, i)
				r.inString = true
				i = len(s)
				break
			}
			if isKey {
				lastKey = s[i+1 : j]
			}
			i = j
			prev = tokValue
		case c == '{' || c == '[':
			valueStart(i)
			key := ""
			if prev == tokColon {
				key = lastKey
			}
			r.stack = append(r.stack, lexFrame{kind: c, key: key})
			prev = tokOpen
		case c == '}' || c == ']':
			if prev == tokComma {
				r.note(fixTrailingComma, i)
			}
			if len(r.stack) == 0 {
				r.note(fixExtraClose, i)
			} else {
				r.stack = r.stack[:len(r.stack)-1]
			}
			prev = tokValue
		case c == ',':
			prev = tokComma
		case c == ':':
			prev = tokColon
		case c == '.' && strings.HasPrefix(s[i:], "..."):
			r.note(fixEllipsis, i)
			if n := len(r.stack); n > 0 && r.stack[n-1].kind == '[' && r.elided == "" {
				switch k := r.stack[n-1].key; {
				case k == "steps" || k == "nodes" || k == "edges":
					r.elided = k
				case n == 1:
					r.elided = "steps" // a bare list of steps
				}
			}
			i += 2
		default:
			j := i
			for j < len(s) && isWordByte(s[j]) {
				j++
			}
			if j == i {
				j = i + 1 // a stray byte; the repair decides
			}
			word := s[i:j]
			k := j
			for k < len(s) && (s[k] == ' ' || s[k] == '\t' || s[k] == '\r' || s[k] == '\n') {
				k++
			}
			inObjKey := len(r.stack) > 0 && r.stack[len(r.stack)-1].kind == '{' && prev != tokColon
			if inObjKey || (k < len(s) && s[k] == ':' && prev != tokColon) {
				r.note(fixUnquotedKey, i)
				if prev == tokValue {
					r.note(fixMissingComma, i)
				}
				lastKey = word
			} else {
				valueStart(i)
				switch word {
				case "true", "false", "null":
				case "None", "True", "False":
					r.note(fixPython, i)
				case "NaN", "undefined", "Infinity", "-Infinity":
					r.note(fixLiteral, i)
				default:
					if !isNumberStart(word[0]) {
						r.note(fixUnquotedValue, i)
					}
				}
			}
			i = j - 1
			prev = tokValue
		}
	}
	if len(r.stack) > 0 {
		r.note(fixUnclosed, len(s))
	}
	r.last = prev
	return r
}

func isWordByte(c byte) bool {
	return isIdentByte(c) || c == '$' || c == '-' || c == '+' || c == '.'
}

func isNumberStart(c byte) bool { return c == '-' || c >= '0' && c <= '9' }

// truncation says which list item a cut-off reply ended inside, or
// before: a list whose last token is a comma promised an item that never
// began, and a list still open after a whole item may have had more.
type truncation struct {
	container string // "steps", "nodes" or "edges"; "" when no item was cut
	index     int    // 0-based index of the cut item
	how       int    // cutInside, cutAfterComma, cutOpenList
}

const (
	cutInside     = iota // the item is open at the end
	cutAfterComma        // a comma, then nothing
	cutOpenList          // a whole item, then nothing: the list never closed
)

// path is the item's path as DecodePlan names it.
func (t truncation) path() string { return fmt.Sprintf("%s[%d]", t.container, t.index) }

// findTruncation looks at the brackets still open at the end of the JSON:
// when an item of the outermost steps/nodes/edges list (or of a bare
// top-level list) is still open, or the list itself, the reply was cut
// there.
func findTruncation(js string) truncation {
	lx := lexJSONish(js)
	for d, f := range lx.stack {
		if f.kind != '[' {
			continue
		}
		name := f.key
		if d == 0 {
			name = "steps"
		}
		if name != "steps" && name != "nodes" && name != "edges" {
			continue
		}
		switch {
		case d+1 < len(lx.stack) && f.items > 0:
			return truncation{container: name, index: f.items - 1, how: cutInside}
		case d+1 == len(lx.stack) && lx.last == tokComma:
			return truncation{container: name, index: f.items, how: cutAfterComma}
		case d+1 == len(lx.stack) && f.items > 0:
			return truncation{container: name, index: f.items, how: cutOpenList}
		}
		return truncation{}
	}
	return truncation{}
}
