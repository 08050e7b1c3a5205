// Package exprtest generates expressions at and past the bounds of
// package expression, for the tests of every package that compiles
// expressions from a file (conditions, templates).
package exprtest

import (
	"strings"
	"unicode/utf8"

	"github.com/weft-dev/weft/backend/expression"
	"github.com/weft-dev/weft/backend/workflow"
)

// Nester is one way of nesting an expression: Open and Close repeated n
// times around a core value. Every one keeps the core's value, so a test
// can check what came through.
type Nester struct {
	Name        string
	Open, Close string
	// Brackets says each level nests one more bracket (MaxDepth applies);
	// else only MaxLength bounds it.
	Brackets bool
	// Keeps says the expression's value is the core's (a number core).
	Keeps bool
	// Bool nests (core != nil) instead of core: the operator takes a
	// boolean.
	Bool bool
}

// Nesters are the ways of nesting a file can use: parentheses, arrays,
// maps, function calls, ternaries, unary operators, and a mix.
var Nesters = []Nester{
	{Name: "parens", Open: "(", Close: ")", Brackets: true, Keeps: true},
	{Name: "arrays", Open: "[", Close: "][0]", Brackets: true, Keeps: true},
	{Name: "maps", Open: "{k: ", Close: "}.k", Brackets: true, Keeps: true},
	{Name: "calls", Open: "abs(", Close: ")", Brackets: true, Keeps: true},
	{Name: "ternaries", Open: "true ? ", Close: " : 0", Keeps: true},
	{Name: "nots", Open: "!!", Bool: true},
	{Name: "negations", Open: "- -", Keeps: true},
	{Name: "calls in ternaries", Open: "abs(true ? ", Close: " : 0)", Brackets: true, Keeps: true},
}

// Build nests core n levels deep.
func (c Nester) Build(core string, n int) string {
	if c.Bool {
		core = "(" + core + " != nil)"
	}
	return strings.Repeat(c.Open, n) + core + strings.Repeat(c.Close, n)
}

// Place is the nesting of core n levels deep as a placeholder's
// expression in the tests: it starts with root, a node's field (else a
// template leaves it as text), and has the nesting's value whatever its
// type, binding looser than any operator of the nesting.
func (c Nester) Place(root, core string, n int) string {
	return root + " == nil ? 0 : (" + c.Build(core, n) + ")"
}

// Deepest is the most levels that fit the bounds in Place.
func (c Nester) Deepest(root, core string) int {
	per := utf8.RuneCountInString(c.Open + c.Close)
	n := (expression.MaxLength - utf8.RuneCountInString(c.Place(root, core, 0))) / per
	if c.Brackets {
		n = min(n, expression.MaxDepth)
	}
	for n > 0 && expression.CheckBounds(c.Place(root, core, n)) != nil {
		n--
	}
	return n
}

// Huge is how many levels the tests try far past the bounds: half a
// million parentheses overflowed the stack of expr's parser.
const Huge = 500_000

// Place is one kind of text a run renders templates in, as a node that
// holds text there.
type Place struct {
	Name string
	// Where is how validate names the place ("the arguments of").
	Where string
	Node  func(id, text string) workflow.Node
}

func tool(name string, args map[string]any) workflow.Params {
	return workflow.Params{Tool: name, Arguments: args}
}

// Places are every kind of argument a template is rendered into:
// run_command's command (quoted as shell words), http_request's url
// (percent-encoded) and headers, a plain argument, a nested one, an
// AiStep's prompt, an AiTransform's input and prompt.
var Places = []Place{
	{"command", "the arguments of", func(id, text string) workflow.Node {
		return workflow.Node{ID: id, Key: id, Type: workflow.TypeTool, Params: tool("run_command", map[string]any{"command": "echo " + text})}
	}},
	{"url", "the arguments of", func(id, text string) workflow.Node {
		return workflow.Node{ID: id, Key: id, Type: workflow.TypeTool, Params: tool("http_request", map[string]any{"method": "GET", "url": "http://127.0.0.1:9/x/" + text})}
	}},
	{"header", "the arguments of", func(id, text string) workflow.Node {
		return workflow.Node{ID: id, Key: id, Type: workflow.TypeTool, Params: tool("http_request", map[string]any{"method": "GET", "url": "http://127.0.0.1:9/", "headers": map[string]any{"X-Count": text}})}
	}},
	{"plain", "the arguments of", func(id, text string) workflow.Node {
		return workflow.Node{ID: id, Key: id, Type: workflow.TypeTool, Params: tool("log", map[string]any{"message": "got " + text})}
	}},
	{"nested", "the arguments of", func(id, text string) workflow.Node {
		return workflow.Node{ID: id, Key: id, Type: workflow.TypeTool, Params: tool("log", map[string]any{"message": []any{map[string]any{"n": text}}})}
	}},
	{"prompt", "the prompt of", func(id, text string) workflow.Node {
		return workflow.Node{ID: id, Key: id, Type: workflow.TypeAiStep, Params: workflow.Params{Prompt: "Count " + text}}
	}},
	{"input", "the input of", func(id, text string) workflow.Node {
		return workflow.Node{ID: id, Key: id, Type: workflow.TypeAiTransform, Params: workflow.Params{Kind: "summarize", Input: text}}
	}},
	{"transform prompt", "the prompt of", func(id, text string) workflow.Node {
		return workflow.Node{ID: id, Key: id, Type: workflow.TypeAiTransform, Params: workflow.Params{Kind: "summarize", Input: "x", Prompt: text}}
	}},
}
