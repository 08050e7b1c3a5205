package planner

import (
	"fmt"
	"strings"
	"testing"
)

// sloppyReply is a plan of about size bytes with one unquoted value in
// its last step: once the whole reply went to the quadratic library
// repair for this, and over 64 KB it was re-asked.
func sloppyReply(size int) string {
	step := `{"id": "s%d", "step_type": "Tool", "tool_name": "log", "arguments": {"message": "step %d of the plan, with some text"}},`
	var b strings.Builder
	b.WriteString(`{"steps": [`)
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, step, i, i)
	}
	b.WriteString(`{"id": "last", "step_type": "Tool", "tool_name": "run_command", "arguments": {"command": ls -la /tmp}}]}`)
	return b.String()
}

// BenchmarkRepairUnquotedValue repairs such replies of 16 KB and 1 MB
// (reports MB/s): linear, so both run at the fast path's speed.
func BenchmarkRepairUnquotedValue(b *testing.B) {
	for _, size := range []int{16 << 10, 1 << 20} {
		in := sloppyReply(size)
		b.Run(fmt.Sprintf("%dKB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			for range b.N {
				if _, _, err := RepairJSON(in); err != nil {
					b.Fatal(err)
				}
			}
		})
		// The linear pass alone, without RepairJSON's validity checks and
		// strict error position around it.
		b.Run(fmt.Sprintf("linear-pass-%dKB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			for range b.N {
				if _, _, ok := fastRepair(in); !ok {
					b.Fatal("gave up")
				}
			}
		})
	}
}

func TestLargeSloppyReplyRepairedLocally(t *testing.T) {
	out, ws, err := RepairJSON(sloppyReply(1 << 20))
	if err != nil || !validJSON(out) || len(ws) != 1 || !strings.Contains(ws[0].Message, "unquoted string values quoted") {
		t.Fatalf("1 MB reply: %v %v", ws, err)
	}
}

// Over the library's bound, what the strict linear pass gives up on is
// still repaired locally (lenient), and every guess is said.
func TestLargeReplyLenientRepair(t *testing.T) {
	in := strings.Replace(sloppyReply(1<<20), `ls -la /tmp`, `echo "hi" > {out}.txt`, 1)
	in = strings.Replace(in, `"id": "s1",`, `"id": "s1", = `, 1)
	out, ws, err := RepairJSON(in)
	if err != nil || !validJSON(out) || len(ws) != 1 {
		t.Fatalf("1 MB reply: %v %v", ws, err)
	}
	for _, want := range []string{"unquoted string values quoted", "stray characters dropped"} {
		if !strings.Contains(ws[0].Message, want) {
			t.Errorf("warning %q does not say %q", ws[0].Message, want)
		}
	}
	if !strings.Contains(out, `"command": "echo \"hi\" > {out}.txt"`) {
		t.Errorf("the command was not kept as text: %.200s", out[len(out)-200:])
	}
	// Small replies keep the strict pass and the library: no guessing.
	if _, _, ok := linearRepair(`{"a": 1 = 2}`, false); ok {
		t.Error("the strict pass guessed")
	}
}
