package assistant

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/weft-dev/weft/backend/appdirs"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/weft-dev/weft/backend/atomicfile"
	"github.com/weft-dev/weft/backend/weftdir"
)

// ChatFormat tags every saved conversation.
const ChatFormat = "weft-chat/v1"

// maxChatFile bounds what LoadChat reads.
const maxChatFile = 32 << 20

// Chat roles.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// ChatMessage is one turn of a conversation, as saved and as shown.
type ChatMessage struct {
	Role    string    `json:"role"` // "user" or "assistant"
	Content string    `json:"content"`
	Time    time.Time `json:"time,omitzero"`
	// Assistant turns: what the reply proposed.
	Kind  Kind           `json:"kind,omitempty"`
	Patch *WorkflowPatch `json:"patch,omitempty"`
	Valid *bool          `json:"valid,omitempty"`
}

// Conversation is the chat beside one workflow. Summary stands for the
// first SummaryCovers messages, so older turns are summarised once, not on
// every message.
type Conversation struct {
	Format        string        `json:"format"`
	WorkflowID    string        `json:"workflow_id"`
	Messages      []ChatMessage `json:"messages"`
	Summary       string        `json:"summary,omitempty"`
	SummaryCovers int           `json:"summary_covers,omitempty"`
}

// NewConversation returns an empty conversation for a workflow.
func NewConversation(workflowID string) *Conversation {
	return &Conversation{Format: ChatFormat, WorkflowID: workflowID, Messages: []ChatMessage{}}
}

// clone copies the conversation deeply enough that appending to or
// summarising the copy leaves the original alone.
func (c *Conversation) clone() *Conversation {
	if c == nil {
		return NewConversation("")
	}
	d := *c
	d.Messages = append([]ChatMessage(nil), c.Messages...)
	return &d
}

// ChatPath says where the conversation of a workflow lives: in the .weft
// folder beside its file (notes.weft.json → .weft/chats/notes.weft.chat.json,
// kept out of git by .weft's own .gitignore) or, for a workflow never
// saved, in $XDG_DATA_HOME/weft/chats/<workflow id>.chat.json.
//
// A chat an earlier Weft saved beside the file (notes.weft.chat.json) is
// moved there, unless one is there already (then both are kept).
func ChatPath(workflowFile, workflowID string) (string, error) {
	if workflowFile != "" {
		dir, err := weftdir.Beside(workflowFile)
		if err != nil {
			return "", fmt.Errorf("locate chat file: %w", err)
		}
		name := strings.TrimSuffix(filepath.Base(workflowFile), ".json") + ".chat.json"
		p := filepath.Join(dir, "chats", name)
		if err := adoptOldChat(strings.TrimSuffix(workflowFile, ".json")+".chat.json", p); err != nil {
			return "", err
		}
		return p, nil
	}
	if workflowID == "" || strings.ContainsAny(workflowID, `/\`) || workflowID == "." || workflowID == ".." {
		return "", fmt.Errorf("chat path: workflow id %q cannot name a file", workflowID)
	}
	p, err := appdirs.DataFile("chats", workflowID+".chat.json")
	if err != nil {
		return "", fmt.Errorf("locate chat file: %w", err)
	}
	// Chats quote workflows and run outputs: their folder is the user's
	// alone (0700), tightened if an earlier Weft made it open.
	if err := atomicfile.PrivateDir(filepath.Dir(p)); err != nil {
		return "", fmt.Errorf("chat folder: %w", err)
	}
	return p, nil
}

// adoptOldChat moves a chat saved beside its workflow to p, if there is
// one and p does not exist yet.
func adoptOldChat(old, p string) error {
	st, err := os.Lstat(old)
	if err != nil || !st.Mode().IsRegular() {
		return nil // none (or not a file Weft wrote): nothing to move
	}
	if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err := weftdir.Prepare(filepath.Dir(p)); err != nil {
		return fmt.Errorf("chat folder: %w", err)
	}
	if err := os.Rename(old, p); err != nil {
		return fmt.Errorf("move the chat %s into %s: %w", old, filepath.Dir(p), err)
	}
	return os.Chmod(p, 0o600)
}

// LoadChat reads a saved conversation. A missing file is an empty
// conversation. A corrupt one (bad JSON, wrong format, too big) is moved
// aside to <path>.corrupt-<time> with a warning and an empty conversation
// is returned: a broken chat never stops the user. Only a file that cannot
// be read at all is an error.
func LoadChat(path, workflowID string) (*Conversation, []Warning, error) {
	fresh := NewConversation(workflowID)
	f, _, err := atomicfile.OpenFile(path, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return fresh, nil, nil
	}
	if err != nil {
		return fresh, nil, fmt.Errorf("read chat: %w", err)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxChatFile+1))
	f.Close()
	if err != nil {
		return fresh, nil, fmt.Errorf("read chat %s: %w", path, err)
	}
	var c Conversation
	var problem string
	switch {
	case len(data) > maxChatFile:
		problem = fmt.Sprintf("it is over the %d byte limit", maxChatFile)
	default:
		if err := json.Unmarshal(data, &c); err != nil {
			problem = "it is not valid JSON: " + err.Error()
		} else if c.Format != ChatFormat {
			problem = fmt.Sprintf("its format is %q, not %q", c.Format, ChatFormat)
		}
	}
	if problem == "" {
		if c.Messages == nil {
			c.Messages = []ChatMessage{}
		}
		if c.SummaryCovers < 0 || c.SummaryCovers > len(c.Messages) {
			c.Summary, c.SummaryCovers = "", 0
		}
		if c.WorkflowID == "" {
			c.WorkflowID = workflowID
		}
		return &c, nil, nil
	}
	msg := fmt.Sprintf("the chat history %s could not be read (%s); starting a new conversation", path, problem)
	if dst, err := atomicfile.MoveAside(path, time.Now()); err != nil {
		msg += "; moving it aside failed: " + err.Error()
	} else {
		msg += "; the old file is kept as " + dst
	}
	return fresh, []Warning{{Stage: StageHistory, Message: msg}}, nil
}

// SaveChat writes the conversation atomically, readable only by the user
// (chats quote workflows and run outputs). In a .weft folder, the folders
// it makes are private and .weft gets its .gitignore.
func SaveChat(path string, c *Conversation) error {
	if c.Format == "" {
		c.Format = ChatFormat
	}
	if weftdir.Within(path) {
		if err := weftdir.Prepare(filepath.Dir(path)); err != nil {
			return fmt.Errorf("save chat: %w", err)
		}
	}
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return fmt.Errorf("encode chat: %w", err)
	}
	if err := atomicfile.WriteFile(path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("save chat: %w", err)
	}
	return nil
}
