package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/builtin"

	"github.com/weft-dev/weft/backend/expression"
)

// DefaultExprTimeout bounds one evaluation of a condition or template
// expression.
const DefaultExprTimeout = expression.DefaultTimeout

// evaluator compiles conditions once per run and evaluates them against
// node outputs. Expressions are sandboxed by construction: expr-lang has no
// access to the OS, and package expression bounds what one may allocate
// and stops one that overruns its time bound.
type evaluator struct {
	timeout time.Duration
	// shadow lists node keys that are also builtin names ("count", "len"):
	// used as variables, they must read the node's outputs.
	shadow []string
	cache  map[string]*compiledExpr
	// fields makes reading a field a node did not produce an error.
	fields *expression.Fields
}

// lenientFields read nil when absent: every node documents them, but a
// success has no error_record and only a skipped node has skipped.
var lenientFields = map[string]bool{"success": true, "error": true, "error_record": true, "skipped": true}

type compiledExpr struct {
	prog  *expression.Program
	roots []string // identifiers read from the environment
	all   bool     // reads $env: needs every variable
	err   error
}

var builtinNames = func() map[string]bool {
	m := map[string]bool{}
	for _, f := range builtin.Builtins {
		m[f.Name] = true
	}
	return m
}()

func newEvaluator(keys []string, timeout time.Duration) *evaluator {
	if timeout <= 0 {
		timeout = DefaultExprTimeout
	}
	e := &evaluator{timeout: timeout, cache: map[string]*compiledExpr{},
		fields: &expression.Fields{Roots: make(map[string]bool, len(keys)), Lenient: lenientFields}}
	for _, k := range keys {
		e.fields.Roots[k] = true
		if builtinNames[k] {
			e.shadow = append(e.shadow, k)
		}
	}
	return e
}

func (e *evaluator) compile(src string) *compiledExpr {
	if c, ok := e.cache[src]; ok {
		return c
	}
	c := &compiledExpr{}
	prog, err := expression.CompileWith(src, e.fields)
	if err != nil && len(e.shadow) > 0 {
		if p2, err2 := expression.CompileWith(src, e.fields, e.shadow...); err2 == nil {
			prog, err = p2, nil
		}
	}
	if err != nil {
		c.err = fmt.Errorf("does not compile: %s", firstLine(err.Error()))
	} else {
		c.prog = prog
		c.roots, c.all = rootIdents(prog.Node())
	}
	e.cache[src] = c
	return c
}

// eval runs src against vars, with selfKey (when not empty) reading self
// instead: a verify condition sees the attempt's outputs before they are
// kept. Only the variables the expression names are handed to the
// evaluating goroutine, so one that overruns its time bound (and is
// abandoned) never reads state the run goes on to change.
func (e *evaluator) eval(src string, vars map[string]any, selfKey string, self map[string]any) (any, error) {
	c := e.compile(src)
	if c.err != nil {
		return nil, c.err
	}
	env := make(map[string]any, len(c.roots))
	if c.all {
		for k, v := range vars {
			env[k] = v
		}
	} else {
		for _, k := range c.roots {
			if v, ok := vars[k]; ok {
				env[k] = v
			}
		}
	}
	if selfKey != "" {
		env[selfKey] = self
	}
	// An evaluation that overruns is told to stop (package expression)
	// and not waited for.
	v, err := c.prog.Eval(context.Background(), env, e.timeout)
	if err != nil {
		return nil, errors.New(firstLine(err.Error()))
	}
	return v, nil
}

// evalBool evaluates a condition; nil counts as false, anything else that
// is not a boolean is an error.
func (e *evaluator) evalBool(src string, vars map[string]any, selfKey string, self map[string]any) (bool, error) {
	v, err := e.eval(src, vars, selfKey, self)
	if err != nil {
		return false, err
	}
	switch b := v.(type) {
	case bool:
		return b, nil
	case nil:
		return false, nil
	}
	return false, fmt.Errorf("the condition gave %s, not true or false", describe(v))
}

func describe(v any) string {
	s := fmt.Sprintf("%T %v", v, v)
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return s
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

type identCollector struct {
	names    []string
	all      bool
	declared map[string]bool
}

func (v *identCollector) Visit(n *ast.Node) {
	switch t := (*n).(type) {
	case *ast.IdentifierNode:
		if t.Value == "$env" {
			v.all = true
			return
		}
		for _, x := range v.names {
			if x == t.Value {
				return
			}
		}
		v.names = append(v.names, t.Value)
	case *ast.VariableDeclaratorNode:
		if v.declared == nil {
			v.declared = map[string]bool{}
		}
		v.declared[t.Name] = true
	}
}

func rootIdents(root ast.Node) ([]string, bool) {
	var v identCollector
	ast.Walk(&root, &v)
	out := v.names[:0]
	for _, n := range v.names {
		if !v.declared[n] {
			out = append(out, n)
		}
	}
	return out, v.all
}
