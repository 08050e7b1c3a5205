package workflow

import (
	"encoding/json"
	"fmt"
	"testing"
)

// bigFile is a workflow file of n Tool nodes in a chain, with arguments,
// retry settings and an unknown field on every tenth node.
func bigFile(n int) []byte {
	w := New("big")
	for i := 0; i < n; i++ {
		node := Node{ID: fmt.Sprintf("id-%06d", i), Key: fmt.Sprintf("step_%d", i), Name: fmt.Sprintf("Step %d", i), Type: TypeTool,
			Params:   Params{Tool: "run_command", Arguments: map[string]any{"command": fmt.Sprintf("echo %d && ls -la /tmp/data/%d", i, i), "timeout_ms": 5000}},
			Position: &Position{X: float64(i * 260), Y: 160}, Retry: &Retry{MaxAttempts: 3}}
		if i%10 == 0 {
			node.Extra = Extra{"x_note": json.RawMessage(`{"by":"hand","tags":["a","b"]}`)}
		}
		w.Nodes = append(w.Nodes, node)
		if i > 0 {
			w.Edges = append(w.Edges, Edge{From: w.Nodes[i-1].ID, To: node.ID})
		}
	}
	b, err := Marshal(w)
	if err != nil {
		panic(err)
	}
	return b
}

// BenchmarkParse loads a workflow file with Parse, and with plain
// encoding/json into the same structs without the checks, side by side.
// Reports MB/s.
func BenchmarkParse(b *testing.B) {
	for _, n := range []int{1000, 100_000} {
		data := bigFile(n)
		b.Run(fmt.Sprintf("weft-%dk", n/1000), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for range b.N {
				if _, _, err := Parse(data); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("encoding-json-%dk", n/1000), func(b *testing.B) {
			type plainNode struct {
				ID, Key, Name, Type string
				Params              struct {
					Tool      string         `json:"tool"`
					Arguments map[string]any `json:"arguments"`
				} `json:"params"`
				Position *Position `json:"position"`
				Retry    *Retry    `json:"retry"`
			}
			var doc struct {
				Format string      `json:"format"`
				Nodes  []plainNode `json:"nodes"`
				Edges  []struct {
					From, To string
				} `json:"edges"`
			}
			b.SetBytes(int64(len(data)))
			for range b.N {
				if err := json.Unmarshal(data, &doc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
