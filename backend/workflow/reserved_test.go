package workflow

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestKeyFromNameAvoidsReservedWords(t *testing.T) {
	for name, want := range map[string]string{"If": "if_step", "In": "in_step", "Not": "not_step", "matches": "matches_step", "If check": "if_check", "": "node"} {
		if got := KeyFromName(name); got != want {
			t.Errorf("KeyFromName(%q) = %q, want %q", name, got, want)
		}
	}
	for _, k := range ReservedKeys {
		if got := KeyFromName(k); ReservedKey(got) {
			t.Errorf("KeyFromName(%q) = %q, a reserved word", k, got)
		}
	}
}

// The editor derives keys too (frontend/src/graph/ids.ts): same words.
func TestReservedKeysMatchTheFrontend(t *testing.T) {
	b, err := os.ReadFile("../../frontend/src/graph/ids.ts")
	if err != nil {
		t.Skipf("frontend not here: %v", err)
	}
	for name, list := range map[string][]string{"RESERVED_KEYS": ReservedKeys, "REFERENCE_ROOTS": ReferenceRoots} {
		m := regexp.MustCompile(name + `[^=]*=\s*\[([^\]]*)\]`).FindSubmatch(b)
		if m == nil {
			t.Fatalf("%s not found in ids.ts", name)
		}
		var ts []string
		for _, q := range regexp.MustCompile(`'([^']*)'`).FindAllSubmatch(m[1], -1) {
			ts = append(ts, string(q[1]))
		}
		goList := slices.Clone(list)
		slices.Sort(ts)
		slices.Sort(goList)
		if !slices.Equal(ts, goList) {
			t.Fatalf("ids.ts %s has %s, Go has %s", name, strings.Join(ts, ","), strings.Join(goList, ","))
		}
	}
}
