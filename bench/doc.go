// Package bench measures toolgen against the floor and its peers on the
// shared payloads (../shared/bench: read_file, grep, edit). It is a module of
// its own so that the peers it compares against (santhosh-tekuri/jsonschema,
// google/jsonschema-go) never enter toolgen's go.mod.
//
// Run it with "make bench" from the repository root; bench/README.md holds
// the figures and how to read them.
package bench
