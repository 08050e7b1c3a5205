package approval

import "github.com/weft-dev/weft/backend/canonpath"

// Canonical is the one name of the file at path that approvals and trust
// are recorded under (canonpath.Of: absolute, cleaned, symbolic links
// resolved), so two spellings of one file share their approvals and a link
// elsewhere does not. "" stays "" (an unsaved workflow).
func Canonical(path string) string { return canonpath.Of(path) }
