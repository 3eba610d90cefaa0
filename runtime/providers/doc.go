// Package providers turns the tool schemas a [runtime.Runtime] presents to a
// model into the function-calling tool declarations of model providers'
// APIs: JSON ready to embed in a request body, built with plain byte
// appends (no provider SDK).
//
//	schemas := rt.Schemas(agent)
//	chat, err := providers.OpenAIChat(schemas)            // Chat Completions "tools" entries
//	resp, err := providers.OpenAIResponses(schemas)       // Responses API "tools" entries
//	claude, err := providers.Anthropic(schemas)           // Messages API "tools" entries
//	gemini, err := providers.Gemini(schemas)              // one Gemini "tools" entry
//	strict, err := providers.OpenAIChat(schemas, providers.Strict())
//
// OpenAIChat, OpenAIResponses and Anthropic return one [json.RawMessage] per
// tool, in the order given, for the request's "tools" array; Gemini returns
// the single tools entry {"functionDeclarations":[...]} that holds them all.
// Names and descriptions are sent as they are, and every parameter schema
// is the canonical JSON of its [schemasubset.Node] (see
// [schemasubset.Node.MarshalJSON]), byte for byte: member order, number
// text, descriptions and every annotation are kept. (OpenAI strict mode,
// below, is the one exception: it sends a converted schema.) A provider
// that reads only part of JSON Schema (Gemini documents that it reads oneOf
// as anyOf and ignores some keywords) still gets the whole schema, and the
// runtime validates every call against the tool's own schema regardless.
// Embedding the messages with encoding/json keeps their meaning but escapes
// '<', '>' and '&' inside strings; use a json.Encoder with
// SetEscapeHTML(false) (or append the bytes yourself) to keep them exact.
//
// # Failures
//
// A declaration function either declares every tool or returns an [*Error]
// listing every problem of every tool: names a provider does not accept
// (OpenAI and Anthropic take ^[a-zA-Z0-9_-]{1,64}$, while toolgen names may
// hold '.' and run to 128 characters), names declared twice, parameter
// schemas that are not object-rooted subset schemas, and, in OpenAI strict
// mode, every place a schema cannot be made strict, each named by the JSON
// Pointer of the place inside the parameter schema. Nothing is dropped or
// rewritten silently.
//
// # OpenAI strict mode
//
// Without options neither OpenAI format asks for strict mode: Chat
// Completions leaves "strict" out (its default is false) and the Responses
// API, whose function tools require the field, says "strict":false. With
// [Strict] both say "strict":true and send a schema converted to the subset
// Structured Outputs accepts, or fail. The conversion changes only what it
// can change without changing which arguments the tool accepts:
//
//   - The parameter root gets "additionalProperties":false when it has no
//     additionalProperties keyword. toolgen roots are open so that unknown
//     top-level keys are accepted and ignored; under strict mode the model
//     just cannot send such keys, and no value the tool acts on is lost. A
//     root that says "additionalProperties":true explicitly, and every
//     nested object that is not already closed, is an error: there extra
//     members may mean something.
//   - oneOf becomes anyOf, which is all strict mode offers, when no value
//     can match two branches: branches of different JSON types (a nullable
//     value), enum or const values no other branch accepts, or objects told
//     apart by a required property. Where two branches may overlap, where
//     oneOf sits beside "type", and at the root, it is an error.
//   - A schema without a type (json.RawMessage, an annotation-only schema)
//     and an array without items accept values strict mode cannot describe:
//     errors.
//   - An optional property is an error: strict mode requires every property
//     to be listed in "required", and requiring it would change what the
//     tool accepts. [OptionalAsNull] instead sends it as required with
//     {"anyOf":[schema,{"type":"null"}]}, as OpenAI recommends, and
//     [RestoreOptional] turns the model's null back into an absent member
//     before the call runs.
//   - Annotations (title, description, default, examples), enum and const
//     are kept as they are. api.openai.com accepts default in strict
//     schemas; Azure OpenAI has been reported to reject it
//     (openai/openai-agents-python#4390).
//
// Structured Outputs' size limits (property count, nesting depth, total
// string and enum sizes) are left to the provider to enforce.
package providers
