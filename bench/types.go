package bench

// The Go shapes of the payloads, for the peers' decode-into-struct step.

// ReadFileArgs is small.json.
type ReadFileArgs struct {
	Path   string `json:"path"`
	Offset int    `json:"offset,omitempty"`
	Limit  int    `json:"limit,omitempty"`
}

// GrepArgs is medium.json.
type GrepArgs struct {
	Pattern         string `json:"pattern"`
	Path            string `json:"path,omitempty"`
	Glob            string `json:"glob,omitempty"`
	CaseInsensitive bool   `json:"case_insensitive,omitempty"`
	OutputMode      string `json:"output_mode,omitempty"`
	ContextLines    int    `json:"context_lines,omitempty"`
	MaxResults      int    `json:"max_results,omitempty"`
	Multiline       bool   `json:"multiline,omitempty"`
}

// EditArgs is nested.json.
type EditArgs struct {
	Path  string `json:"path"`
	Edits []Edit `json:"edits"`
}

// Edit is one exact-text replacement.
type Edit struct {
	OldText    string `json:"old_text"`
	NewText    string `json:"new_text"`
	ReplaceAll bool   `json:"replace_all,omitempty"`
}

// NewArgs returns a fresh pointer to the Go shape of the named payload.
func NewArgs(name string) any {
	switch name {
	case "small":
		return new(ReadFileArgs)
	case "medium":
		return new(GrepArgs)
	}
	return new(EditArgs)
}
