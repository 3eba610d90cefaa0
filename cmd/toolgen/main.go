package main

import (
	"os"

	"github.com/toolgen-go/toolgen/gen"
)

func main() {
	os.Exit(gen.Main(os.Args[1:], gen.Environ{}, os.Stdout, os.Stderr))
}
