package expression

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"
)

// FuzzEvalCondition: any condition text, evaluated against outputs like a
// run's, never panics and never takes memory without bound. Crashers found
// here are kept in testdata/fuzz/FuzzEvalCondition (the repeat bomb
// among them).
func FuzzEvalCondition(f *testing.F) {
	for _, s := range []string{
		`repeat(repeat("a", 999999), 1000000) == ""`,
		`check.exit_code == 0 && len(list.files) > 0`,
		`all(xs, all(xs, # > 0))`,
		`let a = repeat("a", 1000000); let b = a + a; b == ""`,
		`join(map(1..999, fetch.body), "")`,
		`toJSON(map(1..99, {"a": fetch.body}))`,
		`fetch.status >= 400 ? "retry" : "ok"`,
		`split(fetch.body, "")[0]`,
		`reduce(xs, #acc + string(#), "")`,
		`1..1000000000`,
	} {
		f.Add(s)
	}
	vars := env()
	n := 0
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 2000 { // the file format's limit on a condition
			return
		}
		p, err := Compile(src)
		if err != nil {
			return
		}
		_, err = p.Eval(context.Background(), vars, 20*time.Millisecond)
		var le *LimitError
		_ = errors.As(err, &le)
		if n++; n%512 != 0 { // ReadMemStats stops the world: not every time
			return
		}
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		if m.HeapAlloc > 2<<30 {
			t.Fatalf("heap at %d MB after %q", m.HeapAlloc>>20, src)
		}
	})
}
