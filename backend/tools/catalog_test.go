package tools

import (
	"encoding/json"
	"testing"
)

func TestBuiltinCatalog(t *testing.T) {
	c := Builtin()
	want := []string{"run_command", "http_request", "read_file", "write_file", "list_files", "wait", "log"}
	got := c.Names()
	if len(got) != len(want) {
		t.Fatalf("names %v", got)
	}
	for i, n := range want {
		if got[i] != n {
			t.Fatalf("names %v", got)
		}
		tool, ok := c.Lookup(n)
		if !ok {
			t.Fatalf("lookup %s", n)
		}
		var schema map[string]any
		if err := json.Unmarshal(tool.InputSchema, &schema); err != nil || schema["type"] != "object" {
			t.Fatalf("%s schema: %v %v", n, err, schema)
		}
	}
	if c.Has("nope") || (*Catalog)(nil).Has("run_command") {
		t.Fatal("Has wrong")
	}
}

func TestWithMCPTools(t *testing.T) {
	c := Builtin().With("filesystem", []Tool{{Name: "read_text_file"}, {Name: "filesystem.write_file"}})
	if !c.Has("filesystem.read_text_file") || !c.Has("filesystem.write_file") || !c.Has("run_command") {
		t.Fatalf("names %v", c.Names())
	}
	tool, _ := c.Lookup("filesystem.read_text_file")
	if tool.Server != "filesystem" {
		t.Fatalf("server %q", tool.Server)
	}
	// Built-ins first, then MCP tools by name.
	names := c.Names()
	if names[0] != "run_command" || names[len(names)-1] != "filesystem.write_file" {
		t.Fatalf("order %v", names)
	}
	// The original catalog is unchanged.
	if Builtin().Has("filesystem.read_text_file") {
		t.Fatal("With mutated the builtin catalog")
	}
}
