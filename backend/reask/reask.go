// Package reask is the one loop in which Weft asks a model for something
// it can check (a plan, a patch, a goal check's verdict): call, judge the
// reply, and while it is not usable and max_repair_attempts allows, ask
// again with what was wrong. The planner, the assistant and the critic
// each bring their judge; the loop, its bound and what a re-ask says
// around the judge's feedback are the same for all of them.
package reask

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/settings"
)

// Calls is how many model calls max_repair_attempts allows: 0 and 1 are
// one call (0: the reply is not validated, where a caller can use it
// unvalidated), N is up to N calls in all, N capped at the setting's
// limit.
func Calls(maxRepairAttempts int) int {
	return min(max(maxRepairAttempts, 1), settings.MaxRepairAttempts)
}

// Validates says whether max_repair_attempts asks for replies to be
// validated (every value but 0).
func Validates(maxRepairAttempts int) bool { return maxRepairAttempts >= 1 }

// Verdict is a judge's word on one reply.
type Verdict struct {
	// OK: the reply is usable as it is; the loop ends.
	OK bool
	// Feedback is what the next request tells the model; nil when there
	// is nothing to ask (the loop ends).
	Feedback *Feedback
	// Reason is a short line for progress ("2 validation errors").
	Reason string
}

// Feedback is what a re-ask tells the model about its reply: why it
// could not be used (cut off, unreadable, or read but invalid), what
// Weft changed while reading it, and what to send back. Every re-ask is
// worded by Text, so the three judges say it the same way.
type Feedback struct {
	// Truncated: the reply was cut off at the length limit.
	Truncated bool
	// Failure says why the reply could not be read (the stage, with the
	// position in the JSON); Problems why what was read is not valid
	// (every problem, numbered). One of them, or Truncated, is set.
	Failure  string
	Problems string
	// Fixes are what Weft repaired or dropped while reading it, so the
	// model can put back what it meant.
	Fixes []string
	// Hint is what else helps (a correct example, the last attempt's
	// advice).
	Hint string
	// Answer says what to reply with.
	Answer string
}

// maxFixes bounds the repair lines of one re-ask; problems are never
// cut, since the model must fix them all.
const maxFixes = 12

// Text is the re-ask for the reply of attempt (of max).
func (f *Feedback) Text(attempt, max int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Your reply (attempt %d of %d) could not be used.\n\n", attempt, max)
	switch {
	case f.Truncated:
		b.WriteString("It was cut off at the length limit, so none of it was used. Send a shorter reply: only the JSON, no prose, short names and arguments. Start again from the beginning; do not continue the cut-off text.\n")
	case f.Failure != "":
		b.WriteString(strings.TrimRight(f.Failure, "\n") + "\n")
	default:
		b.WriteString(strings.TrimRight(f.Problems, "\n") + "\n")
	}
	if len(f.Fixes) > 0 {
		b.WriteString("\nWhile reading your reply, Weft repaired or dropped these parts of it. If something you meant was dropped, put it back in a correct form:\n")
		for i, x := range f.Fixes {
			if i == maxFixes {
				fmt.Fprintf(&b, "- … and %d more\n", len(f.Fixes)-i)
				break
			}
			b.WriteString("- " + x + "\n")
		}
	}
	if h := strings.TrimSpace(f.Hint); h != "" {
		b.WriteString("\n" + h + "\n")
	}
	if a := strings.TrimSpace(f.Answer); a != "" {
		b.WriteString("\n" + a)
	}
	return b.String()
}

// Judge reads one reply: it keeps what it needs of it (the caller's own
// outcome) and says whether to go on. sent is the conversation the reply
// answers.
type Judge func(attempt int, reply llm.Reply, sent []llm.Message) Verdict

// Config is the loop's bound and what it reports.
type Config struct {
	// MaxRepairAttempts is the setting (Calls).
	MaxRepairAttempts int
	// Options go with every call.
	Options llm.Options
	// OnCall hears each call before it is made: reason is "" for the
	// first, else why the reply before it was asked again.
	OnCall func(attempt, max int, reason string)
	// Stop, when set, may end the loop before a re-ask (a token budget):
	// it returns why, or "".
	Stop func(run *Run, reply llm.Reply, feedback string) string
}

// Run is what the loop did.
type Run struct {
	Calls   int // model calls made
	Max     int // calls allowed
	Usage   llm.Usage
	Stopped string // why the loop ended early (Config.Stop), if it did
	// OK says the last reply was usable.
	OK bool
}

// Ask runs the loop over msgs (which it copies). An error is the
// transport's, the server's or the context's: never counted as an
// attempt, since nothing the model wrote was judged.
//
// A re-ask is the first request plus the feedback on the last reply, and
// nothing else: the unusable replies are not sent back (the feedback
// quotes what of one the model needs: where it failed, what was
// dropped), so a re-ask costs the first request's tokens plus its
// feedback's, whatever the replies held and however many came before.
func Ask(ctx context.Context, client llm.Client, msgs []llm.Message, cfg Config, judge Judge) (*Run, error) {
	run := &Run{Max: Calls(cfg.MaxRepairAttempts)}
	first := slices.Clip(append([]llm.Message(nil), msgs...))
	msgs = first
	reason := ""
	for n := 1; n <= run.Max; n++ {
		if err := ctx.Err(); err != nil {
			return run, err
		}
		if cfg.OnCall != nil {
			cfg.OnCall(n, run.Max, reason)
		}
		reply, err := client.Chat(ctx, msgs, cfg.Options)
		if err != nil {
			if ctx.Err() != nil {
				return run, ctx.Err()
			}
			return run, err
		}
		run.Calls++
		run.Usage.PromptTokens += reply.Usage.PromptTokens
		run.Usage.CompletionTokens += reply.Usage.CompletionTokens
		run.Usage.TotalTokens += reply.Usage.TotalTokens
		v := judge(n, reply, msgs)
		run.OK = v.OK
		if v.OK || n == run.Max || v.Feedback == nil {
			break
		}
		text := v.Feedback.Text(n, run.Max)
		if cfg.Stop != nil {
			if why := cfg.Stop(run, reply, text); why != "" {
				run.Stopped = why
				break
			}
		}
		reason = v.Reason
		msgs = append(first, llm.Message{Role: llm.RoleUser, Content: text})
	}
	return run, nil
}

// Clip cuts s to n bytes at a rune boundary, saying how much it left out:
// how a model is shown a long text.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n…[%d more bytes not shown]", len(s)-cut)
}
