// Package readme holds the test that keeps README.md honest: every Go code
// block in it must be an exact excerpt of a file that the module compiles
// and tests, and its shell commands are run on a fresh clone.
package readme
