package workflow

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/tidwall/gjson"
)

// FuzzFastDecode: whatever the fast path accepts, encoding/json decodes to
// the same node and edge (and what it declines goes the slow way).
func FuzzFastDecode(f *testing.F) {
	for _, s := range []string{
		`{"id":"a","key":"k","name":"N","type":"Tool","params":{"tool":"log","arguments":{"m":"x","n":[1,2.5,{"a":null}],"t":true}},"position":{"x":1,"y":2},"retry":{"max_attempts":3},"zz":1}`,
		`{"ID":"x"}`, `{"id":"\u00e9t\u00e9","name":"caf\u00e9"}`, `{"name":"é"}`,
		`{"params":{"arguments":{"a":1},"arguments":{"b":2}}}`, `{"params":{"tool":"a"},"params":{"prompt":"b"}}`,
		`{"timeout_ms":1.5}`, `{"timeout_ms":1e3}`, `{"timeout_ms":99999999999999999999}`, `{"id":null,"params":null}`,
		`{"params":{"arguments":null,"max_iterations":3,"cases":[{"name":"a","condition":"true"}],"Tool":"x"}}`,
		`{"from":"a","to":"b","output":{"type":"IfTrue"}}`, `{"from":"a","to":"b","output":"LoopBody","x":[1]}`,
		`{"enabled":false,"on_error":"branch","done_when":{"criteria":"ok"}}`, `{"params":{"arguments":{"big":1e400}}}`,
		`{"params":{"arguments":{"s":"a\\nb\"c","u":"\ud800"}}}`, `[]`, `"x"`, `{"id":1}`,
		`{"position":{"x":1,"y":2,"x":3}}`, `{"position":{"x":1},"position":{"y":2}}`, `{"position":{"x":1e400}}`,
		`{"retry":{"max_attempts":2,"backoff":{"initial_ms":5,"multiplier":1.5}}}`, `{"retry":{"backoff":null}}`,
		`{"retry":{"max_attempts":2,"backoff":{"initial_ms":5},"backoff":{"max_ms":3}}}`, `{"retry":{"max_attempts":1},"retry":{"backoff":{"jitter":0.1}}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 1<<16 || !gjson.Valid(s) {
			return
		}
		v := gjson.Parse(s)
		var fastN, slowN Node
		slowErr := json.Unmarshal([]byte(s), &slowN)
		if fastNode(v, &fastN) {
			if slowErr != nil {
				t.Fatalf("node %s: fast path accepted what encoding/json refuses (%v)", s, slowErr)
			}
			if !reflect.DeepEqual(fastN, slowN) {
				t.Fatalf("node %s:\n fast %#v\n slow %#v", s, fastN, slowN)
			}
		}
		// Parse reads the caller's bytes without a copy: nothing the fast
		// path keeps may point into them.
		buf := []byte(s)
		var aliased Node
		if fastNode(gjson.Parse(unsafe.String(unsafe.SliceData(buf), len(buf))), &aliased) {
			before := fmt.Sprintf("%#v", aliased)
			for i := range buf {
				buf[i] = 'x'
			}
			if after := fmt.Sprintf("%#v", aliased); after != before {
				t.Fatalf("node %s: the result points into the input:\n%s\n%s", s, before, after)
			}
		}
		var fastE, slowE Edge
		slowErr = json.Unmarshal([]byte(s), &slowE)
		if fastEdge(v, &fastE) {
			if slowErr != nil {
				t.Fatalf("edge %s: fast path accepted what encoding/json refuses (%v)", s, slowErr)
			}
			if !reflect.DeepEqual(fastE, slowE) {
				t.Fatalf("edge %s:\n fast %#v\n slow %#v", s, fastE, slowE)
			}
		}
	})
}

// The benchmark's file loads the same both ways.
func TestFastDecodeMatchesEncodingJSON(t *testing.T) {
	data := bigFile(500)
	w, _, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Nodes []Node `json:"nodes"`
		Edges []Edge `json:"edges"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	for i := range doc.Nodes {
		if doc.Nodes[i].Key == "" {
			continue // Parse derives missing keys
		}
		if !reflect.DeepEqual(w.Nodes[i], doc.Nodes[i]) {
			t.Fatalf("node %d:\n parse %#v\n json  %#v", i, w.Nodes[i], doc.Nodes[i])
		}
	}
	if !reflect.DeepEqual(w.Edges, doc.Edges) {
		t.Fatal("edges differ")
	}
	// The benchmark's nodes take the fast path (a slip there would only
	// show as lost speed).
	i := 0
	gjson.GetBytes(data, "nodes").ForEach(func(_, v gjson.Result) bool {
		var n Node
		if !fastNode(v, &n) {
			t.Errorf("node %d went the slow way: %.200s", i, v.Raw)
		}
		i++
		return true
	})
}

// Parse reads the caller's bytes without copying them, so nothing it
// returns may point into them: scribbling over the bytes afterwards must
// not change the workflow.
func TestParseKeepsNothingOfTheBuffer(t *testing.T) {
	data := append(bigFile(50), []byte(`   `)...)
	data = []byte(strings.Replace(string(data), `"nodes"`, `"zz_extra": {"a": [1, "b"]}, "nodes"`, 1))
	w, _, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	before, err := Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	for i := range data {
		data[i] = 'x'
	}
	after, _ := Marshal(w)
	if string(before) != string(after) {
		i := 0
		for i < len(before) && i < len(after) && before[i] == after[i] {
			i++
		}
		t.Fatalf("the workflow changed with the buffer it was parsed from, at %q", after[max(0, i-80):min(len(after), i+40)])
	}
	if !strings.Contains(string(after), `"zz_extra"`) {
		t.Fatal("the unknown field was not kept")
	}
}
