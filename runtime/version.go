package runtime

// EnforceVersion is the compile-time handshake between generated code and
// this package, for generated code only. A generated file declares
//
//	const _ = runtime.EnforceVersion(V - runtime.MinGeneratedVersion)
//	const _ = runtime.EnforceVersion(runtime.MaxGeneratedVersion - V)
//
// for the version V of the generator that wrote it; an unsigned constant
// cannot be negative, so a file written for a version this runtime does not
// support fails to compile instead of misbehaving at run time.
type EnforceVersion uint

// The generated-code versions this runtime supports.
const (
	// GeneratedVersion is the version the matching toolgen writes.
	GeneratedVersion = 1
	// MinGeneratedVersion is the oldest generated code this runtime accepts.
	MinGeneratedVersion = 1
	// MaxGeneratedVersion is the newest generated code this runtime accepts.
	MaxGeneratedVersion = 1
)
