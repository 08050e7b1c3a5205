package tsgen

import (
	"bytes"
	"encoding/json"
	"flag"
	"net/netip"
	"os"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/tsgen/internal/sample"
)

var update = flag.Bool("update", false, "rewrite testdata/sample.ts")

func sampleConfig() Config {
	return Config{
		As: map[reflect.Type]string{
			reflect.TypeFor[time.Time]():       "string",
			reflect.TypeFor[json.RawMessage](): "unknown",
		},
		Custom: map[reflect.Type]Custom{
			reflect.TypeFor[sample.Custom](): {Open: true, NotNull: []string{"kept"},
				Extra: []Field{{Name: "added", Type: reflect.TypeFor[sample.Name](), Optional: true, Doc: "Added by MarshalJSON."}}},
		},
		Module: "github.com/weft-dev/weft/backend/tsgen",
		Dir:    ".",
	}
}

func generate(t *testing.T) string {
	t.Helper()
	out, err := Generate(reflect.TypeFor[*sample.Service](), sampleConfig())
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestGolden: the whole output for the sample package, reviewed once.
func TestGolden(t *testing.T) {
	got := generate(t)
	const file = "testdata/sample.ts"
	if *update {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Fatalf("output differs from %s (go test -update to rewrite it):\n%s", file, got)
	}
}

// interfaceMembers are the member names and whether each is optional of
// the generated interface name.
func interfaceMembers(t *testing.T, out, name string) map[string]bool {
	t.Helper()
	start := strings.Index(out, "export interface "+name+" {\n")
	if start < 0 {
		t.Fatalf("no interface %s in:\n%s", name, out)
	}
	body := out[start:]
	body = body[:strings.Index(body, "\n  }\n")]
	members := map[string]bool{}
	re := regexp.MustCompile(`(?m)^    ('[^']*'|\w+)(\??): `)
	for _, m := range re.FindAllStringSubmatch(body, -1) {
		members[strings.Trim(m[1], "'")] = m[2] == "?"
	}
	return members
}

func keys(t *testing.T, v any) []string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestMembersAreEncodingJSONs: the members of a generated interface are the
// keys encoding/json writes, empty (the required ones) and full (all of
// them): embedding, name clashes, "-", unexported fields and omitempty
// follow its rules.
func TestMembersAreEncodingJSONs(t *testing.T) {
	members := interfaceMembers(t, generate(t), "Outer")
	var required, all []string
	for k, opt := range members {
		all = append(all, k)
		if !opt {
			required = append(required, k)
		}
	}
	sort.Strings(required)
	sort.Strings(all)
	if got := keys(t, sample.Outer{}); !slices.Equal(got, required) {
		t.Errorf("an empty Outer's JSON has %v, the interface requires %v", got, required)
	}
	full := sample.Outer{Other: &sample.Other{}, Optional: &sample.Inner{}, Raw: json.RawMessage(`1`), Pointers: []*sample.Inner{{}}, Addr: netip.MustParseAddr("::1")}
	if got := keys(t, full); !slices.Equal(got, all) {
		t.Errorf("a full Outer's JSON has %v, the interface has %v", got, all)
	}
}

// TestTypes: what each Go field becomes.
func TestTypes(t *testing.T) {
	out := generate(t)
	for _, want := range []string{
		"export type Color = 'red' | 'green';", // the untyped Blue is not one
		"clash: boolean;",                      // Outer's hides Inner's
		"Both?: boolean;",                      // the tagged one of two at one depth, optional in a *Other
		"shade: sample.Color;",
		"Plain: string;",
		"optional?: sample.Inner;", // omitempty: absent, never null
		"nullable: sample.Inner | null;",
		"list: sample.Color[] | null;", // a nil slice is null
		"fixed: number[];",
		"bytes: string | null;", // base64
		"by_name: Record<string, number> | null;",
		"any: unknown;",
		"quoted: string;",
		"when: string;",
		"raw?: unknown;",
		"addr: string;",
		"anonymous: { X: number; };",
		"pointers?: (sample.Inner | null)[];",
		"who: string;", // no constants: a plain string
		"'odd-key': string;",
		"nested: Record<string, string[] | null> | null;",
		"kept: string[];", // NotNull
		"added?: string;",
		"[extra: string]: unknown;",
		"export function Get(id: string, c: sample.Color): Promise<sample.Outer> {\n  return bound('Get')(id, c);\n}",
		"export function Put(o: sample.Outer | null): Promise<void> {",
		"export function Ping(): Promise<void> {",
		"/** Get returns the outer value for id. */",
		"    /** Clash here hides Inner's. */\n    clash: boolean;",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	outer := out[strings.Index(out, "export interface Outer"):]
	if strings.Contains(outer[:strings.Index(outer, "\n  }\n")], "tie") {
		t.Error("Outer has tie, which two embedded fields at one depth give")
	}
	for _, not := range []string{"Skipped", "hidden"} {
		if strings.Contains(out, not) {
			t.Errorf("%q in the output", not)
		}
	}
}

// TestRefuses: types whose JSON reflection cannot tell are errors, not
// guesses.
func TestRefuses(t *testing.T) {
	for _, c := range []struct {
		recv reflect.Type
		want string
	}{
		{reflect.TypeFor[*sample.Bad](), "has its own MarshalJSON"},
		{reflect.TypeFor[*sample.Generic](), "generic types are not supported"},
		{reflect.TypeFor[sample.Service](), "must be a pointer to a struct"},
	} {
		_, err := Generate(c.recv, sampleConfig())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.recv, err, c.want)
		}
	}
}

// TestDeterministic: the same types give the same bytes (the committed
// file is compared byte for byte).
func TestDeterministic(t *testing.T) {
	a := generate(t)
	for range 5 {
		if b := generate(t); !bytes.Equal([]byte(a), []byte(b)) {
			t.Fatal("two runs differ")
		}
	}
}
