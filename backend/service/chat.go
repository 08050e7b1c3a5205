package service

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/weft-dev/weft/backend/assistant"
	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/workflow"
)

// ChatRequest is one message to the assistant about a workflow.
type ChatRequest struct {
	Workflow *workflow.Workflow
	// Path is the workflow's file; "" when unsaved (the chat is then kept
	// by the workflow's id).
	Path    string
	Message string
	// OnProgress, when set, hears about each model call.
	OnProgress func(assistant.Progress)
	// LLMOptions are this call's client options; ChatOptions go with
	// every model call (streamed deltas).
	LLMOptions  []llm.Option
	ChatOptions llm.Options
}

// Chat answers one message about a workflow, for the desktop's panel and
// `weft chat` alike. An empty workflow is planned (Plan, the planner's
// prompt and loop) and the plan comes back as a patch that adds it; a
// workflow with steps is asked about with the assistant's loop. The
// exchange is kept in the workflow's chat file (ReadChat's rule). The
// reply is never applied here. Result.Warnings start with what reading
// and saving the history said.
func (s *Service) Chat(ctx context.Context, req ChatRequest) (*assistant.Result, error) {
	if strings.TrimSpace(req.Message) == "" {
		return nil, errors.New("the message is empty")
	}
	st, _, err := s.settings()
	if err != nil {
		return nil, err
	}
	ai := s.AI(st)
	if !ai.HasModel() {
		return nil, ErrNoModel
	}
	w := req.Workflow
	if w == nil {
		w = workflow.New("")
	}
	h := openHistory(req.Path, w.ID)

	var res *assistant.Result
	if len(w.Nodes) == 0 {
		pr, err := s.plan(ctx, ai, PlanRequest{Goal: req.Message, Path: req.Path, OnProgress: assistant.PlanProgress(req.OnProgress),
			LLMOptions: req.LLMOptions, ChatOptions: req.ChatOptions})
		if err != nil {
			return nil, err
		}
		res = assistant.PlanResult(w, h.conv, req.Message, pr, time.Now())
	} else {
		client, err := s.client(st, req.LLMOptions...)
		if err != nil {
			return nil, err
		}
		res, err = assistant.Chat(ctx, client, assistant.Request{Workflow: w, Message: req.Message, Conversation: h.conv},
			assistant.Config{MaxRepairAttempts: ai.MaxRepairAttempts, Features: ai.Features, Catalog: ai.Catalog(ctx),
				OnProgress: req.OnProgress, ChatOptions: req.ChatOptions, Check: s.proposalCheck(req.Path, w)})
		if err != nil {
			return nil, err
		}
	}
	res.Warnings = append(h.warnings, res.Warnings...)
	if err := h.save(res.Conversation); err != nil {
		res.Warnings = append(res.Warnings, assistant.Warning{Stage: assistant.StageHistory, Message: err.Error()})
	}
	if res.Warnings == nil {
		res.Warnings = []assistant.Warning{}
	}
	return res, nil
}

// ChatHistory is a workflow's saved conversation, for the panel.
type ChatHistory struct {
	Messages []assistant.ChatMessage `json:"messages"`
	// Path is the chat file ("" when the workflow has nowhere to keep one).
	Path     string   `json:"path"`
	Warnings []string `json:"warnings"`
}

// ReadChat reads the conversation of a workflow (path "" when unsaved), by
// the rule Chat keeps: a corrupt chat file is moved aside and a new one
// begins; one that cannot be read at all is left alone and said in the
// warnings (Chat then does not save over it); a workflow first saved to a
// file shows the chat it had while unsaved until the next exchange moves
// it beside the file.
func ReadChat(workflowID, path string) ChatHistory {
	if _, _, err := chatFiles(path, workflowID); err != nil {
		// A workflow with no file and no id has no chat yet.
		return ChatHistory{Messages: []assistant.ChatMessage{}, Warnings: []string{}}
	}
	h := openHistory(path, workflowID)
	out := ChatHistory{Messages: nonNil(h.conv.Messages), Path: h.loadFrom, Warnings: []string{}}
	for _, w := range h.warnings {
		out.Warnings = append(out.Warnings, w.Message)
	}
	return out
}

// ClearChat deletes the saved conversation of a workflow (and the one
// it had while unsaved, when it is shown in its place).
func ClearChat(workflowID, path string) error {
	save, load, err := chatFiles(path, workflowID)
	if err != nil {
		return nil
	}
	for _, p := range []string{save, load} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("clear chat: %w", err)
		}
	}
	return nil
}

// history is a workflow's conversation as read for one exchange.
type history struct {
	conv *assistant.Conversation
	// saveTo is where the exchange is kept ("" not kept); loadFrom where
	// the conversation was read.
	saveTo, loadFrom string
	warnings         []assistant.Warning
}

// openHistory reads the conversation of a workflow. Nowhere to keep it, or
// a file that cannot be read, is a warning: the question is still asked,
// and the unread file is never overwritten by a conversation that forgot
// it.
func openHistory(path, workflowID string) history {
	h := history{conv: assistant.NewConversation(workflowID)}
	save, load, err := chatFiles(path, workflowID)
	if err != nil {
		h.warnings = append(h.warnings, assistant.Warning{Stage: assistant.StageHistory, Message: "this conversation is not saved: " + err.Error()})
		return h
	}
	h.loadFrom = load
	c, ws, err := assistant.LoadChat(load, workflowID)
	h.warnings = append(h.warnings, ws...)
	if err != nil {
		h.warnings = append(h.warnings, assistant.Warning{Stage: assistant.StageHistory, Message: err.Error() + "; the conversation is not saved this time"})
		return h
	}
	h.conv, h.saveTo = c, save
	return h
}

// save keeps conv where the history goes, when it may.
func (h history) save(conv *assistant.Conversation) error {
	if h.saveTo == "" || conv == nil {
		return nil
	}
	return assistant.SaveChat(h.saveTo, conv)
}

// chatFiles says where the conversation of a workflow is saved and where it
// is read from. They differ once: a workflow first saved to a file keeps
// the conversation it had while unsaved (kept by id under XDG_DATA_HOME)
// until the next exchange writes it in .weft beside the file.
func chatFiles(path, workflowID string) (save, load string, err error) {
	save, err = assistant.ChatPath(path, workflowID)
	if err != nil {
		return "", "", err
	}
	load = save
	if path == "" || workflowID == "" {
		return save, load, nil
	}
	if _, err := os.Stat(save); errors.Is(err, fs.ErrNotExist) {
		if byID, err := assistant.ChatPath("", workflowID); err == nil {
			if _, err := os.Stat(byID); err == nil {
				load = byID
			}
		}
	}
	return save, load, nil
}
