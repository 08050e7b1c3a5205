package expression

import (
	"fmt"

	"github.com/expr-lang/expr/ast"
)

// Unbounded says why a checked expression tree cannot fit its bounds
// whatever the data ("" when nothing can be told before it runs): a
// repeat of known text and count, or a range of known ends, that is
// larger than the budgets. Validation rejects such a condition up front.
func Unbounded(root ast.Node) string {
	var v staticCheck
	ast.Walk(&root, &v)
	return v.why
}

type staticCheck struct{ why string }

func (v *staticCheck) Visit(node *ast.Node) {
	if v.why != "" {
		return
	}
	switch n := (*node).(type) {
	case *ast.BuiltinNode:
		if n.Name == "repeat" {
			v.repeat(n.Arguments)
		}
	case *ast.CallNode:
		if id, ok := n.Callee.(*ast.IdentifierNode); ok && id.Value == "repeat" {
			v.repeat(n.Arguments)
		}
	case *ast.BinaryNode:
		if n.Operator == ".." {
			lo, ok1 := constInt(n.Left)
			hi, ok2 := constInt(n.Right)
			if ok1 && ok2 && hi-lo+1 > MemoryBudget {
				v.why = fmt.Sprintf("the range %d..%d has %d elements; an expression may build at most %d", lo, hi, hi-lo+1, MemoryBudget)
			}
		}
	}
}

func (v *staticCheck) repeat(args []ast.Node) {
	if len(args) != 2 {
		return
	}
	count, ok := constInt(args[1])
	if !ok || count <= 0 {
		return
	}
	if l, ok := constLen(args[0]); ok {
		if total := mul(l, count); total < 0 || total > MaxBytes {
			v.why = fmt.Sprintf("repeat(…, %d) makes %s; an expression may build at most %s", count, size(total), size(MaxBytes))
		}
	}
}

// constLen is the length of a string the tree fixes: a literal or a
// repeat of one.
func constLen(n ast.Node) (int64, bool) {
	switch t := n.(type) {
	case *ast.StringNode:
		return int64(len(t.Value)), true
	case *ast.BuiltinNode:
		if t.Name == "repeat" && len(t.Arguments) == 2 {
			return constRepeat(t.Arguments)
		}
	case *ast.CallNode:
		if id, ok := t.Callee.(*ast.IdentifierNode); ok && id.Value == "repeat" && len(t.Arguments) == 2 {
			return constRepeat(t.Arguments)
		}
	}
	return 0, false
}

func constRepeat(args []ast.Node) (int64, bool) {
	l, ok1 := constLen(args[0])
	c, ok2 := constInt(args[1])
	if !ok1 || !ok2 || c < 0 {
		return 0, false
	}
	return mul(l, c), true
}

func constInt(n ast.Node) (int64, bool) {
	switch t := n.(type) {
	case *ast.IntegerNode:
		return int64(t.Value), true
	case *ast.FloatNode:
		if t.Value >= -9e18 && t.Value <= 9e18 {
			return int64(t.Value), true
		}
	case *ast.UnaryNode:
		if t.Operator == "-" {
			if v, ok := constInt(t.Node); ok {
				return -v, true
			}
		}
	}
	return 0, false
}
