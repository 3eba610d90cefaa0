package mcpclient_test

import (
	"encoding/json"
	"testing"

	"github.com/toolgen-go/toolgen/runtime/mcpclient"
)

// FuzzImportSchema feeds arbitrary server schemas to the import policy: it
// must never panic, and an imported schema must import again unchanged,
// with nothing left to drop.
func FuzzImportSchema(f *testing.F) {
	for _, s := range []string{
		`{"$schema":"x","type":"object","properties":{"a":{"type":"string","format":"email"}}}`,
		`{"type":"array","items":{"oneOf":[{"type":"string","$comment":"c"},{"type":"null"}]}}`,
		`{"type":"integer","minimum":0}`,
		`{"properties":{"~/":{"format":"x"}}}`,
		`[]`, `{`, `{"type":"number","enum":[1e400,1.0]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		n, _, err := mcpclient.ImportSchema(json.RawMessage(data))
		if err != nil {
			return
		}
		first, err := n.MarshalJSON()
		if err != nil {
			t.Fatalf("an imported node does not marshal: %v", err)
		}
		again, notes, err := mcpclient.ImportSchema(json.RawMessage(first))
		if err != nil {
			t.Fatalf("re-importing %s: %v", first, err)
		}
		if len(notes) > 0 {
			t.Fatalf("re-importing %s dropped %v", first, notes)
		}
		if !again.Equal(n) {
			t.Fatalf("re-importing %s changed it", first)
		}
	})
}
