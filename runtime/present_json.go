package runtime

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolgen-go/toolgen/jsonvalue"
)

// The JSON of the presentation views. Encoding writes each card's own
// fields in a fixed order, required fields always (offset and lines of a
// read card, truncated and total of a search card, the result list of its
// shape, truncated and the kind's fields of a web card, oldText of a diff
// even when null). Decoding is strict: member names are matched exactly,
// unknown members, members of another card, duplicate members and missing
// required members are errors, and the decoded view must pass Check.

// MarshalJSON encodes the card with its "card" discriminator.
func (v ToolCallView) MarshalJSON() ([]byte, error) {
	if err := v.Check(); err != nil {
		return nil, err
	}
	e := encoder{b: []byte{'{'}}
	e.str("card", string(v.Card))
	e.str("title", v.Title)
	switch v.Card {
	case CallGeneric:
		e.optStr("kind", string(v.Kind))
		if v.RawInput != nil {
			e.raw("rawInput", v.RawInput)
		}
		if v.Content != nil {
			e.blocks("content", v.Content)
		}
		if v.Locations != nil {
			e.locations(v.Locations)
		}
	case CallTerminal:
		e.optStr("description", v.Description)
		e.optStr("cwd", v.Cwd)
	case CallDiff:
		e.diffs(v.Diffs)
		if v.Locations != nil {
			e.locations(v.Locations)
		}
	}
	return e.done()
}

// UnmarshalJSON decodes a call card strictly.
func (v *ToolCallView) UnmarshalJSON(data []byte) error {
	var out ToolCallView
	err := decodeCard(data, "tool call view", func(card string) (fields, []string, error) {
		out.Card = CallCard(card)
		f := fields{"card": skip, "title": readString(&out.Title)}
		switch out.Card {
		case CallGeneric:
			f["kind"] = func(r *jsonvalue.Reader) error { out.Kind = ToolCallKind(r.ReadString()); return r.Err() }
			f["rawInput"] = func(r *jsonvalue.Reader) error { out.RawInput = r.ReadValue().Clone(); return r.Err() }
			f["content"] = readBlocks(&out.Content)
			f["locations"] = readLocations(&out.Locations)
		case CallTerminal:
			f["description"] = readString(&out.Description)
			f["cwd"] = readString(&out.Cwd)
		case CallDiff:
			f["diffs"] = readDiffs(&out.Diffs)
			f["locations"] = readLocations(&out.Locations)
			return f, []string{"title", "diffs"}, nil
		default:
			return nil, nil, fmt.Errorf("unknown call card %q", card)
		}
		return f, []string{"title"}, nil
	})
	if err != nil {
		return err
	}
	if err := out.Check(); err != nil {
		return fmt.Errorf("tool call view: %w", err)
	}
	*v = out
	return nil
}

// MarshalJSON encodes the card with its "card" discriminator and exactly
// its own fields.
func (v ToolResultView) MarshalJSON() ([]byte, error) {
	if err := v.Check(); err != nil {
		return nil, err
	}
	e := encoder{b: []byte{'{'}}
	e.str("card", string(v.Card))
	switch v.Card {
	case ResultSearch:
		e.str("shape", string(v.Shape))
	case ResultWeb:
		e.str("kind", string(v.Web))
	}
	e.optStr("title", v.Title)
	switch v.Card {
	case ResultGeneric:
		if v.Content != nil {
			e.blocks("content", v.Content)
		}
	case ResultTerminal:
		if v.Output != nil {
			e.str("output", *v.Output)
		}
		if v.ExitCode != nil {
			e.int("exitCode", *v.ExitCode)
		}
		e.optStr("signal", v.Signal)
	case ResultDiff:
		e.diffs(v.Diffs)
	case ResultSearch:
		e.bool("truncated", v.Truncated)
		e.int("total", v.Total)
		if v.Shape == ShapeMatches {
			e.list("matches", len(v.Files), func(i int) {
				f := v.Files[i]
				e.open()
				e.str("path", f.Path)
				e.list("matches", len(f.Matches), func(j int) {
					e.open()
					e.int("line", f.Matches[j].Line)
					e.str("text", f.Matches[j].Text)
					e.close()
				})
				e.close()
			})
		} else {
			e.list("paths", len(v.Paths), func(i int) { e.item(); e.quote(v.Paths[i]) })
		}
	case ResultRead:
		e.str("path", v.Path)
		e.int("offset", v.Offset)
		e.list("lines", len(v.Lines), func(i int) {
			e.open()
			e.int("number", v.Lines[i].Number)
			e.str("text", v.Lines[i].Text)
			e.close()
		})
		e.int("totalLines", v.TotalLines)
		e.optStr("lang", v.Lang)
		e.optStr("content", v.Text)
	case ResultWeb:
		if v.Web == WebSearch {
			e.list("sources", len(v.Sources), func(i int) {
				s := v.Sources[i]
				e.open()
				e.optStr("title", s.Title)
				e.str("url", s.URL)
				e.optStr("snippet", s.Snippet)
				e.close()
			})
			e.optStr("answer", v.Answer)
		} else {
			e.str("url", v.URL)
			e.int("statusCode", v.StatusCode)
		}
		e.bool("truncated", v.Truncated)
	}
	return e.done()
}

// UnmarshalJSON decodes a result card strictly.
func (v *ToolResultView) UnmarshalJSON(data []byte) error {
	var out ToolResultView
	err := decodeCard(data, "tool result view", func(card string) (fields, []string, error) {
		out.Card = ResultCard(card)
		f := fields{"card": skip, "title": readString(&out.Title)}
		var required []string
		switch out.Card {
		case ResultGeneric:
			f["content"] = readBlocks(&out.Content)
		case ResultTerminal:
			f["output"] = func(r *jsonvalue.Reader) error { s := r.ReadString(); out.Output = &s; return r.Err() }
			f["exitCode"] = func(r *jsonvalue.Reader) error { n, err := readInt(r); out.ExitCode = &n; return err }
			f["signal"] = readString(&out.Signal)
		case ResultDiff:
			f["diffs"] = readDiffs(&out.Diffs)
			required = []string{"diffs"}
		case ResultSearch:
			f["shape"] = func(r *jsonvalue.Reader) error { out.Shape = SearchShape(r.ReadString()); return r.Err() }
			f["truncated"] = readBool(&out.Truncated)
			f["total"] = readIntInto(&out.Total)
			f["matches"] = func(r *jsonvalue.Reader) error {
				out.Files = []SearchFile{}
				return readList(r, func() error {
					var sf SearchFile
					err := readStruct(r, "search file", fields{
						"path": readString(&sf.Path),
						"matches": func(r *jsonvalue.Reader) error {
							sf.Matches = []SearchMatch{}
							return readList(r, func() error {
								var m SearchMatch
								err := readStruct(r, "search match", fields{"line": readIntInto(&m.Line), "text": readString(&m.Text)}, "line", "text")
								sf.Matches = append(sf.Matches, m)
								return err
							})
						},
					}, "path", "matches")
					out.Files = append(out.Files, sf)
					return err
				})
			}
			f["paths"] = func(r *jsonvalue.Reader) error {
				out.Paths = []string{}
				return readList(r, func() error { out.Paths = append(out.Paths, r.ReadString()); return r.Err() })
			}
			required = []string{"shape", "truncated", "total"}
		case ResultRead:
			f["path"] = readString(&out.Path)
			f["offset"] = readIntInto(&out.Offset)
			f["lines"] = func(r *jsonvalue.Reader) error {
				out.Lines = []ReadFileLine{}
				return readList(r, func() error {
					var l ReadFileLine
					err := readStruct(r, "line", fields{"number": readIntInto(&l.Number), "text": readString(&l.Text)}, "number", "text")
					out.Lines = append(out.Lines, l)
					return err
				})
			}
			f["totalLines"] = readIntInto(&out.TotalLines)
			f["lang"] = readString(&out.Lang)
			f["content"] = readString(&out.Text)
			required = []string{"path", "offset", "lines", "totalLines"}
		case ResultWeb:
			f["kind"] = func(r *jsonvalue.Reader) error { out.Web = WebKind(r.ReadString()); return r.Err() }
			f["truncated"] = readBool(&out.Truncated)
			f["sources"] = func(r *jsonvalue.Reader) error {
				out.Sources = []WebSource{}
				return readList(r, func() error {
					var s WebSource
					err := readStruct(r, "source", fields{"title": readString(&s.Title), "url": readString(&s.URL), "snippet": readString(&s.Snippet)}, "url")
					out.Sources = append(out.Sources, s)
					return err
				})
			}
			f["answer"] = readString(&out.Answer)
			f["url"] = readString(&out.URL)
			f["statusCode"] = readIntInto(&out.StatusCode)
			required = []string{"kind", "truncated"}
		default:
			return nil, nil, fmt.Errorf("unknown result card %q", card)
		}
		return f, required, nil
	})
	if err != nil {
		return err
	}
	if err := out.checkDecoded(data); err != nil {
		return fmt.Errorf("tool result view: %w", err)
	}
	if err := out.Check(); err != nil {
		return fmt.Errorf("tool result view: %w", err)
	}
	*v = out
	return nil
}

// checkDecoded enforces the members that are required only for one shape
// or kind, which the card's field table cannot express.
func (v ToolResultView) checkDecoded(data []byte) error {
	need := func(name string, present bool) error {
		if !present {
			return fmt.Errorf("%s card: missing member %q", v.Card, name)
		}
		return nil
	}
	switch {
	case v.Card == ResultSearch && v.Shape == ShapeMatches:
		return need("matches", v.Files != nil)
	case v.Card == ResultSearch && v.Shape == ShapePaths:
		return need("paths", v.Paths != nil)
	case v.Card == ResultWeb && v.Web == WebSearch:
		return need("sources", v.Sources != nil)
	case v.Card == ResultWeb && v.Web == WebFetch:
		if err := need("url", v.URL != ""); err != nil {
			return err
		}
		return need("statusCode", hasMember(data, "statusCode"))
	}
	return nil
}

// hasMember reports whether the top-level object data has a member name.
func hasMember(data []byte, name string) bool {
	v, err := jsonvalue.Materialize(data)
	if err != nil {
		return false
	}
	r := jsonvalue.NewReader(v)
	r.BeginObject()
	for {
		n, ok := r.NextName()
		if !ok {
			return false
		}
		if string(n) == name {
			return true
		}
		r.ReadValue()
	}
}

// fields maps the member names of an object to their readers.
type fields map[string]func(r *jsonvalue.Reader) error

func skip(r *jsonvalue.Reader) error { r.ReadValue(); return r.Err() }

// decodeCard materializes data, reads its "card" member, asks table for the
// card's members, and reads the object with them.
func decodeCard(data []byte, what string, table func(card string) (fields, []string, error)) error {
	v, err := jsonvalue.Materialize(data)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	card, err := cardOf(v)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	f, required, err := table(card)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	r := jsonvalue.NewReader(v)
	if err := readStruct(r, card+" card", f, required...); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// cardOf returns the string value of the "card" member of the object v.
func cardOf(v jsonvalue.Value) (string, error) {
	r := jsonvalue.NewReader(v)
	if !r.BeginObject() {
		return "", errors.New("a view must be a JSON object")
	}
	for {
		name, ok := r.NextName()
		if !ok {
			return "", errors.New(`missing member "card"`)
		}
		if string(name) != "card" {
			r.ReadValue()
			continue
		}
		if r.Peek() != jsonvalue.KindString {
			return "", errors.New(`"card" must be a string`)
		}
		return r.ReadString(), nil
	}
}

// readStruct reads one object with the given members, exactly named.
func readStruct(r *jsonvalue.Reader, what string, f fields, required ...string) error {
	if !r.BeginObject() {
		return fmt.Errorf("%s: want an object: %w", what, r.Err())
	}
	seen := map[string]bool{}
	for {
		name, ok := r.NextName()
		if !ok {
			break
		}
		key := jsonvalue.Unescape(name)
		read, known := f[key]
		if !known {
			return fmt.Errorf("%s: unknown member %q", what, key)
		}
		seen[key] = true
		if err := read(r); err != nil {
			return fmt.Errorf("%s: %q: %w", what, key, err)
		}
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	for _, name := range required {
		if !seen[name] {
			return fmt.Errorf("%s: missing member %q", what, name)
		}
	}
	return nil
}

// readList reads an array, calling item for each element.
func readList(r *jsonvalue.Reader, item func() error) error {
	if !r.BeginArray() {
		return r.Err()
	}
	for r.NextElement() {
		if err := item(); err != nil {
			return err
		}
	}
	return r.Err()
}

func readString(dst *string) func(*jsonvalue.Reader) error {
	return func(r *jsonvalue.Reader) error { *dst = r.ReadString(); return r.Err() }
}

func readBool(dst *bool) func(*jsonvalue.Reader) error {
	return func(r *jsonvalue.Reader) error { *dst = r.ReadBool(); return r.Err() }
}

func readIntInto(dst *int) func(*jsonvalue.Reader) error {
	return func(r *jsonvalue.Reader) (err error) { *dst, err = readInt(r); return err }
}

// readInt reads a number that must be an integer in int range, spelled
// plainly.
func readInt(r *jsonvalue.Reader) (int, error) {
	text := r.ReadNumber()
	if err := r.Err(); err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(string(text))
	if err != nil {
		return 0, fmt.Errorf("want an integer, got %s", text)
	}
	return n, nil
}

func readBlocks(dst *[]ContentBlock) func(*jsonvalue.Reader) error {
	return func(r *jsonvalue.Reader) error {
		*dst = []ContentBlock{}
		return readList(r, func() error {
			var b ContentBlock
			if err := b.UnmarshalJSON(r.ReadValue()); err != nil {
				return err
			}
			*dst = append(*dst, b)
			return nil
		})
	}
}

func readLocations(dst *[]FileLocation) func(*jsonvalue.Reader) error {
	return func(r *jsonvalue.Reader) error {
		*dst = []FileLocation{}
		return readList(r, func() error {
			var l FileLocation
			err := readStruct(r, "location", fields{"path": readString(&l.Path), "line": readIntInto(&l.Line)}, "path")
			*dst = append(*dst, l)
			return err
		})
	}
}

func readDiffs(dst *[]FileDiff) func(*jsonvalue.Reader) error {
	return func(r *jsonvalue.Reader) error {
		*dst = []FileDiff{}
		return readList(r, func() error {
			var d FileDiff
			err := readStruct(r, "diff", fields{
				"path": readString(&d.Path),
				"oldText": func(r *jsonvalue.Reader) error {
					if r.Peek() == jsonvalue.KindNull {
						r.ReadNull()
						return r.Err()
					}
					s := r.ReadString()
					d.OldText = &s
					return r.Err()
				},
				"newText": readString(&d.NewText),
			}, "path", "oldText", "newText")
			*dst = append(*dst, d)
			return err
		})
	}
}

// encoder appends one JSON object's members; nested objects and arrays
// open and close within it.
type encoder struct {
	b   []byte
	err error
}

func (e *encoder) sep() {
	if len(e.b) > 0 {
		switch e.b[len(e.b)-1] {
		case '{', '[':
			return
		}
	}
	e.b = append(e.b, ',')
}

func (e *encoder) key(k string) {
	e.sep()
	e.quote(k)
	e.b = append(e.b, ':')
}

func (e *encoder) quote(s string) {
	var err error
	if e.b, err = jsontext.AppendQuote(e.b, s); err != nil && e.err == nil {
		e.err = fmt.Errorf("text is not valid UTF-8: %w", err)
	}
}

func (e *encoder) item()                  { e.sep() }
func (e *encoder) open()                  { e.sep(); e.b = append(e.b, '{') }
func (e *encoder) close()                 { e.b = append(e.b, '}') }
func (e *encoder) str(k, v string)        { e.key(k); e.quote(v) }
func (e *encoder) int(k string, v int)    { e.key(k); e.b = strconv.AppendInt(e.b, int64(v), 10) }
func (e *encoder) bool(k string, v bool)  { e.key(k); e.b = strconv.AppendBool(e.b, v) }
func (e *encoder) raw(k string, v []byte) { e.key(k); e.b = append(e.b, v...) }
func (e *encoder) optStr(k, v string) {
	if v != "" {
		e.str(k, v)
	}
}

func (e *encoder) list(k string, n int, item func(i int)) {
	e.key(k)
	e.b = append(e.b, '[')
	for i := range n {
		item(i)
	}
	e.b = append(e.b, ']')
}

func (e *encoder) blocks(k string, blocks []ContentBlock) {
	e.key(k)
	var err error
	if e.b, err = appendBlocks(e.b, blocks); err != nil && e.err == nil {
		e.err = err
	}
}

func (e *encoder) locations(ls []FileLocation) {
	e.list("locations", len(ls), func(i int) {
		e.open()
		e.str("path", ls[i].Path)
		if ls[i].Line != 0 {
			e.int("line", ls[i].Line)
		}
		e.close()
	})
}

func (e *encoder) diffs(ds []FileDiff) {
	e.list("diffs", len(ds), func(i int) {
		d := ds[i]
		e.open()
		e.str("path", d.Path)
		if d.OldText == nil {
			e.raw("oldText", []byte("null"))
		} else {
			e.str("oldText", *d.OldText)
		}
		e.str("newText", d.NewText)
		e.close()
	})
}

func (e *encoder) done() ([]byte, error) {
	if e.err != nil {
		return nil, e.err
	}
	return append(e.b, '}'), nil
}
