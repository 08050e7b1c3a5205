package main

// Bindings for the Assistant panel and the Preferences "Test connection"
// button. They stay thin: asking (a plan for an empty workflow, else the
// chat) and the conversation files' rule are service.Chat's, as for
// `weft chat`; the patch format, the merge and the preview diff live in
// backend/assistant.

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/weft-dev/weft/backend/assistant"
	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/service"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/validate"
	"github.com/weft-dev/weft/backend/workflow"
)

// EventAssistantProgress carries an assistant.Progress to the frontend while
// AssistantSend works: {kind: thinking|repairing|summarizing, attempt, max}.
const EventAssistantProgress = "assistant:progress"

// ErrAssistantStopped is what AssistantSend returns after AssistantStop; the
// frontend recognises the message.
var ErrAssistantStopped = errors.New("assistant: stopped")

// AssistantRequest is one message typed into the Assistant panel, with the
// workflow as it is on the canvas and the file it belongs to ("" if unsaved).
type AssistantRequest struct {
	Workflow workflow.Workflow `json:"workflow"`
	Path     string            `json:"path"`
	Message  string            `json:"message"`
}

// ChatHistory is the saved conversation of a workflow, for the panel.
type ChatHistory struct {
	Messages []assistant.ChatMessage `json:"messages"`
	// Path is the chat file ("" when the workflow has nowhere to keep one).
	Path     string   `json:"path"`
	Warnings []string `json:"warnings"`
}

// PatchPreview is a patch merged into the workflow, with what changed and
// whether the result is valid, for the canvas preview and the review banner.
type PatchPreview struct {
	Workflow *workflow.Workflow `json:"workflow"`
	Diff     assistant.Diff     `json:"diff"`
	// Changes is the review: each changed field, old → new, in full.
	Changes  assistant.ChangeSet `json:"changes"`
	Warnings []assistant.Warning `json:"warnings"`
	Valid    bool                `json:"valid"`
	Problems []validate.Problem  `json:"problems"`
}

// AppliedPatch is the workflow with a patch applied.
type AppliedPatch struct {
	Workflow *workflow.Workflow  `json:"workflow"`
	Warnings []assistant.Warning `json:"warnings"`
}

// Emitter sends an event to the frontend; tests replace it.
type Emitter func(ctx context.Context, name string, data ...any)

// assistantState is the App's assistant plumbing (App.assist).
type assistantState struct {
	mu     sync.Mutex
	emit   Emitter
	cancel context.CancelFunc
	seq    int
}

func (a *App) assistantState() *assistantState {
	a.stateOnce.Do(a.initState)
	return a.assist
}

// setEmitter replaces how events reach the frontend (tests).
func (a *App) setEmitter(e Emitter) {
	s := a.assistantState()
	s.mu.Lock()
	s.emit = e
	s.mu.Unlock()
}

func (a *App) emit(name string, data any) {
	s := a.assistantState()
	s.mu.Lock()
	e := s.emit
	s.mu.Unlock()
	if e != nil {
		e(a.context(), name, data)
		return
	}
	if a.ctx != nil { // the Wails runtime needs the context it started with
		runtime.EventsEmit(a.ctx, name, data)
	}
}

// AssistantSend asks the assistant about the workflow (service.Chat: an
// empty workflow is planned, as `weft chat` and `weft plan` do). Progress
// goes out as "assistant:progress" events; the reply is a conversation, a
// plan or a patch, never applied here: the panel previews it and the user
// applies it with ApplyPatch. A request already running is stopped first.
func (a *App) AssistantSend(req AssistantRequest) (*assistant.Result, error) {
	if strings.TrimSpace(req.Message) == "" {
		return nil, errors.New("the message is empty")
	}
	ctx, done := a.beginAssistant() // from here on AssistantStop applies
	defer done()
	stream := &progressStream{emit: func(p assistant.Progress) { a.emit(EventAssistantProgress, p) }}
	w := req.Workflow
	res, err := a.service().Chat(ctx, service.ChatRequest{Workflow: &w, Path: req.Path, Message: req.Message,
		OnProgress: stream.progress, LLMOptions: []llm.Option{llm.WithProgress(stream.llmProgress)},
		ChatOptions: llm.Options{OnDelta: stream.delta, OnReset: stream.reset}})
	switch {
	case errors.Is(err, service.ErrNoModel):
		return nil, errors.New("no model is configured: open Preferences and set the model name")
	case err != nil && (errors.Is(err, context.Canceled) || ctx.Err() != nil):
		return nil, ErrAssistantStopped
	case err != nil:
		return nil, err
	}
	return res, nil
}

// beginAssistant cancels the request in flight, if any, and returns the
// context of the new one with the func that ends it.
func (a *App) beginAssistant() (context.Context, func()) {
	s := a.assistantState()
	ctx, cancel := context.WithCancel(a.context())
	s.mu.Lock()
	if s.cancel != nil {
		s.cancel()
	}
	s.seq++
	seq := s.seq
	s.cancel = cancel
	s.mu.Unlock()
	return ctx, func() {
		cancel()
		s.mu.Lock()
		if s.seq == seq {
			s.cancel = nil
		}
		s.mu.Unlock()
	}
}

// AssistantStop cancels the request in flight; AssistantSend then returns
// ErrAssistantStopped. It reports whether there was one.
func (a *App) AssistantStop() bool {
	s := a.assistantState()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel == nil {
		return false
	}
	s.cancel()
	s.cancel = nil
	return true
}

// AssistantHistory loads the saved conversation of a workflow
// (service.ReadChat). A workflow with no file and no id has none.
func (a *App) AssistantHistory(workflowID, path string) (ChatHistory, error) {
	return ChatHistory(service.ReadChat(workflowID, path)), nil
}

// AssistantClearHistory deletes the saved conversation of a workflow.
func (a *App) AssistantClearHistory(workflowID, path string) error {
	return service.ClearChat(workflowID, path)
}

// PreviewPatch merges patch into w without changing anything, and says what
// it adds, removes and modifies and whether the result validates.
func (a *App) PreviewPatch(w workflow.Workflow, patch assistant.WorkflowPatch) PatchPreview {
	pv := assistant.PreviewPatch(&w, &patch)
	r := validate.Validate(pv.Workflow, a.catalog)
	return PatchPreview{Workflow: pv.Workflow, Diff: pv.Diff, Changes: pv.Changes, Warnings: nonNil(pv.Warnings),
		Valid: r.Valid, Problems: nonNil(r.Problems)}
}

// ApplyPatch returns w with patch merged: the workflow the canvas takes
// when the user applies a reviewed change. It uses the same merge as the
// preview.
func (a *App) ApplyPatch(w workflow.Workflow, patch assistant.WorkflowPatch) AppliedPatch {
	merged, ws := assistant.MergePatchIntoWorkflow(&w, &patch) // marks what the model changed
	return AppliedPatch{Workflow: merged, Warnings: nonNil(ws)}
}

// TestConnection checks the model endpoint with the values in the
// Preferences form (not yet saved). apiKey nil uses the stored key, but only
// where llm.StoredKey allows it: at the saved endpoint, or at another one
// when the person confirmed sending it there (sendStoredKey); a pointer to
// "" tests without a key.
func (a *App) TestConnection(cfg settings.LLM, apiKey *string, sendStoredKey bool) (llm.ConnectionInfo, error) {
	key := ""
	if apiKey != nil {
		key = strings.TrimSpace(*apiKey)
	} else {
		stored, err := a.storedKey()
		if err != nil {
			return llm.ConnectionInfo{}, err
		}
		key = stored.For(cfg.BaseURL, sendStoredKey)
	}
	c, err := a.newLLM(settings.LLM{BaseURL: cfg.BaseURL, Model: cfg.Model, APIKey: key, TimeoutS: cfg.TimeoutS})
	if err != nil {
		return llm.ConnectionInfo{}, err
	}
	return c.TestConnection(a.context())
}

// StoredKeyUse says whether Test connection would send the stored API key
// to baseURL without asking, so Preferences can ask first where it would
// not.
func (a *App) StoredKeyUse(baseURL string) (llm.KeyUse, error) {
	stored, err := a.storedKey()
	if err != nil {
		return llm.KeyUse{}, err
	}
	return stored.Use(baseURL), nil
}

// storedKey is the saved API key and the endpoint it is saved with.
func (a *App) storedKey() (llm.StoredKey, error) {
	st, err := a.settingsStore()
	if err != nil {
		return llm.StoredKey{}, err
	}
	s, _, err := st.Load()
	if err != nil {
		return llm.StoredKey{}, err
	}
	return llm.StoredKey{Key: s.LLM.APIKey, BaseURL: s.LLM.BaseURL}, nil
}

// DiscoverModelServers looks for model servers on this machine (Ollama,
// LM Studio, llama.cpp, vLLM at their usual ports) for the first-run setup.
func (a *App) DiscoverModelServers() []llm.LocalServer {
	return llm.Discover(a.context(), llm.DiscoverCandidates())
}

// newLLM makes a client for the endpoint in l with the service's
// options, its circuit breakers included.
func (a *App) newLLM(l settings.LLM) (*llm.OpenAI, error) {
	return a.service().AI(settings.Settings{LLM: l}).NewClient()
}

// progressStream forwards the assistant's progress and, while a reply
// streams in, how much of it has arrived: without it a slow local model
// looks the same as a hung one. Deltas are throttled so a fast stream does
// not flood the frontend with events.
type progressStream struct {
	emit func(assistant.Progress)

	mu       sync.Mutex
	last     assistant.Progress
	lastEmit time.Time
}

// streamEmitEvery bounds how often "received" updates go out.
const streamEmitEvery = 200 * time.Millisecond

func (s *progressStream) progress(p assistant.Progress) {
	s.mu.Lock()
	s.last = p
	s.lastEmit = time.Time{}
	s.mu.Unlock()
	s.emit(p)
}

// llmProgress adds the model endpoint's progress (a long wait, a retry
// after a rate limit) to the current progress, so the panel shows the
// elapsed time while the model is silent.
func (s *progressStream) llmProgress(p llm.Progress) {
	s.mu.Lock()
	cur := s.last
	s.mu.Unlock()
	cur.ElapsedMs = p.Elapsed.Milliseconds()
	cur.WaitMs, cur.Wait = p.Waiting.Milliseconds(), p.Reason
	s.emit(cur)
}

func (s *progressStream) delta(d string) {
	s.mu.Lock()
	s.last.Received += utf8.RuneCountInString(d)
	now := time.Now()
	send := s.lastEmit.IsZero() || now.Sub(s.lastEmit) >= streamEmitEvery
	p := s.last
	if send {
		s.lastEmit = now
	}
	s.mu.Unlock()
	if send {
		s.emit(p)
	}
}

// reset is called when a broken stream is asked again: what arrived is void.
func (s *progressStream) reset() {
	s.mu.Lock()
	s.last.Received = 0
	s.mu.Unlock()
}
