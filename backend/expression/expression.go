// Package expression compiles and evaluates Weft's expressions (If and
// Switch conditions, Loop exit conditions, verify, template expressions)
// with expr-lang/expr, bounded: no expression may allocate without limit
// or keep running after its evaluation was given up. The runner evaluates
// with it and validate checks with its limits, so what validates runs
// under the same rules.
//
// expr already bounds the size of a program (MaxNodes) and counts the
// elements of the arrays, maps and ranges it builds (the VM's memory
// budget). What it does not bound, this package does:
//   - builtins whose result can be far larger than their inputs (repeat,
//     join, replace, split, toJSON, string, toBase64) and string `+`
//     are replaced by versions that charge a per-evaluation byte budget
//     BEFORE they allocate;
//   - every closure body (the predicate of all, map, filter, reduce…)
//     and every bounded function checks that the evaluation was not
//     abandoned, so one that overran its time bound stops at its next
//     step instead of running on in the background.
package expression

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/vm"
)

// Limits of one expression.
const (
	// MaxNodes bounds the syntax tree (the text is bounded too, before
	// it is parsed: see CheckBounds).
	MaxNodes = 4000
	// MemoryBudget is expr's own count of array, map and range elements
	// one evaluation may build.
	MemoryBudget = 1_000_000
	// MaxBytes bounds the bytes the string-building functions of one
	// evaluation may produce in all.
	MaxBytes = 32 << 20
	// DefaultTimeout bounds one evaluation.
	DefaultTimeout = 500 * time.Millisecond
)

// stateVar is the environment entry through which the bounded functions
// reach their evaluation's budget. No one can write this identifier: node
// keys are [a-z_][a-z0-9_]*.
const stateVar = "weft·eval"

// addFn and tickFn are the functions the patcher calls in place of `+`
// and around closure bodies.
const (
	addFn  = "weft·add"
	tickFn = "weft·tick"
)

// LimitError is an evaluation stopped by a bound.
type LimitError struct{ Message string }

func (e *LimitError) Error() string { return e.Message }

// ErrStopped is the panic value of an evaluation that was given up.
var errStopped = &LimitError{Message: "the evaluation was stopped"}

// state is one evaluation's budget and stop flag.
type state struct {
	stopped atomic.Bool
	used    int64
}

func (s *state) check() {
	if s.stopped.Load() {
		panic(errStopped)
	}
}

// charge accounts for n bytes about to be allocated by what.
func (s *state) charge(n int64, what string) {
	s.check()
	if n < 0 || n > MaxBytes || s.used+n > MaxBytes {
		panic(&LimitError{Message: fmt.Sprintf("%s would make %s; an expression may build at most %s", what, size(n), size(MaxBytes))})
	}
	s.used += n
}

func size(n int64) string {
	switch {
	case n < 0:
		return "more than the machine can hold"
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// Program is a compiled expression.
type Program struct {
	prog *vm.Program
}

// Node is the program's syntax tree (for the identifiers it reads).
func (p *Program) Node() ast.Node { return p.prog.Node() }

// Compile compiles src with the bounds. disabled are builtin names that
// node keys shadow (a node keyed "count"): they are turned off, and not
// replaced, so the name reads the node's outputs.
func Compile(src string, disabled ...string) (*Program, error) {
	return CompileWith(src, nil, disabled...)
}

// Fields makes reading a field of a named root strict: `echo.content`
// where echo's outputs have no "content" is an error that names the field
// and the fields there are, instead of a silent nil (which turned a typo
// or a tool's different output names into an empty value and a wrong
// branch). The check happens when the access is evaluated, so `a.success
// && a.content` does not read content when a failed.
type Fields struct {
	// Roots are the identifiers checked (node keys).
	Roots map[string]bool
	// Lenient fields read nil when absent (success, error…: the ones
	// every node documents but not every state sets).
	Lenient map[string]bool
}

// fieldFn is the function strict member access is rewritten to, and
// wholeFn the one a root read whole is wrapped in.
const (
	fieldFn = "weft·field"
	wholeFn = "weft·whole"
)

// CompileWith is Compile with strict field access on f's roots (nil: none).
func CompileWith(src string, f *Fields, disabled ...string) (*Program, error) {
	if err := CheckBounds(src); err != nil {
		return nil, err
	}
	off := map[string]bool{}
	opts := []expr.Option{expr.MaxNodes(MaxNodes), expr.Patch(patcher{})}
	if f != nil && len(f.Roots) > 0 {
		opts = append(opts, expr.Patch(fieldPatcher{roots: f.Roots}), expr.Function(fieldFn, strictField(f.Lenient)), expr.Function(wholeFn, whole))
	}
	for _, name := range disabled {
		off[name] = true
		opts = append(opts, expr.DisableBuiltin(name))
	}
	for name, fn := range bounded {
		if off[name] {
			continue
		}
		opts = append(opts, expr.DisableBuiltin(name), expr.Function(name, fn))
	}
	opts = append(opts, expr.Function(addFn, add), expr.Function(tickFn, tick))
	prog, err := expr.Compile(src, opts...)
	if err != nil {
		return nil, err
	}
	return &Program{prog: prog}, nil
}

// Eval runs p against env within timeout (0: DefaultTimeout) and ctx. env
// is not changed; the evaluation gets a copy with its budget added. An
// evaluation that overruns is told to stop and is not waited for: it
// stops at its next closure step or bounded function.
func (p *Program) Eval(ctx context.Context, env map[string]any, timeout time.Duration) (any, error) {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	st := &state{}
	full := make(map[string]any, len(env)+1)
	for k, v := range env {
		full[k] = v
	}
	full[stateVar] = st
	type result struct {
		v   any
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- result{nil, fmt.Errorf("evaluation failed: %v", r)}
			}
		}()
		machine := vm.VM{MemoryBudget: MemoryBudget}
		v, err := machine.Run(p.prog, full)
		done <- result{v, err}
	}()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case r := <-done:
		if r.err != nil {
			return nil, cleanError(r.err)
		}
		return r.v, nil
	case <-t.C:
		st.stopped.Store(true)
		return nil, &LimitError{Message: fmt.Sprintf("the evaluation took longer than %v and was stopped", timeout)}
	case <-ctx.Done():
		st.stopped.Store(true)
		return nil, ctx.Err()
	}
}

// cleanError keeps the first line of expr's error, and says so when a
// bound stopped it or a value cut at its cap was read.
func cleanError(err error) error {
	var le *LimitError
	if errors.As(err, &le) {
		return le
	}
	var te *TruncatedError
	if errors.As(err, &te) {
		return te
	}
	msg := err.Error()
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	if strings.Contains(msg, "memory budget exceeded") {
		return &LimitError{Message: fmt.Sprintf("the expression built more than %d array, map or range elements (%s)", MemoryBudget, msg)}
	}
	return errors.New(msg)
}

// patcher puts `+` and closure bodies under the budget.
type patcher struct{}

func (patcher) Visit(node *ast.Node) {
	switch n := (*node).(type) {
	case *ast.BinaryNode:
		if n.Operator == "+" {
			call := &ast.CallNode{Callee: &ast.IdentifierNode{Value: addFn},
				Arguments: []ast.Node{&ast.IdentifierNode{Value: stateVar}, n.Left, n.Right}}
			ast.Patch(node, call)
		}
	case *ast.PredicateNode:
		if c, ok := n.Node.(*ast.CallNode); ok && isCall(c, tickFn) {
			return
		}
		n.Node = &ast.CallNode{Callee: &ast.IdentifierNode{Value: tickFn},
			Arguments: []ast.Node{&ast.IdentifierNode{Value: stateVar}, n.Node}}
	case *ast.CallNode:
		id, ok := n.Callee.(*ast.IdentifierNode)
		if !ok || bounded[id.Value] == nil || len(n.Arguments) > 0 && isIdent(n.Arguments[0], stateVar) {
			return
		}
		n.Arguments = append([]ast.Node{&ast.IdentifierNode{Value: stateVar}}, n.Arguments...)
	}
}

func isCall(c *ast.CallNode, name string) bool {
	id, ok := c.Callee.(*ast.IdentifierNode)
	return ok && id.Value == name
}

func isIdent(n ast.Node, name string) bool {
	id, ok := n.(*ast.IdentifierNode)
	return ok && id.Value == name
}

// fieldPatcher puts every read of a checked root's outputs through the
// one lookup (Field, Whole): root.name and root?.name become
// weft·field(root, "name", "root", optional), and a root (or $env) read
// whole, weft·whole(root, "root"). Walk visits children first, so a
// member's root has already been wrapped when the member is visited: the
// member takes the root back out.
type fieldPatcher struct{ roots map[string]bool }

func (p fieldPatcher) Visit(node *ast.Node) {
	switch n := (*node).(type) {
	case *ast.IdentifierNode:
		if p.roots[n.Value] || n.Value == "$env" {
			ast.Patch(node, &ast.CallNode{Callee: &ast.IdentifierNode{Value: wholeFn},
				Arguments: []ast.Node{&ast.IdentifierNode{Value: n.Value}, &ast.StringNode{Value: n.Value}}})
		}
	case *ast.CallNode:
		if id := p.wholeRoot(n.Callee); id != nil {
			n.Callee = id // a root called as a function: nothing is read
		}
	case *ast.BinaryNode:
		if id := p.wholeRoot(n.Right); id != nil && (n.Operator == "in" || n.Operator == "not in") {
			n.Right = id // "field" in root tests for a field: no value is read
		}
	case *ast.MemberNode:
		id := p.wholeRoot(n.Node)
		prop, ok := n.Property.(*ast.StringNode)
		if id == nil || !ok || n.Method || id.Value == "$env" {
			return
		}
		ast.Patch(node, &ast.CallNode{Callee: &ast.IdentifierNode{Value: fieldFn},
			Arguments: []ast.Node{id, &ast.StringNode{Value: prop.Value}, &ast.StringNode{Value: id.Value}, &ast.BoolNode{Value: n.Optional}}})
	}
}

// wholeRoot is the root identifier a weft·whole call wraps, or nil.
func (p fieldPatcher) wholeRoot(n ast.Node) *ast.IdentifierNode {
	c, ok := n.(*ast.CallNode)
	if !ok || !isCall(c, wholeFn) || len(c.Arguments) != 2 {
		return nil
	}
	id, _ := c.Arguments[0].(*ast.IdentifierNode)
	return id
}

// whole is weft·whole: a root's outputs read whole, unless a value in
// them was cut at its cap.
func whole(args ...any) (any, error) {
	if len(args) != 2 {
		return nil, fmt.Errorf("%s takes 2 arguments", wholeFn)
	}
	root, _ := args[1].(string)
	if err := Whole(root, args[0]); err != nil {
		return nil, err
	}
	return args[0], nil
}

// MissingFieldError is a strict read of a field the outputs do not have.
type MissingFieldError struct {
	Root, Field string
	Have        []string
	// Skipped is set when the node was skipped or disabled (its outputs
	// say skipped: true): the likely reason the field is missing.
	Skipped bool
}

func (e *MissingFieldError) Error() string {
	if e.Skipped {
		return fmt.Sprintf("%s was skipped or is disabled, so it has no field %q", e.Root, e.Field)
	}
	have := "no fields"
	if len(e.Have) > 0 {
		list := e.Have
		more := ""
		if len(list) > 20 {
			list, more = list[:20], fmt.Sprintf(" and %d more", len(e.Have)-20)
		}
		have = "the fields " + strings.Join(list, ", ") + more
	}
	return fmt.Sprintf("%s has no field %q (it has %s)", e.Root, e.Field, have)
}

// MissingField returns the error for reading name from m under root, or
// nil when m has it, the field is lenient, or m is empty (a node that has
// not run reads as nil: branches that were not taken).
func MissingField(root, name string, m map[string]any, lenient map[string]bool) error {
	if _, ok := m[name]; ok || lenient[name] || len(m) == 0 {
		return nil
	}
	have := make([]string, 0, len(m))
	for k := range m {
		if !lenient[k] {
			have = append(have, k)
		}
	}
	slices.Sort(have)
	skipped, _ := m["skipped"].(bool)
	return &MissingFieldError{Root: root, Field: name, Have: have, Skipped: skipped}
}

// strictField is weft·field: root.name read through Field. An optional
// read (root?.name) of a field root lacks is nil, as expr's is; one of a
// value cut at its cap is still an error.
func strictField(lenient map[string]bool) func(args ...any) (any, error) {
	return func(args ...any) (any, error) {
		if len(args) != 4 {
			return nil, fmt.Errorf("%s takes 4 arguments", fieldFn)
		}
		name, _ := args[1].(string)
		root, _ := args[2].(string)
		optional, _ := args[3].(bool)
		switch obj := args[0].(type) {
		case nil:
			return nil, nil
		case map[string]any:
			v, err := Field(root, name, obj, lenient)
			var mf *MissingFieldError
			if optional && errors.As(err, &mf) {
				return nil, nil
			}
			return v, err
		default:
			if optional {
				return nil, nil
			}
			return nil, fmt.Errorf("%s is %s, not an object with fields: it has no field %q", root, typeName(obj), name)
		}
	}
}
