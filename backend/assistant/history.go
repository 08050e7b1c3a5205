package assistant

import (
	"context"
	"fmt"
	"strings"

	"github.com/weft-dev/weft/backend/llm"
)

// DefaultRecentMessages is how many of the latest messages go to the model
// verbatim; older ones are summarised.
const DefaultRecentMessages = 6

// summaryBatch is how many older messages gather before they are folded
// into the summary, so that not every turn costs a summary call.
const summaryBatch = 4

// maxTranscriptMessage bounds one message in the text to summarise.
const maxTranscriptMessage = 2000

const summarizePrompt = `You summarise a conversation between a user and the assistant of Weft, a workflow editor, so that it can go on without the full transcript. In at most 150 words of plain prose, keep: what the user wants the workflow to do, the changes the assistant proposed and whether they were valid, open questions, and facts the user gave (paths, URLs, names). No JSON, no lists of steps.`

// historyMessages returns the turns to send before the new message: the
// last `recent` messages verbatim, with everything older folded into
// conv.Summary by a model call, cached in the conversation (older turns
// are folded in batches of summaryBatch; until a batch is full they are
// sent verbatim too). A failed
// summary is not fatal: the older turns are dropped with a warning. Only
// cancellation is an error.
func (r *run) historyMessages(ctx context.Context, conv *Conversation) ([]llm.Message, error) {
	recent := r.cfg.RecentMessages
	if recent <= 0 {
		recent = DefaultRecentMessages
	}
	msgs := conv.Messages
	older := len(msgs) - recent
	start := max(older, 0)
	switch {
	case older <= conv.SummaryCovers:
	case older-conv.SummaryCovers < summaryBatch:
		// Too few new older turns to be worth a call: send them verbatim
		// until a batch has gathered.
		start = conv.SummaryCovers
	default:
		if err := r.summarize(ctx, conv, msgs[conv.SummaryCovers:older]); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			what := "dropped"
			if conv.Summary != "" {
				what = "dropped (the earlier summary is kept)"
			}
			r.warn(StageHistory, "", "could not summarise the older conversation (%v); %d older message(s) %s and only the last %d sent verbatim", err, older-conv.SummaryCovers, what, recent)
		}
	}
	out := make([]llm.Message, 0, len(msgs)-start)
	for _, m := range msgs[start:] {
		role := llm.RoleUser
		if m.Role == RoleAssistant {
			role = llm.RoleAssistant
		}
		out = append(out, llm.Message{Role: role, Content: historyContent(m)})
	}
	return out, nil
}

// historyContent is what the model sees of a past turn: the text, plus a
// note of the patch an assistant turn proposed.
func historyContent(m ChatMessage) string {
	if m.Role != RoleAssistant || m.Patch == nil || m.Patch.Empty() {
		return m.Content
	}
	p := m.Patch
	note := fmt.Sprintf("[proposed a change: %d node(s) added, %d removed, %d updated; %d edge(s) added, %d removed",
		len(p.AddedNodes), len(p.RemovedNodeIDs), len(p.UpdatedNodes), len(p.AddedEdges), len(p.RemovedEdges))
	if m.Valid != nil && !*m.Valid {
		note += "; it was invalid"
	}
	return strings.TrimSpace(m.Content + "\n" + note + "]")
}

// summarize folds msgs (the turns after the current summary) into a new
// summary of everything up to them.
func (r *run) summarize(ctx context.Context, conv *Conversation, msgs []ChatMessage) error {
	var b strings.Builder
	if conv.Summary != "" {
		b.WriteString("Summary of the conversation so far:\n" + conv.Summary + "\n\nWhat followed:\n")
	}
	for _, m := range msgs {
		who := "User"
		if m.Role == RoleAssistant {
			who = "Assistant"
		}
		fmt.Fprintf(&b, "%s: %s\n", who, cut(historyContent(m), maxTranscriptMessage))
	}
	r.emit(Progress{Kind: ProgressSummarizing})
	reply, err := r.chat(ctx, []llm.Message{
		{Role: llm.RoleSystem, Content: summarizePrompt},
		{Role: llm.RoleUser, Content: b.String()},
	})
	if err != nil {
		return err
	}
	s := strings.TrimSpace(stripThink(reply.Text))
	if s == "" {
		return fmt.Errorf("the model returned an empty summary")
	}
	conv.Summary = cut(s, 4000)
	conv.SummaryCovers += len(msgs)
	return nil
}
