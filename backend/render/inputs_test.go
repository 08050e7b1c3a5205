package render

import (
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/quote"
)

// hostileInputs are values a person (or whoever starts a run) could give
// an input: each would act if spliced into a command as code.
var hostileInputs = []string{
	"; rm -rf ~", "$(touch pwned)", "`touch pwned`", "a\nrm -rf ~", "a\r\nb", `"; touch pwned; "`, `'; touch pwned; '`,
	"it's", `\`, "$HOME", "${IFS}", "*", "~", "-rf", "x && y || z | w & v", "#comment", "", " ", "é ✓",
}

// {{inputs.x}} in a run_command command is inserted exactly as a step's
// output is: one quoted shell word, in every quoting context, which the
// real shell reads back as the value (less its trailing line breaks).
func TestInputsInCommandStayData(t *testing.T) {
	for _, v := range hostileInputs {
		env := mapEnv{"inputs": map[string]any{"x": v}, "step": map[string]any{"x": v}}
		for _, tmpl := range []string{`printf '%s' {{X}}`, `printf '%s' "{{X}}"`, `printf '%s' 'a{{X}}b'`, `printf '%s' "$(printf '%s' {{X}})"`} {
			for _, sh := range []quote.Shell{quote.POSIX, quote.CmdExe} {
				in, inErr := Command(replaceX(tmpl, "inputs.x"), env, sh)
				out, outErr := Command(replaceX(tmpl, "step.x"), env, sh)
				if in != out || (inErr == nil) != (outErr == nil) {
					t.Fatalf("%q in %s (%v): an input renders %q (%v), a step's output %q (%v)", v, tmpl, sh, in, inErr, out, outErr)
				}
			}
			if runtime.GOOS == "windows" {
				continue
			}
			cmd, err := Command(replaceX(tmpl, "inputs.x"), env, quote.POSIX)
			if err != nil {
				t.Fatalf("%q in %s: %v", v, tmpl, err)
			}
			got, err := exec.Command("sh", "-c", cmd).Output()
			want := quote.TrimLineEnd(v)
			if tmpl == `printf '%s' 'a{{X}}b'` {
				want = "a" + want + "b"
			}
			if err != nil || string(got) != want {
				t.Errorf("%q in %s: sh ran %q and printed %q (%v), want %q", v, tmpl, cmd, got, err, want)
			}
		}
	}
}

func replaceX(tmpl, path string) string { return strings.ReplaceAll(tmpl, "{{X}}", "{{"+path+"}}") }
