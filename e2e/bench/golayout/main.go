// Command golayout lays out a workflow as the planner does for a plan:
// it reads the workflow's JSON on standard input, runs planner.Layout and
// prints each node's position by id, for preview-bench.mjs to place the
// plan exactly as Go would.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/weft-dev/weft/backend/planner"
	"github.com/weft-dev/weft/backend/workflow"
)

func main() {
	if err := run(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "golayout:", err)
		os.Exit(1)
	}
}

func run(in io.Reader, out io.Writer) error {
	data, err := io.ReadAll(in)
	if err != nil {
		return fmt.Errorf("reading the workflow: %w", err)
	}
	w, _, err := workflow.Parse(data)
	if err != nil {
		return fmt.Errorf("parsing the workflow: %w", err)
	}
	planner.Layout(w)
	pos := make(map[string]*workflow.Position, len(w.Nodes))
	for _, n := range w.Nodes {
		pos[n.ID] = n.Position
	}
	return json.NewEncoder(out).Encode(pos)
}
