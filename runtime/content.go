package runtime

import (
	"encoding/base64"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toolgen-go/toolgen/jsonvalue"
)

// ContentType names the kind of a ContentBlock.
type ContentType string

// The content block types.
const (
	ContentText  ContentType = "text"
	ContentImage ContentType = "image"
)

// ContentBlock is one block of model-facing content: text, or an image as
// base64 data with its MIME type. JSON: {"type":"text","text":...} or
// {"type":"image","data":...,"mimeType":...}.
type ContentBlock struct {
	// Type is ContentText or ContentImage.
	Type ContentType
	// Text is the text of a text block.
	Text string
	// Data is the base64 (standard alphabet, padded) data of an image block.
	Data string
	// MimeType is the MIME type of an image block, such as "image/png".
	MimeType string
}

// Text returns a text block.
func Text(s string) ContentBlock { return ContentBlock{Type: ContentText, Text: s} }

// Image returns an image block holding data, encoded as base64.
func Image(data []byte, mimeType string) ContentBlock {
	return ContentBlock{Type: ContentImage, Data: base64.StdEncoding.EncodeToString(data), MimeType: mimeType}
}

// Check reports whether the block can be materialized losslessly: a known
// type, valid UTF-8 text, canonical base64 image data with a MIME type, and
// no fields of the other type.
func (b ContentBlock) Check() error {
	switch b.Type {
	case ContentText:
		if b.Data != "" || b.MimeType != "" {
			return errors.New("text block has image fields")
		}
		if !utf8.ValidString(b.Text) {
			return errors.New("text block is not valid UTF-8")
		}
	case ContentImage:
		if b.Text != "" {
			return errors.New("image block has text")
		}
		if b.MimeType == "" || !utf8.ValidString(b.MimeType) {
			return errors.New("image block needs a MIME type")
		}
		if _, err := base64.StdEncoding.Strict().DecodeString(b.Data); err != nil {
			return fmt.Errorf("image data is not base64: %w", err)
		}
	default:
		return fmt.Errorf("unknown content block type %q", b.Type)
	}
	return nil
}

// AppendJSON appends the block's JSON to dst after checking it.
func (b ContentBlock) AppendJSON(dst []byte) ([]byte, error) {
	if err := b.Check(); err != nil {
		return dst, err
	}
	if b.Type == ContentText {
		dst = append(dst, `{"type":"text","text":`...)
		dst, _ = jsontext.AppendQuote(dst, b.Text)
		return append(dst, '}'), nil
	}
	dst = append(dst, `{"type":"image","data":`...)
	dst, _ = jsontext.AppendQuote(dst, b.Data)
	dst = append(dst, `,"mimeType":`...)
	dst, _ = jsontext.AppendQuote(dst, b.MimeType)
	return append(dst, '}'), nil
}

// MarshalJSON encodes the block; a block that fails Check is an error.
func (b ContentBlock) MarshalJSON() ([]byte, error) { return b.AppendJSON(nil) }

// UnmarshalJSON decodes a block strictly: unknown types, unknown or
// duplicate fields and fields of the other type are errors.
func (b *ContentBlock) UnmarshalJSON(data []byte) error {
	v, err := jsonvalue.Materialize(data)
	if err != nil {
		return err
	}
	var out ContentBlock
	r := jsonvalue.NewReader(v)
	if !r.BeginObject() {
		return errors.New("content block must be an object")
	}
	for {
		name, ok := r.NextName()
		if !ok {
			break
		}
		var field *string
		switch string(name) {
		case "type":
			out.Type = ContentType(r.ReadString())
			continue
		case "text":
			field = &out.Text
		case "data":
			field = &out.Data
		case "mimeType":
			field = &out.MimeType
		default:
			return fmt.Errorf("content block has unknown field %q", jsonvalue.Unescape(name))
		}
		*field = r.ReadString()
	}
	if err := r.Done(); err != nil {
		return fmt.Errorf("content block: %w", err)
	}
	if err := out.Check(); err != nil {
		return err
	}
	*b = out
	return nil
}

// UserMessage is a user-role message a tool or policy attaches to a result,
// to reach the model with the next request (the seed's additional
// contexts): its content, where it came from, and optional metadata.
type UserMessage struct {
	// Content is the message's content.
	Content []ContentBlock
	// Source names who produced the message, such as a plugin or policy.
	Source string
	// Meta is optional lossless metadata.
	Meta jsonvalue.Value
}

// Role returns "user": the only role an attached context has.
func (m UserMessage) Role() string { return "user" }

// Check reports whether the message can be materialized losslessly.
func (m UserMessage) Check() error {
	for i, b := range m.Content {
		if err := b.Check(); err != nil {
			return fmt.Errorf("content[%d]: %w", i, err)
		}
	}
	if !utf8.ValidString(m.Source) {
		return errors.New("source is not valid UTF-8")
	}
	if m.Meta != nil && !m.Meta.Valid() {
		return errors.New("meta is not canonical JSON")
	}
	return nil
}

// MarshalJSON encodes {"role":"user","content":[...],"source":...,"meta":...}.
func (m UserMessage) MarshalJSON() ([]byte, error) {
	if err := m.Check(); err != nil {
		return nil, err
	}
	dst := []byte(`{"role":"user","content":`)
	dst, err := appendBlocks(dst, m.Content)
	if err != nil {
		return nil, err
	}
	if m.Source != "" {
		dst = append(dst, `,"source":`...)
		dst, _ = jsontext.AppendQuote(dst, m.Source)
	}
	if m.Meta != nil {
		dst = append(dst, `,"meta":`...)
		dst = append(dst, m.Meta...)
	}
	return append(dst, '}'), nil
}

// appendBlocks appends a JSON array of content blocks.
func appendBlocks(dst []byte, blocks []ContentBlock) ([]byte, error) {
	dst = append(dst, '[')
	for i, b := range blocks {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = b.AppendJSON(dst); err != nil {
			return dst, fmt.Errorf("content[%d]: %w", i, err)
		}
	}
	return append(dst, ']'), nil
}

// cloneBlocks returns a copy of blocks that shares no backing array.
func cloneBlocks(blocks []ContentBlock) []ContentBlock {
	if blocks == nil {
		return nil
	}
	return append([]ContentBlock(nil), blocks...)
}

// cloneMessages returns a deep copy of messages.
func cloneMessages(msgs []UserMessage) []UserMessage {
	if msgs == nil {
		return nil
	}
	out := make([]UserMessage, len(msgs))
	for i, m := range msgs {
		out[i] = UserMessage{Content: cloneBlocks(m.Content), Source: m.Source, Meta: m.Meta.Clone()}
	}
	return out
}
