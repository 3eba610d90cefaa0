// Package runtime holds toolgen's tool runtime: the Go rendering of the
// seed's tool types (ToolSchema, ToolDefinition, results and decisions), the
// registry every call goes through (global and agent-scoped registrations,
// shadowing, restrictions, guards, presentation modes, change
// notifications), and the provider-neutral presentation vocabulary of UI
// cards.
//
// One visibility resolver serves lookup (Get), presentation (Schemas),
// scheduling (ExecutionMode) and dispatch alike, so what a model is shown,
// what is classified and what runs are always the same definition.
//
// Generated code depends on this package; nothing on its hot path reflects.
package runtime
