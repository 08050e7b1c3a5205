package workflow

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A file Weft wrote with notes and groups (text with markup, quotes,
// newlines and unicode; a field a later version adds) saves byte for byte.
const annotated = `{
  "format": "weft/v1",
  "id": "w1",
  "name": "t",
  "nodes": [
    {
      "id": "n1",
      "key": "check_file",
      "name": "Check file",
      "type": "Tool",
      "params": {
        "tool": "run_command",
        "arguments": {
          "command": "true"
        }
      }
    }
  ],
  "edges": [],
  "notes": [
    {
      "id": "note1",
      "text": "<b>not bold</b> & {{check_file.stdout}}\n\"quoted\" — café",
      "position": {
        "x": -40.5,
        "y": 10
      },
      "size": {
        "width": 240,
        "height": 120
      },
      "color": "blue",
      "z_later": true
    },
    {
      "id": "note2",
      "text": "",
      "position": {
        "x": 0,
        "y": 0
      },
      "size": {
        "width": 100,
        "height": 100
      }
    }
  ],
  "groups": [
    {
      "id": "g1",
      "title": "Checks",
      "position": {
        "x": -20,
        "y": -40
      },
      "size": {
        "width": 300,
        "height": 200
      },
      "color": "green",
      "nodes": [
        "n1"
      ]
    },
    {
      "id": "g2",
      "title": "",
      "position": {
        "x": 0,
        "y": 0
      },
      "size": {
        "width": 100,
        "height": 100
      },
      "nodes": []
    }
  ]
}
`

func TestAnnotationsRoundTrip(t *testing.T) {
	w, _, err := Parse([]byte(annotated))
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Notes) != 2 || len(w.Groups) != 2 {
		t.Fatalf("notes %d groups %d", len(w.Notes), len(w.Groups))
	}
	if n := w.Notes[0]; n.Color != "blue" || n.Size.Width != 240 || n.Position.X != -40.5 || !strings.HasPrefix(n.Text, "<b>not bold</b> &") || n.Extra["z_later"] == nil {
		t.Fatalf("note: %+v", n)
	}
	if g := w.Groups[0]; g.Title != "Checks" || len(g.Nodes) != 1 || g.Nodes[0] != "n1" {
		t.Fatalf("group: %+v", g)
	}
	out, err := Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != annotated {
		t.Fatalf("not kept byte for byte:\n%s", out)
	}
	if c := w.Clone(); len(c.Notes) != 2 || c.Groups[0].Nodes[0] != "n1" {
		t.Fatalf("clone lost them: %+v", c)
	}
}

// A file without notes or groups (every one written before them) saves
// as it did: no "notes" or "groups" appear, and null or [] are dropped as
// triggers' are.
func TestNoAnnotationsSaveAsBefore(t *testing.T) {
	paths, _ := filepath.Glob("../../testdata/workflows/*.json")
	if len(paths) == 0 {
		t.Fatal("no test workflows")
	}
	for _, in := range append(paths, "") {
		data := []byte(minimal)
		if in != "" {
			var err error
			if data, err = os.ReadFile(in); err != nil {
				t.Fatal(err)
			}
		}
		w, _, err := Parse(data)
		if err != nil {
			continue
		}
		out, _ := Marshal(w)
		if strings.Contains(string(out), `"notes"`) || strings.Contains(string(out), `"groups"`) {
			t.Fatalf("%s: saved with annotations it did not have:\n%s", in, out)
		}
		w2, _, _ := Parse(out)
		if out2, _ := Marshal(w2); string(out2) != string(out) {
			t.Fatalf("%s: second save differs", in)
		}
	}
	for _, v := range []string{"null", "[]"} {
		w, _, err := Parse([]byte(strings.Replace(minimal, `"edges":[]`, `"edges":[],"notes":`+v+`,"groups":`+v, 1)))
		if err != nil {
			t.Fatal(err)
		}
		if w.Notes != nil || w.Groups != nil {
			t.Fatalf("%s: %+v %+v", v, w.Notes, w.Groups)
		}
	}
}

// A wrong value in a note or group is a ParseError naming it, with its
// line and column, by the fast path and the slow one (invalid UTF-8 sends
// a document the slow way).
func TestAnnotationParseErrors(t *testing.T) {
	cases := []struct{ in, want string }{
		{`"notes":{}`, "notes: must be an array"},
		{`"groups":"x"`, "groups: must be an array"},
		{`"notes":[{"id":"a","text":5}]`, "notes[0].text: expected a string, got JSON number"},
		{`"notes":[{"id":"a"},{"id":"b","position":{"x":"1"}}]`, "notes[1].position.x: expected a number"},
		{`"groups":[{"id":"g","nodes":"n1"}]`, "groups[0].nodes: expected an array"},
		{`"groups":[7]`, "groups[0]: expected an object"},
	}
	for _, c := range cases {
		for _, slow := range []bool{false, true} {
			doc := "{\"format\":\"weft/v1\",\"nodes\":[],\"edges\":[],\n" + c.in + "}"
			if slow {
				doc = strings.Replace(doc, `"format"`, "\"name\":\"\xff\",\"format\"", 1)
			}
			_, _, err := Parse([]byte(doc))
			var pe *ParseError
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("%s (slow %v): got %v, want %q", c.in, slow, err, c.want)
			}
			if strings.Contains(c.want, "[") && pe.Line != 2 {
				t.Fatalf("%s: line %d, want 2 (%v)", c.in, pe.Line, err)
			}
		}
	}
}

func TestWithoutAnnotations(t *testing.T) {
	w, _, err := Parse([]byte(annotated))
	if err != nil {
		t.Fatal(err)
	}
	c := w.WithoutAnnotations()
	if c.Notes != nil || c.Groups != nil || len(w.Notes) != 2 || len(w.Groups) != 2 || len(c.Nodes) != 1 {
		t.Fatalf("got %+v from %+v", c, w)
	}
	plain := New("x")
	if plain.WithoutAnnotations() != plain {
		t.Fatal("a copy of a workflow without annotations")
	}
}

// FuzzAnnotations: whatever notes and groups parse, saving them and
// reading the save back gives the same bytes again (nothing is lost or
// changed by a second save), and a wrong value is a ParseError, never a
// panic.
//
//	go test ./backend/workflow -run='^$' -fuzz=FuzzAnnotations -fuzztime=1m
func FuzzAnnotations(f *testing.F) {
	for _, s := range []string{
		`[{"id":"a","text":"<b>x</b>\n\u00e9","position":{"x":1.5,"y":-2},"size":{"width":100,"height":50},"color":"blue","z":[1,{"q":null}]}]`,
		`[{"id":"g","title":"T","nodes":["a","b"],"position":{"x":0,"y":0},"size":{"width":1,"height":1}}]`,
		`[{"nodes":null}]`, `[{"text":5}]`, `null`, `[]`, `{}`, `[1]`, `[{"id":"a","id":"b"}]`, `[{"position":{"x":1e400}}]`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 1<<16 {
			return
		}
		doc := `{"format":"weft/v1","nodes":[],"edges":[],"notes":` + s + `,"groups":` + s + `}`
		w, _, err := Parse([]byte(doc))
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("%s: not a ParseError: %v", s, err)
			}
			return
		}
		out, err := Marshal(w)
		if err != nil {
			return // a value JSON cannot write back (none known); not a round-trip failure
		}
		w2, _, err := Parse(out)
		if err != nil {
			t.Fatalf("a save does not parse: %v\n%s", err, out)
		}
		out2, _ := Marshal(w2)
		if string(out) != string(out2) {
			t.Fatalf("a second save differs:\n%s\n%s", out, out2)
		}
		if len(w2.Notes) != len(w.Notes) || len(w2.Groups) != len(w.Groups) {
			t.Fatalf("notes or groups lost: %d/%d %d/%d", len(w2.Notes), len(w.Notes), len(w2.Groups), len(w.Groups))
		}
	})
}
