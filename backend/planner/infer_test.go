package planner

import (
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/validate"
)

func TestInferControlFlowEdges(t *testing.T) {
	tests := []struct {
		name     string
		nodes    []string
		edges    []string
		want     []string // edges afterwards
		nodesN   int      // node count afterwards, when nodes are added
		warnings []string // substrings, each in some infer warning
		valid    bool     // validate passes afterwards
	}{
		{
			name:  "well formed: untouched",
			nodes: []string{"a:Tool", "c:If", "t:Tool", "f:Tool", "l:Loop", "b:Tool", "e:EndLoop@l", "z:Tool"},
			edges: []string{"a>c", "c>t:IfTrue", "c>f:IfFalse", "t>l", "f>l", "l>b:LoopBody", "b>e", "e>l", "l>z:LoopDone"},
			want:  []string{"a>c", "c>t:IfTrue", "c>f:IfFalse", "t>l", "f>l", "l>b:LoopBody", "b>e", "e>l", "l>z:LoopDone"},
			valid: true,
		},
		{
			name:     "if: two unlabelled edges by position",
			nodes:    []string{"c:If", "t:Tool", "f:Tool"},
			edges:    []string{"c>t", "c>f"},
			want:     []string{"c>t:IfTrue", "c>f:IfFalse"},
			warnings: []string{"by position (a guess)"},
			valid:    true,
		},
		{
			name:     "if: complement of a labelled edge",
			nodes:    []string{"c:If", "t:Tool", "f:Tool"},
			edges:    []string{"c>t", "c>f:IfTrue"},
			want:     []string{"c>t:IfFalse", "c>f:IfTrue"},
			warnings: []string{"IfFalse (it already has IfTrue)"},
			valid:    true,
		},
		{
			name:     "if: single edge is IfTrue, still invalid",
			nodes:    []string{"c:If", "t:Tool"},
			edges:    []string{"c>t"},
			want:     []string{"c>t:IfTrue"},
			warnings: []string{"it has no IfFalse branch"},
		},
		{
			name:     "loop: labels by structure, not order",
			nodes:    []string{"l:Loop", "after:Tool", "body:Tool", "e:EndLoop@l"},
			edges:    []string{"l>after", "l>body", "body>e", "e>l"},
			want:     []string{"l>after:LoopDone", "l>body:LoopBody", "body>e", "e>l"},
			warnings: []string{"by structure"},
			valid:    true,
		},
		{
			name:     "loop: body found through a back-edge when there is no EndLoop",
			nodes:    []string{"l:Loop", "after:Tool", "body:Tool", "more:Tool"},
			edges:    []string{"l>after", "l>body", "body>more", "more>l"},
			want:     []string{"l>after:LoopDone", "l>body:LoopBody", "body>more", "more>end_l", "end_l>l"},
			nodesN:   5,
			warnings: []string{"by structure", "added the missing EndLoop", `rerouted the back-edge from "more"`},
			valid:    true,
		},
		{
			name:     "loop: no structural hint, by position",
			nodes:    []string{"l:Loop", "x:Tool", "y:Tool"},
			edges:    []string{"l>x", "l>y"},
			want:     []string{"l>x:LoopBody", "l>y:LoopDone"},
			warnings: []string{"by position"},
		},
		{
			name:     "loop: complement",
			nodes:    []string{"l:Loop", "b:Tool", "e:EndLoop@l", "z:Tool"},
			edges:    []string{"l>b:LoopBody", "b>e", "e>l", "l>z"},
			want:     []string{"l>b:LoopBody", "b>e", "e>l", "l>z:LoopDone"},
			warnings: []string{"LoopDone (it already has a LoopBody)"},
			valid:    true,
		},
		{
			name:     "loop: back-edge rerouted through the EndLoop",
			nodes:    []string{"l:Loop", "b:Tool", "c:Tool", "e:EndLoop@l", "z:Tool"},
			edges:    []string{"l>b:LoopBody", "b>c", "c>l", "l>z:LoopDone"},
			want:     []string{"l>b:LoopBody", "b>c", "l>z:LoopDone", "c>e", "e>l"},
			warnings: []string{`rerouted the back-edge from "c" through the EndLoop "e"`, "added the missing edge from its EndLoop"},
			valid:    true,
		},
		{
			name:     "loop: EndLoop exit becomes LoopDone",
			nodes:    []string{"l:Loop", "b:Tool", "e:EndLoop@l", "z:Tool"},
			edges:    []string{"l>b:LoopBody", "b>e", "e>l", "e>z"},
			want:     []string{"l>b:LoopBody", "b>e", "e>l", "l>z:LoopDone"},
			warnings: []string{`turned the edge from its EndLoop to "z" into its LoopDone`},
			valid:    true,
		},
		{
			name:     "loop: LoopDone into the EndLoop dropped, exit taken instead",
			nodes:    []string{"l:Loop", "b:Tool", "e:EndLoop@l", "z:Tool"},
			edges:    []string{"l>b:LoopBody", "b>e", "l>e:LoopDone", "e>z"},
			want:     []string{"l>b:LoopBody", "b>e", "e>l", "l>z:LoopDone"},
			warnings: []string{"dropped its LoopDone edge into the EndLoop", "into its LoopDone"},
			valid:    true,
		},
		{
			name:     "loop: EndLoop exit dropped when LoopDone already goes elsewhere",
			nodes:    []string{"l:Loop", "b:Tool", "e:EndLoop@l", "z:Tool", "y:Tool"},
			edges:    []string{"l>b:LoopBody", "b>e", "e>l", "e>y", "l>z:LoopDone", "z>y"},
			want:     []string{"l>b:LoopBody", "b>e", "e>l", "l>z:LoopDone", "z>y"},
			warnings: []string{"LoopDone already goes to"},
			valid:    true,
		},
		{
			name:     "endloop: paired with the loop it leads back to",
			nodes:    []string{"l:Loop", "b:Tool", "e:EndLoop"},
			edges:    []string{"l>b:LoopBody", "b>e", "e>l"},
			want:     []string{"l>b:LoopBody", "b>e", "e>l"},
			warnings: []string{"paired it with the Loop it leads back to"},
			valid:    true,
		},
		{
			name:     "endloop: paired with the nearest loop before it",
			nodes:    []string{"l:Loop", "b:Tool", "e:EndLoop", "z:Tool"},
			edges:    []string{"l>b:LoopBody", "b>e", "l>z:LoopDone"},
			want:     []string{"l>b:LoopBody", "b>e", "l>z:LoopDone", "e>l"},
			warnings: []string{"paired it with the nearest Loop before it", "added the missing edge"},
			valid:    true,
		},
		{
			name:     "endloop: floating one takes the body's dead end",
			nodes:    []string{"l:Loop", "b:Tool", "e:EndLoop@l", "z:Tool"},
			edges:    []string{"l>b:LoopBody", "l>z:LoopDone"},
			want:     []string{"l>b:LoopBody", "l>z:LoopDone", "b>e", "e>l"},
			warnings: []string{"connected the body's last step"},
			valid:    true,
		},
		{
			name:     "nested loops: inner labels by structure",
			nodes:    []string{"o:Loop", "i:Loop", "ib:Tool", "ie:EndLoop@i", "after:Tool", "oe:EndLoop@o", "z:Tool"},
			edges:    []string{"o>i:LoopBody", "i>after", "i>ib", "ib>ie", "ie>i", "after>oe", "oe>o", "o>z:LoopDone"},
			want:     []string{"o>i:LoopBody", "i>after:LoopDone", "i>ib:LoopBody", "ib>ie", "ie>i", "after>oe", "oe>o", "o>z:LoopDone"},
			warnings: []string{`by structure: LoopBody → "ib"`},
			valid:    true,
		},
		{
			name:     "switch: by target name, then default",
			nodes:    []string{"s:Switch[image,pdf]", "handle_pdf:Tool", "image_thumb:Tool", "other:Tool"},
			edges:    []string{"s>handle_pdf", "s>image_thumb", "s>other"},
			want:     []string{"s>handle_pdf:case=pdf", "s>image_thumb:case=image", "s>other:SwitchDefault"},
			warnings: []string{"named after the case", "every case already has an edge"},
			valid:    true,
		},
		{
			name:     "switch: remaining by position",
			nodes:    []string{"s:Switch[a,b]", "x:Tool", "y:Tool", "z:Tool"},
			edges:    []string{"s>x:case=a", "s>y", "s>z"},
			want:     []string{"s>x:case=a", "s>y:case=b", "s>z:SwitchDefault"},
			warnings: []string{`SwitchCase("b") by position`, "SwitchDefault by position"},
			valid:    true,
		},
		{
			name:     "switch: case name fixed",
			nodes:    []string{"s:Switch[Alpha]", "x:Tool"},
			edges:    []string{"s>x:case=alpha"},
			want:     []string{"s>x:case=Alpha"},
			warnings: []string{`case "alpha" read as "Alpha"`},
			valid:    true,
		},
		{
			name:     "plain steps lose labels",
			nodes:    []string{"a:Tool", "b:Tool"},
			edges:    []string{"a>b:IfTrue"},
			want:     []string{"a>b"},
			warnings: []string{"dropped the label IfTrue"},
			valid:    true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := wfOf(t, tt.nodes, tt.edges...)
			ws := InferControlFlowEdges(w)
			if got := edgeList(w); !sameEdges(got, tt.want) {
				t.Errorf("edges\n got  %v\n want %v", got, tt.want)
			}
			if tt.nodesN > 0 && len(w.Nodes) != tt.nodesN {
				t.Errorf("%d nodes, want %d", len(w.Nodes), tt.nodesN)
			}
			for _, sub := range tt.warnings {
				if !containsWarning(ws, StageInfer, sub) {
					t.Errorf("no infer warning contains %q; got %v", sub, ws)
				}
			}
			if len(tt.warnings) == 0 && len(ws) > 0 {
				t.Errorf("want no warnings, got %v", ws)
			}
			for _, wn := range ws {
				if wn.NodeID == "" || w.NodeByID(wn.NodeID) == nil {
					t.Errorf("warning %q names no node", wn.Message)
				}
			}
			if res := validate.Validate(w, tools.Builtin()); res.Valid != tt.valid {
				var b strings.Builder
				for _, p := range res.Problems {
					b.WriteString("\n  " + p.Code + ": " + p.Message)
				}
				t.Errorf("valid = %v, want %v%s", res.Valid, tt.valid, b.String())
			}
			// A second pass finds nothing more to do.
			if again := InferControlFlowEdges(w); tt.valid && len(again) > 0 {
				t.Errorf("second pass: %v", again)
			}
		})
	}
}
