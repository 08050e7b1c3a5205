package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/settings"
)

func (c *cli) store() (*settings.Store, error) {
	p, err := settings.DefaultPath()
	if err != nil {
		return nil, err
	}
	return &settings.Store{Path: p, Keyring: settings.DefaultKeyring(c.getenv), Getenv: c.getenv, Now: time.Now, Log: c.log,
		Loaded: func(s settings.Settings) { c.red.Add(s.Secrets()...) }}, nil
}

func (c *cli) settings(_ context.Context, args []string) int {
	usage := func() int {
		fmt.Fprintln(c.stderr, "usage: weft settings path | get [KEY] | set KEY VALUE")
		return exitUnusable
	}
	if len(args) == 0 {
		return usage()
	}
	st, err := c.store()
	if err != nil {
		fmt.Fprintf(c.stderr, "weft: %v\n", err)
		return exitUnusable
	}
	switch args[0] {
	case "path":
		if len(args) != 1 {
			return usage()
		}
		fmt.Fprintln(c.stdout, st.Path)
		return exitOK
	case "get":
		if len(args) > 2 {
			return usage()
		}
		// get shows what a run would use: the file plus WEFT_* overrides.
		s, warnings, err := st.Effective()
		c.printWarnings(warnings)
		if err != nil {
			fmt.Fprintf(c.stderr, "weft: %v\n", err)
			return exitUnusable
		}
		s = s.Masked()
		if len(args) == 1 {
			c.writeJSON(s)
			return exitOK
		}
		v, err := settings.Get(s, args[1])
		if err != nil {
			fmt.Fprintf(c.stderr, "weft: %v\n", err)
			return exitUnusable
		}
		fmt.Fprintln(c.stdout, v)
		return exitOK
	case "set":
		if len(args) != 3 {
			return usage()
		}
		// set edits the file as saved, never baking env overrides into it.
		s, warnings, err := st.Load()
		c.printWarnings(warnings)
		if err != nil {
			fmt.Fprintf(c.stderr, "weft: %v\n", err)
			return exitUnusable
		}
		if err := settings.Set(&s, args[1], args[2]); err != nil {
			fmt.Fprintf(c.stderr, "weft: %v\n", err)
			return exitUnusable
		}
		warnings, err = st.Save(s)
		c.printWarnings(warnings)
		if err != nil {
			fmt.Fprintf(c.stderr, "weft: %v\n", err)
			return exitUnusable
		}
		shown, _ := settings.Get(s.Masked(), args[1])
		fmt.Fprintf(c.stdout, "%s = %s\n", args[1], shown)
		return exitOK
	}
	return usage()
}

// effective loads the effective settings (file, keyring, environment) and
// prints what could not be used.
func (c *cli) effective() (settings.Settings, error) {
	st, err := c.store()
	if err != nil {
		return settings.Settings{}, err
	}
	s, warnings, err := st.Effective()
	c.printWarnings(warnings)
	return s, err
}

func (c *cli) printWarnings(ws []string) {
	for _, w := range ws {
		fmt.Fprintf(c.stderr, "weft: warning: %s\n", w)
	}
}

// llmProgress prints a long model call's progress on stderr (from the
// call's goroutines: the redacting writer locks).
func (c *cli) llmProgress(p llm.Progress) {
	elapsed := p.Elapsed.Round(time.Second)
	if p.Waiting > 0 {
		fmt.Fprintf(c.stderr, "weft: %s; retrying in %v (attempt %d of %d, %v so far)\n", p.Reason, p.Waiting.Round(100*time.Millisecond), p.Attempt+1, p.MaxAttempts, elapsed)
		return
	}
	fmt.Fprintf(c.stderr, "weft: still waiting for the model: %v, attempt %d of %d\n", elapsed, p.Attempt, p.MaxAttempts)
}
