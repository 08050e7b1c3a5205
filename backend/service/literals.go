package service

import (
	"context"
	"errors"
	"fmt"

	"github.com/weft-dev/weft/backend/credentials"
	"github.com/weft-dev/weft/backend/literals"
	"github.com/weft-dev/weft/backend/workflow"
)

// secretStore is the credentials store as a move needs it.
func (s *Service) secretStore() (literals.Store, error) {
	st, ok := s.deps.Secrets.(literals.Store)
	if !ok || st == nil {
		return nil, errors.New("no credentials store that can hold a secret answered (see weft secrets list)")
	}
	return st, nil
}

// MoveLiteral stores the literal credential m names as a secret and
// returns w with {{secrets.NAME}} in its place (literals.Apply): the
// editor applies the result as one change; w itself is not changed.
func (s *Service) MoveLiteral(w *workflow.Workflow, m literals.Move) (*workflow.Workflow, credentials.Secret, error) {
	st, err := s.secretStore()
	if err != nil {
		return nil, credentials.Secret{}, err
	}
	return literals.Apply(st, w, m)
}

// ImportChoice is what the person chose for one literal: the secret's
// name ("": the suggested one, made free with literals.FreeName), or Skip.
type ImportChoice struct {
	Name string
	Skip bool
}

// ImportLiterals moves the literal credentials of the workflow file at
// path into the credentials store, each as choose says (bound to the
// URL's host or the tool, as MoveLiteral does), then writes the file
// through SaveWorkflow so its trust is carried over. Weft keeps the old
// bytes nowhere: no version of them is recorded. It returns the secrets
// moved; with none, the file is left as it was. A failed move stops before
// the file is written, leaving the secrets already stored in the store.
func (s *Service) ImportLiterals(ctx context.Context, path string, choose func(literals.Literal) (ImportChoice, error)) ([]credentials.Secret, error) {
	st, err := s.secretStore()
	if err != nil {
		return nil, err
	}
	w, _, err := workflow.Load(path)
	if err != nil {
		return nil, err
	}
	var moved []credentials.Secret
	for _, lit := range literals.Find(w) {
		if err := ctx.Err(); err != nil {
			return moved, err
		}
		c, err := choose(lit)
		if err != nil {
			return moved, err
		}
		if c.Skip {
			continue
		}
		if c.Name == "" {
			c.Name = literals.FreeName(st, lit)
		}
		nw, sec, err := literals.Apply(st, w, literals.MoveOf(lit, c.Name))
		if err != nil {
			return moved, fmt.Errorf("%s %s: %w", lit.NodeID, lit.Path, err)
		}
		w = nw
		moved = append(moved, sec)
	}
	if len(moved) == 0 {
		return nil, nil
	}
	if err := s.SaveWorkflow(ctx, path, w, path); err != nil {
		return moved, err
	}
	return moved, nil
}
