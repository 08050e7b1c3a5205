package expression

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"
)

func env() map[string]any {
	xs := make([]any, 1000)
	for i := range xs {
		xs[i] = float64(i + 1)
	}
	return map[string]any{
		"check": map[string]any{"exit_code": float64(0), "stdout": "ok\n"},
		"list":  map[string]any{"files": []any{"a.txt", "b.txt"}, "count": float64(2)},
		"fetch": map[string]any{"status": float64(404), "body": strings.Repeat("x", 1<<20)},
		"xs":    xs,
		"count": map[string]any{"n": float64(3)}, // a node keyed like a builtin
	}
}

func eval(t *testing.T, src string, disabled ...string) (any, error) {
	t.Helper()
	p, err := Compile(src, disabled...)
	if err != nil {
		return nil, err
	}
	return p.Eval(context.Background(), env(), 2*time.Second)
}

// What users write keeps working.
func TestEverydayExpressions(t *testing.T) {
	for _, c := range []struct {
		src  string
		want any
	}{
		{`check.exit_code == 0`, true},
		{`len(list.files) > 0`, true},
		{`fetch.status >= 400`, true},
		{`"a.txt" in list.files`, true},
		{`"a" + "b" == "ab"`, true},
		{`1 + 2`, 3},
		{`1.5 + 2`, 3.5},
		{`check.stdout + "!"`, "ok\n!"},
		{`now() + duration("1h") > now()`, true},
		{`repeat("ab", 3)`, "ababab"},
		{`join(list.files, ",")`, "a.txt,b.txt"},
		{`join(["a", "b"])`, "ab"},
		{`replace("aXb", "X", "-")`, "a-b"},
		{`split("a,b", ",")[1]`, "b"},
		{`splitAfter("a,b", ",")[0]`, "a,"},
		{`upper("a") + lower("B")`, "Ab"},
		{`string(12)`, "12"},
		{`toJSON({"a": 1})`, "{\n  \"a\": 1\n}"},
		{`fromJSON("[1,2]")[1]`, 2.0},
		{`toBase64("hi")`, "aGk="},
		{`fromBase64("aGk=")`, "hi"},
		{`all(list.files, hasSuffix(#, ".txt"))`, true},
		{`sum(map(xs, # * 2)) > 0`, true},
		{`len(filter(xs, # > 990))`, 10},
		{`reduce(1..4, #acc + #, 0)`, 10},
		{`let x = 2; x + x`, 4},
		{`trim(check.stdout) == "ok"`, true},
		{`len(sortBy(list.files, #)) == 2`, true},
	} {
		got, err := eval(t, c.src)
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		if got != c.want {
			t.Errorf("%s = %#v, want %#v", c.src, got, c.want)
		}
	}
	// A node key that is a builtin's name reads the node.
	if got, err := eval(t, `count.n == 3`, "count"); err != nil || got != true {
		t.Errorf("shadowed builtin: %v %v", got, err)
	}
}

// Expressions that would take the process down are stopped by a bound.
func TestBombsAreStopped(t *testing.T) {
	for _, src := range []string{
		`repeat(repeat("a", 999999), 1000000) == ""`,
		`repeat("ab", 1000000000)`,
		`let a = repeat("a", 1000000); let b = a + a; let c = b + b; let d = c + c; let e = d + d; let f = e + e; let g = f + f; g == ""`,
		`join(map(1..999, fetch.body), "") == ""`,
		`len(map(1..999, fetch.body + "")) > 0`,
		`toJSON(map(1..999, fetch.body)) == ""`,
		`string(map(1..999, fetch.body)) == ""`,
		`replace(fetch.body, "", fetch.body) == ""`,
		`len(map(1..999, upper(fetch.body))) > 0`,
		`len(map(1..999, split(fetch.body, ""))) > 0`,
		`len(1..100000000) > 0`,
		`len(map(1..1000, map(1..1000, map(1..1000, #)))) > 0`,
	} {
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := eval(t, src)
		var le *LimitError
		if !errors.As(err, &le) {
			t.Errorf("%s: want a limit error, got %v", src, err)
			continue
		}
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		if grew := int64(after.TotalAlloc) - int64(before.TotalAlloc); grew > 1<<30 {
			t.Errorf("%s: allocated %d MB before stopping", src, grew>>20)
		}
	}
}

// An evaluation that overruns its time bound stops soon after, instead of
// running on in the background.
func TestAbandonedEvaluationsStop(t *testing.T) {
	base := runtime.NumGoroutine()
	p, err := Compile(`all(xs, all(xs, all(xs, all(xs, # > 0))))`) // 10^12 steps
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		_, err := p.Eval(context.Background(), env(), 20*time.Millisecond)
		var le *LimitError
		if !errors.As(err, &le) || !strings.Contains(err.Error(), "was stopped") {
			t.Fatalf("err %v", err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > base && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > base {
		t.Fatalf("%d evaluations still running after they were given up", n-base)
	}
	// A cancelled context stops it too.
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(10 * time.Millisecond); cancel() }()
	if _, err := p.Eval(ctx, env(), time.Minute); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancel: %v", err)
	}
}

func TestNodeLimit(t *testing.T) {
	src := strings.Repeat("1 + ", MaxNodes) + "1"
	if _, err := Compile(src); err == nil {
		t.Fatal("an expression over the node limit compiled")
	}
}
