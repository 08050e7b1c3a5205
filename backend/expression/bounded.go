package expression

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/expr-lang/expr/builtin"
	"github.com/expr-lang/expr/vm/runtime"
)

// bounded are the builtins replaced by versions that charge the
// evaluation's byte budget before they allocate. Each receives the state
// first (the patcher inserts it), then the user's arguments, and calls
// expr's own implementation once the size is known to fit.
var bounded = map[string]func(args ...any) (any, error){
	"repeat":     boundedRepeat,
	"join":       boundedJoin,
	"replace":    boundedReplace,
	"split":      boundedSplit("split"),
	"splitAfter": boundedSplit("splitAfter"),
	"toJSON":     boundedBySize("toJSON", 2),
	"string":     boundedBySize("string", 1),
	"toBase64":   boundedByInput("toBase64", 2),
	"fromBase64": boundedByInput("fromBase64", 1),
	"fromJSON":   boundedByInput("fromJSON", 4),
	"upper":      boundedByInput("upper", 1),
	"lower":      boundedByInput("lower", 1),
}

// original is expr's implementation of a builtin, as a plain function.
func original(name string) func(args ...any) (any, error) {
	for _, f := range builtin.Builtins {
		if f.Name != name {
			continue
		}
		switch {
		case f.Func != nil:
			return f.Func
		case f.Safe != nil:
			return func(args ...any) (any, error) { v, _, err := f.Safe(args...); return v, err }
		case f.Fast != nil:
			return func(args ...any) (any, error) {
				if len(args) != 1 {
					return nil, fmt.Errorf("%s takes 1 argument, got %d", name, len(args))
				}
				return f.Fast(args[0]), nil
			}
		}
	}
	panic("expression: no builtin " + name) // a programming error, caught by the package's tests
}

// split0 takes the state off the arguments.
func split0(name string, args []any) (*state, []any) {
	if len(args) == 0 {
		panic(fmt.Errorf("%s: no evaluation state", name))
	}
	st, ok := args[0].(*state)
	if !ok {
		panic(fmt.Errorf("%s: no evaluation state", name))
	}
	st.check()
	return st, args[1:]
}

func str(name string, v any) string {
	s, ok := v.(string)
	if !ok {
		panic(fmt.Errorf("%s: expected a string, got %s", name, typeName(v)))
	}
	return s
}

func typeName(v any) string {
	if v == nil {
		return "nil"
	}
	return reflect.TypeOf(v).String()
}

// mul is a*b, or -1 when it does not fit (the charge then fails).
func mul(a, b int64) int64 {
	if a == 0 || b == 0 {
		return 0
	}
	if a < 0 || b < 0 || a > math.MaxInt64/b {
		return -1
	}
	return a * b
}

func boundedRepeat(args ...any) (any, error) {
	st, args := split0("repeat", args)
	if len(args) != 2 {
		return nil, fmt.Errorf("repeat takes 2 arguments, got %d", len(args))
	}
	s := str("repeat", args[0])
	n := runtime.ToInt(args[1])
	if n < 0 {
		return nil, fmt.Errorf("invalid argument for repeat (expected positive integer, got %d)", n)
	}
	st.charge(mul(int64(len(s)), int64(n)), fmt.Sprintf("repeat(…, %d)", n))
	return strings.Repeat(s, n), nil
}

func boundedJoin(args ...any) (any, error) {
	st, args := split0("join", args)
	if len(args) < 1 || len(args) > 2 {
		return nil, fmt.Errorf("join takes 1 or 2 arguments, got %d", len(args))
	}
	glue := ""
	if len(args) == 2 {
		glue = str("join", args[1])
	}
	var parts []string
	switch t := args[0].(type) {
	case []string:
		parts = t
	case []any:
		parts = make([]string, len(t))
		for i, x := range t {
			parts[i] = str("join", x)
		}
	default:
		return nil, fmt.Errorf("invalid argument for join (type %s)", typeName(args[0]))
	}
	var total int64
	for _, p := range parts {
		total += int64(len(p))
	}
	if len(parts) > 1 {
		total += mul(int64(len(glue)), int64(len(parts)-1))
	}
	st.charge(total, "join")
	return strings.Join(parts, glue), nil
}

func boundedReplace(args ...any) (any, error) {
	st, args := split0("replace", args)
	if len(args) != 3 {
		return nil, fmt.Errorf("replace takes 3 arguments, got %d", len(args))
	}
	s, old, nw := str("replace", args[0]), str("replace", args[1]), str("replace", args[2])
	n := int64(strings.Count(s, old))
	if old == "" {
		n = int64(utf8.RuneCountInString(s)) + 1
	}
	st.charge(int64(len(s))+mul(n, int64(len(nw))), "replace")
	return strings.ReplaceAll(s, old, nw), nil
}

// boundedSplit charges the pieces' headers (the pieces share the input).
func boundedSplit(name string) func(args ...any) (any, error) {
	orig := original(name)
	return func(args ...any) (any, error) {
		st, args := split0(name, args)
		if len(args) < 2 {
			return nil, fmt.Errorf("%s takes 2 or 3 arguments, got %d", name, len(args))
		}
		s, sep := str(name, args[0]), str(name, args[1])
		n := int64(strings.Count(s, sep)) + 1
		if sep == "" {
			n = int64(utf8.RuneCountInString(s))
		}
		st.charge(mul(n, 16), name)
		return orig(args...)
	}
}

// boundedByInput charges factor times the input string's length.
func boundedByInput(name string, factor int64) func(args ...any) (any, error) {
	orig := original(name)
	return func(args ...any) (any, error) {
		st, args := split0(name, args)
		if len(args) == 1 {
			if s, ok := args[0].(string); ok {
				st.charge(mul(int64(len(s)), factor), name)
			}
		}
		return orig(args...)
	}
}

// boundedBySize charges the encoded size of any value (estimated by a
// walk that gives up once it is over the budget) times factor.
func boundedBySize(name string, factor int64) func(args ...any) (any, error) {
	orig := original(name)
	return func(args ...any) (any, error) {
		st, args := split0(name, args)
		if len(args) >= 1 {
			st.charge(mul(estimate(args[0], MaxBytes+1, 0), factor), name)
		}
		return orig(args...)
	}
}

// estimate is about how many bytes v takes written out, at most limit
// (it stops counting there) and -1 when it is too deep to tell.
func estimate(v any, limit int64, depth int) int64 {
	if depth > 64 {
		return -1
	}
	switch t := v.(type) {
	case nil, bool:
		return 5
	case string:
		return int64(len(t)) + 2
	case []any:
		var n int64 = 2
		for _, x := range t {
			e := estimate(x, limit-n, depth+1)
			if e < 0 {
				return -1
			}
			if n += e + 1; n > limit {
				return n
			}
		}
		return n
	case map[string]any:
		var n int64 = 2
		for k, x := range t {
			e := estimate(x, limit-n, depth+1)
			if e < 0 {
				return -1
			}
			if n += int64(len(k)) + 4 + e; n > limit {
				return n
			}
		}
		return n
	case []string:
		var n int64 = 2
		for _, x := range t {
			if n += int64(len(x)) + 3; n > limit {
				return n
			}
		}
		return n
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map:
		// Other collections: a generous fixed size per element.
		return mul(int64(rv.Len()), 64) + 2
	}
	return 32
}

// add is `+` under the budget: strings (and arrays) are charged before
// they are joined; numbers, durations and times are added as expr does.
func add(args ...any) (any, error) {
	st, args := split0("+", args)
	if len(args) != 2 {
		return nil, fmt.Errorf("+ takes 2 operands, got %d", len(args))
	}
	a, b := args[0], args[1]
	if sa, ok := a.(string); ok {
		if sb, ok := b.(string); ok {
			st.charge(int64(len(sa))+int64(len(sb)), "+")
			return sa + sb, nil
		}
	}
	ra, rb := reflect.ValueOf(a), reflect.ValueOf(b)
	if ra.Kind() == reflect.Slice && rb.Kind() == reflect.Slice {
		st.charge(mul(int64(ra.Len()+rb.Len()), 16), "+")
	}
	return runtime.Add(a, b), nil
}

// tick wraps a closure body: it stops an abandoned evaluation at every
// step of every loop, and passes the body's value through.
func tick(args ...any) (any, error) {
	_, args = split0("closure", args)
	if len(args) != 1 {
		return nil, fmt.Errorf("closure step: %d values", len(args))
	}
	return args[0], nil
}
