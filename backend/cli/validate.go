package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"path/filepath"

	"github.com/weft-dev/weft/backend/credentials"
	"github.com/weft-dev/weft/backend/service"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/validate"
	"github.com/weft-dev/weft/backend/workflow"
)

func (c *cli) validate(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	asJSON := fs.Bool("json", false, "print the result as JSON")
	if err := fs.Parse(interspersed(args, nil)); err != nil {
		return exitUnusable
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(c.stderr, "usage: weft validate FILE [--json]")
		return exitUnusable
	}
	w, warnings, err := workflow.Load(fs.Arg(0))
	if err != nil {
		if *asJSON {
			c.writeJSON(map[string]any{"valid": false, "error": err.Error(), "problems": []validate.Problem{}})
		}
		fmt.Fprintf(c.stderr, "weft: %v\n", err)
		return exitUnusable
	}
	for _, wn := range warnings {
		c.log.Info("load", "warning", wn)
	}
	have := c.secretNames()
	// MCP tools are checked against their servers' lists (cached; the
	// settings are read only when the workflow names a tool not built in).
	svc := service.New(service.Deps{Logger: c.log, Settings: func() (settings.Settings, []string, error) {
		s, err := c.effective()
		return s, nil, err
	}})
	c.services = append(c.services, svc)
	cat, catWarnings := svc.ValidationCatalog(ctx, w, fs.Arg(0))
	for _, wn := range catWarnings {
		fmt.Fprintf(c.stderr, "weft: warning: %s\n", wn)
	}
	// A Workflow node's file is looked for beside this one.
	dir := ""
	if abs, err := filepath.Abs(fs.Arg(0)); err == nil {
		dir = filepath.Dir(abs)
	}
	res := validate.ValidateWith(w, cat, validate.Options{Secrets: have, Dir: dir})
	if res.Problems == nil {
		res.Problems = []validate.Problem{}
	}
	if *asJSON {
		c.writeJSON(res)
	} else {
		for _, p := range res.Problems {
			fmt.Fprintf(c.stdout, "%s: %s [%s]\n", p.Severity, p.Message, p.Code)
		}
		if have != nil { // nil: the store could not be listed, nothing is known missing
			for _, n := range service.MissingSecrets(w, have) {
				fmt.Fprintf(c.stdout, "missing secret %s: add it with %s\n", n.Name, n.SetCommand())
			}
		}
		nErr := len(res.Errors())
		switch {
		case res.Valid && len(res.Problems) == 0:
			fmt.Fprintf(c.stdout, "%s: valid (%d nodes, %d edges)\n", fs.Arg(0), len(w.Nodes), len(w.Edges))
		case res.Valid:
			fmt.Fprintf(c.stdout, "%s: valid with %d warning(s)\n", fs.Arg(0), len(res.Problems))
		default:
			fmt.Fprintf(c.stdout, "%s: invalid: %d error(s), %d warning(s)\n", fs.Arg(0), nErr, len(res.Problems)-nErr)
		}
	}
	if !res.Valid {
		return exitInvalid
	}
	return exitOK
}

func (c *cli) writeJSON(v any) {
	enc := json.NewEncoder(c.stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		fmt.Fprintf(c.stderr, "weft: encode JSON: %v\n", err)
	}
}

// secretNames are the names in this computer's credentials store, for
// validate's unknown_secret; nil (no check) when it cannot be opened.
func (c *cli) secretNames() []string {
	store, err := credentials.Default(c.getenv)
	if err != nil {
		return nil
	}
	return service.SecretNames(store)
}
