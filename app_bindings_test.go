package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/assistant"
	"github.com/weft-dev/weft/backend/flow"
	"github.com/weft-dev/weft/backend/service"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/tsgen"
	"github.com/weft-dev/weft/backend/workflow"
)

// bindingsFile is the frontend's typed bindings, generated from App.
const bindingsFile = "frontend/src/gen/bindings.ts"

var updateBindings = flag.Bool("update-bindings", false, "rewrite "+bindingsFile+" (make types)")

// bindingsConfig says what reflection cannot: the JSON of the types with
// their own MarshalJSON.
func bindingsConfig() tsgen.Config {
	open := tsgen.Custom{Open: true} // unknown members kept and written back
	return tsgen.Config{
		As: map[reflect.Type]string{
			reflect.TypeFor[time.Time]():       "string",
			reflect.TypeFor[json.RawMessage](): "unknown",
		},
		Custom: map[reflect.Type]tsgen.Custom{
			reflect.TypeFor[workflow.Workflow](): {Open: true, NotNull: []string{"nodes", "edges"}},
			reflect.TypeFor[workflow.Node]():     open,
			reflect.TypeFor[workflow.Edge]():     open,
			reflect.TypeFor[workflow.Trigger]():  open,
			reflect.TypeFor[workflow.Note]():     open,
			reflect.TypeFor[workflow.Group]():    {Open: true, NotNull: []string{"nodes"}},
			reflect.TypeFor[workflow.Params]():   open,
			reflect.TypeFor[settings.Settings](): open,
			// Written by hand for speed, as its fields say (flow's
			// TestEventJSONMatchesEncodingJSON).
			reflect.TypeFor[flow.Event](): {},
			reflect.TypeFor[approval.Step](): {Extra: []tsgen.Field{{Name: "display", Type: reflect.TypeFor[approval.Display](),
				Doc: "The step as a person reads it: what would not show escaped (package reveal). Show only this."}}},
		},
		// The payloads of the events App emits (app_run.go, app_assistant.go).
		Types: []reflect.Type{
			reflect.TypeFor[service.Finished](), reflect.TypeFor[service.Replan](), reflect.TypeFor[service.Escalation](),
			reflect.TypeFor[flow.Event](), reflect.TypeFor[assistant.Progress](),
		},
		Module:    "github.com/weft-dev/weft",
		Dir:       ".",
		Namespace: "main",
	}
}

// TestFrontendBindings: the committed TypeScript bindings are what the Go
// types generate; `make types` rewrites them.
func TestFrontendBindings(t *testing.T) {
	got, err := tsgen.Generate(reflect.TypeFor[*App](), bindingsConfig())
	if err != nil {
		t.Fatal(err)
	}
	if *updateBindings {
		if err := os.WriteFile(bindingsFile, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(bindingsFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is not what the Go types generate: run make types and commit it", bindingsFile)
	}
}
