package quote

import (
	"strings"
	"testing"
)

// build renders tmpl with each § replaced by the next value, as data.
func build(sh Shell, tmpl string, values ...string) (string, error) {
	c := NewCommand(sh)
	parts := strings.Split(tmpl, "§")
	for i, p := range parts {
		c.Literal(p)
		if i < len(parts)-1 {
			v := values[0]
			if len(values) > 1 {
				v, values = values[0], values[1:]
			}
			if err := c.Value(v); err != nil {
				return c.String(), err
			}
		}
	}
	return c.String(), nil
}

func TestCommandPOSIXContexts(t *testing.T) {
	const v = `a'b"c$(touch X)`
	const q = `'a'\''b"c$(touch X)'` // v as a bare word
	const in = `a'\''b"c$(touch X)`  // v inside single quotes
	cases := []struct {
		name, tmpl, want, wantErr string
	}{
		{"bare word", "echo §", "echo " + q, ""},
		{"joined to text", "cp §.bak --name=§", "cp " + q + ".bak --name=" + q, ""},
		{"two in a row", "echo §§", "echo " + q + q, ""},
		{"inside double quotes", `echo "x§y"`, `echo "x"` + q + `"y"`, ""},
		{"inside single quotes", `echo 'x§y'`, `echo 'x` + in + `y'`, ""},
		{"after a quoted quote", `echo "it's" '"' "\"" §`, `echo "it's" '"' "\"" ` + q, ""},
		{"in $( )", "echo $(printf %s §)", "echo $(printf %s " + q + ")", ""},
		{"in $( ) in double quotes", `echo "$(printf %s "§")"`, `echo "$(printf %s ""` + q + `"")"`, ""},
		{"right after $(", `echo "$(§)"`, `echo "$(` + q + `)"`, ""},
		{"after $( ) closes in double quotes", `echo "$(date) §"`, `echo "$(date) "` + q + `""`, ""},
		{"in a subshell", "(cd /tmp && ls §)", "(cd /tmp && ls " + q + ")", ""},
		{"after arithmetic", "echo $(( (1+2) )) §", "echo $(( (1+2) )) " + q, ""},
		{"after ${ }", "echo ${HOME:-/} §", "echo ${HOME:-/} " + q, ""},
		{"after backticks", "echo `date` §", "echo `date` " + q, ""},
		{"assignment", `x=§; echo "$x"`, "x=" + q + `; echo "$x"`, ""},
		{"# inside a word", "echo a#§", "echo a#" + q, ""},
		{"# after a value", "echo §#x", "echo " + q + "#x", ""},
		{"after a comment line", "# note\necho §", "# note\necho " + q, ""},
		{"escaped backslash", `echo \\§`, `echo \\` + q, ""},
		{"line continuation", "echo a\\\n§", "echo a\\\n" + q, ""},
		{"case at top level", "case $1 in a) echo §;; esac", "case $1 in a) echo " + q + ";; esac", ""},
		{"redirect", "cat <§ >§", "cat <" + q + " >" + q, ""},

		{"comment", "echo a #§", "", "comment"},
		{"comment at start", "#§", "", "comment"},
		{"comment in $( )", "echo $(true #§\n)", "", "comment"},
		{"quote in a comment", "echo a # it's\necho §", "echo a # it's\necho " + q, ""},
		{"after a backslash", `echo \§`, "", "backslash"},
		{"after a backslash in double quotes", `echo "\§"`, "", "backslash"},
		{"after $", `echo $§`, "", "follows a $"},
		{"after $ in double quotes", `echo "$§"`, "", "follows a $"},
		{"in backticks", "echo `printf %s §`", "", "backticks"},
		{"quotes in backticks", "echo `echo \"x\"` §", "", "quotes inside backticks"},
		{"in ${ }", "echo ${x:-§}", "", "${…}"},
		{"in $(( ))", "echo $((§ + 1))", "", "$((…))"},
		{"here-document", "cat <<EOF\n§\nEOF", "", "here-document"},
		{"after a here-document", "cat <<EOF\nx\nEOF\necho §", "", "here-document"},
		{"$' '", "echo $'a' §", "", "$'…'"},
		{"case in $( )", "echo $(case a in a) echo;; esac) §", "", "case statement"},
		{"case in double-quoted $( )", `echo "$(case a in a) echo;; esac) §"`, "", "case statement"},
		{"bash arithmetic command", "((n = §))", "", "((…))"},
		{"after bash arithmetic", "((n++)); echo §", "", "((…))"},
		{"$[ ]", "echo $[§ + 1]", "", "$[…]"},
		{"[[ ]]", "[[ § -eq 1 ]]", "", "[[ … ]]"},
		{"array subscript", "a[§]=1", "", "a word's […]"},
		{"assignment to a subscript", "x=1 a[§]=1 env", "", "a word's […]"},
		{"subscript through $( )", "a[$(printf %s §)]=1", "", "a word's […]"},
		{"test command", "[ -f § ] && cat §", "[ -f " + q + " ] && cat " + q, ""},
		{"glob bracket at word start", "ls [ab]§", "ls [ab]" + q, ""},
		{"after a subscript", "a[0]=1; echo §", "a[0]=1; echo " + q, ""},
		{"nested subshells", "( (echo §) )", "( (echo " + q + ") )", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := build(POSIX, c.tmpl, v)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("got %q, %v; want an error with %q", got, err, c.wantErr)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("got  %q, %v\nwant %q", got, err, c.want)
			}
		})
	}
}

// TestCommandPOSIXRealShells runs templates whose output is known with
// every hostile value through sh, dash and bash: each prints exactly the
// expected words and no script creates a file.
func TestCommandPOSIXRealShells(t *testing.T) {
	cases := []struct {
		tmpl string
		want func(v string) []string
	}{
		{"printf '%s\\0' §", func(v string) []string { return []string{v} }},
		{"printf '%s\\0' pre§post", func(v string) []string { return []string{"pre" + v + "post"} }},
		{`printf '%s\0' "pre§post"`, func(v string) []string { return []string{"pre" + v + "post"} }},
		{`printf '%s\0' 'pre§post'`, func(v string) []string { return []string{"pre" + v + "post"} }},
		{`printf '%s\0' "$(printf '%s' "§")"`, func(v string) []string { return []string{strings.TrimRight(v, "\n")} }},
		{`printf '%s\0' "$(printf '%s' §)"`, func(v string) []string { return []string{strings.TrimRight(v, "\n")} }},
		{"(printf '%s\\0' § §)", func(v string) []string { return []string{v, v} }},
		{`x=§; printf '%s\0' "$x"`, func(v string) []string { return []string{v} }},
		{`printf '%s\0' "a'b" '"' §`, func(v string) []string { return []string{"a'b", `"`, v} }},
		{`printf '%s\0' $((1+2)) ${UNSET:-d} § # it's`, func(v string) []string { return []string{"3", "d", v} }},
		{"printf '%s\\0' `printf hi` §", func(v string) []string { return []string{"hi", v} }},
		{"printf '%s\\0' a\\\n§", func(v string) []string { return []string{"a" + v} }},
		{"case x in x) printf '%s\\0' §;; esac", func(v string) []string { return []string{v} }},
		{"[ x = x ] && ( (printf '%s\\0' §) )", func(v string) []string { return []string{v} }},
	}
	for _, sh := range shells(t) {
		for _, c := range cases {
			var script strings.Builder
			var want []string
			for _, v := range hostile {
				line, err := build(POSIX, c.tmpl, v)
				if err != nil {
					t.Fatalf("%q with %q: %v", c.tmpl, v, err)
				}
				script.WriteString(line + "\nprintf '%s\\0' ---\n")
				want = append(want, c.want(v)...)
				want = append(want, "---")
			}
			got := strings.Split(runShell(t, sh, script.String()), "\x00")
			got = got[:len(got)-1]
			if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
				for i := 0; i < len(got) && i < len(want); i++ {
					if got[i] != want[i] {
						t.Fatalf("%v, %q: word %d is %q, want %q", sh, c.tmpl, i, got[i], want[i])
					}
				}
				t.Fatalf("%v, %q: %d words, want %d", sh, c.tmpl, len(got), len(want))
			}
		}
	}
}

func TestCommandRaw(t *testing.T) {
	c := NewCommand(POSIX)
	c.Literal("echo ")
	c.Raw(`"$HOME" #`)
	if err := c.Value("x"); err == nil || !strings.Contains(err.Error(), "comment") {
		t.Errorf("a raw insertion is read as template text: want the comment it opened to refuse a value, got %v (%q)", err, c.String())
	}
	if c.String() != `echo "$HOME" #` {
		t.Errorf("raw text changed: %q", c.String())
	}
}

func TestCommandDeepNesting(t *testing.T) {
	_, err := build(POSIX, strings.Repeat("$(", 100)+"§", "v")
	if err == nil || !strings.Contains(err.Error(), "nested") {
		t.Errorf("want a nesting error, got %v", err)
	}
}
