package conformance

import (
	"sort"
	"strings"
	"testing"
)

// differences are the peer cases where Weft deliberately does otherwise,
// each with its reason; docs/llm-format.md ("Where Weft differs from peer
// tables") lists the same cases. Keys are "<table>:<case>". Every other
// case must pass: a miss not listed here fails the test (a score dropped),
// and so does a listed case that now passes (the list and the docs would
// no longer be true).
var differences = map[string]string{
	// josdejong/jsonrepair, by id in cases.json.
	"jsonrepair:#97":  "a comment inside a string that lost its closing quote (\"abc+/*comment*/\"def\") is string content: in a workflow /* is far more often a glob (rm /tmp/*, src/**/*.go) than a comment",
	"jsonrepair:#98":  "as #97: /* inside a string is content (a glob), not a comment",
	"jsonrepair:#99":  "as #97: /* inside a string is content (a glob), not a comment",
	"jsonrepair:#176": "an unknown escape such as \\a keeps its backslash: in a workflow it is far more often a Windows path (C:\\apps) or a regular expression than a typo",
	"jsonrepair:#302": "[{{] is refused rather than guessed as [{},{}]: a brace where a key must be is a structure Weft does not invent",
	"jsonrepair:#346": "[2 0.0.1 2] reads as three items (2, \"0.0.1\", 2): values separated by spaces are a missing comma, not one string \"0.0.1 2\"",
	"jsonrepair:#367": "a + at the end of a line inside a string that never closed its quote is content (a shell line, an expression), not JavaScript concatenation",
	"jsonrepair:#368": "a + at the cut of a string (\"hello +) is kept: the text of a cut-off string is not guessed away",

	// BAML jsonish, by file:test.
	"baml:test_basics.rs:test_json_with_markdown_without_quotes": "an unquoted value that holds quotes and runs over paragraphs ends at its first comma, as unquoted values in an object do; BAML, knowing the schema's string field, reads to the closing brace",
	"baml:test_class.rs:test_nested_class_with_extra_text":       "of several complete blocks that are not plans Weft takes the largest (of plans, the last: models correct themselves); BAML takes the first",
	"baml:test_class.rs:test_nested_class_with_prefix":           "as test_nested_class_with_extra_text: of several complete blocks Weft takes the largest, BAML the first",
	"baml:test_maps.rs:test_unterminated_nested_map":             "a key with nothing after its colon at the cut becomes null (as in jsonrepair's table); BAML drops the key",

	// Clickweave, by test name.
	"clickweave:test_patch_repair_pass_fails_after_max_attempts":       "a reply with no JSON at all is the assistant talking (a conversation answer), not a failed patch: re-asking would turn every chat answer into an error",
	"clickweave:test_validate_loop_valid_variable_reference":           "the port replaced every tool with log, whose outputs have no `found`: Weft's unknown_output reports `find_text.found` as it should (with Clickweave's find_text it is valid, as in the planner table)",
	"clickweave:test_validate_control_flow_node_name_not_valid_prefix": "Weft reports `loop.success` as unknown_output (the key exists, a Loop has no such output) rather than as an unknown variable: the same defect, named more precisely",
	"clickweave:test_extract_json_no_closing_fence":                    "a fenced reply cut off before its closing fence is taken out of the fence and repaired with the cut-off warning; Clickweave keeps the fence, and the parse then fails",
}

// tally is one table's cases: which passed, which missed and how.
type tally struct {
	table  string
	passed []string
	missed map[string]string // case → what differed
}

func newTally(table string) *tally { return &tally{table: table, missed: map[string]string{}} }

func (ta *tally) add(name string, failure string) {
	if failure == "" {
		ta.passed = append(ta.passed, name)
	} else {
		ta.missed[name] = failure
	}
}

// check fails t for every miss no difference explains and for every
// difference that no longer happens; WEFT_PEER_MISSES lists the
// documented misses too.
func (ta *tally) check(t *testing.T, listAll bool) (documented int) {
	t.Helper()
	var names []string
	for name := range ta.missed {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		why := differences[ta.table+":"+name]
		switch {
		case why == "":
			t.Errorf("MISS %s %s (not a documented difference: the score dropped)\n%s", ta.table, name, ta.missed[name])
		case listAll:
			documented++
			t.Logf("DIFFERS %s %s: %s\n%s", ta.table, name, why, ta.missed[name])
		default:
			documented++
		}
	}
	seen := map[string]bool{}
	for _, name := range ta.passed {
		seen[name] = true
		if differences[ta.table+":"+name] != "" {
			t.Errorf("%s %s now agrees with the peer: remove it from differences and from docs/llm-format.md", ta.table, name)
		}
	}
	for key := range differences {
		table, name, _ := strings.Cut(key, ":")
		if _, missed := ta.missed[name]; table == ta.table && !missed && !seen[name] {
			t.Errorf("differences names %s, which is no case of the %s table", key, ta.table)
		}
	}
	return documented
}
