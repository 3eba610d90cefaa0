package annotations

import (
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/toolgen-go/toolgen/jsonvalue"
	"github.com/toolgen-go/toolgen/schemasubset"
)

// ScalarJSON converts an enum=, const=, default= or example= text to the
// JSON value it stands for in a schema node of type t, the way
// invopop/jsonschema reads them:
//
//   - TypeString: the text verbatim as a JSON string;
//   - TypeInteger: a JSON integer literal (an optional '-', then digits
//     without leading zeros), kept verbatim;
//   - TypeNumber: a JSON number literal, kept verbatim;
//   - TypeBoolean: true or false.
//
// Any other type, or text that is not a valid literal of the type, gives an
// error saying what was expected.
func ScalarJSON(text string, t schemasubset.Type) (jsonvalue.Value, error) {
	switch t {
	case schemasubset.TypeString:
		if !utf8.ValidString(text) {
			return nil, fmt.Errorf("%q is not valid UTF-8; write the text in UTF-8", text)
		}
		return jsonvalue.String(text), nil
	case schemasubset.TypeInteger:
		if !isIntegerLiteral(text) {
			return nil, fmt.Errorf("%q is not an integer; write digits with an optional leading '-' and no leading zeros, such as 42", text)
		}
		return jsonvalue.Number(text)
	case schemasubset.TypeNumber:
		v, err := jsonvalue.Number(text)
		if err != nil {
			return nil, fmt.Errorf("%q is not a JSON number; write one such as 1.5, -2 or 3e8", text)
		}
		return v, nil
	case schemasubset.TypeBoolean:
		switch text {
		case "true":
			return jsonvalue.Bool(true), nil
		case "false":
			return jsonvalue.Bool(false), nil
		}
		return nil, fmt.Errorf("%q is not a boolean; write true or false", text)
	}
	return nil, errors.New("only string, number, integer and boolean fields take a value here; this field's schema " + describeType(t))
}

// describeType words the type of a schema node for messages.
func describeType(t schemasubset.Type) string {
	if t == schemasubset.TypeAny {
		return "has no type"
	}
	if name := t.String(); name != "" {
		return "has type " + name
	}
	return "has an unknown type"
}

// isIntegerLiteral reports whether s is a JSON integer literal: an optional
// '-' then 0 or a digit 1-9 followed by digits.
func isIntegerLiteral(s string) bool {
	if len(s) > 0 && s[0] == '-' {
		s = s[1:]
	}
	if s == "" || s[0] == '0' && len(s) > 1 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
