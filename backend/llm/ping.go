package llm

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
)

// ConnectionInfo is what the Preferences "Test connection" button shows.
type ConnectionInfo struct {
	Endpoint string `json:"endpoint"`
	Model    string `json:"model"`
	// Models lists what GET /models returned (empty when the server has
	// no such endpoint).
	Models []string `json:"models,omitempty"`
	// ModelListed: the configured model is among Models.
	ModelListed bool `json:"model_listed"`
	// ChatChecked: a one-token chat with the configured model succeeded.
	ChatChecked bool          `json:"chat_checked"`
	Latency     time.Duration `json:"latency_ns"`
	// Message is a one-line summary for the user.
	Message string `json:"message"`
}

// TestConnection checks the endpoint with one GET /models and, when that
// does not list the configured model, a one-token chat. It makes single
// attempts (no retries, no circuit breaker: the user asked for a live
// check) bounded by Config.Timeout each. On success the endpoint's circuit
// breaker is reset. Errors are *Error with the same messages as Chat.
func (c *OpenAI) TestConnection(ctx context.Context) (ConnectionInfo, error) {
	info := ConnectionInfo{Endpoint: c.endpoint, Model: c.model}
	start := c.now()

	models, err := c.listModels(ctx)
	var le *Error
	switch {
	case err == nil:
		info.Models = models
		info.ModelListed = slices.Contains(models, c.model)
	case errors.As(err, &le) && (le.Kind == ErrBadResponse ||
		le.StatusCode == 404 || le.StatusCode == 405 || le.StatusCode == 501):
		// Some servers have no /models; the chat check below decides.
	default:
		return info, err
	}

	if !info.ModelListed {
		if err := c.chatOnce(ctx); err != nil {
			return info, err
		}
		info.ChatChecked = true
	}
	info.Latency = c.now().Sub(start)
	listed := fmt.Sprintf("%d models", len(info.Models))
	if len(info.Models) == 1 {
		listed = "1 model" // not "(1 models)"
	}
	switch {
	case info.ModelListed:
		info.Message = fmt.Sprintf("Connected to %s; model %q is available (the server lists %s).", c.endpoint, c.model, listed)
	case len(info.Models) > 0:
		info.Message = fmt.Sprintf("Connected to %s; model %q answered (it is not in the server's list of %s).", c.endpoint, c.model, listed)
	default:
		info.Message = fmt.Sprintf("Connected to %s; model %q answered.", c.endpoint, c.model)
	}
	c.breaker.reset()
	return info, nil
}

// Ping is TestConnection without the details.
func (c *OpenAI) Ping(ctx context.Context) error {
	_, err := c.TestConnection(ctx)
	return err
}

func (c *OpenAI) listModels(ctx context.Context) ([]string, error) {
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	timer := time.AfterFunc(c.timeout, func() { cancel(errAttemptTimeout) })
	defer timer.Stop()
	page, err := c.models.List(actx)
	if err != nil {
		return nil, c.oneShotError(ctx, c.withCause(actx, err))
	}
	var ids []string
	for _, m := range page.Data {
		ids = append(ids, m.ID)
	}
	return ids, nil
}

func (c *OpenAI) chatOnce(ctx context.Context) error {
	params, _ := c.buildParams([]Message{{Role: RoleUser, Content: "Reply with OK."}}, Options{MaxTokens: 1})
	_, _, err := c.attempt(ctx, params, Options{}, false)
	if err != nil {
		return c.oneShotError(ctx, err)
	}
	return nil
}

func (c *OpenAI) oneShotError(ctx context.Context, err error) error {
	f := c.classify(ctx, err)
	if f.canceled {
		return c.canceled(ctx.Err(), 1)
	}
	return c.red.finish(f.toError(c.endpoint, 1))
}
