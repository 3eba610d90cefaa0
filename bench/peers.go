package bench

import (
	"bytes"
	"encoding/json"
	"fmt"

	gjs "github.com/google/jsonschema-go/jsonschema"
	sjs "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/schemasubset"
)

// Validators holds one payload's schema compiled by toolgen and each peer.
type Validators struct {
	Subset   *schemasubset.Node
	Santhosh *sjs.Schema
	Google   *gjs.Resolved
}

// Compile compiles schema for every implementation.
func Compile(schema []byte) (*Validators, error) {
	var v Validators
	var err error
	if v.Subset, err = schemasubset.Parse(schema); err != nil {
		return nil, fmt.Errorf("schemasubset: %w", err)
	}
	doc, err := sjs.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, err
	}
	c := sjs.NewCompiler()
	if err := c.AddResource("schema.json", doc); err != nil {
		return nil, err
	}
	if v.Santhosh, err = c.Compile("schema.json"); err != nil {
		return nil, fmt.Errorf("santhosh-tekuri: %w", err)
	}
	var s gjs.Schema
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, err
	}
	if v.Google, err = s.Resolve(nil); err != nil {
		return nil, fmt.Errorf("google: %w", err)
	}
	return &v, nil
}

// SubsetPath is toolgen's path: materialize once, then validate.
func (v *Validators) SubsetPath(raw []byte) error {
	val, err := jsonvalue.Materialize(raw)
	if err != nil {
		return err
	}
	return schemasubset.Validate(v.Subset, val)
}

// SanthoshPath is santhosh-tekuri/jsonschema's path: its own decode to any,
// then Validate.
func (v *Validators) SanthoshPath(raw []byte) error {
	inst, err := sjs.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	return v.Santhosh.Validate(inst)
}

// GooglePath is google/jsonschema-go's path (what the MCP Go SDK uses):
// encoding/json decode to any, then Validate.
func (v *Validators) GooglePath(raw []byte) error {
	var inst any
	if err := json.Unmarshal(raw, &inst); err != nil {
		return err
	}
	return v.Google.Validate(inst)
}
