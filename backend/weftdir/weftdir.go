// Package weftdir is the folder Weft keeps beside a saved workflow,
// .weft: its run folders (.weft/runs) and chats (.weft/chats). They quote
// outputs and conversations, so the folder is the user's alone and stays
// out of git: Weft gives it a .gitignore of its own when it makes it.
package weftdir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/weft-dev/weft/backend/atomicfile"
)

// Name is the folder's name.
const Name = ".weft"

// gitignoreText keeps everything in .weft out of git.
const gitignoreText = "# Written by Weft: run folders and chats stay out of git.\n*\n"

// Beside returns the .weft folder beside the workflow file path (made
// absolute), without creating it.
func Beside(workflowPath string) (string, error) {
	abs, err := filepath.Abs(workflowPath)
	if err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(abs), Name), nil
}

// Prepare makes dir, a folder in a .weft folder (.weft/chats), private
// (0700, parents it creates too) and gives its .weft folder a .gitignore
// (see IgnoreInGit). A dir in no .weft folder is only made private.
func Prepare(dir string) error {
	if err := atomicfile.PrivateDir(dir); err != nil {
		return err
	}
	return IgnoreInGit(dir)
}

// IgnoreInGit gives the .weft folder dir is, or is in (up to two levels
// up: .weft/runs/<id>), a .gitignore that ignores everything in it, so
// `git add -A` beside a workflow stages nothing of it. A .gitignore
// already there, the user's or Weft's, is never replaced. Folders
// further up are not looked at.
func IgnoreInGit(dir string) error {
	for i, d := 0, dir; i < 3; i, d = i+1, filepath.Dir(d) {
		if filepath.Base(d) != Name {
			continue
		}
		f, err := os.OpenFile(filepath.Join(d, ".gitignore"), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if errors.Is(err, fs.ErrExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("keep %s out of git: %w", d, err)
		}
		_, err = f.WriteString(gitignoreText)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("keep %s out of git: %w", d, err)
		}
		return nil
	}
	return nil
}

// Within reports whether path lies directly in a folder of a .weft folder
// (.weft/chats/x.chat.json) or in the .weft folder itself.
func Within(path string) bool {
	d := filepath.Dir(path)
	return filepath.Base(d) == Name || filepath.Base(filepath.Dir(d)) == Name
}
