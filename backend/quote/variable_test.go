package quote

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
)

// TestVariableRealShells checks that a variable reference (a secret a
// command reads from its environment) expands to exactly its value as
// one word, or as part of the word around it, in every place a value may
// go, with sh, dash and bash: every hostile value and every byte.
func TestVariableRealShells(t *testing.T) {
	values := append([]string(nil), hostile...)
	var all strings.Builder
	for c := 1; c < 256; c++ {
		values = append(values, "x"+string([]byte{byte(c)})+"y")
		all.WriteByte(byte(c))
	}
	values = append(values, all.String(), "")
	contexts := []struct{ before, after, pre, post string }{
		{"printf '%s\\0' ", "", "", ""},
		{`printf '%s\0' "a `, ` b"`, "a ", " b"},
		{`printf '%s\0' 'a `, ` b'`, "a ", " b"},
		{`printf '%s\0' a`, `b`, "a", "b"},
		{`x=`, `; printf '%s\0' "$x"`, "", ""},
	}
	for _, sh := range shells(t) {
		for _, c := range contexts {
			var script strings.Builder
			env := []string{"PATH=/usr/bin:/bin"}
			for i, v := range values {
				name := fmt.Sprintf("WEFT_SECRET_V%d", i)
				cmd := NewCommand(POSIX)
				cmd.Literal(c.before)
				if err := cmd.Variable(name); err != nil {
					t.Fatalf("%q: %v", c.before, err)
				}
				cmd.Literal(c.after)
				script.WriteString(cmd.String() + "\n")
				env = append(env, name+"="+v)
			}
			run := exec.Command(sh[0], append(sh[1:], "-c", script.String())...)
			run.Env = env
			run.Dir = t.TempDir()
			out, err := run.Output()
			if err != nil {
				t.Fatalf("%v %q: %v", sh, c.before, err)
			}
			got := strings.Split(string(out), "\x00")
			if len(got) != len(values)+1 {
				t.Fatalf("%v %q: %d values back, want %d", sh, c.before, len(got)-1, len(values))
			}
			for i, v := range values {
				if want := c.pre + v + c.post; got[i] != want {
					t.Errorf("%v %q: %q came back as %q", sh, c.before, want, got[i])
				}
			}
		}
	}
	// Where no value may go, no variable may either.
	for _, bad := range []string{"echo # ", "echo `", "echo ${", "echo $((", "echo \\"} {
		cmd := NewCommand(POSIX)
		cmd.Literal(bad)
		if err := cmd.Variable("WEFT_SECRET_X"); err == nil {
			t.Errorf("%q accepted a variable: %s", bad, cmd.String())
		}
	}
	if err := NewCommand(CmdExe).Variable("WEFT_SECRET_X"); err == nil {
		t.Error("cmd.exe accepted a variable")
	}
}
